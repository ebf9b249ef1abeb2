"""addresses.yml: the paths posts answered at on the sites they were moved from, which travel
beside the posts so that an export imported elsewhere keeps every old link working.

`posts export` writes it (by post slug, each post's old paths in the order they were kept);
`posts import` of a Fieldnotes folder checks it before the posts are saved and adds, after
them, each path the site lacks. An import never removes an old path.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import click
import sqlalchemy as sa
import yaml
from flask.cli import with_appcontext

from blog.catalog import address_key
from blog.extensions import db
from blog.models import OldAddress, Post
from blog.transfer import files
from blog.transfer.frontmatter import SLUG, BadYaml, Problem, compose_yaml, dump_yaml

ADDRESSES_FILE = "addresses.yml"
# A line or two per post: a bigger file is refused unread.
FILE_MAX = 10_000_000


@dataclass
class Added:
    """What applying addresses.yml did."""

    added: int = 0
    # Paths left out, each with the reason (another post has it, no such post).
    left: list[str] = field(default_factory=list)


def read_addresses(root: Path) -> tuple[dict[str, list[str]] | None, list[Problem]]:
    """The folder's addresses.yml as old paths by slug (None when there is none), checked
    on its own: slugs, paths, none listed twice."""
    path = root / ADDRESSES_FILE
    if not root.is_dir() or not path.is_file():
        return None, []
    shown = str(path)
    if path.stat().st_size > FILE_MAX:
        return None, [Problem(shown, 1, f"larger than {FILE_MAX:,} bytes")]
    try:
        text = path.read_bytes().decode("utf-8")
    except UnicodeDecodeError:
        return None, [Problem(shown, 1, "not UTF-8 text; save it as UTF-8")]
    try:
        root_node = compose_yaml(text, ADDRESSES_FILE)
    except BadYaml as error:
        return None, [Problem(shown, error.line, error.message)]
    if root_node is None:
        return {}, []
    if not isinstance(root_node, yaml.MappingNode):
        return None, [Problem(shown, 1, "must be `slug:` entries, each a list of paths")]
    found: dict[str, list[str]] = {}
    problems: list[Problem] = []
    owner: dict[str, str] = {}
    for key, value in root_node.value:
        line = key.start_mark.line + 1
        slug = key.value if isinstance(key, yaml.ScalarNode) else ""
        if not SLUG.fullmatch(slug):
            problems.append(Problem(shown, line, "each entry must be a post's slug"))
            continue
        if slug in found:
            problems.append(Problem(shown, line, f"`{slug}` is listed twice"))
            continue
        items = value.value if isinstance(value, yaml.SequenceNode) else None
        if items is None or not all(isinstance(item, yaml.ScalarNode) for item in items):
            problems.append(Problem(shown, line, f"`{slug}` must list paths"))
            continue
        paths: list[str] = []
        for item in items:
            at = item.start_mark.line + 1
            key_path = address_key(item.value)
            if key_path is None or key_path == f"/posts/{slug}":
                problems.append(Problem(shown, at, f"`{item.value[:80]}` is not an old path"))
                continue
            if key_path in owner:
                message = f"{key_path} is listed twice (also under `{owner[key_path]}`)"
                problems.append(Problem(shown, at, message))
                continue
            owner[key_path] = slug
            paths.append(key_path)
        found[slug] = paths
    return found, problems


def apply_addresses(wanted: dict[str, list[str]]) -> Added:
    """Add each old path the site lacks to the post of its slug (in the session); a path
    another post has, or whose post is missing, is left out and said."""
    done = Added()
    slugs = list(wanted)
    ids = {
        slug: post_id
        for slug, post_id in db.session.execute(
            sa.select(Post.slug, Post.id).where(Post.slug.in_(slugs))
        )
    }
    paths = [path for listed in wanted.values() for path in listed]
    stored = {
        path: post_id
        for path, post_id in db.session.execute(
            sa.select(OldAddress.path, OldAddress.post_id).where(OldAddress.path.in_(paths))
        )
    }
    for slug, listed in wanted.items():
        post_id = ids.get(slug)
        if post_id is None:
            done.left.append(f"{slug}: no such post")
            continue
        for path in listed:
            if path in stored:
                if stored[path] != post_id:
                    done.left.append(f"{path}: already leads to another post")
                continue
            db.session.add(OldAddress(path=path, post_id=post_id))
            done.added += 1
    return done


def stored_addresses() -> dict[str, list[str]]:
    """Every post's old paths by slug, slugs sorted, paths in the order they were kept."""
    query = (
        sa.select(Post.slug, OldAddress.path)
        .join(Post, OldAddress.post_id == Post.id)
        .order_by(OldAddress.id)
    )
    found: dict[str, list[str]] = {}
    for slug, path in db.session.execute(query):
        found.setdefault(slug, []).append(path)
    return {slug: found[slug] for slug in sorted(found)}


def write_addresses(root: Path) -> tuple[int, bool]:
    """Write addresses.yml when a post has old paths or an earlier export wrote one; how
    many paths it lists, and whether the file changed."""
    entries = stored_addresses()
    path = root / ADDRESSES_FILE
    if not entries and not path.is_file():
        return 0, False
    text = dump_yaml(entries) if entries else ""
    data = text.encode("utf-8")
    if path.is_file() and path.read_bytes() == data:
        return sum(map(len, entries.values())), False
    temporary = path.with_name(f".{path.name}.tmp")
    temporary.write_bytes(data)
    temporary.replace(path)
    return sum(map(len, entries.values())), True


def report(done: Added) -> None:
    """Say what applying addresses.yml did."""
    click.echo(f"old addresses: added {done.added}")
    for line in done.left:
        click.echo(f"{ADDRESSES_FILE}: left out {line}", err=True)


@click.command("export")
@click.argument("path", type=click.Path(file_okay=False, path_type=Path))
@with_appcontext
def export_command(path: Path) -> None:
    """Write every post, drafts included, as Markdown files with front matter, and their old
    paths from moved sites in addresses.yml."""
    files.export_files(path)
    count, _ = write_addresses(path)
    if count:
        click.echo(f"{count} old address(es) from moved sites in {path / ADDRESSES_FILE}")
