"""Accounts in the browser: admins invite with one-time links, change roles, disable accounts
and make password-reset links; the site always keeps an active admin; and the links
themselves hold against guessing, reuse, expiry and forged fields."""

from __future__ import annotations

import contextlib
import re
import threading
from datetime import timedelta

import pytest
import sqlalchemy as sa
from flask import Flask
from flask.testing import FlaskClient

from blog.authoring import account_links
from blog.extensions import db, limiter
from blog.models import (
    ADMIN,
    EDITOR,
    PASSWORD_RESET,
    WRITER,
    AccountLink,
    Editor,
    new_link_token,
    token_digest,
    utcnow,
)
from tests.authoring.test_auth import (
    CHEAP_METHOD,
    csrf_token,
    log_in_as,
    make_editor,
    page,
)

PASSWORD = "a long enough passphrase"
LINK = re.compile(r"http://localhost(/account/(?:invite|reset)/[A-Za-z0-9_-]{43})")


@pytest.fixture(autouse=True)
def _cheap_and_fresh(app: Flask, monkeypatch: pytest.MonkeyPatch) -> None:
    """Cheap password hashes (the login tests check the real ones), no counted guesses."""
    monkeypatch.setattr("blog.models.PASSWORD_METHOD", CHEAP_METHOD)
    limiter.reset()


@pytest.fixture
def admin(app: Flask, client: FlaskClient) -> FlaskClient:
    """A client logged in as an admin."""
    log_in_as(client, make_editor(app, "root@example.com", name="Ada Admin", role=ADMIN))
    return client


def account(app: Flask, email: str) -> Editor:
    """The stored account, detached."""
    with app.app_context():
        found = db.session.scalar(sa.select(Editor).where(Editor.email == email))
        assert found is not None
        db.session.expunge(found)
        return found


def post(client: FlaskClient, url: str, **form: str):
    """A form post from the accounts page, with its CSRF token."""
    token = csrf_token(client, "/editor/accounts")
    return client.post(url, data={"csrf_token": token} | form)


def made_link(response) -> str:
    """The path of the link a page shows once."""
    assert response.status_code == 201, response.get_data(as_text=True)[:400]
    found = LINK.fullmatch(page(response).select_one("#made-link-url")["value"])
    assert found
    return found[1]


def invite(client: FlaskClient, email: str = "new@example.com", role: str = WRITER) -> str:
    """An admin's invitation; returns the path of its link."""
    return made_link(post(client, "/editor/accounts/invite", email=email, role=role))


def accept(client: FlaskClient, path: str, **form: str):
    """Open an invitation and send its form."""
    token = csrf_token(client, path)
    fields = {"name": "New Person", "password": PASSWORD, "again": PASSWORD}
    return client.post(path, data={"csrf_token": token} | fields | form)


def test_an_invitation_makes_the_account_with_the_invited_role_and_logs_it_in(app, admin):
    """The link shows once; the invited person chooses a name and password, gets the role
    the admin chose whatever the form says, and lands in the editor on a fresh session."""
    path = invite(admin, "Newcomer@Example.com", EDITOR)
    assert page(admin.get("/editor/accounts")).select_one("#made-link-url") is None
    with app.app_context():
        stored = db.session.scalar(sa.select(AccountLink))
        assert stored.token_hash == token_digest(path.rsplit("/", 1)[1])
        assert timedelta(hours=71) < stored.expires_at - utcnow() <= timedelta(hours=72)
    newcomer = app.test_client()
    shown = page(newcomer.get(path))
    assert shown.select_one("#invited-email").get_text() == "newcomer@example.com"
    assert "no-store" in newcomer.get(path).headers["Cache-Control"]
    before = csrf_token(newcomer, path)
    response = accept(newcomer, path, role=ADMIN, email="other@example.com")
    assert response.status_code == 303 and response.headers["Location"] == "/editor/"
    made = account(app, "newcomer@example.com")
    assert (made.name, made.role, made.active) == ("New Person", EDITOR, True)
    assert made.check_password(PASSWORD)
    with app.app_context():
        assert (
            db.session.scalar(sa.select(Editor).where(Editor.email == "other@example.com")) is None
        )
    assert newcomer.get("/editor/").status_code == 200
    assert csrf_token(newcomer, "/editor/") != before  # the session was rotated


def test_an_invitation_works_once(app, admin):
    """Used, it opens nothing: a second person gets the dead-link page and no account."""
    path = invite(admin)
    assert accept(app.test_client(), path).status_code == 303
    second = app.test_client()
    assert second.get(path).status_code == 404
    token = csrf_token(second, "/login")
    fields = {"csrf_token": token, "name": "Intruder", "password": PASSWORD, "again": PASSWORD}
    assert second.post(path, data=fields).status_code == 404
    with app.app_context():
        assert db.session.scalar(sa.select(sa.func.count()).select_from(Editor)) == 2


def test_an_invitation_used_twice_at_once_makes_one_account(app, admin):
    """Claiming is one guarded UPDATE: of two claims of the same link only one succeeds."""
    invite(admin)
    with app.app_context():
        link = db.session.scalar(sa.select(AccountLink))
        assert account_links.claim(link) is True
        assert account_links.claim(link) is False
        db.session.rollback()


def test_an_expired_invitation_opens_nothing(app, admin):
    """After 72 hours the link is dead, and accepting it makes nothing."""
    path = invite(admin)
    with app.app_context():
        db.session.execute(sa.update(AccountLink).values(expires_at=utcnow() - timedelta(1)))
        db.session.commit()
    stranger = app.test_client()
    assert stranger.get(path).status_code == 404
    with app.app_context():
        assert db.session.scalar(sa.select(sa.func.count()).select_from(Editor)) == 1


def test_guessed_links_are_dead_and_limited(app, client):
    """A made-up token is the dead-link page; past the login limit of such tries the
    address waits (429)."""
    answers = [
        client.get(f"/account/{kind}/{new_link_token()}").status_code
        for kind in ("invite", "reset", "invite", "reset", "invite", "reset")
    ]
    assert answers == [404] * 5 + [429]


@pytest.mark.parametrize(
    ("form", "message"),
    [
        ({"name": ""}, "Give a name"),
        ({"password": "short", "again": "short"}, "at least 12 characters"),
        ({"again": "something else entirely"}, "two passwords differ"),
    ],
)
def test_a_bad_acceptance_keeps_the_link_usable(app, admin, form, message):
    """A refused form (422) uses nothing up: the link still works afterwards."""
    path = invite(admin)
    newcomer = app.test_client()
    refused = accept(newcomer, path, **form)
    assert refused.status_code == 422 and message in refused.get_data(as_text=True)
    assert accept(newcomer, path).status_code == 303


def test_accepting_needs_the_csrf_token(app, admin):
    """A forged post from another site makes no account."""
    path = invite(admin)
    answer = app.test_client().post(
        path, data={"name": "X", "password": PASSWORD, "again": PASSWORD}
    )
    assert answer.status_code == 400
    with app.app_context():
        assert db.session.scalar(sa.select(sa.func.count()).select_from(Editor)) == 1


@pytest.mark.parametrize(
    ("email", "role", "status"),
    [
        ("not an address", WRITER, 422),
        ("root@example.com", WRITER, 409),
        ("a@example.com", "owner", 422),
    ],
)
def test_refused_invitations(app, admin, email, role, status):
    """A bad address, one that has an account, or a role that does not exist: nothing made."""
    answer = post(admin, "/editor/accounts/invite", email=email, role=role)
    assert answer.status_code == status
    with app.app_context():
        assert db.session.scalar(sa.select(sa.func.count()).select_from(AccountLink)) == 0


def test_a_revoked_invitation_opens_nothing(app, admin):
    """Revoked, the link is dead."""
    path = invite(admin)
    with app.app_context():
        link_id = db.session.scalar(sa.select(AccountLink.id))
    assert post(admin, f"/editor/accounts/invites/{link_id}/revoke").status_code == 303
    assert app.test_client().get(path).status_code == 404


def test_roles_change_and_a_writer_cannot_forge_one(app, admin):
    """An admin changes a role; a writer posting a role to their own account is a 403; an
    unknown role is a 422."""
    writer_id = make_editor(app, "w@example.com", name="Wendy", role=WRITER)
    assert post(admin, f"/editor/accounts/{writer_id}/role", role=EDITOR).status_code == 303
    assert account(app, "w@example.com").role == EDITOR
    assert post(admin, f"/editor/accounts/{writer_id}/role", role="owner").status_code == 422
    writer = app.test_client()
    log_in_as(writer, writer_id)
    post(admin, f"/editor/accounts/{writer_id}/role", role=WRITER)
    forged = writer.post(
        f"/editor/accounts/{writer_id}/role",
        data={"csrf_token": csrf_token(writer, "/editor/"), "role": ADMIN},
    )
    assert forged.status_code == 403
    assert account(app, "w@example.com").role == WRITER


def test_disabling_ends_the_accounts_sessions_at_once(app, admin):
    """The disabled account's open session opens nothing on its very next request."""
    editor_id = make_editor(app, "e@example.com", name="Ed", role=EDITOR)
    editor = app.test_client()
    log_in_as(editor, editor_id)
    assert editor.get("/editor/").status_code == 200
    assert post(admin, f"/editor/accounts/{editor_id}/disable").status_code == 303
    assert editor.get("/editor/").status_code == 302
    assert not account(app, "e@example.com").active
    assert post(admin, f"/editor/accounts/{editor_id}/enable").status_code == 303
    assert editor.get("/editor/").status_code == 302  # the old session stays ended


def test_the_last_admin_cannot_be_disabled_or_demoted(app, admin):
    """409, saying why; with a second admin, either may step down."""
    me = account(app, "root@example.com").id
    for url, form in (
        (f"/editor/accounts/{me}/disable", {}),
        (f"/editor/accounts/{me}/role", {"role": EDITOR}),
    ):
        refused = post(admin, url, **form)
        assert refused.status_code == 409
        assert "last one" in page(refused).select_one("#accounts-problem").get_text()
    assert account(app, "root@example.com").role == ADMIN
    other = make_editor(app, "second@example.com", name="Second", role=ADMIN)
    assert post(admin, f"/editor/accounts/{me}/role", role=EDITOR).status_code == 303
    assert account(app, "root@example.com").role == EDITOR
    assert other


def test_two_admins_demoting_each_other_at_once_leave_one_admin(app, monkeypatch):
    """Both press "Change" at the same moment: one demotion goes through, the other is
    refused (the first is then the last admin, or no longer an admin to ask).

    Each request, once it has counted the admins, waits (up to two seconds) for the other
    to have counted them too: without a lock both would count two admins and both demote.
    With it the second cannot count until the first has committed, so the first goes on
    alone after the wait."""
    first = make_editor(app, "one@example.com", name="One", role=ADMIN)
    second = make_editor(app, "two@example.com", name="Two", role=ADMIN)
    clients = {}
    for me, other in ((first, second), (second, first)):
        client = app.test_client()
        log_in_as(client, me)
        clients[me] = (client, other, csrf_token(client, "/editor/accounts"))
    counted = threading.Barrier(2, timeout=2)
    count_admins = account_links.active_admins

    def count_then_wait() -> list[int]:
        admins = count_admins()
        # A broken wait: the other request could not count yet, as it waits on the lock.
        with contextlib.suppress(threading.BrokenBarrierError):
            counted.wait()
        return admins

    monkeypatch.setattr(account_links, "active_admins", count_then_wait)
    answers: dict[int, int] = {}

    def demote(me: int) -> None:
        client, other, token = clients[me]
        answer = client.post(
            f"/editor/accounts/{other}/role", data={"csrf_token": token, "role": WRITER}
        )
        answers[me] = answer.status_code

    threads = [threading.Thread(target=demote, args=(me,)) for me in clients]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    assert sorted(answers.values()) in ([303, 403], [303, 409]), answers
    with app.app_context():
        admins = db.session.scalars(sa.select(Editor.email).where(Editor.role == ADMIN)).all()
    assert len(admins) == 1


def reset_link(client: FlaskClient, editor_id: int) -> str:
    """An admin's password-reset link for the account; returns its path."""
    return made_link(post(client, f"/editor/accounts/{editor_id}/reset"))


def test_a_reset_link_sets_a_password_once_and_ends_every_session(app, admin):
    """The account's open sessions end; the person is logged in afresh; the link is dead
    afterwards; the old password no longer works."""
    editor_id = make_editor(app, "e@example.com", name="Ed", role=EDITOR)
    open_session = app.test_client()
    log_in_as(open_session, editor_id)
    path = reset_link(admin, editor_id)
    person = app.test_client()
    assert page(person.get(path)).select_one("#reset-email").get_text() == "e@example.com"
    token = csrf_token(person, path)
    new = "another long passphrase"
    done = person.post(path, data={"csrf_token": token, "password": new, "again": new})
    assert done.status_code == 303
    assert account(app, "e@example.com").check_password(new)
    assert person.get("/editor/").status_code == 200
    assert open_session.get("/editor/").status_code == 302
    assert app.test_client().get(path).status_code == 404
    with app.app_context():
        used = db.session.scalar(
            sa.select(AccountLink).where(AccountLink.purpose == PASSWORD_RESET)
        )
        assert used.used_at is not None


def test_a_reset_link_dies_with_a_newer_one_expiry_or_a_disabled_account(app, admin):
    """Only the newest link of an account works, for 24 hours, while it is active."""
    editor_id = make_editor(app, "e@example.com", name="Ed", role=EDITOR)
    older = reset_link(admin, editor_id)
    newer = reset_link(admin, editor_id)
    reader = app.test_client()
    assert reader.get(older).status_code == 404
    assert reader.get(newer).status_code == 200
    post(admin, f"/editor/accounts/{editor_id}/disable")
    assert reader.get(newer).status_code == 404
    post(admin, f"/editor/accounts/{editor_id}/enable")
    with app.app_context():
        db.session.execute(sa.update(AccountLink).values(expires_at=utcnow() - timedelta(1)))
        db.session.commit()
    assert reader.get(newer).status_code == 404


def test_only_admins_open_the_accounts_page(app, client):
    """Editors and writers get a 403; the header's Accounts button is an admin's."""
    for role in (WRITER, EDITOR):
        other = app.test_client()
        log_in_as(other, make_editor(app, f"{role}@example.com", name=role, role=role))
        assert other.get("/editor/accounts").status_code == 403
        assert page(other.get("/editor/")).select_one("#accounts-link") is None
    log_in_as(client, make_editor(app, "root@example.com", name="Root", role=ADMIN))
    assert page(client.get("/editor/")).select_one("#accounts-link") is not None
