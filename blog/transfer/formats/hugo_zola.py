"""Hugo and Zola `content/` trees: YAML (`---`) or TOML (`+++`) front matter, sections and
page bundles.

What maps to what:

- `title`, `slug`, `description` (or `summary`) → summary, `draft`;
- `date` (Hugo's `publishDate` too), else the file's or bundle's `YYYY-MM-DD-` prefix, else a
  `YYYY/MM/DD` in `path` or `url`; `updated` (Hugo's `lastmod`);
- `authors` (Zola), `author` or `authors` (Hugo), or either under `extra`/`params`: every one;
- `categories` then `tags`, at the top (Hugo) or under `taxonomies` (Zola): the topics; a post
  that lists none takes the title of its section (the nearest `_index.md` above it);
- the post's old address: `path` (Zola) or `url` (Hugo), else its place in the tree
  (`/<section>/<slug>/`); `aliases` add more.

A section's `_index.md` is not a post, nor is a page at the top of the tree without a date
(an "about" page): both are listed as skipped. A page bundle (`name/index.md` with its files)
is one post named after its folder.
"""

from __future__ import annotations

import html
import re
from collections import Counter
from pathlib import Path
from typing import Any

from blog.authoring.store import topic_slug
from blog.transfer.formats import detection, links
from blog.transfer.formats.site import (
    Fields,
    ForeignPost,
    HeaderError,
    Site,
    decode,
    entry_of,
    foreign_post,
    name_date,
    outside,
    path_date,
    read_header,
)
from blog.transfer.frontmatter import Problem
from blog.transfer.progress import steps

SECTION = "_index.md"
BUNDLE = ("index.md", "index.markdown")
# Keys read at the top of the front matter (the rest are counted as ignored).
DATE_KEYS = ("date", "publishdate", "pubdate", "published")
UPDATED_KEYS = ("updated", "lastmod", "modified")
SUMMARY_KEYS = ("description", "summary")
AUTHOR_KEYS = ("authors", "author")
TOPIC_KEYS = ("categories", "category", "tags")
ADDRESS_KEYS = ("path", "url", "permalink")
# Shortcodes that link to another page: they become the address of the imported post.
REFS = ("ref", "relref")
# Tables whose keys are read one by one.
TABLES = ("extra", "params", "taxonomies")


def read_site(
    detected: detection.Detected,
    *,
    ignore: frozenset[str] = frozenset(),
    strict: bool = False,
    progress: bool = False,
) -> Site:
    """Every post of the tree, checked, and everything left out said."""
    root = detected.root if detected.root.is_dir() else detected.root.parent
    site = Site(kind=detected.kind, root=root.resolve())
    static = detected.root / "static"
    if static.is_dir():
        site.static.append(static.resolve())
    content = detected.content
    files = [content] if content.is_file() else sorted(detection.markdown_files(content))
    sections = _section_titles(files, content)
    permalinks = links.Permalinks()
    if detected.kind == detection.HUGO and detected.root.is_dir():
        permalinks = links.read_permalinks(detected.root)
        site.problems += permalinks.problems
    elif detected.kind == detection.ZOLA:
        permalinks.base_url = links.zola_base_url(detected.root)
    # Each post's body as its file holds it, and the line it starts on, for its refs.
    bodies: dict[Path, tuple[str, int]] = {}
    for path in steps(files, "Reading files", progress):
        shown = str(path)
        if (refused := outside(path, site.root)) is not None:
            site.problems.append(refused)
            continue
        if path.name == SECTION:
            site.skipped.append(f"{shown}: a section's page, not a post")
            continue
        try:
            post = _read_post(
                path, shown, content, sections, site, ignore, permalinks.by_section, bodies
            )
        except HeaderError as error:
            site.problems.append(Problem(shown, error.line, error.message))
            continue
        if post is not None:
            site.posts.append(post)
    _resolve_refs(site, content, files, bodies, sections, permalinks.base_url)
    if strict:
        for name, (shown, line) in sorted(site.ignored_at.items()):
            message = (
                f"`{name}` has no place in Fieldnotes ({site.ignored[name]} files have it);"
                f" pass --ignore-field {name} to leave it out, or drop --strict"
            )
            site.problems.append(Problem(shown, line, message))
    return site


def _section_titles(files: list[Path], content: Path) -> dict[Path, str]:
    """The title of each section (`_index.md`) by its folder."""
    titles: dict[Path, str] = {}
    for path in files:
        if path.name != SECTION or outside(path, content.resolve()) is not None:
            continue
        try:
            header = read_header(decode(path.read_bytes()))
        except (OSError, HeaderError):
            continue  # reported when the file is read as a post would be: it is skipped
        title = header.values.get("title")
        if isinstance(title, str) and title.strip():
            titles[path.parent] = title.strip()
    return titles


def _section_topic(path: Path, content: Path, sections: dict[Path, str]) -> str | None:
    """The title of the nearest section above the post."""
    folder = path.parent
    while True:
        if folder in sections:
            return sections[folder]
        if folder == content or folder.parent == folder or content not in folder.parents:
            return None
        folder = folder.parent


def _read_post(
    path: Path,
    shown: str,
    content: Path,
    sections: dict[Path, str],
    site: Site,
    ignore: frozenset[str],
    permalinks: dict[str, str],
    bodies: dict[Path, tuple[str, int]],
) -> ForeignPost | None:
    """One file as a post (None when it is a page or has problems, which `site` gets); its
    body as written goes into `bodies`."""
    try:
        data = path.read_bytes()
    except OSError as error:
        raise HeaderError(1, f"cannot be read: {error.strerror}") from None
    header = read_header(decode(data))
    values = {key.lower(): (value, header.line(key)) for key, value in header.values.items()}
    bundle = path.name.lower() in BUNDLE
    name = path.parent.name if bundle else path.stem
    found_date, name_slug = name_date(name)
    fields = Fields(name_slug=name_slug, name_date=found_date)
    used: set[str] = set()

    def take(*keys: str) -> tuple[Any, int] | None:
        for key in keys:
            if key in values:
                used.add(key)
                return values[key]
        return None

    fields.title = take("title")
    fields.slug = take("slug")
    fields.date = take(*DATE_KEYS)
    used.update(key for key in DATE_KEYS if key in values)
    fields.updated = take(*UPDATED_KEYS)
    used.update(key for key in UPDATED_KEYS if key in values)
    fields.draft = take("draft")
    fields.summary = take(*SUMMARY_KEYS)
    for key in AUTHOR_KEYS:
        if key in values:
            used.add(key)
            fields.authors.append(values[key])
    tables = {key: values[key] for key in TABLES if isinstance(values.get(key, (None,))[0], dict)}
    used.update(tables)
    for table, (inner, line) in tables.items():
        for key, value in inner.items():
            lowered = key.lower()
            if table != "taxonomies" and lowered in AUTHOR_KEYS:
                if not any(values.get(k) for k in AUTHOR_KEYS):
                    fields.authors.append((value, line))
            elif table == "taxonomies" and lowered in TOPIC_KEYS:
                pass  # read below, categories first
            elif f"{table}.{lowered}" not in ignore:
                _ignored(site, f"{table}.{lowered}", shown, line)
    for key in TOPIC_KEYS:
        if key in values:
            used.add(key)
            fields.topics.append(values[key])
        if "taxonomies" in tables:
            inner, line = tables["taxonomies"]
            lowered = {k.lower(): v for k, v in inner.items()}
            if key in lowered:
                fields.topics.append((lowered[key], line))
    address = take(*ADDRESS_KEYS)
    used.update(key for key in ADDRESS_KEYS if key in values)
    aliases = take("aliases")
    relative = path.parent.parent if bundle else path.parent
    section = relative.relative_to(content).as_posix() if content in relative.parents else ""
    if fields.date is None and fields.name_date is None and address is not None:
        fields.name_date = path_date(str(address[0]))
    for key, (_, line) in values.items():
        if key not in used and key not in ignore:
            _ignored(site, key, shown, line)
    if fields.date is None and fields.name_date is None and not section:
        site.skipped.append(f"{shown}: a page with no date at the top of the tree, not a post")
        return None
    if not fields.topics and (topic := _section_topic(path, content, sections)):
        fields.topics.append((topic, 1))
    bodies[path] = (header.body, header.body_line)
    body = shortcodes(header.body, site.left)
    entry, authors, problems = entry_of(fields, body, shown, header.body_line)
    if entry is None:
        site.problems += problems
        return None
    addresses = []
    parts = section.split("/") if section else []
    pattern = permalinks.get(parts[0].lower()) if parts else None
    if address is not None and isinstance(address[0], str):
        addresses.append(address[0] if address[0].startswith("/") else "/" + address[0])
    elif pattern is not None:
        given_slug = fields.slug[0] if fields.slug is not None else None
        date = fields.date[0] if fields.date is not None else fields.name_date
        found = links.permalink(
            pattern,
            sections=parts,
            slug=entry.slug if isinstance(given_slug, str) and given_slug else None,
            title=entry.title,
            file_name=name,
            when=links.written_date(date),
        )
        if found is not None:
            addresses.append(found)
    else:
        addresses.append(f"/{section}/{entry.slug}/" if section else f"/{entry.slug}/")
    if aliases is not None:
        given, line = aliases
        listed = [given] if isinstance(given, str) else given if isinstance(given, list) else []
        for alias in listed:
            if not isinstance(alias, str):
                site.problems.append(Problem(shown, line, "`aliases` must list addresses"))
                return None
            addresses.append(alias if alias.startswith("/") else f"/{section}/{alias}")
    return foreign_post(path, shown, entry, authors, addresses)


# Hugo's shortcodes, `{{< name args >}}` or `{{% name args %}}`, and their closing tags.
_HUGO_HIGHLIGHT = re.compile(
    r"\{\{[<%]\s*highlight\s+([\w+#.-]+)[^>%]*[>%]\}\}\n?(.*?)\n?\{\{[<%]\s*/highlight\s*[>%]\}\}",
    re.DOTALL,
)
_HUGO_SHORTCODE = re.compile(r"\{\{[<%]\s*(/?)(\w[\w-]*)(.*?)[>%]\}\}", re.DOTALL)
# Zola's: `{{ name(args) }}` inline, `{% name(args) %}...{% end %}` around a body.
_ZOLA_SHORTCODE = re.compile(r"\{\{\s*(\w+)\(.*?\)\s*\}\}|\{%\s*(\w+)\(.*?\)\s*%\}", re.DOTALL)
_ARGUMENT = re.compile(r"(\w+)=(?:\"([^\"]*)\"|'([^']*)'|(\S+))")


def shortcodes(body: str, left: Counter[str]) -> str:
    """Hugo's `highlight` as a fenced code block and `figure` as a figure; every other
    shortcode (Hugo's or Zola's) left as written and counted."""

    def fence(match: re.Match[str]) -> str:
        return f"```{match.group(1)}\n{match.group(2)}\n```"

    def shortcode(match: re.Match[str]) -> str:
        closing, name, arguments = match.group(1), match.group(2), match.group(3)
        if name == "figure" and not closing:
            given = {m[1]: m[2] or m[3] or m[4] or "" for m in _ARGUMENT.finditer(arguments)}
            source, alt = html.escape(given.get("src", "")), html.escape(given.get("alt", ""))
            image = f'<img src="{source}" alt="{alt}">'
            caption = given.get("caption") or given.get("title") or ""
            shown = f"<figcaption>{html.escape(caption)}</figcaption>" if caption else ""
            return f"<figure>{image}{shown}</figure>"
        if not closing and name not in REFS:
            left[f"{{{{< {name} >}}}}"] += 1
        return match.group(0)

    body = _HUGO_HIGHLIGHT.sub(fence, body)
    body = _HUGO_SHORTCODE.sub(shortcode, body)
    for match in _ZOLA_SHORTCODE.finditer(body):
        left[f"{{{{ {match.group(1) or match.group(2)}() }}}}"] += 1
    return body


def _resolve_refs(
    site: Site,
    content: Path,
    files: list[Path],
    bodies: dict[Path, tuple[str, int]],
    sections: dict[Path, str],
    old_site: str,
) -> None:
    """Each post's links to another page (Hugo's `ref` and `relref`, Zola's `@/path.md`) as
    the address of the post they name, or of the topic a section's title gives, or of a page
    not imported on the old site; a post whose link names nothing is refused, named at the
    link's line."""
    if content.is_file():
        return
    posts = {post.loaded.source.path: post.entry.slug for post in site.posts}
    # A section's page here is its topic's, when some post takes its title as a topic.
    topics = {topic_slug(name) for post in site.posts for name in post.entry.topics}
    shown = {folder: title for folder, title in sections.items() if topic_slug(title) in topics}
    refused = {problem.path for problem in site.problems}
    targets = links.RefTargets.of(content, posts, shown, files, refused, old_site)
    kept: list[ForeignPost] = []
    for post in site.posts:
        path = post.loaded.source.path
        written, first_line = bodies[path]
        problems = links.link_problems(written, path, targets, first_line, post.shown)
        if problems:
            site.problems += problems
            continue
        post.entry.body = links.with_links(post.entry.body, path, targets)
        kept.append(post)
    site.posts = kept


def _ignored(site: Site, name: str, shown: str, line: int) -> None:
    """Count a field Fieldnotes keeps no place for."""
    site.ignored[name] += 1
    site.ignored_at.setdefault(name, (shown, line))
