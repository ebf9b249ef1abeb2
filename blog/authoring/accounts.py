"""`flask --app blog editors ...`: create, list, disable and enable editor accounts."""

from __future__ import annotations

import sys

import click
import sqlalchemy as sa
from email_validator import EmailNotValidError, validate_email

from blog.authoring.auth import normalised_email
from blog.cli import TablesGroup
from blog.database import begin_write
from blog.extensions import db
from blog.models import Editor

editors = TablesGroup("editors", help="Editor accounts: who may log in and write.")

MIN_PASSWORD = 12
MAX_PASSWORD = 1024


def _checked_email(value: str) -> str:
    """The address in its stored form, or a usage error that says what is wrong with it."""
    try:
        valid = validate_email(value.strip(), check_deliverability=False)
    except EmailNotValidError as error:
        raise click.BadParameter(str(error), param_hint="EMAIL") from error
    return normalised_email(valid.normalized)


def _checked_password(password: str) -> str:
    """The password, when its length is sensible."""
    if len(password) < MIN_PASSWORD:
        raise click.UsageError(f"The password needs at least {MIN_PASSWORD} characters.")
    if len(password) > MAX_PASSWORD:
        raise click.UsageError(f"The password may have at most {MAX_PASSWORD} characters.")
    return password


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
    "--password-stdin",
    is_flag=True,
    help="Read the password from the first line of standard input instead of prompting.",
)
def create(email: str, name: str, password_stdin: bool) -> None:
    """Create an editor account (the password is asked for, never given as an argument)."""
    address = _checked_email(email)
    name = " ".join(name.split())
    if not name or len(name) > 120:
        raise click.BadParameter("give a name of 1 to 120 characters", param_hint="--name")
    if db.session.scalar(sa.select(Editor.id).where(Editor.email == address)) is not None:
        raise click.ClickException(f"An editor account for {address} already exists.")
    # No transaction stays open while the password is typed and hashed (scrypt is slow on
    # purpose): the write itself is short and takes the write lock first.
    db.session.rollback()
    if password_stdin:
        password = sys.stdin.readline().rstrip("\r\n")
    else:
        password = click.prompt("Password", hide_input=True, confirmation_prompt=True)
    editor = Editor(email=address, name=name)
    editor.set_password(_checked_password(password))
    begin_write()
    db.session.add(editor)
    try:
        db.session.commit()
    except sa.exc.IntegrityError:
        db.session.rollback()
        raise click.ClickException(f"An editor account for {address} already exists.") from None
    click.echo(f"Created editor {name} <{address}>.")


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
        click.echo(f"{editor.email:<{width}}  {state:<8}  since {since}  {editor.name}")


def _set_active(email: str, active: bool) -> None:
    """Allow or stop logins for one account, under the write lock, and say so."""
    begin_write()
    editor = _editor(email)
    editor.active = active
    db.session.commit()
    click.echo(f"{'Enabled' if active else 'Disabled'} {editor.email}.")


@editors.command("disable")
@click.argument("email")
def disable(email: str) -> None:
    """Stop an account from logging in; its open sessions end at their next request."""
    _set_active(email, False)


@editors.command("enable")
@click.argument("email")
def enable(email: str) -> None:
    """Let a disabled account log in again."""
    _set_active(email, True)
