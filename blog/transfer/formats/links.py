"""How Hugo and Zola sites give addresses and link their pages: Hugo's `[permalinks]`, which
give each post's address on the old site, and the links from one page to another (Hugo's `ref`
and `relref` shortcodes, Zola's `@/path.md` links), which become links to the imported post.

A permalink pattern is checked before any post uses it: a value that is not an address
(`..`, `?`, `#`, an unknown `:token`) refuses the import, named at its line in the
configuration. A link to a file the import does not bring in refuses its post, named at the
link's line.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from blog.authoring.store import slug_for, topic_slug
from blog.transfer.formats.site import HeaderError, decode, read_header
from blog.transfer.frontmatter import Problem

# Where Hugo looks for its configuration, in its order.
CONFIG_NAMES = (
    *("hugo.toml", "hugo.yaml", "hugo.yml", "hugo.json"),
    *("config.toml", "config.yaml", "config.yml", "config.json"),
)
CONFIG_FOLDER = Path("config") / "_default"
PERMALINKS_FILES = ("permalinks.toml", "permalinks.yaml", "permalinks.yml", "permalinks.json")
# A configuration file is read whole: a bigger one is refused unread.
CONFIG_MAX = 1_000_000
TOKENS = frozenset(
    {"year", "month", "monthname", "day", "weekday", "weekdayname", "yearday"}
    | {"section", "sections", "title", "slug", "filename", "slugorfilename"}
    | {"contentbasename", "slugorcontentbasename"}
)
_TOKEN = re.compile(r":(\w+)")
_PATTERN = re.compile(r"/?[A-Za-z0-9_.~:/-]*")
_OFFSET = re.compile(r"\s*(?:[+-]\d{2}:?\d{2}|Z)$")
# Hugo's `{{< ref "path" >}}`, `{{% relref path="path" %}}`: the path quoted or bare.
_LINK = re.compile(
    r"\{\{[<%]\s*(?P<kind>rel)?ref\s+(?:path\s*=\s*)?"
    r"(?:\"(?P<quoted>[^\"\n]*)\"|'(?P<single>[^'\n]*)'|(?P<bare>[^\s\"'>%]+))"
    r"[^>%\n]*[>%]\}\}"
    # Zola's `[text](@/blog/post.md#anchor)` (or `href="@/..."`, `[name]: @/...`).
    r"|(?:(?<=\]\()|(?<=\]\(<)|(?<=\]:\s)|(?<=href=\")|(?<=href='))"
    r"@/(?P<zola>[^)\s\"'<>#]*)(?P<anchor>#[^)\s\"'<>]*)?"
)


@dataclass
class Permalinks:
    """Each section's permalink pattern, from the site's configuration."""

    by_section: dict[str, str] = field(default_factory=dict)
    problems: list[Problem] = field(default_factory=list)
    # The old site's address (`baseURL`), for links to its pages that are not imported.
    base_url: str = ""


def _config_values(path: Path) -> tuple[dict[str, Any], dict[str, int]]:
    """A TOML, YAML or JSON configuration file's top-level values and their lines
    (HeaderError when it cannot be read)."""
    try:
        if path.stat().st_size > CONFIG_MAX:
            raise HeaderError(1, f"larger than {CONFIG_MAX:,} bytes; not read")
        text = decode(path.read_bytes())
    except OSError as error:
        raise HeaderError(1, f"cannot be read: {error.strerror}") from None
    if path.suffix == ".json":
        try:
            values = json.loads(text)
        except ValueError as error:
            raise HeaderError(1, f"not valid JSON: {error}") from None
        if not isinstance(values, dict):
            raise HeaderError(1, "must be a JSON object")
        return values, {}
    fence = "+++" if path.suffix == ".toml" else "---"
    try:
        header = read_header(f"{fence}\n{text}\n{fence}\n")
    except HeaderError as error:  # its lines count the fence added above
        raise HeaderError(max(error.line - 1, 1), error.message) from None
    return header.values, {key: line - 1 for key, line in header.lines.items()}


def read_permalinks(root: Path) -> Permalinks:
    """The `[permalinks]` of a Hugo site at `root`, each pattern checked: from its
    configuration file (the first of `hugo.*`, `config.*`), then from `config/_default/`
    (its own configuration file and `permalinks.*`), the first to name a section winning."""
    found = Permalinks()
    for folder in (root, root / CONFIG_FOLDER):
        config = next((folder / name for name in CONFIG_NAMES if (folder / name).is_file()), None)
        if config is not None:
            _checked(config, "permalinks", found)
        own = next((folder / n for n in PERMALINKS_FILES if (folder / n).is_file()), None)
        if own is not None and folder != root:
            _checked(own, None, found)
    return found


def _checked(path: Path, key: str | None, found: Permalinks) -> Permalinks:
    """The patterns of one file (all of it, or its `key` table), or the problems with them."""
    shown = str(path)
    try:
        values, lines = _config_values(path)
    except HeaderError as error:
        found.problems.append(Problem(shown, error.line, error.message))
        return found
    if key is not None:
        given = {name.lower(): value for name, value in values.items()}.get("baseurl")
        found.base_url = found.base_url or _web_address(given)
    table = values if key is None else values.get(key)
    line = lines.get(key or "", 1)
    if table is None:
        return found
    if not isinstance(table, dict):
        found.problems.append(Problem(shown, line, "`permalinks` must be `section = pattern`"))
        return found
    # Hugo 0.120 and later file page patterns under `page`; the rest are sections' own.
    page = table.get("page")
    pages: dict[str, Any] = page if isinstance(page, dict) else table
    for section, pattern in pages.items():
        if section in ("section", "taxonomy", "term"):
            continue
        where = f"`permalinks` {section}"
        if not isinstance(pattern, str):
            found.problems.append(Problem(shown, line, f"{where}: must be an address pattern"))
            continue
        problem = _pattern_problem(pattern)
        if problem:
            found.problems.append(Problem(shown, line, f"{where}: {problem}"))
            continue
        found.by_section.setdefault(section.lower(), pattern)
    return found


def zola_base_url(root: Path) -> str:
    """A Zola site's `base_url` ("" when its config.toml has none that is a web address)."""
    try:
        values, _ = _config_values(root / "config.toml")
    except HeaderError:
        return ""
    return _web_address(values.get("base_url"))


def _web_address(value: Any) -> str:
    """An http(s) address without its trailing slash, or ""."""
    if not isinstance(value, str) or not re.fullmatch(r"https?://[^\s\"'<>]+", value.strip()):
        return ""
    return value.strip().rstrip("/")


def _pattern_problem(pattern: str) -> str | None:
    """What is wrong with a permalink pattern, if anything."""
    if not _PATTERN.fullmatch(pattern):
        return f"`{pattern[:80]}` holds characters an address pattern cannot"
    if ".." in pattern.split("/"):
        return f"`{pattern}` climbs out of the site with `..`"
    unknown = [token for token in _TOKEN.findall(pattern) if token not in TOKENS]
    if unknown:
        return f"`:{unknown[0]}` is not a token Hugo knows"
    return None


def written_date(value: Any) -> datetime | None:
    """A front-matter date as written, on the wall clock (no move to UTC), as old addresses
    were made from it; None when it cannot be read."""
    if not isinstance(value, str):
        return None
    try:
        return datetime.fromisoformat(_OFFSET.sub("", value.strip())).replace(tzinfo=None)
    except (ValueError, OverflowError):
        return None


def permalink(
    pattern: str,
    *,
    sections: list[str],
    slug: str | None,
    title: str,
    file_name: str,
    when: datetime | None,
) -> str | None:
    """The post's address from a permalink pattern; None when the pattern needs a date the
    post does not have."""
    if when is None and re.search(r":(year|month|day|week|yearday)", pattern):
        return None
    at = when or datetime(1970, 1, 1)
    values = {
        "year": f"{at.year:04d}",
        "month": f"{at.month:02d}",
        "monthname": at.strftime("%B").lower(),
        "day": f"{at.day:02d}",
        "weekday": str(at.isoweekday() % 7),
        "weekdayname": at.strftime("%A").lower(),
        "yearday": str(at.timetuple().tm_yday),
        "section": sections[0] if sections else "",
        "sections": "/".join(sections),
        "title": slug_for(title),
        "slug": slug or slug_for(title),
        "filename": file_name,
        "contentbasename": file_name,
        "slugorfilename": slug or file_name,
        "slugorcontentbasename": slug or file_name,
    }
    path = _TOKEN.sub(lambda match: values[match.group(1)], pattern)
    return re.sub(r"/{2,}", "/", "/" + path.lstrip("/"))


@dataclass
class RefTargets:
    """What a link can lead to: the imported posts by file (a bundle by its index.md), the
    sections by their `_index.md` with the title their posts take as a topic, every Markdown
    file of the content folder, and those refused for problems of their own; paths absolute,
    `..` resolved."""

    content: Path
    posts: dict[Path, str]
    sections: dict[Path, str]
    files: set[Path]
    refused: set[Path]
    # The old site's address: a link to a page not imported leads there ("": refused).
    old_site: str = ""

    @classmethod
    def of(
        cls,
        content: Path,
        posts: dict[Path, str],
        sections: dict[Path, str],
        files: list[Path],
        refused: set[str],
        old_site: str = "",
    ) -> RefTargets:
        """The targets, their paths made comparable (`sections` by folder)."""
        return cls(
            _absolute(content),
            {_absolute(path): slug for path, slug in posts.items()},
            {_absolute(folder / "_index.md"): title for folder, title in sections.items()},
            {_absolute(path) for path in files},
            {_absolute(Path(path)) for path in refused},
            old_site,
        )

    def old_address(self, path: Path) -> str:
        """Where a page of the content folder was on the old site, by its place."""
        parts = list(path.relative_to(self.content).with_suffix("").parts)
        if parts and parts[-1] in ("index", "_index"):
            parts.pop()
        place = "/".join(slug_for(part) or part for part in parts)
        return f"{self.old_site}/{place}/" if place else f"{self.old_site}/"


def _absolute(path: Path) -> Path:
    """The path from the root, `.` and `..` resolved by name (links are not followed)."""
    return Path(os.path.abspath(path))


def _candidates(target: str, page: Path, content: Path) -> list[Path]:
    """The files a ref's path may name: beside the page, else from the content root."""
    starts = [content] if target.startswith("/") else [page.parent, content]
    found: list[Path] = []
    for start in starts:
        path = _absolute(start / target.lstrip("/"))
        found += [path, path.with_name(path.name + ".md"), path / "index.md"]
        found += [path.with_name(path.name + ".markdown"), path / "_index.md"]
    return found


def _target(target: str, page: Path, targets: RefTargets) -> str | None:
    """The address here of what a link's path names; None when it names nothing imported."""
    found = _find(target, _absolute(page), targets)
    return found[0] if isinstance(found, tuple) else None


def _find(target: str, page: Path, targets: RefTargets) -> tuple[str] | str:
    """The address here of what a link's path names (an imported post, or a section's topic
    page), or why there is none."""
    for path in _candidates(target, page, targets.content):
        if not path.is_relative_to(targets.content):
            return "leads outside the site's content folder"
        if path in targets.posts:
            return (f"/posts/{targets.posts[path]}",)
        if path in targets.sections:
            return (f"/topics/{topic_slug(targets.sections[path])}",)
        if path in targets.refused:
            return "names a file that is refused for its own problems (listed with it)"
        if path in targets.files and targets.old_site:
            return (targets.old_address(path),)
        if path in targets.files:
            return (
                "names a page that is not a post, which is not imported (with the site's"
                " configuration, it would lead to the old site's page)"
            )
    if "/" not in target.strip("/"):
        stem = Path(target).stem if target.endswith((".md", ".markdown")) else target
        named = [
            slug
            for path, slug in targets.posts.items()
            if (path.parent.name if path.name in ("index.md", "index.markdown") else path.stem)
            == stem
        ]
        if len(named) == 1:
            return (f"/posts/{named[0]}",)
        if len(named) > 1:
            return f"{len(named)} posts have that name; give its path from content/"
    return "no post of the imported site has this path"


def _link(match: re.Match[str]) -> tuple[str, str, str]:
    """A link's path (from `content/` when it starts with `/`), its `#anchor`, and the link
    as a problem names it."""
    if match.group("zola") is not None:
        anchor = match.group("anchor") or ""
        return "/" + match.group("zola"), anchor, f"`@/{match.group('zola')}{anchor}`"
    given = match.group("quoted") or match.group("single") or match.group("bare") or ""
    target, hash_sign, anchor = given.partition("#")
    name = f"{'rel' if match.group('kind') else ''}ref"
    return target, hash_sign + anchor, f'`{{{{< {name} "{given[:120]}" >}}}}`'


def link_problems(
    body: str, page: Path, targets: RefTargets, first_line: int, shown: str
) -> list[Problem]:
    """A problem for each link to another page in a body (as the file holds it, starting on
    `first_line`) that names nothing the import brings in, at the link's line."""
    problems: list[Problem] = []
    for match in _LINK.finditer(body):
        target, _, said = _link(match)
        if not target.strip("/"):
            continue  # the page's own anchor
        found = _find(target, _absolute(page), targets)
        if isinstance(found, str):
            line = first_line + body.count("\n", 0, match.start())
            problems.append(Problem(shown, line, f"{said} {found}"))
    return problems


def with_links(body: str, page: Path, targets: RefTargets) -> str:
    """The body with each link to another page as the address of the imported post it
    names, its `#anchor` kept (one naming nothing is left as written: `link_problems` says)."""

    def address(match: re.Match[str]) -> str:
        target, fragment, _ = _link(match)
        if not target.strip("/"):
            return fragment or "#"
        address = _target(target, page, targets)
        return match.group(0) if address is None else f"{address}{fragment}"

    return _LINK.sub(address, body)
