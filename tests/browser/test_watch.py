"""The suite's page watch: which cancelled requests fail a test. A request a script sent and
the browser cancelled while its page stayed is a failure; one cancelled because its page
left (a navigation, a closed tab) is the browser tidying up. Fakes stand in for Playwright's
objects: the rule is the watch's own."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, cast

import pytest
from playwright.sync_api import Browser

from tests.browser.conftest import LiveServer, PageWatch

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


def test_in_chromium_leaving_excuses_a_pending_fetch_and_an_abort_in_place_does_not(
    browser: Browser, live_server: LiveServer
):
    """The same rule on Chromium's own events: a fetch held open when the page navigates
    away, and a fetch the page itself aborts while it stays."""
    watch = PageWatch(origin=live_server.url)
    context = browser.new_context(base_url=live_server.url)
    try:
        context.on("request", watch.on_request)
        context.on("requestfailed", watch.on_request_failed)
        context.on("page", watch.watch_page)
        page = context.new_page()
        page.route("**/held*", lambda route: None)  # never answered
        page.goto("/")
        page.evaluate("() => { fetch('/held-1').catch(() => {}); }")
        page.wait_for_timeout(100)
        page.goto("/?page=2")
        assert watch.problems() == []
        page.evaluate(
            "() => { const stop = new AbortController();"
            " fetch('/held-2', {signal: stop.signal}).catch(() => {});"
            " setTimeout(() => stop.abort(), 50); }"
        )
        page.wait_for_timeout(300)
        problems = watch.problems()
        assert len(problems) == 1 and "/held-2" in problems[0], problems
    finally:
        context.close()
