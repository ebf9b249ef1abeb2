"""An editor's save of one post through the authoring route, timed at two data set sizes.

`measure(database, urls, rounds=..., warmup=...)` copies each data set first (SQLite: the backup
API, into bench/.data; PostgreSQL: CREATE DATABASE ... TEMPLATE), so that no save ever changes
a cached data set, and drops the copies at the end. On each copy it creates an editor account
with `flask --app blog editors create`, then starts a worker process
(`python -m bench.editor_save DATABASE_URL`) that builds the app and, through Flask's test
client (in-process: no server, no network), logs in at /login and finds the newest post
(`datasets.post_spec(0)`, the same post in every data set).

One save, as an editor's browser makes it: GET /editor/posts/<id>; take every field the edit
form hands out from the HTML, whatever their names (hidden inputs, among them the CSRF token
and the lock version the save is based on; text inputs, textareas, checked boxes and radios,
selected options; an empty file input); add or remove a suffix on the title; POST the fields to
the form's action the way htmx sends that form (multipart/form-data, `HX-Request`, and the
form's `hx-target` as `HX-Target`). Only the POST is timed, its body read; its SQL statements
are counted (transaction control apart). The answer must be the saved editor carrying the new
title. Rounds alternate which size saves first, so drift on the machine hits both alike.
"""

from __future__ import annotations

import io
import json
import os
import re
import sqlite3
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import sqlalchemy as sa
from werkzeug.datastructures import MultiDict

from bench import datasets

ROOT = Path(__file__).resolve().parent.parent
SECRET = "bench-not-a-secret"
EDITOR_EMAIL = "bench-editor@example.com"
EDITOR_NAME = "Bench Editor"
EDITOR_PASSWORD = "bench-editor-password-not-a-secret"
TITLE_SUFFIX = " (edited)"
ROUNDS = 30
WARMUP = 3
_CONTROL = re.compile(r"^\s*(BEGIN|COMMIT|ROLLBACK|SAVEPOINT|RELEASE)\b", re.IGNORECASE)


# --- Reading a form from HTML -----------------------------------------------------------------


@dataclass
class Form:
    """A form as a browser would submit it: its attributes and its controls' current values."""

    attrs: dict[str, str]
    # (name, value, type); type is the input type, "textarea" or "select"
    fields: list[tuple[str, str, str]] = field(default_factory=list)

    def value(self, name: str) -> str | None:
        """The first value under `name`."""
        return next((value for key, value, _ in self.fields if key == name), None)

    def replace(self, name: str, value: str) -> None:
        """Set the first control named `name` to `value`."""
        for index, (key, _, kind) in enumerate(self.fields):
            if key == name:
                self.fields[index] = (key, value, kind)
                return
        raise KeyError(name)


class _FormParser(HTMLParser):
    """Collects every form on a page with the values a browser would submit."""

    def __init__(self) -> None:
        super().__init__()
        self.forms: list[Form] = []
        self._form: Form | None = None
        self._textarea: tuple[str, list[str]] | None = None
        # An open <select>: its name, whether it is multiple, options (value, selected).
        self._select: tuple[str, bool, list[tuple[str, bool]]] | None = None
        self._option: tuple[str | None, bool, list[str]] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = {key: value if value is not None else "" for key, value in attrs}
        if tag == "form":
            self._form = Form(values)
            self.forms.append(self._form)
            return
        if self._form is None:
            return
        name = values.get("name")
        disabled = "disabled" in values
        if tag == "input" and name and not disabled:
            kind = values.get("type", "text").lower()
            if kind in {"submit", "button", "image", "reset"}:
                return  # only the button pressed is sent: the Save button has no name
            if kind in {"checkbox", "radio"}:
                if "checked" in values:
                    self._form.fields.append((name, values.get("value", "on"), kind))
                return
            self._form.fields.append(
                (name, "" if kind == "file" else values.get("value", ""), kind)
            )
        elif tag == "textarea" and name and not disabled:
            self._textarea = (name, [])
        elif tag == "select" and name and not disabled:
            self._select = (name, "multiple" in values, [])
        elif tag == "option" and self._select is not None:
            self._finish_option()
            self._option = (values.get("value"), "selected" in values, [])

    def handle_data(self, data: str) -> None:
        if self._textarea is not None:
            self._textarea[1].append(data)
        elif self._option is not None:
            self._option[2].append(data)

    def handle_endtag(self, tag: str) -> None:
        if tag == "form":
            self._form = None
        elif tag == "textarea" and self._textarea is not None and self._form is not None:
            name, parts = self._textarea
            text = "".join(parts)
            # HTML drops one newline right after <textarea> (WTForms writes one for that).
            text = text[2:] if text.startswith("\r\n") else text[1:] if text[:1] == "\n" else text
            self._form.fields.append((name, text, "textarea"))
            self._textarea = None
        elif tag == "option":
            self._finish_option()
        elif tag == "select" and self._select is not None and self._form is not None:
            self._finish_option()
            name, multiple, options = self._select
            chosen = [value for value, selected in options if selected]
            if not chosen and not multiple and options:
                chosen = [options[0][0]]
            for value in chosen if multiple else chosen[:1]:
                self._form.fields.append((name, value, "select"))
            self._select = None

    def _finish_option(self) -> None:
        if self._option is not None and self._select is not None:
            value, selected, text = self._option
            self._select[2].append(
                (value if value is not None else "".join(text).strip(), selected)
            )
        self._option = None


def form_on(page: str, action: str) -> Form:
    """The form on the page that posts to `action` (its path, without the host)."""
    parser = _FormParser()
    parser.feed(page)
    parser.close()
    for form in parser.forms:
        if form.attrs.get("action", "").split("?")[0] == action:
            return form
    raise RuntimeError(f"no form posting to {action} on the page ({len(page):,} characters)")


def edited_title(title: str) -> str:
    """The title changed slightly: the suffix added, or taken off again."""
    return (
        title.removesuffix(TITLE_SUFFIX) if title.endswith(TITLE_SUFFIX) else title + TITLE_SUFFIX
    )


# --- The worker: one app on one copy, saving on request ---------------------------------------


def _statement_counter(engine: sa.Engine) -> list[int]:
    """A one-item list counting the statements `engine` runs (transaction control apart)."""
    seen = [0]

    def on_statement(_conn: object, _cursor: object, statement: str, *_args: Any) -> None:
        if not _CONTROL.match(statement):
            seen[0] += 1

    sa.event.listen(engine, "before_cursor_execute", on_statement)
    return seen


def _log_in(client: Any) -> None:
    """Log in through the login form, filling in its email and password inputs."""
    page = client.get("/login")
    form = form_on(page.get_data(as_text=True), "/login")
    fields = []
    for name, value, kind in form.fields:
        if kind == "email" or (kind == "text" and "mail" in name):
            value = EDITOR_EMAIL
        elif kind == "password":
            value = EDITOR_PASSWORD
        fields.append((name, value))
    answer = client.post("/login", data=fields_multidict(fields))
    if answer.status_code not in (302, 303):
        raise RuntimeError(f"login answered {answer.status_code}, not a redirect")


def fields_multidict(fields: list[tuple[str, Any]]) -> MultiDict:
    """The fields as a MultiDict for the test client (repeated names kept, in order)."""
    return MultiDict(fields)


def _htmx_headers(form: Form, page_url: str) -> dict[str, str]:
    """The headers htmx adds when the form is submitted (none for a plain form)."""
    if "hx-post" not in form.attrs:
        return {}
    headers = {"HX-Request": "true", "HX-Current-URL": page_url}
    target = form.attrs.get("hx-target", "")
    if target.startswith("#"):
        headers["HX-Target"] = target[1:]
    if form.attrs.get("id"):
        headers["HX-Trigger"] = form.attrs["id"]
    return headers


class Saver:
    """An editor logged in to an app on one database, saving one post again and again."""

    def __init__(self, database_url: str) -> None:
        from blog import create_app
        from blog.extensions import db
        from blog.models import Post

        self.app = create_app({"SECRET_KEY": SECRET, "SQLALCHEMY_DATABASE_URI": database_url})
        slug = datasets.post_spec(0).slug
        with self.app.app_context():
            self.post_id = db.session.scalar(sa.select(Post.id).where(Post.slug == slug))
            self.statements = _statement_counter(db.engine)
        if self.post_id is None:
            raise RuntimeError(f"no post {slug} in the data set")
        self.client = self.app.test_client()
        _log_in(self.client)
        self.path = f"/editor/posts/{self.post_id}"

    def save(self) -> dict[str, Any]:
        """One save of the post with its title changed: the POST's time and statements."""
        page = self.client.get(self.path)
        if page.status_code != 200:
            raise RuntimeError(f"GET {self.path} answered {page.status_code}")
        form = form_on(page.get_data(as_text=True), self.path)
        title = edited_title(form.value("title") or "")
        form.replace("title", title)
        data = [
            (name, (io.BytesIO(b""), "", "application/octet-stream") if kind == "file" else value)
            for name, value, kind in form.fields
        ]
        headers = {
            "Origin": "http://localhost",
            "Referer": f"http://localhost{self.path}",
            "Sec-Fetch-Site": "same-origin",
            **_htmx_headers(form, f"http://localhost{self.path}"),
        }
        self.statements[0] = 0
        started = time.perf_counter()
        answer = self.client.post(
            form.attrs.get("action") or self.path,
            data=fields_multidict(data),
            headers=headers,
        )  # multipart/form-data, as the form's enctype says, since a file field is there
        body = answer.get_data(as_text=True)
        seconds = time.perf_counter() - started
        statements = self.statements[0]
        if answer.status_code in (302, 303):
            saved = form_on(self.client.get(self.path).get_data(as_text=True), self.path)
        elif answer.status_code == 200:
            saved = form_on(body, self.path)
        else:
            raise RuntimeError(f"the save answered {answer.status_code}: {_text_of(body)[:300]}")
        if saved.value("title") != title:
            raise RuntimeError(f"the save answered {answer.status_code} without the new title")
        return {
            "ms": seconds * 1000,
            "status": answer.status_code,
            "statements": statements,
            "fields": sorted({name for name, _, _ in form.fields}),
        }


def _text_of(html: str) -> str:
    """The visible words of an HTML snippet, for error messages."""
    return " ".join(re.sub(r"<[^>]+>", " ", html).split())


def worker(database_url: str) -> None:
    """Answer each line on stdin with one save, as a JSON line on stdout."""
    # Nothing the app prints may mix with the answers: its standard output goes to stderr.
    answers = os.fdopen(os.dup(sys.stdout.fileno()), "w")
    sys.stdout.flush()
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())
    try:
        saver = Saver(database_url)
        answers.write(json.dumps({"ready": True, "post_id": saver.post_id}) + "\n")
    except Exception as error:
        answers.write(json.dumps({"error": f"{error.__class__.__name__}: {error}"}) + "\n")
        return
    finally:
        answers.flush()
    for _line in sys.stdin:
        try:
            answer = saver.save()
        except Exception as error:
            answer = {"error": f"{error.__class__.__name__}: {error}"}
        answers.write(json.dumps(answer) + "\n")
        answers.flush()


# --- Copies of the data sets ------------------------------------------------------------------


@contextmanager
def copies_of(
    database: str, urls: dict[int, str], log: Callable[[str], None]
) -> Iterator[dict[int, str]]:
    """Throwaway copies of the data sets, dropped afterwards."""
    made: dict[int, str] = {}
    try:
        for size, url in urls.items():
            started = time.monotonic()
            made[size] = datasets.copy(
                database, url, f"save-copy-{size}" if database == "sqlite" else "save"
            )
            log(f"  copied the {size:,}-post data set in {time.monotonic() - started:.0f} s")
        yield made
    finally:
        for url in made.values():
            with suppress(Exception):
                datasets.drop_copy(database, url)


# --- Measuring --------------------------------------------------------------------------------


def create_editor(url: str) -> None:
    """Create the bench's editor account on a copy, with the blog's own command."""
    done = subprocess.run(
        [sys.executable, "-m", "flask", "--app", "blog", "editors", "create", EDITOR_EMAIL,
         "--name", EDITOR_NAME, "--password-stdin"],
        input=EDITOR_PASSWORD + "\n",
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=os.environ | {"PYTHONPATH": str(ROOT), "DATABASE_URL": url, "SECRET_KEY": SECRET},
        timeout=600,
    )  # fmt: skip
    if done.returncode != 0:
        raise RuntimeError(f"editors create failed: {(done.stderr or done.stdout)[-1000:]}")


class _Worker:
    """A running `python -m bench.editor_save` process."""

    def __init__(self, url: str, log: Path | None) -> None:
        self.log = log
        with log.open("wb") if log is not None else open(os.devnull, "wb") as errors:
            self.process = subprocess.Popen(
                [sys.executable, "-m", "bench.editor_save", url],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=errors,
                text=True,
                cwd=ROOT,
                env=os.environ | {"PYTHONPATH": str(ROOT), "SECRET_KEY": SECRET},
            )
        self.ready = self._answer()

    def _answer(self) -> dict[str, Any]:
        assert self.process.stdout is not None
        line = self.process.stdout.readline()
        answer = json.loads(line) if line else {"error": "the worker exited"}
        if "error" in answer:
            where = f" (the app's log: {self.log})" if self.log is not None else ""
            raise RuntimeError(answer["error"] + where)
        return answer

    def save(self) -> dict[str, Any]:
        """One timed save."""
        assert self.process.stdin is not None
        self.process.stdin.write("save\n")
        self.process.stdin.flush()
        return self._answer()

    def stop(self) -> None:
        """Close its input, so it ends; kill it if it does not."""
        with suppress(OSError):
            if self.process.stdin is not None:
                self.process.stdin.close()
        try:
            self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(timeout=30)


def measure(
    database: str,
    urls: dict[int, str],
    *,
    rounds: int = ROUNDS,
    warmup: int = WARMUP,
    log: Callable[[str], None] = print,
    log_dir: Path | None = None,
) -> dict[str, Any]:
    """Median time of the same save at each size, and the per-round times; the workers' logs
    go to `log_dir` when one is given."""
    sizes = sorted(urls)
    result: dict[str, Any] = {
        "how": "in-process with Flask's test client, on a copy of each data set; the POST the "
        "edit form makes with htmx",
        "post": datasets.post_spec(0).slug,
        "sizes": sizes,
        "rounds": [],
    }
    seen: dict[int, list[dict[str, Any]]] = {size: [] for size in sizes}
    try:
        with copies_of(database, urls, log) as copies:
            workers: dict[int, _Worker] = {}
            try:
                for size in sizes:
                    create_editor(copies[size])
                    where = log_dir / f"{database}-save-{size}.log" if log_dir else None
                    workers[size] = _Worker(copies[size], where)
                for _ in range(warmup):
                    for size in sizes:
                        workers[size].save()
                for number in range(rounds):
                    # Alternate the order, so that drift in the machine's load favours no size.
                    times: dict[str, float] = {}
                    for size in sizes if number % 2 == 0 else sizes[::-1]:
                        saved = workers[size].save()
                        seen[size].append(saved)
                        times[str(size)] = saved["ms"]
                    result["rounds"].append(times)
            finally:
                for running in workers.values():
                    running.stop()
    except (
        OSError,
        RuntimeError,
        ValueError,
        subprocess.SubprocessError,
        sa.exc.SQLAlchemyError,
        sqlite3.Error,
    ) as error:
        result["error"] = f"{error.__class__.__name__}: {str(error)[:1000]}"
        return result
    result["median_ms"] = {str(s): statistics.median(r["ms"] for r in seen[s]) for s in sizes}
    result["statements"] = {
        str(s): statistics.median(r["statements"] for r in seen[s]) for s in sizes
    }
    result["status"] = sorted({r["status"] for s in sizes for r in seen[s]})
    result["fields"] = seen[sizes[0]][0]["fields"] if seen[sizes[0]] else []
    return result


def main() -> None:
    """`python -m bench.editor_save DATABASE_URL`: a worker (see `worker`)."""
    if len(sys.argv) != 2:
        sys.exit("usage: python -m bench.editor_save DATABASE_URL  (started by bench.run)")
    worker(sys.argv[1])


if __name__ == "__main__":
    main()
