"""A Jekyll site's root: `_config.yml`, `_posts/` (published) and `_drafts/` (drafts).

What maps to what:

- the file name `YYYY-MM-DD-title.md` gives the date and the slug (`date` and `slug` in the
  front matter win), `title` else the name's words; `published: false` and `_drafts/` give drafts;
- `categories` (or `category`) then `tags`: the topics; the folders above `_posts/` count as
  categories in the old address (`:categories`) only;
- `author` or `authors`: every author; `excerpt` or `description`: the summary;
  `last_modified_at` (or `updated`): the "Updated" date;
- the post's old address: its `permalink`, else `_config.yml`'s (a pattern like
  `/:categories/:year/:month/:day/:title/`, or one of `date`, `pretty`, `ordinal`, `none`),
  under `baseurl`; `redirect_from` adds more;
- `defaults:` in `_config.yml` (each a `scope:` of `path` and `type`, and its `values:`)
  fill the fields a post's front matter leaves out, the most specific scope last, as Jekyll
  does: a default `author`, `categories` or `permalink` counts as the post's own;
- the body's Liquid is rendered (`blog.transfer.formats.liquid`) with `{{ site.* }}` from
  `_config.yml` and `{{ page.* }}` from the front matter.

Other pages (`about.md`, `index.md`) are not posts: they are counted as skipped.
"""

from __future__ import annotations

import fnmatch
import re
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from blog.authoring.store import slug_for
from blog.transfer.formats import detection, liquid
from blog.transfer.formats.site import (
    Fields,
    ForeignPost,
    Header,
    HeaderError,
    Site,
    decode,
    entry_of,
    foreign_post,
    name_date,
    outside,
    read_header,
)
from blog.transfer.frontmatter import Problem
from blog.transfer.progress import steps

CONFIG = "_config.yml"
POSTS = "_posts"
DRAFTS = "_drafts"
SUFFIXES = (".md", ".markdown", ".mkdown", ".mkd", ".html")
STYLES = {
    "date": "/:categories/:year/:month/:day/:title:output_ext",
    "pretty": "/:categories/:year/:month/:day/:title/",
    "ordinal": "/:categories/:year/:y_day/:title:output_ext",
    "weekdate": "/:categories/:year/W:week/:short_day/:title:output_ext",
    "none": "/:categories/:title:output_ext",
}
# Folders Jekyll itself never reads as pages.
NOT_PAGES = ("_site", "node_modules", "vendor", ".")
KNOWN = {
    "title": "title",
    "slug": "slug",
    "date": "date",
    "last_modified_at": "updated",
    "updated": "updated",
    "modified": "updated",
    "published": "published",
    "excerpt": "summary",
    "description": "summary",
    "categories": "topics",
    "category": "topics",
    "tags": "topics",
    "author": "authors",
    "authors": "authors",
    "permalink": "permalink",
    "redirect_from": "redirect_from",
}
_PLACEHOLDER = re.compile(r":(\w+)")
_OFFSET = re.compile(r"\s*(?:[+-]\d{2}:?\d{2}|Z)$")


def read_site(
    detected: detection.Detected,
    *,
    ignore: frozenset[str] = frozenset(),
    strict: bool = False,
    progress: bool = False,
) -> Site:
    """Every post and draft of the Jekyll site, checked, with what was left out."""
    root = detected.root
    site = Site(kind=detection.JEKYLL, root=root.resolve())
    site.static.append(root.resolve())
    config, config_lines = _config(root, site)
    defaults = _defaults(config, config_lines.get("defaults", 1), root, site)
    posts, drafts, pages = _files(root)
    site.skipped += [f"{page}: a page, not a post" for page in pages]
    headers: dict[Path, Header] = {}
    for path in steps(posts + drafts, "Reading files", progress):
        if (refused := outside(path, site.root)) is not None:
            site.problems.append(refused)
            continue
        try:
            headers[path] = read_header(decode(path.read_bytes()))
        except OSError as error:
            site.problems.append(Problem(str(path), 1, f"cannot be read: {error.strerror}"))
        except HeaderError as error:
            site.problems.append(Problem(str(path), error.line, error.message))
    slugs = {path: _slug(path, header) for path, header in headers.items()}
    base_url = str(config.get("baseurl") or "").rstrip("/")
    old_url = str(config.get("url") or "").rstrip("/")

    def addresses(tag: str, argument: str) -> str | None:
        """Where `post_url` or `link` leads: the imported post, else the old site's page."""
        wanted = argument.strip().strip("'\"")
        for path, slug in slugs.items():
            relative = path.relative_to(root).as_posix()
            if (tag == "post_url" and path.stem == wanted.rpartition("/")[2]) or relative == wanted:
                return f"/posts/{slug}"
        page = root / wanted
        inside = page.resolve().is_relative_to(root.resolve())
        if tag == "link" and inside and page.is_file():
            return f"{old_url}{base_url}/{Path(wanted).with_suffix('.html').as_posix()}"
        return None

    for path, header in steps(list(headers.items()), "Rendering Liquid", progress):
        given = _defaults_for(path.relative_to(root).as_posix(), path in drafts, defaults)
        own = {key.lower() for key in header.values}
        header = _with_defaults(header, given)
        post = _read_post(path, header, path in drafts, root, config, site, ignore, addresses)
        for key in set(given.values) - own:
            if site.ignored_at.get(key, ("",))[0] == str(path):
                site.ignored_at[key] = given.where  # --strict names the default, not the post
        if post is not None:
            site.posts.append(post)
    if strict:
        for name, (shown, line) in sorted(site.ignored_at.items()):
            message = (
                f"`{name}` has no place in Fieldnotes ({site.ignored[name]} files have it);"
                f" pass --ignore-field {name} to leave it out, or drop --strict"
            )
            site.problems.append(Problem(shown, line, message))
    return site


def _config(root: Path, site: Site) -> tuple[dict[str, Any], dict[str, int]]:
    """`_config.yml`'s values ({} without one; a problem when it does not read)."""
    path = root / CONFIG
    if not path.is_file():
        return {}, {}
    try:
        text = decode(path.read_bytes())
        header = read_header(f"---\n{text}\n---\n")
    except HeaderError as error:
        site.problems.append(Problem(str(path), max(error.line - 1, 1), error.message))
        return {}, {}
    except OSError as error:
        site.problems.append(Problem(str(path), 1, f"cannot be read: {error.strerror}"))
        return {}, {}
    # Its lines count the `---` added above the file.
    return header.values, {key: line - 1 for key, line in header.lines.items()}


@dataclass(frozen=True)
class Default:
    """One entry of `defaults:`: where it applies, and the values it gives."""

    path: str
    kind: str | None
    values: dict[str, Any]


@dataclass
class Defaults:
    """The entries of `defaults:` in `_config.yml`, and where the list is."""

    entries: list[Default]
    shown: str = ""
    line: int = 1


@dataclass
class Given:
    """The default values one post takes, and where they were written."""

    values: dict[str, Any]
    where: tuple[str, int]


def _defaults(config: dict[str, Any], line: int, root: Path, site: Site) -> Defaults:
    """`defaults:` of `_config.yml`, checked: a list of `scope` (a `path` inside the site,
    a `type`) and `values` (text or lists of text for the fields posts have); a problem of
    `_config.yml` otherwise, and no default applied."""
    given = config.get("defaults")
    shown = str(root / CONFIG)
    found = Defaults([], shown, line)
    if given is None:
        return found

    def refuse(message: str) -> Defaults:
        site.problems.append(Problem(shown, found.line, f"`defaults`: {message}"))
        return Defaults([], shown, found.line)

    if not isinstance(given, list):
        return refuse("must be a list of entries, each with `scope:` and `values:`")
    for number, entry in enumerate(given, 1):
        where = f"entry {number}"
        if not isinstance(entry, dict) or not isinstance(entry.get("values"), dict):
            return refuse(f"{where} must have `values:`, fields and their values")
        scope = entry.get("scope", {})
        if not isinstance(scope, dict):
            return refuse(f"{where}: `scope:` must hold `path:` and `type:`")
        path, kind = scope.get("path") or "", scope.get("type")
        if not isinstance(path, str) or (kind is not None and not isinstance(kind, str)):
            return refuse(f"{where}: a scope's `path` and `type` must be text")
        if path.startswith("/") or ".." in path.split("/"):
            return refuse(f"{where}: the scope's path `{path[:80]}` leads outside the site")
        values = {str(key).lower(): value for key, value in entry["values"].items()}
        for key, value in values.items():
            wrong = isinstance(value, dict) or (
                isinstance(value, list) and not all(isinstance(item, str) for item in value)
            )
            if key in KNOWN and wrong:
                return refuse(f"{where}: `{key}` must be text or a list of text")
        found.entries.append(Default(path.strip("/").removeprefix("./"), kind, values))
    return found


def _defaults_for(relative: str, draft: bool, defaults: Defaults) -> Given:
    """The default values a post takes: every entry whose scope holds it, the most specific
    (the longest path, then one with a type) winning, then the later one."""
    kinds = ("posts", "drafts") if draft else ("posts",)
    applying = [
        entry
        for entry in defaults.entries
        if (entry.kind is None or entry.kind in kinds) and _in_scope(relative, entry.path)
    ]
    applying.sort(key=lambda entry: (len(entry.path), entry.kind is not None))
    values: dict[str, Any] = {}
    for entry in applying:
        values |= entry.values
    return Given(values, (defaults.shown, defaults.line))


def _in_scope(relative: str, path: str) -> bool:
    """True when a file (its path from the site's root) is under a scope's path."""
    if path in ("", "."):
        return True
    if "*" in path:
        return fnmatch.fnmatch(relative, path) or fnmatch.fnmatch(relative, f"{path}/*")
    return relative == path or relative.startswith(f"{path}/")


def _with_defaults(header: Header, given: Given) -> Header:
    """The front matter with the defaults it leaves out (each said to be on line 1)."""
    if not given.values:
        return header
    written = {key.lower() for key in header.values}
    added = {key: value for key, value in given.values.items() if key not in written}
    return Header(
        values=added | header.values,
        lines={key: 1 for key in added} | header.lines,
        body=header.body,
        body_line=header.body_line,
    )


def _files(root: Path) -> tuple[list[Path], list[Path], list[str]]:
    """The site's posts, drafts and other Markdown pages."""
    posts: list[Path] = []
    drafts: list[Path] = []
    pages: list[str] = []
    for path in sorted(root.rglob("*")):
        relative = path.relative_to(root)
        parts = relative.parts
        if path.suffix.lower() not in SUFFIXES or not path.is_file():
            continue
        if any(part.startswith(NOT_PAGES) for part in parts):
            continue
        if POSTS in parts[:-1]:
            posts.append(path)
        elif parts[0] == DRAFTS:
            drafts.append(path)
        elif not parts[0].startswith("_") and path.suffix.lower() != ".html":
            pages.append(relative.as_posix())
    return posts, drafts, pages


def _slug(path: Path, header: Header) -> str:
    """The post's slug: `slug` in its front matter, else its file name without the date."""
    given = header.values.get("slug")
    if isinstance(given, str) and slug_for(given):
        return slug_for(given)
    return slug_for(name_date(path.stem)[1]) or slug_for(path.stem)


def _words(value: Any) -> Any:
    """Jekyll's categories and tags: a list, or words separated by spaces."""
    return value.split() if isinstance(value, str) else value


def _read_post(
    path: Path,
    header: Header,
    draft: bool,
    root: Path,
    config: dict[str, Any],
    site: Site,
    ignore: frozenset[str],
    addresses: Any,
) -> ForeignPost | None:
    """One post or draft, its Liquid rendered (None when it has problems, which `site` gets)."""
    shown = str(path)
    values = {key.lower(): (value, header.line(key)) for key, value in header.values.items()}
    found_date, name = name_date(path.stem)
    slug = _slug(path, header)
    fields = Fields(name_slug=slug, name_date=found_date)
    folders = [part for part in path.relative_to(root).parts[:-1] if part not in (POSTS, DRAFTS)]
    categories: list[str] = list(folders)
    permalink = config.get("permalink") or "date"
    redirects: list[str] = []
    kinds: list[tuple[Any, int]] = []
    tags: list[tuple[Any, int]] = []
    for key, (value, line) in values.items():
        target = KNOWN.get(key)
        if target is None:
            if key not in ignore:
                site.ignored[key] += 1
                site.ignored_at.setdefault(key, (shown, line))
            continue
        if target == "title":
            fields.title = (value, line)
        elif target == "slug":
            fields.slug = (slug, line)
        elif target == "date":
            fields.date = (value, line)
        elif target == "updated":
            fields.updated = (value, line)
        elif target == "published":
            draft = draft or str(value).strip().lower() in ("false", "no", "off")
        elif target == "summary":
            fields.summary = fields.summary or (value, line)
        elif target == "topics":
            words = _words(value)
            if key != "tags" and isinstance(words, list):
                categories += [word for word in words if isinstance(word, str)]
            (tags if key == "tags" else kinds).append((words, line))
        elif target == "authors":
            fields.authors.append((value, line))
        elif target == "permalink" and isinstance(value, str):
            permalink = value
        elif target == "redirect_from":
            listed = [value] if isinstance(value, str) else value if isinstance(value, list) else []
            redirects += [item for item in listed if isinstance(item, str)]
    fields.topics = kinds + tags  # categories first, as Fieldnotes lists topics
    if fields.title is None:
        fields.title = (" ".join(word.capitalize() for word in name.split("-")), 1)
    if draft:
        fields.draft = ("true", values.get("published", (None, 1))[1])
    when = _when(fields)
    old = _permalink(str(permalink), categories, slug, when)
    page = {key: value for key, (value, _) in values.items()}
    page |= {"url": old, "slug": slug, "categories": categories}
    page.setdefault("title", fields.title[0])
    if when is not None:
        page["date"] = when.isoformat(sep=" ")
    base_url = str(config.get("baseurl") or "").rstrip("/")
    try:
        rendered = liquid.render(
            header.body, site=config, page=page, base_url=base_url, addresses=addresses
        )
    except liquid.LiquidRefused as error:
        # The body's line counted in the file, front matter and all; else its first line.
        line = header.body_line + (error.line - 1 if error.line else 0)
        site.problems.append(Problem(shown, line, str(error)))
        return None
    site.left.update(rendered.left)
    entry, authors, problems = entry_of(fields, rendered.text, shown, header.body_line)
    if entry is None:
        site.problems += problems
        return None
    found = [f"{base_url}{old}" if old else "", *redirects]
    post = foreign_post(path, shown, entry, authors, [item for item in found if item])
    post.base = root
    return post


def _when(fields: Fields) -> datetime | None:
    """The post's date as its old address used it, if it can be read."""
    given = fields.date[0] if fields.date is not None else fields.name_date
    if not isinstance(given, str):
        return None
    try:  # the wall-clock date, as Jekyll's addresses use it (no move to UTC)
        return datetime.fromisoformat(_OFFSET.sub("", given.strip())).replace(tzinfo=None)
    except (ValueError, OverflowError):
        return None


def _permalink(pattern: str, categories: list[str], slug: str, when: datetime | None) -> str:
    """The post's address on the old site, from a Jekyll permalink pattern or style."""
    pattern = STYLES.get(pattern, pattern)
    if when is None and re.search(r":(year|month|day|i_month|i_day|short_year|y_day)", pattern):
        return ""
    at = when or datetime(1970, 1, 1)
    values = {
        "categories": "/".join(slug_for(category) for category in categories),
        "title": slug,
        "slug": slug,
        "output_ext": ".html",
        "year": f"{at.year:04d}",
        "short_year": f"{at.year % 100:02d}",
        "month": f"{at.month:02d}",
        "i_month": str(at.month),
        "day": f"{at.day:02d}",
        "i_day": str(at.day),
        "y_day": f"{at.timetuple().tm_yday:03d}",
        "hour": f"{at.hour:02d}",
        "minute": f"{at.minute:02d}",
        "second": f"{at.second:02d}",
        "week": f"{at.isocalendar()[1]:02d}",
        "short_day": at.strftime("%a"),
    }
    path = _PLACEHOLDER.sub(lambda match: values.get(match.group(1), match.group(0)), pattern)
    return re.sub(r"/{2,}", "/", "/" + path.lstrip("/"))
