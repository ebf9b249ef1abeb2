"""Markdown files with front matter: read one into checked post fields, or write one."""

from __future__ import annotations

import re
import uuid
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import yaml

from blog.authoring.forms import MAX_AUTHORS, META_DESCRIPTION_MAX
from blog.authoring.store import clean_text, slug_for
from blog.media.drawing_spec import SpecError, canonical
from blog.models import Author, Post, Topic, max_length

# The field names this format writes, in the order it writes them (`authors` is written
# `author` when there is one).
FIELDS = (
    "title",
    "slug",
    "id",
    "redirect_from",
    "date",
    "updated",
    "draft",
    "authors",
    "topics",
    "summary",
    "featured",
    "editors_pick",
    "image",
    "image_alt",
    "illustration",
    "meta_description",
    "social_image",
)
# Names other generators use for the same fields (matched case-insensitively, like FIELDS).
ALIASES = {
    "tags": "topics",
    "categories": "topics",
    "category": "topics",
    "lastmod": "updated",
    "modified": "updated",
    "description": "summary",
    "author": "authors",
    "status": "draft",
    "published": "draft",
}
# Of several keys naming topics, only categories and tags combine (categories first).
TOPIC_KEYS_FIRST = ("category", "categories")

TITLE_MAX = max_length(Post.__table__.c.title)
SLUG_MAX = max_length(Post.__table__.c.slug)
ALT_MAX = max_length(Post.__table__.c.image_alt)
TOPIC_MAX = max_length(Topic.__table__.c.name)
AUTHOR_MAX = max_length(Author.__table__.c.name)

SLUG = re.compile(rf"[a-z0-9][a-z0-9-]{{0,{SLUG_MAX - 1}}}")
PELICAN_LINE = re.compile(r"([A-Za-z][A-Za-z0-9_-]*)[ \t]*:(?:[ \t]+(.*)|)$")
FENCES = ("---", "...")
# Some generators write a space before the UTC offset: "2024-01-02 10:20:00 +0200".
# A post's permanent id: a UUID in its usual spelling, 8-4-4-4-12 hex digits (either case).
_UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}", re.IGNORECASE)
_SPACED_OFFSET = re.compile(r"\s+(?=(?:[+-]\d{2}(?::?\d{2})?|Z)$)")
_TRUE = {"true", "yes", "on", "y"}
_FALSE = {"false", "no", "off", "n"}


# libyaml's parser when PyYAML was built with it (several times faster); same nodes and marks.
_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class _Mapping:
    """Marks a YAML mapping where a field wanted text or a list."""


MAPPING = _Mapping()
Raw = str | list[Any] | _Mapping | None


@dataclass(frozen=True)
class Problem:
    """Something wrong in a file, at a line, said so a person can fix it."""

    path: str
    line: int
    message: str

    def __str__(self) -> str:
        return terminal_safe(f"{self.path}:{self.line}: {self.message}")


def terminal_safe(text: str) -> str:
    """Text with every character a terminal would act on (escape sequences, carriage
    returns, bells) written as its Python escape, so a file cannot redraw the screen."""
    return "".join(char if char.isprintable() else repr(char)[1:-1] for char in text)


class BadYaml(Exception):
    """Text that is not YAML, with the line to fix and a message saying why."""

    def __init__(self, line: int, message: str) -> None:
        super().__init__(message)
        self.line = line
        self.message = message


def compose_yaml(text: str, what: str, first_line: int = 1) -> yaml.Node | None:
    """The YAML text's node tree (None when empty); BadYaml names the line (counted from
    `first_line`) and says what is wrong with `what`.

    Only nodes are built, never Python objects: an alias is the node it points at, shared,
    so a file of nested aliases (a "billion laughs") stays as small as it is written.
    """
    try:
        return yaml.compose(text, Loader=_LOADER)
    except yaml.MarkedYAMLError as error:
        mark = error.problem_mark or error.context_mark
        line = mark.line + first_line if mark else first_line
        raise BadYaml(line, f"{what} is not valid YAML: {error.problem}") from None
    except yaml.reader.ReaderError as error:
        line = text[: error.position].count("\n") + first_line
        raise BadYaml(line, f"character U+{error.character:04X} is not allowed in {what}") from None
    except yaml.YAMLError as error:  # Anything else the parser can raise, said plainly.
        raise BadYaml(first_line, f"{what} is not valid YAML: {error}") from None


@dataclass
class Entry:
    """One post as the file format sees it: checked, normalized values."""

    title: str
    slug: str
    # The post's permanent id (`id:`): kept by the post it is imported into, made afresh when
    # the file has none.
    uid: uuid.UUID | None = None
    # The first author; `authors` names every one, in order. Either may be given: `authors`
    # wins, and each is made to agree with it.
    author: str | None = None
    topics: list[str] = field(default_factory=list)
    summary: str = ""
    published_at: datetime | None = None
    updated_at: datetime | None = None
    draft: bool = False
    featured: bool = False
    editors_pick: bool = False
    image: str | None = None
    image_alt: str | None = None
    # The drawing chosen by hand (`illustration:`), in its stored spelling; "" for none.
    illustration: str = ""
    # For search engines and link previews (one line), and the file of the social image.
    meta_description: str = ""
    social_image: str | None = None
    # Slugs the post had before: each still leads to it (a redirect), in the file's order.
    redirect_from: list[str] = field(default_factory=list)
    body: str = ""
    # The line each field was read from, so later checks can point at it.
    lines: dict[str, int] = field(default_factory=dict, compare=False)
    authors: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        if not self.authors and self.author:
            self.authors = [self.author]
        self.author = self.authors[0] if self.authors else None

    def line(self, name: str) -> int:
        """The line of a field, or of the front matter's start when it was not given."""
        return self.lines.get(name, 1)


@dataclass
class Parsed:
    """What reading one file gave: an entry when it is sound, and every problem found."""

    entry: Entry | None
    problems: list[Problem]


def canonical_body(text: str) -> str:
    """The body as stored and written: the store's characters, LF ends, no blank lines around."""
    text = clean_text(text).replace("\r\n", "\n").replace("\r", "\n").rstrip()
    lines = text.split("\n")
    start = 0
    while start < len(lines) and not lines[start].strip():
        start += 1
    return "\n".join(lines[start:])


def format_time(value: datetime) -> str:
    """A stored naive-UTC time as ISO 8601 with a Z."""
    return value.isoformat() + "Z"


def parse_time(text: str) -> datetime:
    """An ISO 8601 date or date-time as naive UTC; no offset means UTC (ValueError if bad)."""
    value = datetime.fromisoformat(_SPACED_OFFSET.sub("", text.strip()))
    if value.tzinfo is not None:
        value = value.astimezone(UTC).replace(tzinfo=None)
    return value


class _Reader:
    """Collects the problems of one file while its fields are checked."""

    def __init__(self, path: str, ignore: frozenset[str]) -> None:
        self.path = path
        self.ignore = ignore
        self.problems: list[Problem] = []

    def problem(self, line: int, message: str) -> None:
        """Record a problem at a line of the file."""
        self.problems.append(Problem(self.path, line, message))

    def decode(self, data: bytes) -> str | None:
        """The file as text with LF line ends, or None (and a problem) when not UTF-8."""
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as error:
            line = data[: error.start].count(b"\n") + 1
            self.problem(line, f"not UTF-8 text (byte 0x{data[error.start]:02x}); save it as UTF-8")
            return None
        return text.removeprefix("\ufeff").replace("\r\n", "\n").replace("\r", "\n")

    def split(self, text: str) -> tuple[list[tuple[str, Raw, int]], str] | None:
        """The header's (key, value, line) triples and the body."""
        lines = text.split("\n")
        first = lines[0].rstrip()
        if first == "---":
            for index in range(1, len(lines)):
                if lines[index].rstrip() in FENCES:
                    pairs = self.yaml_pairs("\n".join(lines[1:index]))
                    if pairs is None:
                        return None
                    return pairs, "\n".join(lines[index + 1 :])
            self.problem(1, "the front matter opened here is never closed with a `---` line")
            return None
        if first == "+++":
            self.problem(1, "TOML front matter (+++) is not supported; convert it to YAML (---)")
            return None
        if PELICAN_LINE.match(first):
            return self.pelican_pairs(lines)
        self.problem(
            1,
            "no front matter: start the file with a `---` line (YAML front matter)"
            " or with `Title: ...` header lines",
        )
        return None

    def yaml_pairs(self, text: str) -> list[tuple[str, Raw, int]] | None:
        """The fields of YAML front matter (which starts on line 2) with their lines."""
        try:
            root = compose_yaml(text, "the front matter", first_line=2)
        except BadYaml as error:
            self.problem(error.line, error.message)
            return None
        if root is None:
            return []
        if not isinstance(root, yaml.MappingNode):
            self.problem(root.start_mark.line + 2, "the front matter must be `field: value` lines")
            return None
        pairs = []
        for key, value in root.value:
            line = key.start_mark.line + 2
            if not isinstance(key, yaml.ScalarNode):
                self.problem(line, "field names must be plain words")
                continue
            pairs.append((key.value, _raw(value), line))
        return pairs

    def pelican_pairs(self, lines: list[str]) -> tuple[list[tuple[str, Raw, int]], str]:
        """The fields of a fence-less `Key: value` header, ended by a blank line."""
        pairs: list[tuple[str, Raw, int]] = []
        index = 0
        while index < len(lines) and lines[index].strip():
            text = lines[index]
            match = PELICAN_LINE.match(text)
            if match:
                pairs.append((match[1], (match[2] or "").strip(), index + 1))
            elif text[:1] in (" ", "\t") and pairs:
                key, value, line = pairs[-1]
                pairs[-1] = (key, f"{value} {text.strip()}".strip(), line)
            else:
                self.problem(
                    index + 1,
                    "expected a `Key: value` header line; end the header with a blank line",
                )
            index += 1
        return pairs, "\n".join(lines[index + 1 :])

    def fields(self, pairs: list[tuple[str, Raw, int]]) -> dict[str, list[tuple[str, Raw, int]]]:
        """Group the header's keys by the field they set, reporting unknown and repeated keys."""
        seen: dict[str, int] = {}
        grouped: dict[str, list[tuple[str, Raw, int]]] = {}
        for key, value, line in pairs:
            name = key.lower()
            if name in seen:
                self.problem(line, f"`{key}` is given twice (first on line {seen[name]})")
                continue
            seen[name] = line
            if name in self.ignore:
                continue
            target = name if name in FIELDS else ALIASES.get(name)
            if target is None:
                self.problem(
                    line,
                    f"unknown field `{key}` (known: {', '.join(FIELDS)};"
                    f" or pass --ignore-field {name} to skip it)",
                )
                continue
            grouped.setdefault(target, []).append((name, value, line))
        for target, given in grouped.items():
            if len(given) > 1 and not _combinable_topics(target, given):
                names = " and ".join(f"`{name}`" for name, _, _ in given)
                self.problem(given[1][2], f"{names} both set `{target}`; keep one")
                grouped[target] = given[:1]
        return grouped

    def text(self, value: Raw, line: int, name: str, limit: int | None = None) -> str | None:
        """A text field's value, stripped; None (and a problem) when it is not text."""
        if value is None:
            return ""
        if not isinstance(value, str):
            self.problem(line, f"`{name}` must be text, not a {_kind(value)}")
            return None
        value = clean_text(value).strip()
        if not self.clean(value, line, name):
            return None
        if limit is not None and len(value) > limit:
            self.problem(line, f"`{name}` is longer than {limit} characters ({len(value)})")
            return None
        return value

    def clean(self, value: str, line: int, name: str) -> bool:
        """True when the text can be stored as UTF-8 (a YAML escape can make a lone surrogate)."""
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            self.problem(line, f"`{name}` contains an invalid Unicode escape")
            return False
        return True

    def flag(self, value: Raw, line: int, name: str) -> bool | None:
        """A true/false field's value; None (and a problem) when it is neither."""
        if isinstance(value, str) and value.strip().lower() in _TRUE | _FALSE:
            return value.strip().lower() in _TRUE
        self.problem(line, f"`{name}` must be true or false, not {_shown(value)}")
        return None

    def time(self, value: Raw, line: int, name: str) -> datetime | None:
        """A date field's value as naive UTC; None (and a problem) when it is not ISO 8601."""
        if isinstance(value, str) and value.strip():
            try:
                return parse_time(value)
            except (ValueError, OverflowError):
                pass
        self.problem(
            line,
            f"`{name}` must be an ISO 8601 date or date-time such as 2024-01-02"
            f" or 2024-01-02T10:20:00Z, not {_shown(value)}",
        )
        return None

    def uid(self, value: Raw, line: int, name: str) -> uuid.UUID | None:
        """A post's permanent id; None (and a problem) when it is not a UUID."""
        text = value.strip() if isinstance(value, str) else ""
        if _UUID.fullmatch(text):
            parsed = uuid.UUID(text)
            if parsed.int != 0:
                return parsed
            self.problem(line, f"`{name}` is the nil UUID (all zeros), which tells no post apart")
            return None
        self.problem(
            line,
            f"`{name}` must be a UUID such as 0f8e4c3a-5b1d-4e2f-9a6b-7c8d9e0f1a2b (the"
            f" post's permanent id, as `posts export` writes it), not {_shown(value)};"
            f" leave it out, or pass --ignore-field {name}, to give the post a new one",
        )
        return None

    def drawing(self, value: Raw, line: int, name: str) -> str | None:
        """A drawing's spec in its stored spelling; None (and a problem) when it breaks a rule."""
        if not isinstance(value, str):
            self.problem(
                line,
                f"`{name}` must be text like `kind: bars`, not a {_kind(value)}"
                f' (in YAML, quote it: {name}: "kind: bars; values: 800 ms, 120 ms")',
            )
            return None
        try:
            return canonical(value)
        except SpecError as error:
            self.problem(line, f"`{name}`: {error}")
            return None

    def names(
        self, value: Raw, line: int, name: str, limit: int, noun: str = "name"
    ) -> list[str] | None:
        """A list of names (or slugs), given as a YAML list or as comma-separated text."""
        if value is None:
            return []
        if isinstance(value, str):
            items: list[Any] = value.split(",")
        elif isinstance(value, list):
            items = value
        else:
            self.problem(line, f"`{name}` must be a list of {noun}s, not a {_kind(value)}")
            return None
        names = []
        for item in items:
            if not isinstance(item, str):
                self.problem(line, f"`{name}` must list {noun}s, not {_shown(item)}")
                return None
            if not self.clean(item, line, name):
                return None
            item = clean_text(item).strip()
            if not item:
                if isinstance(value, list):
                    self.problem(line, f"`{name}` lists an empty {noun}")
                    return None
                continue
            if len(item) > limit:
                self.problem(line, f"`{name}`: `{item[:40]}...` is longer than {limit} characters")
                return None
            names.append(item)
        return names

    def old_slugs(self, value: Raw, line: int, name: str) -> list[str] | None:
        """A post's old addresses: slugs, none listed twice; None (and problems) otherwise."""
        slugs = self.names(value, line, name, SLUG_MAX, noun="slug")
        if slugs is None:
            return None
        seen: set[str] = set()
        sound = True
        for slug in slugs:
            if not SLUG.fullmatch(slug):
                like = slug_for(slug)
                hint = f" (like `{like}`)" if like else ""
                self.problem(
                    line,
                    f"`{name}`: `{slug[:60]}` is not a slug; old addresses are lowercase"
                    f" letters, digits and hyphens{hint}",
                )
                sound = False
            elif slug in seen:
                self.problem(line, f"`{name}` lists `{slug}` twice")
                sound = False
            seen.add(slug)
        return slugs if sound else None


def _raw(node: yaml.Node) -> Raw:
    """A YAML value as text, None or a list of those; mappings become MAPPING."""
    if isinstance(node, yaml.ScalarNode):
        return None if node.tag == "tag:yaml.org,2002:null" else node.value
    if isinstance(node, yaml.SequenceNode):
        return [_raw(item) if isinstance(item, yaml.ScalarNode) else MAPPING for item in node.value]
    return MAPPING


def _kind(value: Raw) -> str:
    """What a wrong value is, in a word."""
    return "list" if isinstance(value, list) else "mapping" if value is MAPPING else "text"


def _shown(value: Raw) -> str:
    """A wrong value as it appears in a message."""
    if isinstance(value, str):
        return f"`{value[:60]}`"
    return "nothing" if value is None else f"a {_kind(value)}"


def _combinable_topics(target: str, given: list[tuple[str, Raw, int]]) -> bool:
    """True for one categories key plus `tags`: both feed the topic list."""
    names = sorted(name for name, _, _ in given)
    return target == "topics" and len(names) == 2 and names[1] == "tags" and names[0] != "tags"


def read_post(data: bytes, path: str, ignore: Iterable[str] = ()) -> Parsed:
    """Read one file's bytes into an Entry, collecting every problem with its line."""
    reader = _Reader(path, frozenset(name.lower() for name in ignore))
    text = reader.decode(data)
    split = reader.split(text) if text is not None else None
    if split is None:
        return Parsed(None, reader.problems)
    pairs, body = split
    grouped = reader.fields(pairs)
    values: dict[str, Any] = {}
    lines: dict[str, int] = {}
    for target, given in grouped.items():
        if target != "title":
            # An empty value (`date:` or `date: null`) counts as a field not given.
            given = [item for item in given if item[1] is not None]
            if not given:
                continue
        lines[target] = given[0][2]
        values[target] = _value(reader, target, given)
    entry = _entry(reader, values, lines, body)
    problems = sorted(reader.problems, key=lambda problem: problem.line)
    return Parsed(entry if not problems else None, problems)


def _value(reader: _Reader, target: str, given: list[tuple[str, Raw, int]]) -> Any:
    """Check one field's value (or, for topics, values) and convert it."""
    name, value, line = given[0]
    if target == "topics":
        ordered = sorted(given, key=lambda item: item[0] not in TOPIC_KEYS_FIRST)
        topics: list[str] = []
        for key, raw, at in ordered:
            names = reader.names(raw, at, key, TOPIC_MAX)
            if names is None:
                return None
            topics += names
        return topics
    if target == "authors":
        if name == "author" and isinstance(value, str):
            # One name, commas and all; a list of names is `authors` (or `author`) as a list.
            text = reader.text(value, line, name, AUTHOR_MAX)
            names = None if text is None else [text] if text else []
        else:
            names = reader.names(value, line, name, AUTHOR_MAX)
        if names is not None and len(names) > MAX_AUTHORS:
            reader.problem(
                line, f"a post has at most {MAX_AUTHORS} authors; `{name}` names {len(names)}"
            )
            return None
        return names
    if target in ("date", "updated"):
        return reader.time(value, line, name)
    if target == "draft":
        if name == "status":
            status = value.strip().lower() if isinstance(value, str) else None
            if status not in ("draft", "published"):
                reader.problem(line, f"`status` must be draft or published, not {_shown(value)}")
                return None
            return status == "draft"
        flag = reader.flag(value, line, name)
        return None if flag is None else flag != (name == "published")
    if target in ("featured", "editors_pick"):
        return reader.flag(value, line, name)
    if target == "redirect_from":
        return reader.old_slugs(value, line, name)
    if target == "id":
        return reader.uid(value, line, name)
    if target == "illustration":
        return reader.drawing(value, line, name)
    limits = {
        "title": TITLE_MAX,
        "slug": SLUG_MAX,
        "image_alt": ALT_MAX,
        "meta_description": META_DESCRIPTION_MAX,
    }
    return reader.text(value, line, name, limits.get(target))


def _entry(
    reader: _Reader, values: dict[str, Any], lines: dict[str, int], body: str
) -> Entry | None:
    """Apply the rules between fields and build the Entry (None when something is missing)."""
    title = values.get("title")
    if "title" not in values:
        reader.problem(1, "`title` is missing")
    elif title == "":
        reader.problem(lines["title"], "`title` is empty")
    slug = values.get("slug") or None
    if slug is not None and not SLUG.fullmatch(slug):
        reader.problem(
            lines["slug"],
            f"`slug` must be lowercase letters, digits and hyphens (like `{slug_for(slug)}`),"
            f" not `{slug[:60]}`",
        )
    elif slug is None and title:
        slug = slug_for(title)
        if not slug:
            reader.problem(lines["title"], "no slug can be made from this title; add `slug:`")
    draft = values.get("draft")
    if draft is False or "draft" not in values:
        draft = False
        if "date" not in values:
            reader.problem(1, "`date` is missing: published posts need one (or add `draft: true`)")
    redirect_from = values.get("redirect_from") or []
    if slug is not None and slug in redirect_from:
        reader.problem(
            lines["redirect_from"],
            f"`redirect_from` lists `{slug}`, the post's own slug: an address cannot lead"
            " to itself",
        )
    image, image_alt = values.get("image") or None, values.get("image_alt") or None
    if image and not image_alt:
        reader.problem(lines["image"], "`image` needs `image_alt`: text describing the picture")
    body = canonical_body(body)
    if reader.problems:
        return None
    assert title is not None and slug is not None  # each is a problem when missing
    return Entry(
        title=title,
        slug=slug,
        uid=values.get("id"),
        authors=values.get("authors") or [],
        topics=values.get("topics") or [],
        summary=values.get("summary") or "",
        published_at=values.get("date"),
        updated_at=values.get("updated"),
        draft=bool(draft),
        featured=bool(values.get("featured")),
        editors_pick=bool(values.get("editors_pick")),
        image=image,
        image_alt=image_alt,
        illustration=values.get("illustration") or "",
        meta_description=" ".join((values.get("meta_description") or "").split()),
        social_image=values.get("social_image") or None,
        redirect_from=redirect_from,
        body=body,
        lines=lines,
    )


_YAML_ONLY_BREAKS = ("\x85", "\u2028", "\u2029")


class _Stamp(str):
    """A time already formatted, written unquoted."""


class _Dumper(yaml.SafeDumper):
    """The pure-Python dumper, so the bytes written never depend on libyaml being present."""


def _represent_text(dumper: yaml.SafeDumper, value: str) -> yaml.Node:
    """Multi-line text as a literal block, everything else as PyYAML quotes it."""
    if any(mark in value for mark in _YAML_ONLY_BREAKS):
        # PyYAML writes these unescaped in other styles, and reads them back as line breaks.
        return dumper.represent_scalar("tag:yaml.org,2002:str", value, style='"')
    if "\n" in value:
        return dumper.represent_scalar("tag:yaml.org,2002:str", value, style="|")
    return dumper.represent_str(value)


_Dumper.add_representer(str, _represent_text)
_Dumper.add_representer(
    _Stamp, lambda dumper, value: dumper.represent_scalar("tag:yaml.org,2002:timestamp", value)
)


def write_post(entry: Entry) -> str:
    """The file for an entry: front matter in FIELDS order, defaults left out, then the body."""
    header: dict[str, Any] = {"title": entry.title, "slug": entry.slug}
    if entry.uid is not None:
        header["id"] = str(entry.uid)
    if entry.redirect_from:
        header["redirect_from"] = list(entry.redirect_from)
    if entry.published_at is not None:
        header["date"] = _Stamp(format_time(entry.published_at))
    if entry.updated_at is not None:
        header["updated"] = _Stamp(format_time(entry.updated_at))
    if entry.draft:
        header["draft"] = True
    # One author as `author:`, the form files had before co-authors; several as a list.
    if len(entry.authors) == 1:
        header["author"] = entry.authors[0]
    else:
        header["authors"] = list(entry.authors)
    header["topics"] = list(entry.topics)
    optional = {
        "summary": entry.summary,
        "featured": entry.featured,
        "editors_pick": entry.editors_pick,
        "image": entry.image,
        "image_alt": entry.image_alt,
        "illustration": entry.illustration,
        "meta_description": entry.meta_description,
        "social_image": entry.social_image,
    }
    header |= {name: value for name, value in optional.items() if value}
    front = dump_yaml(header)
    body = canonical_body(entry.body)
    return f"---\n{front}---\n" + (f"\n{body}\n" if body else "")


def dump_yaml(data: dict[str, Any]) -> str:
    """Data as this format writes YAML: keys in the given order, block style, no wrapping."""
    return yaml.dump(
        data,
        Dumper=_Dumper,
        sort_keys=False,
        allow_unicode=True,
        default_flow_style=False,
        width=1_000_000,
    )
