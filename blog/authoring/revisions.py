"""Post history: every save keeps a revision, and so do autosaves and set-aside conflicts.

Revisions are plain rows in post_revisions, which no cached page depends on: recording one
never moves the data version. Retention is bounded: a post keeps the newest KEEP autosaves,
the newest KEEP of its other revisions (saves, restores and texts set aside in a conflict),
and, older than those, the newest KEEP saves made while it was published (their text was
public once): at most 3 * KEEP revisions whatever their kinds. Older ones go as new
revisions come in.
"""

from __future__ import annotations

import dataclasses
import re
import time
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

import sqlalchemy as sa
import sqlalchemy.orm as so
from diff_match_patch import diff_match_patch

from blog.extensions import db
from blog.markup.budget import TooSlow, within
from blog.models import DRAFT, PUBLISHED, Post, PostRevision, max_length
from blog.web.templating import in_words, site_datetime

SAVE = "save"  # an editor's save (or, with no editor named, a version saved elsewhere)
AUTOSAVE = "autosave"  # text being typed, sent while the editor pauses; never published
RESTORE = "restore"  # a save that put an earlier revision's text back
CONFLICT = "conflict"  # an editor's text that lost a conflict and was set aside
PENDING = "pending"  # "Save draft" on a published post: changes not yet live
KIND_LABELS = {
    SAVE: "Save",
    AUTOSAVE: "Autosave",
    RESTORE: "Restore",
    CONFLICT: "Set aside in a conflict",
    PENDING: "Draft changes (not live)",
}
KEEP = 50  # revisions per post kept in each group (see prune)

# The longest values the revision columns hold.
LIMITS = {
    name: max_length(PostRevision.__table__.c[name])
    for name in ("title", "slug", "author_name", "image_alt", "illustration")
}


@dataclass(frozen=True)
class Text:
    """What a revision keeps of a post: its text, topics, authors and publishing settings."""

    title: str
    slug: str
    summary: str
    body: str
    topics: tuple[str, ...]
    authors: tuple[str, ...]  # names, in order
    status: str
    published_at: datetime | None = None
    updated_at: datetime | None = None
    image_alt: str | None = None
    meta_description: str = ""
    illustration: str = ""  # the drawing's spec
    # The pictures by hash ("" for none) and the flags; None where a revision made before
    # they were kept does not know them.
    image: str | None = None
    social_image: str | None = None
    featured: bool | None = None
    editors_pick: bool | None = None

    def too_long(self) -> str | None:
        """The first field longer than its column holds, or None when all fit."""
        values = {
            "title": self.title,
            "slug": self.slug,
            "image_alt": self.image_alt or "",
            "illustration": self.illustration,
        }
        for name, value in values.items():
            if len(value) > LIMITS[name]:
                return name
        if any(len(author) > LIMITS["author_name"] for author in self.authors):
            return "author_name"
        return None


NOTHING = Text("", "", "", "", (), (), DRAFT)  # a deleted post, compared with its revisions


def text_of(post: Post) -> Text:
    """The text a stored post holds now."""
    return Text(
        title=post.title,
        slug=post.slug,
        summary=post.summary,
        body=post.body_markdown,
        topics=tuple(topic.name for topic in post.topics),
        authors=tuple(author.name for author in post.authors if author is not None),
        status=post.status,
        published_at=post.published_at,
        updated_at=post.updated_at,
        image_alt=post.image_alt,
        meta_description=post.meta_description,
        illustration=post.illustration,
        image=post.image.sha256 if post.image is not None else "",
        social_image=post.social_image.sha256 if post.social_image is not None else "",
        featured=post.featured,
        editors_pick=post.editors_pick,
    )


def text_in(revision: PostRevision) -> Text:
    """The text a revision keeps."""
    return Text(
        title=revision.title,
        slug=revision.slug,
        summary=revision.summary,
        body=revision.body_markdown,
        topics=tuple(revision.topics or ()),
        authors=tuple(revision.authors or _first_only(revision.author_name)),
        status=revision.status,
        published_at=revision.published_at,
        updated_at=revision.updated_at,
        image_alt=revision.image_alt,
        meta_description=revision.meta_description,
        illustration=revision.illustration,
        image=revision.image_sha256,
        social_image=revision.social_image_sha256,
        featured=revision.featured,
        editors_pick=revision.editors_pick,
    )


def _first_only(author_name: str) -> list[str]:
    """The authors of a revision made before co-authors: the one it names, if any."""
    return [author_name] if author_name else []


def record(post: Post, kind: str = SAVE, *, editor_name: str = "") -> PostRevision:
    """Add a revision holding the post as it now stands to the session (the caller commits,
    so the revision and the save it records land together or not at all)."""
    return _add(post.id, text_of(post), kind, editor_name, post.lock_version)


def record_text(
    post_id: int, text: Text, kind: str, *, editor_name: str, lock_version: int | None
) -> PostRevision | None:
    """Add a revision of text that was not saved into the post (an autosave, a conflict's
    losing side); None when the post's newest revision already holds exactly this."""
    newest = db.session.scalar(
        sa.select(PostRevision)
        .where(PostRevision.post_id == post_id)
        .order_by(PostRevision.id.desc())
        .limit(1)
    )
    if newest is not None and _same_text(text_in(newest), text):
        return None
    return _add(post_id, text, kind, editor_name, lock_version)


def _same_text(one: Text, other: Text) -> bool:
    """True when two texts differ in nothing an editor types (dates and status aside)."""
    fields = (
        "title",
        "slug",
        "summary",
        "body",
        "topics",
        "authors",
        "meta_description",
        "illustration",
    )
    return all(getattr(one, name) == getattr(other, name) for name in fields)


def _add(
    post_id: int, text: Text, kind: str, editor_name: str, lock_version: int | None
) -> PostRevision:
    """Store one revision, then let the oldest prunable ones go."""
    revision = PostRevision(
        post_id=post_id,
        kind=kind,
        editor_name=editor_name,
        lock_version=lock_version,
        title=text.title,
        slug=text.slug,
        summary=text.summary,
        body_markdown=text.body,
        topics=list(text.topics),
        author_name=text.authors[0] if text.authors else "",
        authors=list(text.authors),
        status=text.status,
        published_at=text.published_at,
        updated_at=text.updated_at,
        image_alt=text.image_alt,
        meta_description=text.meta_description,
        illustration=text.illustration,
        image_sha256=text.image,
        social_image_sha256=text.social_image,
        featured=text.featured,
        editors_pick=text.editors_pick,
    )
    db.session.add(revision)
    db.session.flush()
    prune(post_id)
    return revision


def prune(post_id: int) -> None:
    """Drop what retention lets go: autosaves past the KEEP newest autosaves; saves, restores
    and conflicts past the KEEP newest of those, but for the KEEP newest published saves
    older than them.

    Ranking autosaves apart keeps a long typing session from pushing saves out; every
    revision among the KEEP newest overall is among the KEEP newest of its own group, so
    those always stay. A post keeps at most 3 * KEEP revisions, whatever their kinds.
    """
    _drop_older(post_id, [AUTOSAVE], _nth_newest(post_id, [AUTOSAVE]))
    others = [SAVE, RESTORE, CONFLICT, PENDING]
    oldest_kept = _nth_newest(post_id, others)
    if oldest_kept is None:
        return
    published = sa.and_(PostRevision.kind.in_([SAVE, RESTORE]), PostRevision.status == PUBLISHED)
    oldest_published = _nth_newest(post_id, [SAVE, RESTORE], published, before=oldest_kept)
    _drop_older(post_id, others, oldest_kept, sa.not_(published))
    _drop_older(post_id, [SAVE, RESTORE], oldest_published, published)


def _nth_newest(
    post_id: int,
    kinds: Sequence[str],
    condition: sa.ColumnElement[bool] | None = None,
    *,
    before: int | None = None,
) -> int | None:
    """The id of the post's KEEP-th newest revision of `kinds` meeting `condition` (older
    than revision `before`, if given), or None when it has fewer."""
    query = sa.select(PostRevision.id).where(
        PostRevision.post_id == post_id, PostRevision.kind.in_(kinds)
    )
    if condition is not None:
        query = query.where(condition)
    if before is not None:
        query = query.where(PostRevision.id < before)
    return db.session.scalar(query.order_by(PostRevision.id.desc()).offset(KEEP - 1).limit(1))


def _drop_older(
    post_id: int,
    kinds: Sequence[str],
    oldest_kept: int | None,
    condition: sa.ColumnElement[bool] | None = None,
) -> None:
    """Delete the post's revisions of `kinds` (meeting `condition`) older than `oldest_kept`;
    none when it is None."""
    if oldest_kept is None:
        return
    doomed = sa.delete(PostRevision).where(
        PostRevision.post_id == post_id,
        PostRevision.kind.in_(kinds),
        PostRevision.id < oldest_kept,
    )
    db.session.execute(doomed if condition is None else doomed.where(condition))


def history(post_id: int) -> list[PostRevision]:
    """Every revision kept for a post (or for the post that had this id), newest first, with
    only what the history lists of each: the text of one is read when it is used."""
    listed = (
        PostRevision.post_id,
        PostRevision.kind,
        PostRevision.created_at,
        PostRevision.editor_name,
        PostRevision.status,
        PostRevision.title,
    )
    query = (
        sa.select(PostRevision)
        .options(so.load_only(*listed))
        .where(PostRevision.post_id == post_id)
        .order_by(PostRevision.id.desc())
    )
    return list(db.session.scalars(query))


def revision_of(post_id: int, revision_id: int) -> PostRevision | None:
    """One revision of one post, whole (even if the history listed it without its text), or
    None when that post has no such revision."""
    revision = db.session.get(PostRevision, revision_id, populate_existing=True)
    return revision if revision is not None and revision.post_id == post_id else None


def autosave_after(post_id: int, moment: datetime) -> PostRevision | None:
    """The newest autosave of a post made after `moment` (its last save), if any."""
    query = (
        sa.select(PostRevision)
        .where(
            PostRevision.post_id == post_id,
            PostRevision.kind == AUTOSAVE,
            PostRevision.created_at > moment,
        )
        .order_by(PostRevision.id.desc())
        .limit(1)
    )
    return db.session.scalar(query)


def saved_version(post_id: int, lock_version: int) -> PostRevision | None:
    """The save (or restore) that left the post at `lock_version`: the base of a merge. None
    when retention has let it go, or the version never was (a conflict's set-aside text
    names the version it started from, so only saves count)."""
    query = (
        sa.select(PostRevision)
        .where(
            PostRevision.post_id == post_id,
            PostRevision.lock_version == lock_version,
            PostRevision.kind.in_([SAVE, RESTORE]),
        )
        .order_by(PostRevision.id.desc())
        .limit(1)
    )
    return db.session.scalar(query)


def saves_since(post_id: int, lock_version: int) -> list[tuple[str, datetime]]:
    """Who saved the post after `lock_version`, and when, oldest first: the saves a merge
    takes in."""
    query = (
        sa.select(PostRevision.editor_name, PostRevision.created_at)
        .where(
            PostRevision.post_id == post_id,
            PostRevision.lock_version > lock_version,
            PostRevision.kind.in_([SAVE, RESTORE]),
        )
        .order_by(PostRevision.id)
    )
    return [(name, created) for name, created in db.session.execute(query)]


def has_saved_version(post: Post) -> bool:
    """True when a save or restore revision holds the post at its current lock version."""
    query = sa.select(PostRevision.id).where(
        PostRevision.post_id == post.id,
        PostRevision.lock_version == post.lock_version,
        PostRevision.kind.in_([SAVE, RESTORE]),
    )
    return db.session.scalar(query.limit(1)) is not None


# Comparing texts ---------------------------------------------------------------------------

SAME, REMOVED, ADDED = "same", "removed", "added"
CONTEXT = 3  # unchanged lines shown around each change
# Seconds of CPU time one body diff may take; past it the editor shows both texts side by side.
# Diffs of ordinary edits take milliseconds, and of 200,000-character bodies differing nearly
# everywhere far longer than a page should wait.
DIFF_TIME_LIMIT = 1.0


Part = tuple[str, bool]  # a run of a changed line's text, and whether it changed


@dataclass(frozen=True)
class Line:
    """One line of a diff: `kind` says whether it is in both texts, the old or the new only.

    A removed or added line that replaced a similar one also has `parts`: its text in runs,
    each marked changed or not, so the words that changed can be shown; without parts the
    whole line is the change.
    """

    kind: str
    text: str
    old_number: int | None
    new_number: int | None
    parts: tuple[Part, ...] = ()


@dataclass(frozen=True)
class Change:
    """A field that differs between two texts, as each shows it."""

    label: str
    old: str
    new: str


def line_diff(old: str, new: str, context: int = CONTEXT) -> list[list[Line]]:
    """The lines that differ from `old` to `new`, in hunks with `context` lines around each
    change; no hunks when the texts have the same lines.

    A shortest edit script (Myers' algorithm, as diff-match-patch implements it), which takes
    time in proportion to the text times the number of lines that differ: a long run of
    identical lines costs no more than any other text. It can still be slow for long texts
    that differ nearly everywhere: body_diff keeps it to a time limit.
    """
    old_lines, new_lines = old.splitlines(), new.splitlines()
    hunks: list[list[Line]] = []
    for group in _grouped(line_opcodes(old_lines, new_lines), context):
        hunk: list[Line] = []
        for tag, old_start, old_end, new_start, new_end in group:
            if tag == "equal":
                hunk += [
                    Line(SAME, old_lines[i], i + 1, new_start + i - old_start + 1)
                    for i in range(old_start, old_end)
                ]
                continue
            hunk += [Line(REMOVED, old_lines[i], i + 1, None) for i in range(old_start, old_end)]
            hunk += [Line(ADDED, new_lines[j], None, j + 1) for j in range(new_start, new_end)]
        hunks.append(hunk)
    return hunks


Opcode = tuple[str, int, int, int, int]  # as difflib's: tag, old start and end, new start and end


def line_opcodes(old_lines: Sequence[str], new_lines: Sequence[str]) -> list[Opcode]:
    """How to turn `old_lines` into `new_lines`: runs of equal lines and of changed ones."""
    # diff-match-patch compares characters: each distinct line becomes one.
    codes: dict[str, str] = {}
    old_text = "".join(codes.setdefault(line, chr(len(codes))) for line in old_lines)
    new_text = "".join(codes.setdefault(line, chr(len(codes))) for line in new_lines)
    matcher = diff_match_patch()
    # No clock of its own (past it, diff-match-patch would answer that every line differs):
    # body_diff's time limit stops the work instead.
    matcher.Diff_Timeout = 0
    opcodes: list[Opcode] = []
    i = j = 0
    for operation, run in matcher.diff_main(old_text, new_text, checklines=False):
        length = len(run)
        if operation == matcher.DIFF_EQUAL:
            opcodes.append(("equal", i, i + length, j, j + length))
            i, j = i + length, j + length
        elif operation == matcher.DIFF_DELETE:
            opcodes.append(("delete", i, i + length, j, j))
            i += length
        else:
            opcodes.append(("insert", i, i, j, j + length))
            j += length
    return opcodes


def _grouped(opcodes: list[Opcode], context: int) -> list[list[Opcode]]:
    """The opcodes in hunks: each change with up to `context` equal lines either side, and
    changes closer than twice that in one hunk (difflib's get_grouped_opcodes, for these)."""
    if not any(tag != "equal" for tag, *_ in opcodes):
        return []
    codes = list(opcodes)
    tag, i1, i2, j1, j2 = codes[0]
    if tag == "equal":
        codes[0] = tag, max(i1, i2 - context), i2, max(j1, j2 - context), j2
    tag, i1, i2, j1, j2 = codes[-1]
    if tag == "equal":
        codes[-1] = tag, i1, min(i2, i1 + context), j1, min(j2, j1 + context)
    groups: list[list[Opcode]] = []
    group: list[Opcode] = []
    for tag, i1, i2, j1, j2 in codes:
        if tag == "equal" and i2 - i1 > 2 * context:
            group.append((tag, i1, i1 + context, j1, j1 + context))
            groups.append(group)
            group = []
            i1, j1 = i2 - context, j2 - context
        group.append((tag, i1, i2, j1, j2))
    if group and not (len(group) == 1 and group[0][0] == "equal"):
        groups.append(group)
    return groups


# Words, runs of spaces, and each other character: what a changed line is compared by.
TOKENS = re.compile(r"\w+|\s+|[^\w\s]")
# The share of a replaced block's words (by characters, spaces aside) that must be the same in
# both texts for it to be shown word by word; below it the lines are too different for that to
# help, and they are shown as whole lines removed and added.
WORD_DIFF_SIMILARITY = 0.4
# The least CPU time worth starting the word marks with, after the line diff.
WORD_DIFF_MIN_TIME = 0.01


def marked_words(hunks: list[list[Line]]) -> list[list[Line]]:
    """The hunks with each run of removed lines that added lines replaced compared word by
    word: lines similar enough get `parts` marking the words that changed."""
    marked: list[list[Line]] = []
    for hunk in hunks:
        lines: list[Line] = []
        start = 0
        while start < len(hunk):
            end = start
            while end < len(hunk) and hunk[end].kind == REMOVED:
                end += 1
            added = end
            while added < len(hunk) and hunk[added].kind == ADDED:
                added += 1
            if end > start and added > end:
                lines += _word_marked(hunk[start:end], hunk[end:added])
                start = added
            else:
                lines.append(hunk[start])
                start += 1
        marked.append(lines)
    return marked


def _word_marked(removed: list[Line], added: list[Line]) -> list[Line]:
    """A block of removed lines and the added lines that replaced them, with `parts` on
    each line that keeps some of its words (none when the block is too different)."""
    old_tokens = _line_tokens([line.text for line in removed])
    new_tokens = _line_tokens([line.text for line in added])
    codes: dict[str, str] = {}
    old_text = "".join(codes.setdefault(token, chr(len(codes))) for token in old_tokens)
    new_text = "".join(codes.setdefault(token, chr(len(codes))) for token in new_tokens)
    matcher = diff_match_patch()
    matcher.Diff_Timeout = 0  # body_diff's time limit stops the work
    diffs = matcher.diff_main(old_text, new_text, checklines=False)
    matcher.diff_cleanupSemantic(diffs)  # no lone space or comma left between two changes
    old_parts: list[list[Part]] = [[] for _ in removed]
    new_parts: list[list[Part]] = [[] for _ in added]
    old_at = new_at = i = j = 0
    for operation, run in diffs:
        for _ in run:
            if operation != matcher.DIFF_INSERT:
                old_at = _placed(old_tokens[i], operation != matcher.DIFF_EQUAL, old_parts, old_at)
                i += 1
            if operation != matcher.DIFF_DELETE:
                new_at = _placed(new_tokens[j], operation != matcher.DIFF_EQUAL, new_parts, new_at)
                j += 1
    if _similarity(old_parts + new_parts) < WORD_DIFF_SIMILARITY:
        return removed + added
    return [
        _with_parts(line, parts)
        for line, parts in zip(removed + added, old_parts + new_parts, strict=True)
    ]


def _line_tokens(lines: list[str]) -> list[str]:
    """The tokens of `lines`, with a newline token between one line and the next."""
    tokens: list[str] = []
    for number, line in enumerate(lines):
        if number:
            tokens.append("\n")
        tokens += TOKENS.findall(line)
    return tokens


def _placed(token: str, changed: bool, lines: list[list[Part]], at: int) -> int:
    """Add a token to line `at` of `lines` (a newline moves on to the next line, or keeps
    to the last); the line it leaves off at."""
    if token == "\n":
        return min(at + 1, len(lines) - 1)
    parts = lines[at]
    if parts and parts[-1][1] == changed:
        parts[-1] = (parts[-1][0] + token, changed)
    else:
        parts.append((token, changed))
    return at


def _similarity(lines: list[list[Part]]) -> float:
    """The share of the characters (spaces aside) of these lines that are unchanged."""
    kept = total = 0
    for parts in lines:
        for text, changed in parts:
            size = len(text) - sum(char.isspace() for char in text)
            total += size
            kept += 0 if changed else size
    return kept / total if total else 0.0


def _with_parts(line: Line, parts: list[Part]) -> Line:
    """The line with its parts, or as a whole line when none of its words stayed."""
    if not any(text.strip() for text, changed in parts if not changed):
        return line
    return dataclasses.replace(line, parts=tuple(parts))


def body_diff(
    old: str, new: str, *, time_limit: float = DIFF_TIME_LIMIT, context: int = CONTEXT
) -> list[list[Line]] | None:
    """line_diff of two bodies with the changed words marked, or None when the lines alone
    would take more than `time_limit` seconds of CPU time (the texts are then too
    different to show line by line).

    The word marks get what is left of the same limit: past it the lines are shown whole.
    """
    started = time.process_time()
    try:
        hunks = within(time_limit, lambda: line_diff(old, new, context))
    except TooSlow:
        return None
    left = time_limit - (time.process_time() - started)
    if left < WORD_DIFF_MIN_TIME:
        return hunks
    try:
        return within(left, lambda: marked_words(hunks))
    except TooSlow:
        return hunks


@dataclass(frozen=True)
class Sides:
    """Two texts compared, each as its own column: the old one's lines (unchanged or
    removed) and the new one's (unchanged or added), changed words marked as body_diff
    marks them."""

    old: tuple[Line, ...]
    new: tuple[Line, ...]


def side_by_side(pairs: Sequence[tuple[str, str]]) -> list[Sides | None]:
    """Each (old, new) pair compared as two columns, all of them within one DIFF_TIME_LIMIT
    of CPU time, as one body diff is: a pair the time left does not cover (or whose lines do
    not differ) is None, to be shown unmarked."""
    started = time.process_time()
    compared: list[Sides | None] = []
    for old, new in pairs:
        left = DIFF_TIME_LIMIT - (time.process_time() - started)
        hunks = None
        if left >= WORD_DIFF_MIN_TIME:
            whole = len(old) + len(new) + 1  # context enough for every line: one hunk
            hunks = body_diff(old, new, time_limit=left, context=whole)
        if not hunks:
            compared.append(None)
            continue
        (hunk,) = hunks
        compared.append(
            Sides(
                old=tuple(line for line in hunk if line.kind != ADDED),
                new=tuple(line for line in hunk if line.kind != REMOVED),
            )
        )
    return compared


def _when(moment: datetime | None) -> str:
    """A stored time as the editor shows it, in the site's zone."""
    return site_datetime(moment) if moment is not None else "—"


def compare(old: Text, new: Text) -> dict[str, object]:
    """What the diff templates show: the other fields that differ, and the body's hunks
    (none, and `too_different` set, when the bodies could not be compared in time)."""
    hunks = body_diff(old.body, new.body)
    return {
        "changes": field_changes(old, new),
        "hunks": hunks or [],
        "too_different": hunks is None,
        "time_limit": DIFF_TIME_LIMIT,
    }


def field_changes(old: Text, new: Text) -> list[Change]:
    """The fields other than the body that differ from `old` to `new`."""
    pairs = [
        ("Title", old.title, new.title),
        ("Address", old.slug, new.slug),
        ("Summary", old.summary, new.summary),
        ("Meta description", old.meta_description, new.meta_description),
        ("Drawing", old.illustration, new.illustration),
        ("Topics", ", ".join(old.topics), ", ".join(new.topics)),
        ("Authors", in_words(old.authors), in_words(new.authors)),
        ("Status", old.status.capitalize(), new.status.capitalize()),
        ("Publish date", _when(old.published_at), _when(new.published_at)),
    ]
    return [Change(label, before, after) for label, before, after in pairs if before != after]
