"""The render time limit: slow text is refused within the limit, in every way the app runs,
and the timer it uses never outlives the render."""

from __future__ import annotations

import contextlib
import gc
import re
import signal
import threading
import time
from collections.abc import Callable

import pytest
import sqlalchemy as sa
from flask import Flask
from flask.testing import FlaskClient

from blog import markup
from blog.extensions import db
from blog.markup import budget
from blog.models import Post, PostRevision, Topic
from tests.authoring.test_auth import editor_client, page
from tests.authoring.test_editor import (
    HX_EDITOR,
    HX_PREVIEW,
    create,
    new_post_form,
    save,
    stored,
)
from tests.authoring.test_revisions import autosave, kept, restore

__all__ = ["editor_client"]

LIMIT = 0.1  # seconds: the limit set for these tests (the least the setting takes)
ANSWERED_WITHIN = 5.0  # seconds: generous, where the text without a limit takes 25 s or more

# Bodies that take from 25 seconds to minutes to render without the limit (issue #19).
SLOW_BODIES = {
    "asterisks": ("**a" * 66_667)[:200_000],
    "code fences": ("```\n" * 50_000)[:200_000],
    "[]( with a quote": ("[](" * 66_666) + '"',  # the quote sends links the original way
}
# Bodies from the same report that now render at once (blog/markup/links.py).
FIXED_BODIES = {
    "12,000 brackets": "[" * 12_000,
    "nested brackets": "[" * 100_000 + "]" * 100_000,
    "[]( repeated": ("[](" * 66_667)[:200_000],
}
# The editor's routes are tried with one of them: each is refused the same way below.
EDITOR_BODIES = {"asterisks": SLOW_BODIES["asterisks"]}
NORMAL_BODY = "Pools keep *connections* warm.\n\n## Sizing\n\nStart [small](/posts/pools)."
TOO_SLOW = "takes too long to render (more than 0.1 seconds)"


def spin(seconds: float) -> Callable[[], str]:
    """Work that keeps the processor busy in Python for `seconds`, then says so."""

    def work() -> str:
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            pass
        return "finished"

    return work


def in_thread(work: Callable[[], object]) -> object:
    """What `work` returns or raises when it runs in a thread of its own."""
    outcome: dict[str, object] = {}

    def run() -> None:
        try:
            outcome["value"] = work()
        except BaseException as error:  # handed back to the test
            outcome["error"] = error

    thread = threading.Thread(target=run)
    thread.start()
    thread.join(30)
    assert not thread.is_alive(), "the work was never stopped"
    if "error" in outcome:
        raise outcome["error"]  # type: ignore[misc]
    return outcome["value"]


@pytest.fixture
def timer_untouched():
    """Check that a test leaves SIGPROF's handler and the CPU-time timer as it found them."""
    handler = signal.getsignal(signal.SIGPROF)
    assert signal.getitimer(signal.ITIMER_PROF) == (0.0, 0.0)
    yield
    assert signal.getitimer(signal.ITIMER_PROF) == (0.0, 0.0)
    assert signal.getsignal(signal.SIGPROF) is handler


@pytest.fixture
def small_limit(app: Flask, monkeypatch: pytest.MonkeyPatch) -> None:
    """The app's MARKDOWN_TIME_LIMIT set to LIMIT for one test."""
    monkeypatch.setitem(app.config, "MARKDOWN_TIME_LIMIT", LIMIT)


# budget.within ---------------------------------------------------------------------------------


def test_tests_run_in_the_main_thread():
    """The timer tests below are about the main thread, as gunicorn's sync workers run."""
    assert threading.current_thread() is threading.main_thread()


def test_work_within_the_limit_gives_its_result(timer_untouched):
    assert budget.within(1.0, lambda: {"answer": 42}) == {"answer": 42}


def test_work_past_the_limit_is_stopped(timer_untouched):
    started = time.monotonic()
    with pytest.raises(budget.TooSlow) as stopped:
        budget.within(LIMIT, spin(30))
    assert LIMIT <= time.monotonic() - started < ANSWERED_WITHIN
    assert stopped.value.limit == LIMIT


def test_a_long_regular_expression_match_is_stopped(timer_untouched):
    """CPython's regex engine checks for signals while it backtracks, so the timer stops a
    match that would take longer than anyone will wait."""
    started = time.monotonic()
    with pytest.raises(budget.TooSlow):
        budget.within(LIMIT, lambda: re.match(r"(a+)+$", "a" * 40 + "b"))
    assert time.monotonic() - started < ANSWERED_WITHIN


def test_a_stop_swallowed_by_the_work_still_stops_it(timer_untouched):
    """Library code that catches everything once does not keep the work going: the timer
    fires again, and a result after a swallowed stop is refused."""

    def stubborn() -> str:
        with contextlib.suppress(BaseException):
            spin(30)()
        return spin(30)()

    started = time.monotonic()
    with pytest.raises(budget.TooSlow):
        budget.within(LIMIT, stubborn)
    assert time.monotonic() - started < ANSWERED_WITHIN


def test_the_works_own_errors_come_through(timer_untouched):
    with pytest.raises(ZeroDivisionError):
        budget.within(1.0, lambda: 1 / 0)


@pytest.mark.parametrize("outcome", ["stopped", "finished"])
def test_nothing_is_left_armed_after_the_work(timer_untouched, outcome):
    """After the work, stopped or not, slow code runs to its end: the timer is cleared and
    the handler put back (a timer left running with the default handler would kill the
    process)."""
    if outcome == "stopped":
        with pytest.raises(budget.TooSlow):
            budget.within(0.1, spin(30))
    else:
        assert budget.within(1.0, spin(0.05)) == "finished"
    assert spin(0.5)() == "finished"
    assert gc.isenabled()


def test_garbage_collection_waits_while_the_work_runs(timer_untouched):
    """The collector runs other code's finalizers in whatever frame it interrupts: none of
    them may run inside the work, where the stop could land in them."""
    assert gc.isenabled()
    assert budget.within(1.0, gc.isenabled) is False
    assert gc.isenabled()


def test_a_timer_someone_else_runs_is_left_alone(timer_untouched):
    """With an interval timer already running, the work goes to a child process, and the
    other timer keeps its handler and its time."""
    fired: list[int] = []

    def theirs(signum, frame):
        fired.append(signum)

    previous = signal.signal(signal.SIGPROF, theirs)
    try:
        signal.setitimer(signal.ITIMER_PROF, 60)
        with pytest.raises(budget.TooSlow):
            budget.within(LIMIT, spin(30))
        assert budget.within(1.0, lambda: "from the child") == "from the child"
        assert signal.getsignal(signal.SIGPROF) is theirs
        assert 50 < signal.getitimer(signal.ITIMER_PROF)[0] <= 60
        assert fired == []
    finally:
        signal.setitimer(signal.ITIMER_PROF, 0)
        signal.signal(signal.SIGPROF, previous)


def test_the_limit_holds_in_other_threads(timer_untouched):
    """Signals reach only the main thread (`flask run` serves each request in a thread of
    its own): there the work runs in a child process, killed at the limit."""
    started = time.monotonic()
    with pytest.raises(budget.TooSlow):
        in_thread(lambda: budget.within(LIMIT, spin(30)))
    assert time.monotonic() - started < ANSWERED_WITHIN
    assert in_thread(lambda: budget.within(2.0, lambda: ["a", 1])) == ["a", 1]
    with pytest.raises(ZeroDivisionError):
        in_thread(lambda: budget.within(2.0, lambda: 1 / 0))


@pytest.mark.parametrize(
    ("raw", "expected"),
    [(None, 2.0), ("", 2.0), ("0.5", 0.5), ("10", 10.0), ("0.1", 0.1), ("60", 60.0)],
)
def test_the_setting_reads_seconds(monkeypatch, raw, expected):
    if raw is None:
        monkeypatch.delenv("MARKDOWN_TIME_LIMIT", raising=False)
    else:
        monkeypatch.setenv("MARKDOWN_TIME_LIMIT", raw)
    assert budget.seconds_from_env("MARKDOWN_TIME_LIMIT", 2.0) == expected


@pytest.mark.parametrize("raw", ["0", "0.05", "61", "-1", "two", "2s", "nan", "inf", "\u0662"])
def test_the_setting_refuses_anything_else(monkeypatch, raw):
    monkeypatch.setenv("MARKDOWN_TIME_LIMIT", raw)
    with pytest.raises(RuntimeError, match="MARKDOWN_TIME_LIMIT must be a number of seconds"):
        budget.seconds_from_env("MARKDOWN_TIME_LIMIT", 2.0)


# markup.render -----------------------------------------------------------------------------


@pytest.mark.parametrize("body", SLOW_BODIES.values(), ids=SLOW_BODIES)
def test_slow_bodies_are_refused_within_the_limit(timer_untouched, body):
    started = time.monotonic()
    with pytest.raises(markup.TooSlow):
        markup.render(body, time_limit=LIMIT)
    assert time.monotonic() - started < ANSWERED_WITHIN


@pytest.mark.parametrize("body", FIXED_BODIES.values(), ids=FIXED_BODIES)
def test_the_bracket_bodies_of_the_report_render_at_once(body):
    """They took from 24 seconds to minutes of processor time; now about one at most.
    (Processor time, so that a busy machine does not fail the test.)"""
    started = time.process_time()
    assert markup.render(body, time_limit=60).html.startswith('<p dir="auto">')
    assert time.process_time() - started < ANSWERED_WITHIN


def test_a_render_after_a_refused_one_is_whole(timer_untouched):
    """The converter stopped halfway is not used again."""
    expected = markup.render(NORMAL_BODY)
    with pytest.raises(markup.TooSlow):
        markup.render(SLOW_BODIES["asterisks"], time_limit=LIMIT)
    assert markup.render(NORMAL_BODY) == expected


# The tests marked one_store in this module run on SQLite only: the render limit stops work
# on text in the request or already read, and they write nothing. Those that must leave
# nothing behind (a refused save, a refused restore) run on both stores.
@pytest.mark.one_store
def test_render_uses_the_apps_setting(app, small_limit):
    with app.app_context(), pytest.raises(markup.TooSlow) as stopped:
        markup.render(SLOW_BODIES["asterisks"])
    assert stopped.value.limit == LIMIT


def test_render_outside_an_app_uses_the_default(monkeypatch):
    seen: list[float] = []
    within = budget.within
    monkeypatch.setattr(
        markup, "within", lambda limit, work: seen.append(limit) or within(limit, work)
    )
    markup.render(NORMAL_BODY)
    assert seen == [budget.DEFAULT_LIMIT] == [2.0]


def test_a_render_in_another_thread_is_the_same(timer_untouched):
    """The child process renders exactly what the main thread does."""
    assert in_thread(lambda: markup.render(NORMAL_BODY)) == markup.render(NORMAL_BODY)
    with pytest.raises(markup.TooSlow):
        in_thread(lambda: markup.render(SLOW_BODIES["asterisks"], time_limit=LIMIT))


# The editor ----------------------------------------------------------------------------------


def timed(call: Callable[[], object]) -> tuple[object, float]:
    """What `call` returns and how many seconds it took."""
    started = time.monotonic()
    result = call()
    return result, time.monotonic() - started


def cpu_timed(call: Callable[[], object]) -> tuple[object, float]:
    """What `call` returns and how many seconds of this process's CPU time it took (for work
    done in this process: a busy machine stretches the wall clock, not this)."""
    started = time.process_time()
    result = call()
    return result, time.process_time() - started


def rows(app: Flask) -> tuple[int, int]:
    """How many posts and revisions are stored."""
    with app.app_context():
        count = sa.select(sa.func.count())
        return (
            db.session.scalar(count.select_from(Post)),
            db.session.scalar(count.select_from(PostRevision)),
        )


def preview_token(client: FlaskClient) -> str:
    return new_post_form(client)["csrf_token"]  # type: ignore[return-value]


@pytest.mark.one_store
@pytest.mark.parametrize("headers", [HX_PREVIEW, {}], ids=["htmx", "plain"])
@pytest.mark.parametrize("body", EDITOR_BODIES.values(), ids=EDITOR_BODIES)
def test_a_slow_preview_is_a_422_with_the_reason(
    editor_client, small_limit, timer_untouched, body, headers
):
    token = preview_token(editor_client)
    response, took = timed(
        lambda: editor_client.post(
            "/editor/preview", data={"body": body, "csrf_token": token}, headers=headers
        )
    )
    assert took < ANSWERED_WITHIN
    assert response.status_code == 422
    assert TOO_SLOW in page(response).select_one("#preview-problem").text


@pytest.mark.one_store
def test_a_normal_preview_still_renders(editor_client, small_limit):
    token = preview_token(editor_client)
    response = editor_client.post(
        "/editor/preview", data={"body": NORMAL_BODY, "csrf_token": token}, headers=HX_PREVIEW
    )
    assert response.status_code == 200
    assert "<em>connections</em>" in response.get_data(as_text=True)


def count_renders(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The bodies markup.render is asked for from now on."""
    asked: list[str] = []
    render = markup.render

    def counting(text: str, **options: object) -> markup.Rendered:
        asked.append(text)
        return render(text, **options)  # type: ignore[arg-type]

    monkeypatch.setattr(markup, "render", counting)
    return asked


@pytest.mark.parametrize("headers", [HX_EDITOR, {}], ids=["htmx", "plain"])
@pytest.mark.parametrize("body", EDITOR_BODIES.values(), ids=EDITOR_BODIES)
def test_a_new_post_too_slow_to_render_is_not_saved(
    app, editor_client, small_limit, timer_untouched, monkeypatch, body, headers
):
    """A 422 with the reason beside the body and in the preview; the text is still in the
    form; no post, topic or revision is written; the body is rendered once, not again for
    the preview."""
    form = new_post_form(editor_client, body=body, topics="Brand new topic")
    renders = count_renders(monkeypatch)
    response, took = timed(
        lambda: editor_client.post("/editor/posts/new", data=form, headers=headers)
    )
    assert took < ANSWERED_WITHIN
    assert response.status_code == 422
    soup = page(response)
    assert TOO_SLOW in soup.select_one("#body-error").text
    assert TOO_SLOW in soup.select_one("#preview-problem").text
    assert TOO_SLOW in soup.select_one("#save-status").text
    assert soup.select_one("textarea#body").text.lstrip("\r\n") == body
    assert renders == [body]
    assert rows(app) == (0, 0)
    with app.app_context():
        assert db.session.scalar(sa.select(sa.func.count()).select_from(Topic)) == 0


def test_an_edit_too_slow_to_render_leaves_the_post_as_it_was(
    app, editor_client, small_limit, timer_untouched
):
    post_id = create(editor_client, body=NORMAL_BODY)
    before, revisions_before = stored(app, post_id), rows(app)[1]
    response, took = timed(
        lambda: save(editor_client, post_id, HX_EDITOR, body=SLOW_BODIES["code fences"])
    )
    assert took < ANSWERED_WITHIN
    assert response.status_code == 422
    assert TOO_SLOW in page(response).select_one("#body-error").text
    after = stored(app, post_id)
    assert (after.body_markdown, after.body_html, after.lock_version) == (
        before.body_markdown,
        before.body_html,
        before.lock_version,
    )
    assert rows(app)[1] == revisions_before
    assert spin(LIMIT * 2)() == "finished"  # nothing armed is left to stop later work
    assert save(editor_client, post_id, body="A body that renders.").status_code == 303


def test_a_slow_autosave_is_kept_but_not_restored(app, editor_client, small_limit):
    """An autosave keeps the text without rendering it; restoring it would render it, and
    that is refused with the reason, the post unchanged."""
    post_id = create(editor_client, body=NORMAL_BODY)
    assert autosave(editor_client, post_id, body=SLOW_BODIES["asterisks"]).status_code == 204
    slow = kept(app, post_id)[-1]
    assert slow.kind == "autosave"
    # The refusal renders for LIMIT, then shows the history, whose diff has its own budget.
    response, took = cpu_timed(lambda: restore(editor_client, post_id, slow.id))
    assert took < ANSWERED_WITHIN
    assert response.status_code == 422
    assert "This revision takes too long to render" in page(response).text
    assert stored(app, post_id).body_markdown == NORMAL_BODY


@pytest.mark.one_store
def test_the_limit_holds_for_requests_served_in_threads(editor_client, small_limit):
    """As under `flask run`, which serves each request in a thread."""
    token = preview_token(editor_client)

    def preview(body: str):
        return editor_client.post(
            "/editor/preview", data={"body": body, "csrf_token": token}, headers=HX_PREVIEW
        )

    response, took = timed(lambda: in_thread(lambda: preview(SLOW_BODIES["asterisks"])))
    assert took < ANSWERED_WITHIN
    assert response.status_code == 422  # type: ignore[attr-defined]
    normal = in_thread(lambda: preview(NORMAL_BODY))
    assert normal.status_code == 200  # type: ignore[attr-defined]
    assert "<em>connections</em>" in normal.get_data(as_text=True)  # type: ignore[attr-defined]
