"""Three-way merges of a post: a save based on an older version, merged with what was saved
since (theirs) against the version it started from (the base), field by field and the body
line by line.

A field changed on one side only takes that side's value; changed alike on both, it is
kept; changed differently on both, it is an overlap, which the editor settles by choosing
theirs or mine. The body is merged by lines (merge3), each overlapping run of lines being
one overlap. Nothing here touches the database but the look-up of a picture to describe it.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from datetime import datetime

from merge3 import Merge3

from blog.authoring import revisions
from blog.authoring.revisions import Text, line_opcodes
from blog.markup.budget import TooSlow, within
from blog.media.images import image_by_hash
from blog.web.templating import in_words, site_datetime

THEIRS, MINE = "theirs", "mine"
CHOICES = (THEIRS, MINE)
BODY = "body"


class TooDifferent(Exception):
    """The bodies could not be merged line by line within the time limit."""


@dataclass(frozen=True)
class Unit:
    """Fields merged as one: a choice takes all of them from the same side (a status with
    its date, a picture with its alt text)."""

    key: str
    label: str
    names: tuple[str, ...]


UNITS = (
    Unit("title", "Title", ("title",)),
    Unit("slug", "Address", ("slug",)),
    Unit("summary", "Summary", ("summary",)),
    Unit("topics", "Topics", ("topics",)),
    Unit("authors", "Authors", ("authors",)),
    Unit("publishing", "Status and publish date", ("status", "published_at")),
    Unit("picture", "Illustration", ("image", "image_alt")),
    Unit("social_image", "Social image", ("social_image",)),
    Unit("drawing", "Drawing", ("illustration",)),
    Unit("meta_description", "Meta description", ("meta_description",)),
    Unit("featured", "Featured", ("featured",)),
    Unit("editors_pick", "Editor’s pick", ("editors_pick",)),
)


@dataclass(frozen=True)
class Overlap:
    """One thing both sides changed differently: a unit of fields, or a run of body lines
    (labelled by where it is in this editor's body)."""

    key: str
    label: str
    theirs: str  # as the editor reads it
    mine: str
    digest: str  # names its choice in the form (pick-<digest>): the base's and their side
    choice: str | None = None  # THEIRS, MINE, or None while unsettled

    @property
    def field_name(self) -> str:
        """The form field that carries the choice for this overlap."""
        return f"pick-{self.digest}"


@dataclass(frozen=True)
class Merged:
    """A merge's outcome: the text (overlaps settled as chosen, unsettled ones as mine), each
    overlap, and what only one side changed (kept whatever is chosen)."""

    text: Text
    overlaps: list[Overlap]
    only_theirs: list[str]  # labels, "Body" for body lines
    only_mine: list[str]

    @property
    def unsettled(self) -> list[Overlap]:
        """The overlaps still waiting for a choice."""
        return [overlap for overlap in self.overlaps if overlap.choice is None]


def _digest(*parts: object) -> str:
    """A short stable name for an overlap's content."""
    return hashlib.sha256(repr(parts).encode()).hexdigest()[:16]


def _shown(unit: Unit, values: tuple[object, ...]) -> str:
    """A unit's value as the overlap shows it."""
    if unit.key == "publishing":
        status, published_at = values
        when = site_datetime(published_at) if isinstance(published_at, datetime) else ""
        return f"{str(status).capitalize()}, {when}" if when else str(status).capitalize()
    if unit.key in ("picture", "social_image"):
        digest = values[0]
        image = image_by_hash(digest) if isinstance(digest, str) and digest else None
        if image is None:
            return "None" if digest == "" else "Unknown"
        shown = f"{image.width}×{image.height} picture"
        alt = values[1] if len(values) > 1 else None
        return f"{shown}, described as “{alt}”" if alt else shown
    value = values[0]
    if unit.key == "topics":
        return ", ".join(value) if isinstance(value, tuple) else ""
    if unit.key == "authors":
        return in_words(value) if isinstance(value, tuple) else ""
    if isinstance(value, bool):
        return "Yes" if value else "No"
    return str(value or "")


class _LineMatcher:
    """difflib.SequenceMatcher's get_matching_blocks, from the shortest edit script the
    history's diffs use: fast on long bodies, and no line is ever treated as junk (difflib
    would ignore the blank lines between paragraphs of a long body)."""

    def __init__(self, isjunk: object, a: Sequence[str], b: Sequence[str]) -> None:
        self.a, self.b = a, b

    def get_matching_blocks(self) -> list[tuple[int, int, int]]:
        """Runs of equal lines as (start in a, start in b, length), then (len a, len b, 0)."""
        blocks = [
            (i1, j1, i2 - i1)
            for tag, i1, i2, j1, _j2 in line_opcodes(self.a, self.b)
            if tag == "equal"
        ]
        return [*blocks, (len(self.a), len(self.b), 0)]


Groups = list[tuple[str, Sequence[str], Sequence[str], Sequence[str], int]]


def _body_groups(base: str, theirs: str, mine: str) -> Groups:
    """merge3's groups of lines: ("unchanged"|"a"|"b"|"same", lines) and ("conflict", base,
    theirs, mine), as 5-tuples ending with where the group starts in `mine` (its index of
    lines); TooDifferent past the time limit."""

    def work() -> Groups:
        sides = [text.splitlines(keepends=True) for text in (base, theirs, mine)]
        merger = Merge3(sides[0], sides[1], sides[2], sequence_matcher=_LineMatcher)
        groups: Groups = []
        for region in merger.merge_regions():
            kind = region[0]
            if kind == "conflict" and len(region) == 7:
                _, base_at, base_end, their_at, their_end, my_at, my_end = region
                groups.append(
                    (
                        kind,
                        sides[0][base_at:base_end],
                        sides[1][their_at:their_end],
                        sides[2][my_at:my_end],
                        my_at,
                    )
                )
            else:  # lines of base ("unchanged"), theirs ("a", "same") or mine ("b")
                side = {"unchanged": 0, "a": 1, "same": 1, "b": 2}[kind]
                groups.append((kind, sides[side][region[1] : region[2]], (), (), -1))
        return groups

    try:
        return within(revisions.DIFF_TIME_LIMIT, work)  # the history's diffs' limit
    except TooSlow as slow:
        raise TooDifferent from slow


def merge(
    base: Text,
    theirs: Text,
    mine: Text,
    choose: Callable[[Overlap], str | None] = lambda overlap: None,
) -> Merged:
    """Merge `mine` and `theirs`, both made from `base`; `choose` settles each overlap (THEIRS,
    MINE or None). TooDifferent when the bodies take too long to merge."""
    merged: dict[str, object] = {}
    overlaps: list[Overlap] = []
    only_theirs: list[str] = []
    only_mine: list[str] = []
    for unit in UNITS:
        was, their, my = (
            tuple(getattr(text, name) for name in unit.names) for text in (base, theirs, mine)
        )
        if their == my:
            value = their
        elif my == was:
            value = their
            only_theirs.append(unit.label)
        elif their == was:
            value = my
            only_mine.append(unit.label)
        else:  # both changed, or the base does not know (None) and the two differ
            overlap = Overlap(
                unit.key,
                unit.label,
                _shown(unit, their),
                _shown(unit, my),
                _digest(unit.key, was, their),
            )
            overlap = replace(overlap, choice=_valid(choose(overlap)))
            overlaps.append(overlap)
            value = their if overlap.choice == THEIRS else my
        merged.update(zip(unit.names, value, strict=True))
    body, body_overlaps, their_lines, my_lines = _merge_body(
        base.body, theirs.body, mine.body, choose
    )
    overlaps += body_overlaps
    if their_lines:
        only_theirs.append("Body")
    if my_lines:
        only_mine.append("Body")
    text = replace(mine, body=body, updated_at=theirs.updated_at, **merged)  # type: ignore[arg-type]
    return Merged(text, overlaps, only_theirs, only_mine)


def _valid(choice: str | None) -> str | None:
    """A choice the merge knows, or None."""
    return choice if choice in CHOICES else None


def _merge_body(
    base: str, theirs: str, mine: str, choose: Callable[[Overlap], str | None]
) -> tuple[str, list[Overlap], bool, bool]:
    """The merged body, its overlaps, and whether lines changed on their side only and on
    mine only were taken."""
    lines: list[str] = []
    overlaps: list[Overlap] = []
    seen: dict[str, int] = {}
    their_lines = my_lines = False
    for kind, first, their, my, my_at in _body_groups(base, theirs, mine):
        if kind != "conflict":
            their_lines = their_lines or kind == "a"
            my_lines = my_lines or kind == "b"
            lines += first
            continue
        # Named by what it replaces and by theirs, not by mine: a choice made on the 409 still
        # holds when the editor then rewrites their own side of it.
        key = _digest(BODY, tuple(first), tuple(their))
        seen[key] = seen.get(key, 0) + 1  # identical overlaps are told apart by their order
        overlap = Overlap(
            BODY, _body_place(my_at, len(my)), "".join(their), "".join(my), _digest(key, seen[key])
        )
        overlap = replace(overlap, choice=_valid(choose(overlap)))
        overlaps.append(overlap)
        lines += their if overlap.choice == THEIRS else my
    return "".join(lines), overlaps, their_lines, my_lines


def _body_place(start: int, count: int) -> str:
    """Where a run of body lines is in this editor's text, as its label says it: "Body,
    first lines", "Body, line 12", "Body, lines 12–14", or "Body, after line 11" for lines
    this editor removed."""
    if start == 0:
        return "Body, first line" if count == 1 else "Body, first lines"
    if count == 0:
        return f"Body, after line {start}"
    if count == 1:
        return f"Body, line {start + 1}"
    return f"Body, lines {start + 1}–{start + count}"


def compared_sides(overlaps: Sequence[Overlap]) -> list[revisions.Sides | None]:
    """Each overlap's two sides as the 409 shows them: a run of body lines compared word by
    word, theirs as the old text and mine as the new, as the history compares revisions
    (all runs within its one time limit); None for a field, and for a run the limit does
    not cover, shown as it is."""
    body = [overlap for overlap in overlaps if overlap.key == BODY]
    compared = iter(revisions.side_by_side([(overlap.theirs, overlap.mine) for overlap in body]))
    return [next(compared) if overlap.key == BODY else None for overlap in overlaps]
