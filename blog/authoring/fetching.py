"""Fetching an image from another site for an editor, without letting the fetch reach inside.

Only http and https, only to public addresses: every address a name resolves to is checked
before connecting, and the connection goes to the checked address (a name that answers
differently the second time cannot lead the fetch to a private one). Each redirect is
checked the same way, at most MAX_REDIRECTS of them; the whole fetch (name lookups,
connections, status lines, headers and bodies, however slowly the other site sends them)
ends within FETCH_TIMEOUT seconds and reads at most the image size limit.
"""

from __future__ import annotations

import concurrent.futures
import http.client
import ipaddress
import math
import socket
import ssl
import time
from typing import TYPE_CHECKING
from urllib.parse import urljoin, urlsplit

if TYPE_CHECKING:
    from _typeshed import ReadableBuffer, WriteableBuffer

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


def _left(deadline: float) -> float:
    """Seconds until `deadline`; TimeoutError once it has passed."""
    left = deadline - time.monotonic()
    if left <= 0:
        raise TimeoutError("the fetch's deadline has passed")
    return left


class _DeadlineSocket(socket.socket):
    """A socket whose every send and receive ends by the fetch's deadline.

    A timeout per receive is not a deadline: a site that sends its status line, headers or
    chunk sizes a byte at a time keeps each receive short and the fetch going for as long as
    it likes. Before each call the timeout is set to the time the fetch has left.
    """

    deadline = math.inf

    def recv_into(self, buffer: WriteableBuffer, nbytes: int = 0, flags: int = 0) -> int:
        """Receive, waiting no later than the deadline."""
        self.settimeout(_left(self.deadline))
        return super().recv_into(buffer, nbytes, flags)

    def sendall(self, data: ReadableBuffer, flags: int = 0, /) -> None:
        """Send, waiting no later than the deadline."""
        self.settimeout(_left(self.deadline))
        super().sendall(data, flags)


class _DeadlineTLSSocket(ssl.SSLSocket):
    """The same over TLS (ssl makes its sockets of this class, see `_PinnedHTTPS`)."""

    deadline = math.inf

    def recv_into(self, buffer: WriteableBuffer, nbytes: int | None = None, flags: int = 0) -> int:
        """Receive, waiting no later than the deadline."""
        self.settimeout(_left(self.deadline))
        return super().recv_into(buffer, nbytes, flags)

    def sendall(self, data: ReadableBuffer, flags: int = 0) -> None:
        """Send, waiting no later than the deadline."""
        self.settimeout(_left(self.deadline))
        super().sendall(data, flags)


class _PinnedHTTP(http.client.HTTPConnection):
    """An HTTP connection to an address checked beforehand, naming the host as asked, that
    ends by the fetch's deadline however slowly the other side answers."""

    def __init__(self, host: str, port: int, address: str, deadline: float) -> None:
        super().__init__(host, port)
        self.address = address
        self.deadline = deadline

    def connect(self) -> None:
        family = socket.AF_INET6 if ":" in self.address else socket.AF_INET
        sock = _DeadlineSocket(family, socket.SOCK_STREAM)
        sock.deadline = self.deadline
        try:
            sock.settimeout(_left(self.deadline))
            sock.connect((self.address, self.port))
        except BaseException:
            sock.close()
            raise
        self.sock = sock


class _PinnedHTTPS(_PinnedHTTP):
    """The same over TLS, the certificate checked against the host name."""

    default_port = 443

    def connect(self) -> None:
        super().connect()
        context = ssl.create_default_context()
        context.sslsocket_class = _DeadlineTLSSocket
        self.sock.settimeout(_left(self.deadline))  # the handshake's own limit
        tls = context.wrap_socket(self.sock, server_hostname=self.host)
        assert isinstance(tls, _DeadlineTLSSocket)
        tls.deadline = self.deadline
        self.sock = tls


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
    return kind(parts.hostname, port, address, deadline)


def _body(response: http.client.HTTPResponse, limit: int) -> bytes:
    """The response body, refused past `limit` bytes (the connection keeps the deadline)."""
    length = response.getheader("Content-Length", "")
    if length.isdigit() and int(length) > limit:
        raise FetchRefused(f"That image is larger than the limit of {limit:,} bytes.", 413)
    data = bytearray()
    while True:
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
            return _body(response, limit)
        except TimeoutError as error:
            raise FetchRefused(
                f"The other site did not send the image within {FETCH_TIMEOUT:g} seconds."
            ) from error
        except (OSError, http.client.HTTPException) as error:
            raise FetchRefused(f"The other site could not be reached ({error}).") from error
        finally:
            conn.close()
    raise FetchRefused(f"The address redirects more than {MAX_REDIRECTS} times.")
