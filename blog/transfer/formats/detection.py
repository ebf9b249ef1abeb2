"""Which generator wrote what `posts import PATH` is given, from what PATH holds.

No flag is needed: a Jekyll site has `_config.yml` or `_posts/`; a Zola site a `config.toml`
with `base_url`; a Hugo site a `hugo.*` file or a `config.*` with `baseURL` (or a configuration
file in `config/_default/`); a WordPress export is an `.xml` file. A folder of Markdown whose
front matter is TOML (`+++`), or that holds sections (`_index.md`), is read as a Hugo or Zola
`content/` tree. Anything else is Fieldnotes' own format, read as strictly as ever.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

FIELDNOTES = "fieldnotes"
HUGO = "hugo"
ZOLA = "zola"
MARKDOWN = "markdown"  # a Hugo or Zola content tree without its site's configuration
JEKYLL = "jekyll"
WORDPRESS = "wordpress"

MARKDOWN_SUFFIXES = (".md", ".markdown")
HUGO_CONFIGS = ("hugo.toml", "hugo.yaml", "hugo.yml", "hugo.json")
CONFIGS = ("config.toml", "config.yaml", "config.yml", "config.json")
_ZOLA_KEY = re.compile(r"^\s*base_url\s*=", re.MULTILINE)
_HUGO_KEY = re.compile(r"^\s*\"?baseurl\"?\s*[=:]", re.MULTILINE | re.IGNORECASE)
# Bytes of a configuration file read to tell the generators apart.
CONFIG_PEEK = 64 * 1024


@dataclass(frozen=True)
class Detected:
    """The generator that wrote a site, and the folder its posts are read from."""

    kind: str
    # The site's folder (or the file itself).
    root: Path
    # Where its posts are: Hugo's and Zola's content/, else the root.
    content: Path


def _peek(path: Path) -> str:
    """The start of a small text file, or "" when it cannot be read."""
    try:
        with path.open("rb") as file:
            return file.read(CONFIG_PEEK).decode("utf-8", "replace")
    except OSError:
        return ""


def _starts_with_toml(path: Path) -> bool:
    """True when a Markdown file opens TOML front matter."""
    try:
        with path.open("rb") as file:
            return file.read(4).rstrip(b"\r\n") == b"+++"
    except OSError:
        return False


def markdown_files(root: Path) -> list[Path]:
    """The Markdown files under a folder, hidden ones left out."""
    return [
        path
        for path in root.rglob("*")
        if path.suffix.lower() in MARKDOWN_SUFFIXES
        and not any(part.startswith(".") for part in path.relative_to(root).parts)
        and path.is_file()
    ]


def detect(path: Path) -> Detected:
    """The generator that wrote PATH (a folder, or a single file)."""
    if path.is_file():
        if path.suffix.lower() == ".xml":
            return Detected(WORDPRESS, path, path)
        kind = MARKDOWN if _starts_with_toml(path) else FIELDNOTES
        return Detected(kind, path, path)
    if (path / "_config.yml").is_file() or (path / "_posts").is_dir():
        return Detected(JEKYLL, path, path)
    content = path / "content"
    folder = path / "config" / "_default"  # Hugo's configuration folder
    if any((path / name).is_file() for name in HUGO_CONFIGS) or any(
        (folder / name).is_file() for name in HUGO_CONFIGS + CONFIGS
    ):
        return Detected(HUGO, path, content if content.is_dir() else path)
    for name in CONFIGS:
        text = _peek(path / name)
        if _ZOLA_KEY.search(text):
            return Detected(ZOLA, path, content if content.is_dir() else path)
        if _HUGO_KEY.search(text):
            return Detected(HUGO, path, content if content.is_dir() else path)
    files = markdown_files(path)
    if any(file.name == "_index.md" or _starts_with_toml(file) for file in files):
        return Detected(MARKDOWN, path, content if content.is_dir() else path)
    return Detected(FIELDNOTES, path, path)
