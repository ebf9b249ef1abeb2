"""Accounts managed in the browser: one-time invitation and password-reset links, roles, and
the rule that the site always keeps an active admin.

A link's token is shown once to the admin who makes it (no mail server: they pass it on);
the store keeps its SHA-256. A link is used at most once, whoever races to use it: claiming
it is one UPDATE that only an unused, unexpired link passes.
"""

from __future__ import annotations

from datetime import timedelta

import sqlalchemy as sa
from email_validator import EmailNotValidError, validate_email

from blog.authoring.store import clean_text
from blog.extensions import db
from blog.models import (
    ADMIN,
    INVITE,
    PASSWORD_RESET,
    AccountLink,
    Editor,
    new_link_token,
    token_digest,
    utcnow,
)

INVITE_LIFETIME = timedelta(hours=72)
RESET_LIFETIME = timedelta(hours=24)
MIN_PASSWORD = 12
MAX_PASSWORD = 1024
MAX_NAME = 120
MAX_EMAIL = 254
TOKEN_LENGTH = 43  # what new_link_token makes
LAST_ADMIN = (
    "The site needs an active admin: this is the last one. Make another account an admin first."
)


class Refused(Exception):
    """An account change the rules do not allow; the message says why."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


# Checking what is typed --------------------------------------------------------------------


def normalised_email(value: str | None) -> str:
    """An address as accounts store it: no control characters, trimmed, lower-case."""
    return clean_text(value).strip().lower()


def checked_email(value: str) -> str:
    """The address in its stored form, or Refused(422) saying what is wrong with it."""
    text = normalised_email(value)
    if not text or len(text) > MAX_EMAIL:
        raise Refused(422, f"Give an email address of at most {MAX_EMAIL} characters.")
    try:
        valid = validate_email(text, check_deliverability=False)
    except EmailNotValidError as error:
        raise Refused(422, str(error)) from None
    return normalised_email(valid.normalized)


def checked_name(value: str | None) -> str:
    """The name with its spacing tidied, when it has 1 to MAX_NAME characters."""
    name = " ".join(clean_text(value).split())
    if not name or len(name) > MAX_NAME:
        raise Refused(422, f"Give a name of 1 to {MAX_NAME} characters.")
    return name


def checked_password(password: str | None, again: str | None) -> str:
    """The password, when it is long enough, not too long, and typed the same twice."""
    password = password or ""
    if len(password) < MIN_PASSWORD:
        raise Refused(422, f"The password needs at least {MIN_PASSWORD} characters.")
    if len(password) > MAX_PASSWORD:
        raise Refused(422, f"The password may have at most {MAX_PASSWORD} characters.")
    if password != (again or ""):
        raise Refused(422, "The two passwords differ: type the same one twice.")
    return password


# Links -------------------------------------------------------------------------------------


def make_invite(email: str, role: str, made_by: str) -> str:
    """Add an invitation for `email` to join as `role` (the caller commits); returns the
    token, shown once. Refused(409) when the address has an account already."""
    if db.session.scalar(sa.select(Editor.id).where(Editor.email == email)) is not None:
        raise Refused(409, f"{email} has an account already.")
    token = new_link_token()
    db.session.add(
        AccountLink(
            purpose=INVITE,
            token_hash=token_digest(token),
            email=email,
            role=role,
            created_by_name=made_by,
            expires_at=utcnow() + INVITE_LIFETIME,
        )
    )
    return token


def make_reset(editor: Editor, made_by: str) -> str:
    """Add a password-reset link for the account, in place of any unused one it had (the
    caller commits); returns the token, shown once."""
    db.session.execute(
        sa.delete(AccountLink).where(
            AccountLink.purpose == PASSWORD_RESET,
            AccountLink.editor_id == editor.id,
            AccountLink.used_at.is_(None),
        )
    )
    token = new_link_token()
    db.session.add(
        AccountLink(
            purpose=PASSWORD_RESET,
            token_hash=token_digest(token),
            email=editor.email,
            editor_id=editor.id,
            created_by_name=made_by,
            expires_at=utcnow() + RESET_LIFETIME,
        )
    )
    return token


def usable(token: str, purpose: str) -> AccountLink | None:
    """The unused, unexpired link of `purpose` this token opens, or None."""
    if len(token) != TOKEN_LENGTH or not token.isascii():
        return None
    query = sa.select(AccountLink).where(
        AccountLink.token_hash == token_digest(token),
        AccountLink.purpose == purpose,
        AccountLink.used_at.is_(None),
        AccountLink.expires_at > utcnow(),
    )
    return db.session.scalar(query)


def claim(link: AccountLink) -> bool:
    """Mark the link used, in the session's transaction; False when another request used it
    first (or it expired meanwhile), so at most one use ever succeeds."""
    now = utcnow()
    result = db.session.execute(
        sa.update(AccountLink)
        .where(
            AccountLink.id == link.id,
            AccountLink.used_at.is_(None),
            AccountLink.expires_at > now,
        )
        .values(used_at=now)
        .execution_options(synchronize_session=False)
    )
    return result.rowcount == 1  # type: ignore[attr-defined]


def pending_invites() -> list[AccountLink]:
    """Invitations not used yet, newest first (expired ones included, to be revoked)."""
    query = (
        sa.select(AccountLink)
        .where(AccountLink.purpose == INVITE, AccountLink.used_at.is_(None))
        .order_by(AccountLink.id.desc())
    )
    return list(db.session.scalars(query))


def revoke_invite(link_id: int) -> bool:
    """Delete an unused invitation (the caller commits); False when there was none such."""
    result = db.session.execute(
        sa.delete(AccountLink).where(
            AccountLink.id == link_id,
            AccountLink.purpose == INVITE,
            AccountLink.used_at.is_(None),
        )
    )
    return bool(result.rowcount)  # type: ignore[attr-defined]


# Roles and the last admin ------------------------------------------------------------------


def active_admins() -> list[int]:
    """The ids of the active admins, their rows locked until the transaction ends (on
    PostgreSQL; SQLite's writers hold the whole database): two admins demoting each other
    at once take turns, and the second sees the first's change."""
    query = (
        sa.select(Editor.id)
        .where(Editor.role == ADMIN, Editor.active.is_(True))
        .order_by(Editor.id)
        .with_for_update()
    )
    return list(db.session.scalars(query))


def keep_an_admin(editor: Editor, *, role: str, active: bool, acting_id: int | None) -> None:
    """Refused(409) when giving `editor` this role and state would leave no active admin;
    Refused(403) when `acting_id` (the admin asking; None on the command line) is no longer
    an active admin once the rows are locked."""
    admins = active_admins()
    if acting_id is not None and acting_id not in admins:
        raise Refused(403, "Only admins manage accounts, and your account is no longer one.")
    stays_admin = role == ADMIN and active
    if editor.id in admins and not stays_admin and len(admins) == 1:
        raise Refused(409, LAST_ADMIN)


def change(
    editor: Editor,
    *,
    role: str | None = None,
    active: bool | None = None,
    acting_id: int | None = None,
    keep_admin: bool = True,
) -> None:
    """Give the account a role, or disable or enable it (the caller commits), keeping an
    active admin unless `keep_admin` is off (the command line may lock everyone out on
    purpose). A disabled account's sessions end at once."""
    new_role = editor.role if role is None else role
    new_active = editor.active if active is None else active
    if keep_admin:
        keep_an_admin(editor, role=new_role, active=new_active, acting_id=acting_id)
    db.session.refresh(editor)
    editor.role = new_role
    if not new_active and editor.active:
        editor.end_sessions()
    editor.active = new_active


def has_active_admin() -> bool:
    """True while some account is an active admin."""
    query = sa.select(Editor.id).where(Editor.role == ADMIN, Editor.active.is_(True)).limit(1)
    return db.session.scalar(query) is not None
