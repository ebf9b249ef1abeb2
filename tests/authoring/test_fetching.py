"""The fetch of another site's image ends by its deadline, however slowly that site answers."""

from __future__ import annotations

import socket
import socketserver
import threading
import time
from collections.abc import Iterator

import pytest

from blog.authoring import fetching
from tests.authoring.test_auth import csrf_token, editor_client

__all__ = ["editor_client"]

DEADLINE = 1.0  # seconds, in place of the real 5: each shape below would take 30 or more
DRIP = 0.5  # seconds between two trickled bytes
PAD = 60  # trickled bytes: 30 s of them

STATUS = b"HTTP/1.1 200 OK\r\n"
HEADERS = b"Content-Type: image/png\r\nContent-Length: 1\r\n\r\nx"
# Each answer as (sent at once, trickled a byte at a time, sent at once after).
SHAPES = {
    "status-line": (b"", b"HTTP/1.1 200 " + b"O" * PAD + b"\r\n", HEADERS),
    "headers": (STATUS, b"X-Padding: " + b"a" * PAD + b"\r\n", HEADERS),
    "chunk-size": (
        STATUS + b"Content-Type: image/png\r\nTransfer-Encoding: chunked\r\n\r\n",
        b"0" * PAD + b"1\r\n",
        b"x\r\n0\r\n\r\n",
    ),
    "body": (
        STATUS + f"Content-Type: image/png\r\nContent-Length: {PAD}\r\n\r\n".encode(),
        b"x" * PAD,
        b"",
    ),
}


class _Trickler(socketserver.BaseRequestHandler):
    """A site on 127.0.0.1 that sends one part of its answer a byte every half second."""

    def handle(self) -> None:
        """Read the request, then answer in the shape its path names."""
        asked = b""
        while b"\r\n\r\n" not in asked:
            data = self.request.recv(4096)
            if not data:
                return
            asked += data
        path = asked.split(b" ", 2)[1].decode().strip("/")
        before, trickled, after = SHAPES[path]
        try:
            self.request.sendall(before)
            for byte in trickled:
                self.request.sendall(bytes([byte]))
                time.sleep(DRIP)
            self.request.sendall(after)
        except OSError:
            pass  # the fetch gave up and closed the connection


class _Server(socketserver.ThreadingTCPServer):
    daemon_threads = True
    allow_reuse_address = True


@pytest.fixture(scope="module")
def trickling_site() -> Iterator[str]:
    """The base address of the trickling site."""
    server = _Server(("127.0.0.1", 0), _Trickler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


@pytest.fixture
def short_deadline(monkeypatch: pytest.MonkeyPatch) -> None:
    """A one-second fetch deadline, so each test takes about a second."""
    monkeypatch.setattr(fetching, "FETCH_TIMEOUT", DEADLINE)


@pytest.mark.parametrize("shape", list(SHAPES))
def test_a_trickled_answer_ends_at_the_deadline(trickling_site, short_deadline, shape):
    """The status line, the headers, the chunk sizes or the body sent a byte at a time: the
    fetch gives up at its deadline (broken, it waited for every byte: 30 s or more)."""
    started = time.monotonic()
    with pytest.raises(fetching.FetchRefused) as refused:
        fetching.fetch(f"{trickling_site}/{shape}", 4000, loopback=True)
    assert time.monotonic() - started < DEADLINE + 1.0
    assert refused.value.status == 422
    assert refused.value.message == (
        f"The other site did not send the image within {DEADLINE:g} seconds."
    )


def test_the_editor_hears_of_a_trickled_answer_by_the_deadline(
    app, editor_client, trickling_site, short_deadline, monkeypatch
):
    """Through the editor's fetch button: a 422 naming the deadline, on time."""
    monkeypatch.setitem(app.config, "IMAGE_FETCH_LOOPBACK", True)
    headers = {"X-CSRFToken": csrf_token(editor_client, "/editor/posts/new")}
    started = time.monotonic()
    response = editor_client.post(
        "/editor/images/fetch", data={"url": f"{trickling_site}/headers"}, headers=headers
    )
    assert time.monotonic() - started < DEADLINE + 1.0
    assert response.status_code == 422
    assert "did not send the image within 1 seconds" in response.get_json()["error"]


def test_a_connection_that_is_never_answered_ends_at_the_deadline(short_deadline):
    """A site that accepts the connection and never says a word: the same 422, on time."""
    with socket.create_server(("127.0.0.1", 0)) as silent:
        started = time.monotonic()
        with pytest.raises(fetching.FetchRefused) as refused:
            fetching.fetch(f"http://127.0.0.1:{silent.getsockname()[1]}/", 4000, loopback=True)
    assert time.monotonic() - started < DEADLINE + 1.0
    assert "within 1 seconds" in refused.value.message
