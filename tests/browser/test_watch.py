"""The suite's page watch: which cancelled requests fail a test. A request a script sent and
the browser cancelled while its page stayed is a failure; one cancelled because its page
left (a navigation, a closed tab) is the browser tidying up. Fakes stand in for Playwright's
objects: the rule is the watch's own."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, cast

import pytest

from tests.browser.conftest import PageWatch

pytestmark = pytest.mark.browser  # runs with the browser pass, whose watch it checks

ORIGIN = "http://127.0.0.1:5000"


@dataclass(eq=False)
class FakeRequest:
    url: str
    method: str = "GET"
    resource_type: str = "fetch"
    failure: str | None = "net::ERR_ABORTED"
    frame: Any = None


def sent(watch: PageWatch, frame: object, path: str, method: str = "GET") -> Any:
    request = FakeRequest(url=ORIGIN + path, method=method, frame=frame)
    watch.on_request(cast(Any, request))
    return request


def test_a_script_request_cancelled_while_its_page_stays_fails():
    watch = PageWatch(origin=ORIGIN)
    frame = object()
    request = sent(watch, frame, "/editor/slug?title=x")
    watch.on_request_failed(request)
    assert watch.problems() == [
        f"failed request: GET {ORIGIN}/editor/slug?title=x: net::ERR_ABORTED"
    ]


def test_one_cancelled_because_its_page_left_does_not():
    watch = PageWatch(origin=ORIGIN)
    frame, other = object(), object()
    request = sent(watch, frame, "/editor/slug?title=x")
    watch.on_navigated(cast(Any, other))  # another tab's navigation is not this page leaving
    watch.on_request_failed(request)
    assert watch.problems()
    watch.on_navigated(cast(Any, frame))  # the event may come after the cancellation
    assert watch.problems() == []


def test_a_request_sent_after_the_page_arrived_still_counts():
    watch = PageWatch(origin=ORIGIN)
    frame = object()
    watch.on_navigated(cast(Any, frame))
    request = sent(watch, frame, "/search?q=x")
    watch.on_request_failed(request)
    assert len(watch.problems()) == 1


def test_the_editors_background_requests_and_other_failures():
    watch = PageWatch(origin=ORIGIN)
    frame = object()
    for path, method in [
        ("/editor/posts/7/presence", "POST"),
        ("/editor/posts/7/autosave", "GET"),
        ("/editor/posts/7/autosave", "POST"),
        ("/editor/posts/new/autosave", "POST"),
        ("/editor/drawing", "POST"),
    ]:
        watch.on_request_failed(sent(watch, frame, path, method))
    assert watch.problems() == []
    refused = sent(watch, frame, "/editor/posts/7/presence", "POST")
    refused.failure = "net::ERR_CONNECTION_RESET"  # not a cancellation: always a failure
    watch.on_request_failed(refused)
    watch.on_navigated(cast(Any, frame))
    assert len(watch.problems()) == 1
