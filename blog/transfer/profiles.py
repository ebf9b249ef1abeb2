"""authors.yml: the authors' profiles (bio, own link, avatar) that travel beside the posts."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import sqlalchemy as sa
import yaml

from blog.authoring import store
from blog.authoring.taxonomy import BIO_MAX, URL_MAX
from blog.extensions import db
from blog.markup.policy import web_link
from blog.models import Author, Image
from blog.transfer.frontmatter import (
    AUTHOR_MAX,
    BadYaml,
    Problem,
    compose_yaml,
    dump_yaml,
    terminal_safe,
)

AUTHORS_FILE = "authors.yml"
# The keys of an author's entry, in the order an export writes them.
PROFILE_FIELDS = ("bio", "url", "avatar")
# A profiles file is a few lines per author: a bigger one is refused unread.
FILE_MAX = 1_000_000
# An author's avatar is written as images/<author slug>.avatar.<ext> (slugs have no dots).
AVATAR_SUFFIX = ".avatar"


@dataclass
class Profile:
    """One author's entry: checked values; "" or None for what it leaves out."""

    name: str
    bio: str = ""
    url: str | None = None
    avatar: str | None = None
    # The line of the author's name and of each field, so later checks can point at them.
    lines: dict[str, int] = field(default_factory=dict, compare=False)

    def line(self, name: str) -> int:
        """The line of a field, or of the author's name when the field was not given."""
        return self.lines.get(name, self.lines.get("name", 1))


@dataclass
class Filled:
    """What an import did to the authors it lists."""

    filled: int = 0  # authors given at least one field
    unchanged: int = 0
    # Authors with a field the site already fills otherwise: the site's is kept.
    kept: list[str] = field(default_factory=list)

    def __str__(self) -> str:
        return f"author profiles: filled {self.filled}, unchanged {self.unchanged}"


def read_profiles(path: Path, shown: str) -> tuple[list[Profile], list[Problem]]:
    """Read and check the profiles file at `path` (reported as `shown`), every problem found."""
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
        root = compose_yaml(text, AUTHORS_FILE)
    except BadYaml as error:
        return [], [Problem(shown, error.line, error.message)]
    if root is None:
        return [], []
    if not isinstance(root, yaml.MappingNode):
        message = "must be `Author name:` lines, each followed by the author's bio, url and avatar"
        return [], [Problem(shown, root.start_mark.line + 1, message)]
    profiles: list[Profile] = []
    seen: dict[str, tuple[str, int]] = {}  # author slug: the name first given for it, its line
    for key, value in root.value:
        line = key.start_mark.line + 1
        name = _text(key)
        if name is None or not name:
            problem(line, "each entry must start with an author's name")
            continue
        if len(name) > AUTHOR_MAX:
            problem(
                line, f"the author name `{name[:40]}...` is longer than {AUTHOR_MAX} characters"
            )
            continue
        slug = store.author_slug(name)
        if slug in seen:
            first, at = seen[slug]
            problem(line, f"`{name}` is the same author as `{first}` on line {at}; keep one entry")
            continue
        seen[slug] = (name, line)
        profile = _profile(name, line, value, problem)
        if profile is not None:
            profiles.append(profile)
    return profiles, problems


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


def _profile(
    name: str, line: int, node: yaml.Node, problem: Callable[[int, str], None]
) -> Profile | None:
    """One author's checked entry, or None (and problems)."""
    profile = Profile(name, lines={"name": line})
    if isinstance(node, yaml.ScalarNode) and node.tag == "tag:yaml.org,2002:null":
        return profile
    if not isinstance(node, yaml.MappingNode):
        problem(line, f"`{name}` must be followed by `bio:`, `url:` or `avatar:` lines")
        return None
    sound = True
    for key, value in node.value:
        at = key.start_mark.line + 1
        known = key.value if isinstance(key, yaml.ScalarNode) else None
        if known not in PROFILE_FIELDS:
            shown = f"`{terminal_safe(str(known))[:40]}`" if known is not None else "a non-text key"
            problem(at, f"unknown field {shown} for `{name}` (known: {', '.join(PROFILE_FIELDS)})")
            sound = False
            continue
        if known in profile.lines:
            problem(
                at, f"`{known}` is given twice for `{name}` (first on line {profile.lines[known]})"
            )
            sound = False
            continue
        profile.lines[known] = at
        text = _text(value)
        if text is None:
            problem(at, f"`{known}` must be text")
            sound = False
        elif known == "bio":
            if len(text) > BIO_MAX:
                problem(at, f"`bio` is longer than {BIO_MAX} characters ({len(text):,})")
                sound = False
            profile.bio = text
        elif known == "url" and text:
            if len(text) > URL_MAX:
                problem(at, f"`url` is longer than {URL_MAX} characters ({len(text):,})")
                sound = False
            elif web_link(text) is None:
                problem(
                    at,
                    "`url` must be a web address with a host, starting with https:// or"
                    f" http://, not `{terminal_safe(text)[:60]}`",
                )
                sound = False
            profile.url = text
        elif known == "avatar" and text:
            profile.avatar = text
    return profile if sound else None


def apply_profiles(profiles: list[Profile], avatars: dict[str, Image]) -> Filled:
    """Fill each listed author's empty profile fields (the author made when missing); a field
    the site already has stays as it is. `avatars` holds the checked images by author name."""
    done = Filled()
    authors = store.authors_named((profile.name for profile in profiles), flush=False)
    for profile in profiles:
        author = authors[profile.name]
        wanted = {"bio": profile.bio or None, "url": profile.url}
        changed = differs = False
        for name, value in wanted.items():
            if value is None:
                continue
            have = getattr(author, name)
            if not have:
                setattr(author, name, value)
                changed = True
            elif have != value:
                differs = True
        avatar = avatars.get(profile.name)
        if avatar is not None:
            if author.avatar is None:
                author.avatar = avatar
                changed = True
            elif author.avatar is not avatar:
                differs = True
        if changed:
            done.filled += 1
        else:
            done.unchanged += 1
        if differs:
            done.kept.append(author.name)
    return done


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


def write_profiles(profiles: list[Profile]) -> str:
    """The profiles file: an entry per author, fields in PROFILE_FIELDS order, empty ones out."""
    data = {
        profile.name: {
            name: value
            for name, value in (
                ("bio", profile.bio),
                ("url", profile.url),
                ("avatar", profile.avatar),
            )
            if value
        }
        for profile in profiles
    }
    return dump_yaml(data)
