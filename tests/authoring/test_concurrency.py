"""Writers at the same time: threads and processes saving at once, and SQLite's write lock."""

from __future__ import annotations

import gc
import io
import multiprocessing
import sqlite3
import threading
from pathlib import Path
from urllib.parse import urlencode

import pytest
import sqlalchemy as sa

from blog import create_app, markup
from blog.authoring import store
from blog.extensions import db
from blog.models import Author, Editor, Post, Topic
from blog.transfer import demo
from tests.authoring.test_auth import csrf_token, log_in_as, make_editor, page, session_id
from tests.authoring.test_editor import confirming, create, current_form, new_post_form
from tests.conftest import DATABASE, count_queries
from tests.transfer.test_demo import demo_sample

sqlite_only = pytest.mark.skipif(
    DATABASE != "sqlite", reason="SQLite's write lock (PostgreSQL locks rows instead)"
)


# SQLite: every writer takes the write lock before its first statement -------------------------


def transactions(statements: list[str]) -> list[list[str]]:
    """The statements grouped by transaction, each group starting with its BEGIN."""
    groups: list[list[str]] = []
    for statement in statements:
        if statement.upper().startswith("BEGIN"):
            groups.append([statement])
        elif groups:
            groups[-1].append(statement)
    return groups


def writes(group: list[str]) -> bool:
    """True when a transaction changes rows."""
    return any(s.split(None, 1)[0].upper() in {"INSERT", "UPDATE", "DELETE"} for s in group)


def import_folder(tmp_path: Path) -> Path:
    """A folder with two posts to import."""
    for n in (1, 2):
        (tmp_path / f"post-{n}.md").write_text(
            f"---\ntitle: Imported {n}\ndate: 2024-01-0{n}\ntopics: [Databases]\n---\n\nBody {n}.\n"
        )
    return tmp_path


@sqlite_only
@pytest.mark.parametrize(
    "command",
    ["demo load", "posts import", "posts rerender", "editors create", "editors disable"],
)
def test_command_line_writers_take_the_write_lock_first(
    app, runner, posts, tmp_path, monkeypatch, command
):
    """Each CLI write transaction starts with BEGIN IMMEDIATE: concurrent writers queue on the
    busy timeout instead of failing with "database is locked" when a read turns into a write."""
    posts.create(2)
    make_editor(app, "grace@example.com")
    args, stdin = command.split(), None
    if command == "posts import":
        args.append(str(import_folder(tmp_path)))
    elif command == "posts rerender":
        with app.app_context():
            db.session.execute(sa.update(Post).values(render_version=0))
            db.session.commit()
    elif command == "editors create":
        args += ["ada@example.com", "--name", "Ada", "--password-stdin"]
        stdin = "a long enough passphrase\n"
    elif command == "editors disable":
        args.append("grace@example.com")
    elif command == "demo load":
        # Three demo files take the same path as all of them, without rendering 66 long posts.
        monkeypatch.setattr(demo, "DEMO_FOLDER", demo_sample(tmp_path))
        with app.app_context():
            db.session.execute(sa.delete(Post))
            db.session.commit()
    with count_queries(app, transaction_control=True) as seen:
        result = runner.invoke(args=args, input=stdin)
    assert result.exit_code == 0, result.output
    written = [group for group in transactions(seen) if writes(group)]
    assert written, f"{command} wrote nothing"
    for group in written:
        assert group[0].upper() == "BEGIN IMMEDIATE", group[:3]


class HeldBody(io.BytesIO):
    """A request body that arrives only when the test lets it (a slow client's upload)."""

    def __init__(self, data: bytes) -> None:
        super().__init__(data)
        self.reading = threading.Event()
        self.release = threading.Event()

    def _arrive(self) -> None:
        """Say the server started reading, then wait until released."""
        self.reading.set()
        assert self.release.wait(30), "the test never released the body"

    def read(self, size: int | None = -1) -> bytes:
        """Bytes of the body, once released."""
        self._arrive()
        return super().read(size)

    def read1(self, size: int = -1) -> bytes:
        """Bytes of the body, once released."""
        self._arrive()
        return super().read1(size)

    def readinto(self, buffer) -> int:
        """Bytes of the body, once released."""
        self._arrive()
        return super().readinto(buffer)


def lock_is_free(database_url: str) -> bool:
    """Whether another connection can take SQLite's write lock right now."""
    path = sa.make_url(database_url).database
    probe = sqlite3.connect(path, timeout=0.2, isolation_level=None)
    try:
        probe.execute("BEGIN IMMEDIATE")
        probe.execute("ROLLBACK")
        return True
    except sqlite3.OperationalError as error:
        assert "locked" in str(error)
        return False
    finally:
        probe.close()


@sqlite_only
def test_a_slow_upload_does_not_hold_the_write_lock(app, client, database_url):
    """While a client is still sending its form, other writers can write: the lock is taken
    only once the whole body is in."""
    log_in_as(client, make_editor(app))
    form = new_post_form(client, title="Sent slowly")
    body = HeldBody(urlencode(form, doseq=True).encode())
    answer: dict[str, int] = {}

    def send() -> None:
        response = client.post(
            "/editor/posts/new",
            input_stream=body,
            content_type="application/x-www-form-urlencoded",
        )
        answer["status"] = response.status_code

    sender = threading.Thread(target=send)
    sender.start()
    try:
        assert body.reading.wait(10), "the server never read the body"
        free_while_sending = lock_is_free(database_url)
    finally:
        body.release.set()
        sender.join(30)
    assert free_while_sending, "a request still sending its body held the write lock"
    assert answer == {"status": 303}
    with app.app_context():
        assert db.session.scalar(sa.select(Post.title)) == "Sent slowly"


@sqlite_only
@pytest.mark.parametrize("route", ["login", "preview"])
def test_posts_that_only_read_leave_the_write_lock_free(app, client, monkeypatch, route):
    """A login checks a password (slow on purpose) and a preview renders Markdown: neither
    writes, so neither holds the write lock while it works (a burst of bots trying
    passwords would otherwise stall every editor's save)."""
    working, release = threading.Event(), threading.Event()
    callers: list[threading.Thread] = []

    def slow(*args: object) -> object:
        callers.append(threading.current_thread())
        working.set()
        assert release.wait(30)
        return False if route == "login" else markup.render("previewed")

    if route == "login":
        make_editor(app, password_hash="scrypt:1024:8:1$x$00")
        data = {"email": "ada@example.com", "password": "guess", "csrf_token": csrf_token(client)}
        url, slow_part = "/login", "blog.models.check_password_hash"
    else:
        log_in_as(client, make_editor(app))
        data = {"body": "*hi*", "csrf_token": csrf_token(client, "/editor/posts/new")}
        url, slow_part = "/editor/preview", "blog.authoring.editor.post_page._rendered"
    # Slowed only now: the editor page that hands out the token renders a preview too, and
    # must not be the request found working.
    monkeypatch.setattr(slow_part, slow)
    answer: dict[str, int] = {}
    sender = threading.Thread(
        target=lambda: answer.setdefault("status", client.post(url, data=data).status_code)
    )
    sender.start()
    try:
        assert working.wait(10), "the request never reached the slow part"
        free_while_working = lock_is_free(app.config["SQLALCHEMY_DATABASE_URI"])
    finally:
        release.set()
        sender.join(30)
    assert callers == [sender], "the slow part should run once, in the POST being checked"
    assert free_while_working, f"POST {url} held the write lock while it worked"
    assert answer == {"status": 401 if route == "login" else 200}


# The lock version an edit carries ---------------------------------------------------------------

RELOAD = "The form lost track of the post's version. Reload the page."


@pytest.mark.parametrize(
    ("sent", "status"),
    [("100000000", 409), ("1000000000", 400), ("", 400), ("1a", 400), ("\u0661", 400)],
    ids=["nine digits", "ten digits", "empty", "not a number", "arabic digit"],
)
def test_an_edit_carries_its_lock_version_as_nine_plain_digits_at_most(app, client, sent, status):
    """An edit's lock version of up to nine ASCII digits is compared with the stored one (a
    stale one is a conflict); anything else is a tampered form, refused with how to recover."""
    log_in_as(client, make_editor(app))
    post_id = create(client)
    form = current_form(client, post_id) | {"lock_version": sent}
    response = client.post(f"/editor/posts/{post_id}", data=form)
    assert response.status_code == status
    if status == 400:
        said = {" ".join(p.get_text(" ").split()) for p in page(response).select("main p")}
        assert RELOAD in said, said


def test_a_refused_edit_still_saves_to_the_same_post(app, client):
    """An edit refused for a bad field comes back as the editor of that post, posting to it:
    fixing the field saves the post, it does not make a second one."""
    log_in_as(client, make_editor(app))
    post_id = create(client)
    response = client.post(
        f"/editor/posts/{post_id}", data=current_form(client, post_id) | {"title": ""}
    )
    assert response.status_code == 422
    assert page(response).select_one("#post-form")["action"] == f"/editor/posts/{post_id}"


def test_an_edit_that_loses_the_race_gets_the_conflict_page_not_an_error(app, client, monkeypatch):
    """The lock version is checked when the post is read and again by the row's UPDATE, which
    matches the version read: another editor's save landing between the two (here, inside the
    save itself) makes this one a conflict, shown with this editor's text kept."""
    log_in_as(client, make_editor(app))
    post_id = create(client)
    posts_table = Post.__table__
    update_post = store.update_post

    def other_editor_saves_first(post, fields, **options):
        db.session.execute(
            sa.update(posts_table)
            .where(posts_table.c.id == post.id)
            .values(lock_version=posts_table.c.lock_version + 1)
        )
        return update_post(post, fields, **options)

    monkeypatch.setattr(store, "update_post", other_editor_saves_first)
    form = current_form(client, post_id) | {"title": "My version of the title"}
    response = client.post(f"/editor/posts/{post_id}", data=form)
    assert response.status_code == 409
    soup = page(response)
    assert soup.select_one("#conflict-title") is not None
    assert soup.select_one("#post-form [name=title]")["value"] == "My version of the title"
    assert soup.select_one("#post-form")["action"] == f"/editor/posts/{post_id}"


def test_the_store_refuses_an_address_another_post_took_meanwhile(app, posts):
    """The editor checks an address before saving, but another editor may take it between that
    check and this save: the store checks again, in the saving transaction."""
    taken, moving = posts.create(2)
    with app.test_request_context():
        post = db.session.scalar(sa.select(Post).where(Post.slug == moving))
        fields = store.PostFields(
            title=post.title,
            slug=taken,
            body=post.body_markdown,
            summary=post.summary,
            topics=list(post.topics),
            author=post.author,
            status=post.status,
            published_at=post.published_at,
        )
        with pytest.raises(store.SlugTaken, match="Another post already uses this address"):
            store.update_post(post, fields, based_on=post.lock_version)
        db.session.rollback()


# Editors saving at once -------------------------------------------------------------------------

EDITORS = 6
ROUNDS = 3  # each round races six editors on a new topic and author, then on edits


def test_editors_saving_at_once_all_succeed(app):
    """Six editors create and then edit posts at the same moments, naming the same new topics
    and authors: every save succeeds and every post keeps its last saved text."""
    clients, blank_forms = [], []
    for n in range(EDITORS):
        client = app.test_client()
        log_in_as(client, make_editor(app, f"editor{n}@example.com", name=f"Editor {n}"))
        # The new-post form once per editor: its token holds for the session, so each round
        # types over it rather than fetching the editor page again.
        blank = new_post_form(client)
        blank.pop("confirm_new")
        clients.append(client)
        blank_forms.append(blank)
    start = threading.Barrier(EDITORS)
    failures: list[str] = []
    saved: dict[str, str] = {}

    def work(n: int) -> None:
        client = clients[n]
        try:
            for round_ in range(ROUNDS):
                title = f"Editor {n} round {round_}"
                form = confirming(
                    blank_forms[n]
                    | {
                        "title": title,
                        "topics": f"Shared topic {round_}, Databases",
                        "author": f"Shared author {round_}",
                        "status": "published",
                        "body": f"First text of {title}.",
                    }
                )
                start.wait(30)
                created = client.post("/editor/posts/new", data=form)
                if created.status_code != 303:
                    failures.append(f"{title}: create {created.status_code}")
                    continue
                post_id = int(created.headers["Location"].rsplit("/", 1)[1])
                data = current_form(client, post_id) | {"body": f"Last text of {title}."}
                start.wait(30)
                edited = client.post(f"/editor/posts/{post_id}", data=data)
                if edited.status_code != 303:
                    failures.append(f"{title}: edit {edited.status_code}")
                    continue
                saved[title] = f"Last text of {title}."
        except Exception as error:  # reported below: a thread's exception is otherwise lost
            failures.append(f"editor {n}: {error!r}")
            start.abort()

    threads = [threading.Thread(target=work, args=(n,)) for n in range(EDITORS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(120)
    assert failures == []
    with app.app_context():
        stored = dict(db.session.execute(sa.select(Post.title, Post.body_markdown)).all())
        topics = db.session.scalars(sa.select(Topic.name)).all()
        authors = db.session.scalars(sa.select(Author.name)).all()
    assert stored == saved and len(stored) == EDITORS * ROUNDS
    assert sorted(topics) == sorted(["Databases", *(f"Shared topic {r}" for r in range(ROUNDS))])
    assert sorted(authors) == sorted(f"Shared author {r}" for r in range(ROUNDS))


def write_posts(database_url, session_value, prefix, count, ready, go, results) -> None:
    """One server worker's saves, in a process forked from this one as gunicorn forks its
    workers from the app it preloaded (no interpreter start-up to wait for). The worker
    builds its own app, so it shares no database connection with this process."""
    gc.freeze()  # this process's objects are the parent's: never finalize them here
    settings = {"TESTING": True, "SECRET_KEY": "x", "WTF_CSRF_ENABLED": False}
    app = create_app(settings | {"SQLALCHEMY_DATABASE_URI": database_url})
    client = app.test_client()
    with client.session_transaction() as session:
        session["_user_id"] = session_value
        session["_fresh"] = True
    client.get("/editor/posts/new")  # everything loaded before the start
    ready.set()
    assert go.wait(60), "never told to start"  # both processes start saving at once
    codes = []
    for n in range(count):
        form = {
            "title": f"{prefix} {n}",
            "topics": f"Shared {n % 3}",
            "author": "Ada",
            "body": f"Text {prefix} {n}.",
            "status": "published",
            "confirm_new": [f"topic:shared-{n % 3}", "author:ada"],
        }
        codes.append(client.post("/editor/posts/new", data=form).status_code)
    results.put((prefix, codes))


def test_two_server_processes_writing_at_once_both_succeed(app, database_url):
    """Two processes (as two server workers would) save posts at once: none is refused."""
    editor_id = make_editor(app)
    with app.app_context():
        db.engine.dispose()  # no pooled connection is carried into the forked workers
    fork = multiprocessing.get_context("fork")
    go, results = fork.Event(), fork.Queue()
    count = 12
    names = ("First", "Second")
    runs = []
    for name in names:
        ready = fork.Event()
        args = (database_url, session_id(app, editor_id), name, count, ready, go, results)
        runs.append((fork.Process(target=write_posts, args=args), ready))
    for run, _ in runs:
        run.start()
    try:
        for run, ready in runs:
            assert ready.wait(120), f"worker exited with {run.exitcode} before it was ready"
        go.set()  # the signal reaches both before either has finished
        codes = dict(results.get(timeout=180) for _ in runs)
    finally:
        for run, _ in runs:
            run.join(30)
            if run.is_alive():
                run.kill()
                run.join()
    assert [run.exitcode for run, _ in runs] == [0, 0]
    assert codes == {name: [303] * count for name in names}
    with app.app_context():
        titles = set(db.session.scalars(sa.select(Post.title)))
        assert db.session.scalar(sa.select(sa.func.count(Editor.id))) == 1
    assert titles == {f"{name} {n}" for name in names for n in range(count)}
