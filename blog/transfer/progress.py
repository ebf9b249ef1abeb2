"""The progress bar an import draws while it reads, checks and saves: on standard error, and
only when that is a terminal, so the summary on standard output stays clean in a pipe or a
file and a log captures no bar."""

from __future__ import annotations

import sys
from collections.abc import Iterator, Sequence
from typing import TypeVar

import click

T = TypeVar("T")


def on_terminal() -> bool:
    """True when standard error is a terminal, where a bar can be redrawn in place."""
    try:
        return sys.stderr.isatty()
    except (AttributeError, ValueError):  # replaced or closed
        return False


def steps(items: Sequence[T], label: str, shown: bool) -> Iterator[T]:
    """Iterate, drawing a bar labelled `label` on standard error when `shown` (and there is
    something to count)."""
    if not shown or not items:
        yield from items
        return
    with click.progressbar(items, label=label, file=sys.stderr) as bar:
        yield from bar


class Bar:
    """A bar advanced by hand (the posts saved, batch by batch); silent unless `shown`."""

    def __init__(self, length: int, label: str, shown: bool) -> None:
        self._bar = (
            click.progressbar(length=length, label=label, file=sys.stderr)
            if shown and length
            else None
        )
        if self._bar is not None:
            self._bar.render_progress()

    def update(self, done: int) -> None:
        """Count `done` more."""
        if self._bar is not None:
            self._bar.update(done)

    def finish(self) -> None:
        """End the bar's line."""
        if self._bar is not None:
            self._bar.render_finish()
