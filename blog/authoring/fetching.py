"""Fetching an image from another site for an editor, without letting the fetch reach inside.

Only http and https, only to public addresses: every address a name resolves to is checked
before connecting, and the connection goes to the checked address (a name that answers
differently the second time cannot lead the fetch to a private one). Each redirect is
checked the same way, at most MAX_REDIRECTS of them; the whole fetch has FETCH_TIMEOUT
seconds and reads at most the image size limit.
"""

from __future__ import annotations

import concurrent.futures
import http.client
import ipaddress
import socket
import ssl
import time
from urllib.parse import urljoin, urlsplit

FETCH_TIMEOUT = 5.0  # seconds for the whole fetch, redirects included
MAX_REDIRECTS = 3
MAX_URL = 2000
REDIRECTS = {301, 302, 303, 307, 308}
CHUNK = 64 * 1024
# Name lookups run on these threads so that the fetch's deadline bounds them too: getaddrinfo
# takes no timeout, and a resolver that never answers would hold the editor's request (and
# its server worker) for as long as the system's resolver keeps retrying. A lookup past the
# deadline is left to finish here; four of them at once make later lookups wait their turn,
# within their own deadlines.
_RESOLVER = concurrent.futures.ThreadPoolExecutor(max_workers=4, thread_name_prefix="resolve")


class FetchRefused(ValueError):
    """A fetch that was refused or failed: `message` says why, `status` is the answer's."""

    def __init__(self, message: str, status: int = 422) -> None:
        super().__init__(message)
        self.message = message
        self.status = status


class _PinnedHTTP(http.client.HTTPConnection):
    """An HTTP connection to an address checked beforehand, naming the host as asked."""

    def __init__(self, host: str, port: int, address: str, timeout: float) -> None:
        super().__init__(host, port, timeout=timeout)
        self.address = address

    def connect(self) -> None:
        self.sock = socket.create_connection((self.address, self.port), self.timeout)


class _PinnedHTTPS(_PinnedHTTP):
    """The same over TLS, the certificate checked against the host name."""

    default_port = 443

    def connect(self) -> None:
        super().connect()
        self.sock = ssl.create_default_context().wrap_socket(self.sock, server_hostname=self.host)


def _allowed(address: str, loopback: bool) -> bool:
    """True for a public address (or a loopback one, when the tests allow it)."""
    ip = ipaddress.ip_address(address.split("%", 1)[0])
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    if ip.is_loopback:
        return loopback
    return ip.is_global and not ip.is_multicast


def _address_of(host: str, port: int, loopback: bool, deadline: float) -> str:
    """The address to connect to for `host`; refused when any it names is not public, or
    when the name is not found by the deadline."""
    lookup = _RESOLVER.submit(socket.getaddrinfo, host, port, type=socket.SOCK_STREAM)
    try:
        found = lookup.result(timeout=max(0.0, deadline - time.monotonic()))
    except concurrent.futures.TimeoutError as error:
        lookup.cancel()  # still queued behind slow lookups: never run it
        raise FetchRefused(
            f"The name {host} could not be found within {FETCH_TIMEOUT:g} seconds."
        ) from error
    except (OSError, UnicodeError) as error:
        raise FetchRefused(f"The name {host} could not be found.") from error
    addresses = [str(info[4][0]) for info in found]
    if not addresses or not all(_allowed(address, loopback) for address in addresses):
        raise FetchRefused(
            f"{host} is a private, local or reserved address: only images on public web "
            "sites can be fetched."
        )
    return addresses[0]


def _connection(url: str, deadline: float, loopback: bool) -> _PinnedHTTP:
    """A connection for `url`, after checking its scheme and address."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise FetchRefused("Only http:// and https:// addresses can be fetched.")
    try:
        port = parts.port or (443 if parts.scheme == "https" else 80)
    except ValueError as error:
        raise FetchRefused("That address has an impossible port.") from error
    address = _address_of(parts.hostname, port, loopback, deadline)
    kind = _PinnedHTTPS if parts.scheme == "https" else _PinnedHTTP
    return kind(parts.hostname, port, address, max(0.01, deadline - time.monotonic()))


def _body(
    response: http.client.HTTPResponse, conn: _PinnedHTTP, limit: int, deadline: float
) -> bytes:
    """The response body, refused past `limit` bytes or past the deadline."""
    length = response.getheader("Content-Length", "")
    if length.isdigit() and int(length) > limit:
        raise FetchRefused(f"That image is larger than the limit of {limit:,} bytes.", 413)
    data = bytearray()
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            raise TimeoutError
        if conn.sock is not None:
            conn.sock.settimeout(left)
        chunk = response.read1(CHUNK)
        if not chunk:
            return bytes(data)
        data += chunk
        if len(data) > limit:
            raise FetchRefused(f"That image is larger than the limit of {limit:,} bytes.", 413)


def fetch(url: str, limit: int, *, loopback: bool = False) -> bytes:
    """The bytes at `url` (following checked redirects), at most `limit` of them.

    Raises FetchRefused: 422 for an address that may not or cannot be fetched (not http(s),
    private, unreachable, too slow, an error answer, too many redirects), 413 when too large.
    """
    if len(url) > MAX_URL:
        raise FetchRefused(f"That address is longer than {MAX_URL:,} characters.")
    deadline = time.monotonic() + FETCH_TIMEOUT
    for _ in range(MAX_REDIRECTS + 1):
        conn = _connection(url, deadline, loopback)
        parts = urlsplit(url)
        path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
        try:
            conn.request("GET", path, headers={"Accept": "image/*", "User-Agent": "Fieldnotes"})
            response = conn.getresponse()
            if response.status in REDIRECTS and response.getheader("Location"):
                url = urljoin(url, response.getheader("Location", ""))
                continue
            if response.status != 200:
                raise FetchRefused(f"The other site answered {response.status}, not an image.")
            return _body(response, conn, limit, deadline)
        except TimeoutError as error:
            raise FetchRefused(
                f"The other site did not send the image within {FETCH_TIMEOUT:g} seconds."
            ) from error
        except (OSError, http.client.HTTPException) as error:
            raise FetchRefused(f"The other site could not be reached ({error}).") from error
        finally:
            conn.close()
    raise FetchRefused(f"The address redirects more than {MAX_REDIRECTS} times.")
