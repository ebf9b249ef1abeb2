"""Command groups whose commands work on the tables: each checks the migrated schema first.

The base of every area's `flask --app blog` group (`demo`, `posts`, `editors`), so a command
run against an empty or outdated database stops with one line instead of a traceback.
"""

from __future__ import annotations

import copy
import functools
from collections.abc import Callable
from typing import Any

import click
import sqlalchemy as sa
from flask.cli import AppGroup, with_appcontext

from blog import database
from blog.extensions import db

UPGRADE = "run `flask --app blog db upgrade` first."
SCHEMA_REFUSALS = {
    database.SCHEMA_MISSING: f"The database has no tables yet: {UPGRADE}",
    database.SCHEMA_BEHIND: f"The database schema is older than this code: {UPGRADE}",
    database.SCHEMA_AHEAD: "The database schema was migrated by a newer version of this code.",
}


def require_schema() -> None:
    """Stop with one line, before any work, unless the migrated schema is in place."""
    try:
        state = database.schema_state()
    except sa.exc.DBAPIError as error:
        url = db.engine.url.render_as_string(hide_password=True)
        reason = (str(error.orig).strip().splitlines() or ["no reason given"])[0]
        raise click.ClickException(f"Cannot open the database {url}: {reason}") from None
    if state != database.SCHEMA_CURRENT:
        raise click.ClickException(SCHEMA_REFUSALS[state])


def _after_schema_check(callback: Callable[..., Any]) -> Callable[..., Any]:
    """The command's callback, run only once `require_schema` is satisfied."""

    @functools.wraps(callback)
    @with_appcontext
    def checked(*args: Any, **kwargs: Any) -> Any:
        require_schema()
        return callback(*args, **kwargs)

    return checked


class TablesGroup(AppGroup):
    """A group of commands that work on the blog's tables.

    Each of its commands, however it was added, checks the schema once its own arguments are
    read (so `--help` and usage errors come first), instead of failing on a missing table.
    """

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        """The command, with its callback behind the schema check."""
        command = super().get_command(ctx, cmd_name)
        if command is None or command.callback is None:
            return command
        checked = copy.copy(command)
        checked.callback = _after_schema_check(command.callback)
        return checked
