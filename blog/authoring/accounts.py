"""`flask --app blog editors ...`: create, list, rename, disable and enable editor accounts,
set their roles and their passwords."""

from __future__ import annotations

import sys

import click
import sqlalchemy as sa
from email_validator import EmailNotValidError, validate_email

from blog.authoring import account_links
from blog.authoring.auth import normalised_email
from blog.commands import TablesGroup
from blog.database import begin_write
from blog.extensions import db
from blog.models import ADMIN, ROLES, Editor, new_session_token

editors = TablesGroup("editors", help="Editor accounts: who may log in and write.")

MIN_PASSWORD = 12
MAX_PASSWORD = 1024
MAX_NAME = 120

role_choice = click.Choice(ROLES)
password_stdin_option = click.option(
    "--password-stdin",
    is_flag=True,
    help="Read the password from the first line of standard input instead of prompting.",
)


def _checked_email(value: str) -> str:
    """The address in its stored form, or a usage error that says what is wrong with it."""
    try:
        valid = validate_email(value.strip(), check_deliverability=False)
    except EmailNotValidError as error:
        raise click.BadParameter(str(error), param_hint="EMAIL") from error
    return normalised_email(valid.normalized)


def _checked_name(name: str) -> str:
    """The name with its spacing tidied, when it has 1 to MAX_NAME characters."""
    name = " ".join(name.split())
    if not name or len(name) > MAX_NAME:
        raise click.BadParameter(f"give a name of 1 to {MAX_NAME} characters", param_hint="--name")
    return name


def _checked_password(password: str) -> str:
    """The password, when its length is sensible."""
    if len(password) < MIN_PASSWORD:
        raise click.UsageError(f"The password needs at least {MIN_PASSWORD} characters.")
    if len(password) > MAX_PASSWORD:
        raise click.UsageError(f"The password may have at most {MAX_PASSWORD} characters.")
    return password


def _password_hash(password_stdin: bool) -> str:
    """Read a new password (stdin's first line, or asked twice, hidden), check it, hash it.

    Call with no transaction open: typing takes a while, and scrypt is slow on purpose.
    """
    if password_stdin:
        password = sys.stdin.readline().rstrip("\r\n")
    else:
        password = click.prompt("Password", hide_input=True, confirmation_prompt=True)
    holder = Editor()
    holder.set_password(_checked_password(password))
    return holder.password_hash


def _editor(email: str) -> Editor:
    """The account for this address, or a clear error."""
    editor = db.session.scalar(sa.select(Editor).where(Editor.email == normalised_email(email)))
    if editor is None:
        raise click.ClickException(f"There is no editor account for {email}.")
    return editor


@editors.command("create")
@click.argument("email")
@click.option("--name", required=True, help="The name shown to other editors.")
@click.option(
    "--role",
    type=role_choice,
    default=ADMIN,
    show_default=True,
    help="writer: own drafts, sent for review; editor: every post, topics and authors; "
    "admin: all that and accounts.",
)
@password_stdin_option
def create(email: str, name: str, role: str, password_stdin: bool) -> None:
    """Create an editor account (the password is asked for, never given as an argument)."""
    address = _checked_email(email)
    name = _checked_name(name)
    if db.session.scalar(sa.select(Editor.id).where(Editor.email == address)) is not None:
        raise click.ClickException(f"An editor account for {address} already exists.")
    # No transaction stays open while the password is typed and hashed: the write itself is
    # short and takes the write lock first.
    db.session.rollback()
    editor = Editor(
        email=address, name=name, role=role, password_hash=_password_hash(password_stdin)
    )
    begin_write()
    db.session.add(editor)
    try:
        db.session.commit()
    except sa.exc.IntegrityError:
        db.session.rollback()
        raise click.ClickException(f"An editor account for {address} already exists.") from None
    click.echo(f"Created editor {name} <{address}>. Role: {role}.")


@editors.command("list")
def list_() -> None:
    """List editor accounts, active or not."""
    accounts = db.session.scalars(sa.select(Editor).order_by(Editor.email)).all()
    if not accounts:
        click.echo("No editor accounts yet. Create one with `flask --app blog editors create`.")
        return
    width = max(len(editor.email) for editor in accounts)
    for editor in accounts:
        state = "active" if editor.active else "disabled"
        since = editor.created_at.date().isoformat()
        click.echo(
            f"{editor.email:<{width}}  {state:<8}  {editor.role:<6}  since {since}  {editor.name}"
        )


def _update(email: str, **values: object) -> Editor:
    """Change one account's columns under the write lock, and commit."""
    begin_write()
    editor = _editor(email)
    for column, value in values.items():
        setattr(editor, column, value)
    db.session.commit()
    return editor


NO_ADMIN = (
    "Warning: no active admin is left, so nobody can manage accounts in the browser. Make "
    "one with `flask --app blog editors set-role EMAIL admin`."
)


def _change(email: str, *, role: str | None = None, active: bool | None = None) -> Editor:
    """Give one account a role or a state under the write lock, and commit; warn when no
    active admin is left (the browser never allows that; here it may be meant)."""
    begin_write()
    editor = _editor(email)
    account_links.change(editor, role=role, active=active, keep_admin=False)
    db.session.commit()
    if not account_links.has_active_admin():
        click.echo(NO_ADMIN, err=True)
    return editor


def _set_active(email: str, active: bool) -> None:
    """Allow or stop logins for one account, and say so."""
    editor = _change(email, active=active)
    click.echo(f"{'Enabled' if active else 'Disabled'} {editor.email}.")


@editors.command("disable")
@click.argument("email")
def disable(email: str) -> None:
    """Stop an account from logging in; its open sessions end at once."""
    _set_active(email, False)


@editors.command("enable")
@click.argument("email")
def enable(email: str) -> None:
    """Let a disabled account log in again."""
    _set_active(email, True)


@editors.command("set-password")
@click.argument("email")
@password_stdin_option
def set_password(email: str, password_stdin: bool) -> None:
    """Give an account a new password (asked for twice, never given as an argument)."""
    address = _editor(email).email  # an unknown address is refused before the prompt
    db.session.rollback()
    # A new session token too: every session opened with the old password ends.
    hashed = _password_hash(password_stdin)
    editor = _update(address, password_hash=hashed, session_token=new_session_token())
    click.echo(f"Set a new password for {editor.email}.")


@editors.command("rename")
@click.argument("email")
@click.option("--name", required=True, help="The new name shown to other editors.")
def rename(email: str, name: str) -> None:
    """Change the name an account is shown under."""
    editor = _update(email, name=_checked_name(name))
    click.echo(f"Renamed editor {editor.name} <{editor.email}>.")


@editors.command("set-role")
@click.argument("email")
@click.argument("role", type=role_choice)
def set_role(email: str, role: str) -> None:
    """Give an account a role: writer, editor or admin."""
    editor = _change(email, role=role)
    click.echo(f"{editor.email} is now {editor.role}.")
