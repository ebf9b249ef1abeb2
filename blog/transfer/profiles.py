"""authors.yml and topics.yml: the authors' profiles (bio, own link, avatar) and the topics'
descriptions, which travel beside the posts."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import sqlalchemy as sa
import yaml

from blog.authoring import store
from blog.authoring.taxonomy import BIO_MAX, DESCRIPTION_MAX, URL_MAX
from blog.extensions import db
from blog.markup.policy import web_link
from blog.models import Author, Image, Topic
from blog.transfer.frontmatter import (
    AUTHOR_MAX,
    TOPIC_MAX,
    BadYaml,
    Problem,
    compose_yaml,
    dump_yaml,
    terminal_safe,
)

AUTHORS_FILE = "authors.yml"
TOPICS_FILE = "topics.yml"
# A file of entries is a few lines per name: a bigger one is refused unread.
FILE_MAX = 1_000_000
# An author's avatar is written as images/<author slug>.avatar.<ext> (slugs have no dots).
AVATAR_SUFFIX = ".avatar"


def _bio(text: str) -> str | None:
    """The problem with a bio, if any."""
    if len(text) > BIO_MAX:
        return f"`bio` is longer than {BIO_MAX} characters ({len(text):,})"
    return None


def _url(text: str) -> str | None:
    """The problem with an author's own link, if any."""
    if len(text) > URL_MAX:
        return f"`url` is longer than {URL_MAX} characters ({len(text):,})"
    if web_link(text) is None:
        return (
            "`url` must be a web address with a host, starting with https:// or http://,"
            f" not `{terminal_safe(text)[:60]}`"
        )
    return None


def _description(text: str) -> str | None:
    """The problem with a topic's description, if any."""
    if len(text) > DESCRIPTION_MAX:
        return f"`description` is longer than {DESCRIPTION_MAX} characters ({len(text):,})"
    return None


@dataclass(frozen=True)
class Kind:
    """One file of named entries: its name, what it names, and each field's check (the
    problem with a value, or None), in the order an export writes the fields."""

    file: str
    noun: str
    fields: dict[str, Callable[[str], str | None]]
    name_max: int
    slug: Callable[[str], str]


AUTHORS = Kind(
    AUTHORS_FILE,
    "author",
    {"bio": _bio, "url": _url, "avatar": lambda text: None},
    AUTHOR_MAX,
    store.author_slug,
)
TOPICS = Kind(TOPICS_FILE, "topic", {"description": _description}, TOPIC_MAX, store.topic_slug)


@dataclass
class Named:
    """One entry: a name and its checked, non-empty field values."""

    name: str
    values: dict[str, str] = field(default_factory=dict)
    # The line of the name and of each field, so later checks can point at them.
    lines: dict[str, int] = field(default_factory=dict, compare=False)

    def line(self, name: str) -> int:
        """The line of a field, or of the name when the field was not given."""
        return self.lines.get(name, self.lines.get("name", 1))


@dataclass
class Filled:
    """What an import did to the authors or topics a file lists."""

    what: str  # "author profiles", "topic descriptions"
    filled: int = 0  # entries that gave their row at least one field
    unchanged: int = 0
    # Names with a field the site already fills otherwise: the site's is kept.
    kept: list[str] = field(default_factory=list)

    def __str__(self) -> str:
        return f"{self.what}: filled {self.filled}, unchanged {self.unchanged}"


def read_named(path: Path, shown: str, kind: Kind) -> tuple[list[Named], list[Problem]]:
    """Read and check the file at `path` (reported as `shown`), with every problem found."""
    problems: list[Problem] = []

    def problem(line: int, message: str) -> None:
        problems.append(Problem(shown, line, message))

    try:
        with path.open("rb") as file:
            data = file.read(FILE_MAX + 1)
    except OSError as error:
        return [], [Problem(shown, 1, f"cannot be read: {error.strerror}")]
    if len(data) > FILE_MAX:
        return [], [Problem(shown, 1, f"is larger than {FILE_MAX:,} bytes; is it the right file?")]
    try:
        text = data.decode("utf-8").removeprefix("\ufeff")
    except UnicodeDecodeError as error:
        line = data[: error.start].count(b"\n") + 1
        return [], [Problem(shown, line, "not UTF-8 text; save it as UTF-8")]
    try:
        root = compose_yaml(text, kind.file)
    except BadYaml as error:
        return [], [Problem(shown, error.line, error.message)]
    if root is None:
        return [], []
    if not isinstance(root, yaml.MappingNode):
        message = (
            f"must be `{kind.noun.capitalize()} name:` lines, each followed by the"
            f" {kind.noun}'s {_listed(kind)}"
        )
        return [], [Problem(shown, root.start_mark.line + 1, message)]
    entries: list[Named] = []
    seen: dict[str, tuple[str, int]] = {}  # slug: the name first given for it, its line
    for key, value in root.value:
        line = key.start_mark.line + 1
        name = _text(key)
        if not name:
            problem(
                line,
                f"each entry must start with a{'n' * (kind.noun[0] in 'aeiou')} {kind.noun}'s name",
            )
            continue
        if len(name) > kind.name_max:
            problem(
                line,
                f"the {kind.noun} name `{name[:40]}...` is longer than {kind.name_max} characters",
            )
            continue
        slug = kind.slug(name)
        if slug in seen:
            first, at = seen[slug]
            problem(
                line, f"`{name}` is the same {kind.noun} as `{first}` on line {at}; keep one entry"
            )
            continue
        seen[slug] = (name, line)
        entry = _entry(kind, name, line, value, problem)
        if entry is not None:
            entries.append(entry)
    return entries, problems


def _listed(kind: Kind) -> str:
    """The fields of a kind of entry, as a message names them."""
    names = [f"`{name}`" for name in kind.fields]
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " or " + names[-1]


def _text(node: yaml.Node) -> str | None:
    """A scalar's text as the store keeps it (None for a list or mapping, "" for null)."""
    if not isinstance(node, yaml.ScalarNode):
        return None
    if node.tag == "tag:yaml.org,2002:null":
        return ""
    text = store.clean_text(node.value.replace("\r\n", "\n")).strip()
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate, which a YAML escape can make
        return None
    return text


def _entry(
    kind: Kind, name: str, line: int, node: yaml.Node, problem: Callable[[int, str], None]
) -> Named | None:
    """One checked entry, or None (and problems)."""
    entry = Named(name, lines={"name": line})
    if isinstance(node, yaml.ScalarNode) and node.tag == "tag:yaml.org,2002:null":
        return entry
    if not isinstance(node, yaml.MappingNode):
        problem(line, f"`{name}` must be followed by {_listed(kind)} lines")
        return None
    sound = True
    for key, value in node.value:
        at = key.start_mark.line + 1
        known = key.value if isinstance(key, yaml.ScalarNode) else None
        if known not in kind.fields:
            shown = f"`{terminal_safe(str(known))[:40]}`" if known is not None else "a non-text key"
            problem(at, f"unknown field {shown} for `{name}` (known: {', '.join(kind.fields)})")
            sound = False
            continue
        if known in entry.lines:
            first = entry.lines[known]
            problem(at, f"`{known}` is given twice for `{name}` (first on line {first})")
            sound = False
            continue
        entry.lines[known] = at
        text = _text(value)
        wrong = f"`{known}` must be text" if text is None else text and kind.fields[known](text)
        if wrong:
            problem(at, wrong)
            sound = False
        elif text:
            entry.values[known] = text
    return entry if sound else None


def write_named(entries: list[Named], kind: Kind) -> str:
    """The file: an entry per name, fields in the kind's order, empty ones left out."""
    data = {
        entry.name: {name: entry.values[name] for name in kind.fields if entry.values.get(name)}
        for entry in entries
    }
    return dump_yaml(data)


def _fill(row: Author | Topic, name: str, value: str | None, done: list[bool]) -> None:
    """Set a field the row lacks; `done` records [changed, differs]."""
    if value is None:
        return
    have = getattr(row, name)
    if not have:
        setattr(row, name, value)
        done[0] = True
    elif have != value:
        done[1] = True


def _count(filled: Filled, row_name: str, done: list[bool]) -> None:
    """Count one entry's outcome."""
    if done[0]:
        filled.filled += 1
    else:
        filled.unchanged += 1
    if done[1]:
        filled.kept.append(row_name)


def apply_descriptions(entries: list[Named]) -> Filled:
    """Give each listed topic its description when it has none (the topic made when missing)."""
    filled = Filled("topic descriptions")
    topics = store.topics_named((entry.name for entry in entries), flush=False)
    for entry in entries:
        topic = topics[entry.name]
        done = [False, False]
        _fill(topic, "description", entry.values.get("description"), done)
        _count(filled, topic.name, done)
    return filled


def described_topics() -> list[Named]:
    """The topics with a description, in the topic filter's order."""
    query = sa.select(Topic).where(Topic.description != "").order_by(Topic.position, Topic.id)
    return [
        Named(topic.name, {"description": topic.description}) for topic in db.session.scalars(query)
    ]


def apply_profiles(entries: list[Named], avatars: dict[str, Image]) -> Filled:
    """Fill each listed author's empty profile fields (the author made when missing); a field
    the site already has stays as it is. `avatars` holds the checked images by author name."""
    filled = Filled("author profiles")
    authors = store.authors_named((entry.name for entry in entries), flush=False)
    for entry in entries:
        author = authors[entry.name]
        done = [False, False]
        _fill(author, "bio", entry.values.get("bio"), done)
        _fill(author, "url", entry.values.get("url"), done)
        avatar = avatars.get(entry.name)
        if avatar is not None:
            if author.avatar is None:
                author.avatar = avatar
                done[0] = True
            elif author.avatar is not avatar:
                done[1] = True
        _count(filled, author.name, done)
    return filled


def profiled_authors() -> list[Author]:
    """The authors with a bio, an own link or an avatar, by name."""
    query = (
        sa.select(Author)
        .where(
            sa.or_(Author.bio != "", Author.url.is_not(None), Author.avatar_image_id.is_not(None))
        )
        .order_by(Author.name, Author.id)
    )
    return list(db.session.scalars(query))
