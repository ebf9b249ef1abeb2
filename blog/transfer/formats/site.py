"""What reading another generator's site gives, and the front-matter reading its formats share.

Each format turns its files into `ForeignPost`s: the same checked `Entry` a Fieldnotes file
gives, plus every author in order, the old addresses the post answered at, and the folder its
relative image paths start from. Fields a format has and Fieldnotes keeps no place for are
counted, never refused, unless the import is strict.
"""

from __future__ import annotations

import re
import tomllib
from collections import Counter
from dataclasses import dataclass, field
from datetime import date, datetime, time
from pathlib import Path
from typing import Any

import yaml

from blog.authoring.store import slug_for
from blog.catalog import address_key
from blog.transfer.files import Loaded, Source
from blog.transfer.frontmatter import (
    AUTHOR_MAX,
    MAPPING,
    SLUG,
    TITLE_MAX,
    TOPIC_MAX,
    BadYaml,
    Entry,
    Problem,
    Raw,
    _Reader,
    canonical_body,
    compose_yaml,
)

# The most YAML nodes one header may expand to (aliases count each time they are used).
MAX_NODES = 20_000
# A date at the start of a file or folder name: `2024-01-02-title.md`, `2024-01-02_title`.
NAME_DATE = re.compile(r"(\d{4})-(\d{2})-(\d{2})[-_](.+)")
# A date in an address: `/2024/01/02/title/`.
PATH_DATE = re.compile(r"(?:^|/)(\d{4})/(\d{2})/(\d{2})(?:/|$)")
SUMMARY_MARKER = re.compile(r"^[ \t]*<!--\s*more\s*-->[ \t]*$", re.MULTILINE | re.IGNORECASE)


@dataclass
class ForeignPost:
    """One post read from another generator's files."""

    loaded: Loaded
    # Every author, in the file's order (as the entry carries them).
    authors: list[str]
    # Where the post answered on the old site, as `address_key` spells them.
    old_paths: list[str]
    # The folder a relative image path in the body starts from.
    base: Path

    @property
    def entry(self) -> Entry:
        """The checked entry."""
        return self.loaded.entry

    @property
    def shown(self) -> str:
        """The file's name as problems give it."""
        return self.loaded.source.shown


@dataclass
class Site:
    """Everything read from a site, before anything is saved."""

    kind: str
    # The folder every file the import reads must be inside.
    root: Path
    posts: list[ForeignPost] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    # Where an image address starting with `/` is looked for (Hugo's and Zola's static/).
    static: list[Path] = field(default_factory=list)
    # Fields with no place in Fieldnotes, and how many files had each.
    ignored: Counter[str] = field(default_factory=Counter)
    # Where each ignored field was first met, for --strict.
    ignored_at: dict[str, tuple[str, int]] = field(default_factory=dict)
    # Files read but not posts (a section's page, an "about" page), each with the reason.
    skipped: list[str] = field(default_factory=list)
    # What a reader of the summary should know about what was brought in (a featured image
    # left behind, comments that have no place), one line each.
    notes: list[str] = field(default_factory=list)
    # Things left as written that a reader may see (an unknown shortcode), with counts.
    left: Counter[str] = field(default_factory=Counter)


@dataclass
class Header:
    """A file's front matter as values (text, lists, mappings) with the line of each key."""

    values: dict[str, Any]
    lines: dict[str, int]
    body: str
    body_line: int

    def line(self, key: str) -> int:
        """The line of a key, or 1."""
        return self.lines.get(key, 1)


class HeaderError(Exception):
    """Front matter that cannot be read, with its line."""

    def __init__(self, line: int, message: str) -> None:
        super().__init__(message)
        self.line = line
        self.message = message


def outside(path: Path, root: Path) -> Problem | None:
    """The problem with a file that leads outside the imported folder (a link, once every
    link is followed): an import reads nothing else the server holds."""
    if path.resolve().is_relative_to(root):
        return None
    return Problem(str(path), 1, f"leads outside the imported folder {root}; not read")


def decode(data: bytes) -> str:
    """The file as text with LF line ends (HeaderError when it is not UTF-8)."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        line = data[: error.start].count(b"\n") + 1
        raise HeaderError(line, "not UTF-8 text; save it as UTF-8") from None
    return text.removeprefix("\ufeff").replace("\r\n", "\n").replace("\r", "\n")


def read_header(text: str) -> Header:
    """Split YAML (`---`) or TOML (`+++`) front matter from the body and read it."""
    lines = text.split("\n")
    fence = lines[0].rstrip()
    if fence not in ("---", "+++"):
        raise HeaderError(1, "no front matter: the file must start with `---` or `+++`")
    closers = ("---", "...") if fence == "---" else ("+++",)
    for index in range(1, len(lines)):
        if lines[index].rstrip() in closers:
            header = "\n".join(lines[1:index])
            body = "\n".join(lines[index + 1 :])
            reader = _yaml_header if fence == "---" else _toml_header
            values, key_lines = reader(header)
            return Header(values, key_lines, body, index + 2)
    raise HeaderError(1, f"the front matter opened here is never closed with a `{fence}` line")


def _yaml_header(text: str) -> tuple[dict[str, Any], dict[str, int]]:
    """YAML front matter (starting on line 2) as values, built from nodes within a budget."""
    try:
        root = compose_yaml(text, "the front matter", first_line=2)
    except BadYaml as error:
        raise HeaderError(error.line, error.message) from None
    if root is None:
        return {}, {}
    if not isinstance(root, yaml.MappingNode):
        raise HeaderError(2, "the front matter must be `field: value` lines")
    budget = [MAX_NODES]
    values: dict[str, Any] = {}
    lines: dict[str, int] = {}
    for key, node in root.value:
        if not isinstance(key, yaml.ScalarNode):
            raise HeaderError(key.start_mark.line + 2, "field names must be plain words")
        values[key.value] = _node(node, budget)
        lines[key.value] = key.start_mark.line + 2
    return values, lines


def _node(node: yaml.Node, budget: list[int]) -> Any:
    """A YAML node as text, None, a list or a dict; HeaderError past the node budget."""
    budget[0] -= 1
    if budget[0] < 0:
        raise HeaderError(2, f"the front matter expands to more than {MAX_NODES} values")
    if isinstance(node, yaml.ScalarNode):
        return None if node.tag == "tag:yaml.org,2002:null" else node.value
    if isinstance(node, yaml.SequenceNode):
        return [_node(item, budget) for item in node.value]
    assert isinstance(node, yaml.MappingNode)
    return {
        str(key.value) if isinstance(key, yaml.ScalarNode) else "?": _node(value, budget)
        for key, value in node.value
    }


_TOML_KEY = re.compile(r"^[ \t]*(?:\[+[ \t]*)?([A-Za-z0-9_-]+|\"[^\"]*\")", re.MULTILINE)


def _toml_header(text: str) -> tuple[dict[str, Any], dict[str, int]]:
    """TOML front matter (starting on line 2) as values: dates and numbers become text."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        found = re.search(r"line (\d+)", str(error))
        line = int(found[1]) + 1 if found else 2
        raise HeaderError(line, f"the front matter is not valid TOML: {error}") from None
    lines: dict[str, int] = {}
    for found in _TOML_KEY.finditer(text):
        lines.setdefault(found[1].strip('"'), text[: found.start()].count("\n") + 2)
    return {key: _toml_value(value) for key, value in data.items()}, lines


def _toml_value(value: Any) -> Any:
    """A TOML value as YAML's reading gives it: text, lists and dicts."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, datetime | date | time):
        return value.isoformat()
    if isinstance(value, list):
        return [_toml_value(item) for item in value]
    if isinstance(value, dict):
        return {key: _toml_value(item) for key, item in value.items()}
    return str(value)


def raw(value: Any) -> Raw:
    """A header value as the Fieldnotes checks take it (a mapping is MAPPING)."""
    if isinstance(value, dict):
        return MAPPING
    if isinstance(value, list):
        return [MAPPING if isinstance(item, dict | list) else item for item in value]
    return value


def name_date(name: str) -> tuple[str | None, str]:
    """The ISO date at the start of a file or folder name, and the rest of the name."""
    found = NAME_DATE.fullmatch(name)
    if found is None:
        return None, name
    return f"{found[1]}-{found[2]}-{found[3]}", found[4]


def path_date(path: str) -> str | None:
    """The ISO date an address holds as `/YYYY/MM/DD/`, if any."""
    found = PATH_DATE.search(path)
    return f"{found[1]}-{found[2]}-{found[3]}" if found else None


@dataclass
class Fields:
    """What a format found for the Fieldnotes fields, each with its line; None: not given."""

    title: tuple[Any, int] | None = None
    slug: tuple[Any, int] | None = None
    date: tuple[Any, int] | None = None
    updated: tuple[Any, int] | None = None
    draft: tuple[Any, int] | None = None
    summary: tuple[Any, int] | None = None
    authors: list[tuple[Any, int]] = field(default_factory=list)
    topics: list[tuple[Any, int]] = field(default_factory=list)
    # The post's own address on the old site and its other ones, as written.
    addresses: list[str] = field(default_factory=list)
    # A date in the file name or the address, used when `date` is not given.
    name_date: str | None = None
    # The slug the file's name gives when there is no `slug`.
    name_slug: str = ""


def _names(
    reader: _Reader,
    values: list[tuple[Any, int]],
    field: str,
    longest: int,
    lines: dict[str, int],
    line_key: str,
) -> list[str]:
    """The names of a list field that may be given more than once (`authors` and `author`,
    `tags` and `categories`), each once, in order; the first line is kept for messages."""
    names: list[str] = []
    for value, line in values:
        lines.setdefault(line_key, line)
        for name in reader.names(raw(value), line, field, longest) or []:
            if name not in names:
                names.append(name)
    return names


def entry_of(
    fields: Fields, body: str, shown: str, body_line: int
) -> tuple[Entry | None, list[str], list[Problem]]:
    """The checked entry and all its authors, or the problems, with Fieldnotes' own checks
    (the same limits and messages as a Fieldnotes file)."""
    reader = _Reader(shown, frozenset())
    lines: dict[str, int] = {"body": body_line}
    title = None
    if fields.title is None:
        reader.problem(1, "`title` is missing")
    else:
        value, lines["title"] = fields.title
        title = reader.text(raw(value), lines["title"], "title", TITLE_MAX)
        if title == "":
            reader.problem(lines["title"], "`title` is empty")
    slug = ""
    if fields.slug is not None:
        value, lines["slug"] = fields.slug
        given = reader.text(raw(value), lines["slug"], "slug") or ""
        slug = given if SLUG.fullmatch(given) else slug_for(given)
    slug = slug or slug_for(fields.name_slug) or (slug_for(title) if title else "")
    if title and not slug:
        reader.problem(lines.get("title", 1), "no slug can be made from this title; add `slug`")
    published = updated = None
    if fields.date is not None:
        value, lines["date"] = fields.date
        published = reader.time(raw(value), lines["date"], "date")
    elif fields.name_date is not None:
        published = reader.time(fields.name_date, 1, "date")
    if fields.updated is not None:
        value, lines["updated"] = fields.updated
        updated = reader.time(raw(value), lines["updated"], "updated")
    draft = False
    if fields.draft is not None:
        value, lines["draft"] = fields.draft
        draft = bool(reader.flag(raw(value), lines["draft"], "draft"))
    if not draft and published is None and fields.date is None:
        reader.problem(1, "no date: give `date`, or a name like 2024-01-02-title.md")
    summary = ""
    if fields.summary is not None:
        value, lines["summary"] = fields.summary
        summary = reader.text(raw(value), lines["summary"], "summary") or ""
    authors = _names(reader, fields.authors, "authors", AUTHOR_MAX, lines, "author")
    topics = _names(reader, fields.topics, "topics", TOPIC_MAX, lines, "topics")
    body = canonical_body(SUMMARY_MARKER.sub("", body))
    if reader.problems or title is None:
        return None, [], sorted(reader.problems, key=lambda problem: problem.line)
    entry = Entry(
        title=title,
        slug=slug,
        authors=authors,
        topics=topics,
        summary=summary,
        published_at=published,
        updated_at=updated,
        draft=draft,
        body=body,
        lines=lines,
    )
    return entry, authors, []


def old_paths(addresses: list[str], slug: str) -> list[str]:
    """The addresses as the table of old paths keeps them, once each, without the post's
    own address on this site."""
    keys: list[str] = []
    for address in addresses:
        key = address_key(address)
        if key is not None and key != f"/posts/{slug}" and key not in keys:
            keys.append(key)
    return keys


def foreign_post(
    path: Path, shown: str, entry: Entry, authors: list[str], addresses: list[str]
) -> ForeignPost:
    """A read post, its relative images found from the file's folder."""
    return ForeignPost(
        loaded=Loaded(Source(path, shown), entry),
        authors=authors,
        old_paths=old_paths(addresses, entry.slug),
        base=path.parent,
    )
