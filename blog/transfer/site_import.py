"""`posts import` of any site: Fieldnotes' own files as before, or another generator's site
(detected from what PATH holds) read, checked whole, then saved with its images and old
addresses.

Nothing is written until every file has been read and checked; a refused file means nothing
is saved, unless --skip-invalid, which saves the rest and names each file it skipped.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path
from urllib.parse import unquote

import cairosvg
import click
import defusedxml.ElementTree as SafeTree
import sqlalchemy as sa
from defusedxml import DefusedXmlException
from flask import current_app
from flask.cli import with_appcontext
from werkzeug.exceptions import HTTPException
from werkzeug.routing import AnyConverter, RequestRedirect

from blog.authoring import store
from blog.extensions import db
from blog.markup.budget import TooSlow, within
from blog.markup.policy import url_scheme
from blog.media import images
from blog.media.renditions import BODY_IMAGE
from blog.models import Image, OldAddress, Post
from blog.transfer import addresses, files
from blog.transfer.formats import detection, hugo_zola, jekyll, wordpress
from blog.transfer.formats.site import ForeignPost, Site
from blog.transfer.frontmatter import Problem, terminal_safe
from blog.transfer.progress import Bar, on_terminal, steps

# An SVG a body shows is drawn as a PNG at most this many pixels a side, within this CPU time.
SVG_SIDE = 2400
SVG_TIME_LIMIT = 5.0
IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg", ".gif", ".webp", ".svg")
# An image in Markdown, `![alt](address "title")`; a reference, `[name]: address`; in HTML,
# `<img src="address">`. Group `url` is the address.
_MARKDOWN_IMAGE = re.compile(r"!\[(?:[^\]\\\n]|\\.)*\]\(\s*<?(?P<url>[^)\s>]+)>?")
_REFERENCE = re.compile(r"^[ ]{0,3}\[[^\]\n]+\]:[ \t]*<?(?P<url>[^\s>]+)>?", re.MULTILINE)
_HTML_IMAGE = re.compile(r"<img\b[^>]*?\bsrc\s*=\s*([\"']?)(?P<url>[^\"'\s>]+)\1", re.IGNORECASE)
IMAGE_REFERENCES = (_MARKDOWN_IMAGE, _REFERENCE, _HTML_IMAGE)
# Posts (and new images) saved per transaction: the write lock is held for one batch at most.
BATCH = 200
READERS = {
    detection.HUGO: hugo_zola.read_site,
    detection.ZOLA: hugo_zola.read_site,
    detection.MARKDOWN: hugo_zola.read_site,
    detection.JEKYLL: jekyll.read_site,
}


@dataclass
class SiteCounts:
    """What an import of another generator's site did."""

    kind: str
    posts: files.Counts = field(default_factory=files.Counts)
    topics: int = 0
    authors: int = 0
    images: int = 0
    old_addresses: int = 0
    # Files left out: pages that are not posts, and with --skip-invalid the refused ones.
    skipped: list[str] = field(default_factory=list)
    refused: list[Problem] = field(default_factory=list)
    ignored: dict[str, int] = field(default_factory=dict)
    left: dict[str, int] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)

    def __str__(self) -> str:
        posts = self.posts
        return (
            f"created {posts.created} ({self.kind}), updated {posts.updated},"
            f" unchanged {posts.unchanged}; topics {self.topics}, authors {self.authors},"
            f" images {self.images}, old addresses {self.old_addresses};"
            f" skipped {len(self.skipped) + len({problem.path for problem in self.refused})}"
        )


def read_site(
    detected: detection.Detected,
    *,
    ignore: frozenset[str],
    strict: bool,
    uploads: Path | None = None,
    progress: bool = False,
) -> Site:
    """The site read by its format's reader (ImportRefused for a format not read yet)."""
    if detected.kind == detection.WORDPRESS:
        return wordpress.read_site(
            detected, ignore=ignore, strict=strict, uploads=uploads, progress=progress
        )
    reader = READERS.get(detected.kind)
    if reader is None:
        message = f"this looks like a {detected.kind} site, which `posts import` cannot read yet"
        raise files.ImportRefused([Problem(str(detected.root), 1, message)])
    return reader(detected, ignore=ignore, strict=strict, progress=progress)


def _checked(site: Site, default_topic: str | None) -> list[Problem]:
    """Problems between the posts: one slug each, a topic each (a draft may have none)."""
    problems: list[Problem] = []
    first: dict[str, ForeignPost] = {}
    for post in site.posts:
        entry = post.entry
        if not entry.topics and not default_topic and not entry.draft:  # a draft may have none
            problems.append(Problem(post.shown, 1, "no topics: add `tags` or pass --topic NAME"))
        owner = first.setdefault(entry.slug, post)
        if owner is not post:
            message = f"slug `{entry.slug}` is also the slug of {owner.shown}; give one a `slug`"
            problems.append(Problem(post.shown, entry.line("slug"), message))
    return problems


def _image_address(image: Image) -> str:
    """The stored image's address, as bodies name it."""
    return f"/images/{image.sha256}.{files._extension(image)}"


def _local_image(address: str) -> str | None:
    """The file path an image address names, or None for another site's image or an address
    that is not an image file."""
    if url_scheme(address) != "" or address.startswith(("//", "#")):
        return None
    if BODY_IMAGE.fullmatch(address):
        return None  # already an image of this site
    path = unquote(address.split("#", 1)[0].split("?", 1)[0])
    return path if path.lower().endswith(IMAGE_SUFFIXES) else None


def _body_images(
    site: Site, by_path: dict[Path, Image], progress: bool = False
) -> tuple[dict[str, str], list[Problem], list[Image]]:
    """Each post's body with the images it shows from the site's files read and named by
    their new address; the problems; and the images the store does not hold yet (added to
    the session, not flushed)."""
    bodies: dict[str, str] = {}
    problems: list[Problem] = []
    added: list[Image] = []
    for post in steps(site.posts, "Checking images", progress):
        found: list[Problem] = []

        def stored(match: re.Match[str], post: ForeignPost = post, found: list = found) -> str:
            address = match.group("url")
            path = _local_image(address)
            if path is None:
                return match.group(0)
            base = post.base
            if path.startswith("/"):
                roots = [root for root in site.static if (root / path.lstrip("/")).is_file()]
                if not roots:
                    site.left["image addresses kept (no such file in static/)"] += 1
                    return match.group(0)
                base, path = roots[0], path.lstrip("/")
            known = len(by_path)
            if path.lower().endswith(".svg"):
                image = _svg_file(base, path, site.root, by_path)
            else:
                image = files.image_file(base, path, site.root, "image", by_path)
            if not isinstance(image, str) and len(by_path) > known and sa.inspect(image).pending:
                added.append(image)
            if isinstance(image, str):
                found.append(Problem(post.shown, post.entry.line("body"), f"body {image}"))
                return match.group(0)
            start, end = match.span("url")
            text = match.group(0)
            offset = match.start()
            return text[: start - offset] + _image_address(image) + text[end - offset :]

        body = post.entry.body
        for pattern in IMAGE_REFERENCES:
            body = pattern.sub(stored, body)
        problems += found
        bodies[post.entry.slug] = body
    return bodies, problems, added


def _svg_file(base: Path, given: str, folder: Path, by_path: dict[Path, Image]) -> Image | str:
    """An SVG file drawn as a PNG and stored like an upload (never served as SVG from the
    site's origin), or the problem with it; the same rules as `files.image_file`."""
    path = (base / given).resolve()
    if not path.is_relative_to(folder):
        return f"image: {given} is outside the imported folder {folder}"
    if path in by_path:
        return by_path[path]
    limit = current_app.config["MAX_IMAGE_BYTES"]
    try:
        with path.open("rb") as file:
            data = file.read(limit + 1)
    except OSError as error:
        return f"image: cannot read {given} next to this file ({error.strerror})"
    if len(data) > limit:
        return f"image {given}: larger than the limit of {limit:,} bytes"
    try:
        drawn = within(SVG_TIME_LIMIT, lambda: svg_as_png(data))
        image = images.store_image(drawn)
    except SvgRefused as error:
        return f"image {given}: {error}"
    except TooSlow:
        return f"image {given}: takes more than {SVG_TIME_LIMIT:g} seconds to draw"
    except images.ImageError as error:
        return f"image {given}: {error.message}"
    by_path[path] = image
    return image


class SvgRefused(ValueError):
    """An SVG that is not drawn: no size, too large, entities, or not SVG at all."""


def _length(value: str | None) -> float | None:
    """A width or height in pixels (a bare number or px), None otherwise."""
    found = re.fullmatch(r"\s*([0-9]+(?:\.[0-9]+)?)\s*(?:px)?\s*", value or "")
    return float(found[1]) if found else None


def svg_as_png(data: bytes) -> bytes:
    """An SVG drawn as a PNG at most SVG_SIDE pixels a side, read without entities or any
    file or address outside it (SvgRefused when it cannot be)."""
    try:
        root = SafeTree.fromstring(data, forbid_dtd=True)
    except (DefusedXmlException, SafeTree.ParseError) as error:
        raise SvgRefused(f"not an SVG drawing that can be read ({type(error).__name__})") from None
    width, height = _length(root.get("width")), _length(root.get("height"))
    box = (root.get("viewBox") or "").replace(",", " ").split()
    if (width is None or height is None) and len(box) == 4:
        try:
            width, height = float(box[2]), float(box[3])
        except ValueError:
            width = height = None
    if not width or not height or width <= 0 or height <= 0:
        raise SvgRefused("an SVG without a width and height in pixels or a viewBox")
    scale = min(1.0, SVG_SIDE / max(width, height))
    size = (max(1, round(width * scale)), max(1, round(height * scale)))
    try:
        drawn = cairosvg.svg2png(
            bytestring=data, unsafe=False, output_width=size[0], output_height=size[1]
        )
    except Exception as error:  # cairosvg raises many kinds for a drawing it cannot make
        raise SvgRefused(f"an SVG that cannot be drawn ({type(error).__name__})") from None
    if not isinstance(drawn, bytes):
        raise SvgRefused("an SVG that cannot be drawn")
    return drawn


def _page_answers(path: str) -> bool:
    """True when a page of this site (with no part taken from the address) answers at the
    path: an old address there would never be reached."""
    adapter = current_app.url_map.bind("localhost")
    try:
        rule, _ = adapter.match(path, method="GET", return_rule=True)
    except RequestRedirect:
        return True
    except HTTPException:
        return False
    # A page whose address holds free text (a slug, a file name) may have nothing there.
    return all(isinstance(part, AnyConverter) for part in rule._converters.values())


def _old_addresses(site: Site) -> tuple[list[Problem], dict[str, list[str]]]:
    """Old paths claimed twice or already leading to another post; and, by slug, the paths
    each post still needs."""
    problems: list[Problem] = []
    claimed: dict[str, ForeignPost] = {}
    wanted: dict[str, list[str]] = {}
    for post in site.posts:
        for path in post.old_paths:
            if _page_answers(path):
                site.left["old addresses that are pages of this site"] += 1
                continue
            owner = claimed.setdefault(path, post)
            if owner is not post:
                message = f"old address {path} is also one of {owner.shown}"
                problems.append(Problem(post.shown, 1, message))
                continue
            wanted.setdefault(post.entry.slug, []).append(path)
    paths = list(claimed)
    stored: dict[str, tuple[str, str]] = {}
    for start in range(0, len(paths), files.LOOKUP_CHUNK):
        query = (
            sa.select(OldAddress.path, Post.slug, Post.title)
            .join(Post, OldAddress.post_id == Post.id)
            .where(OldAddress.path.in_(paths[start : start + files.LOOKUP_CHUNK]))
        )
        stored |= {path: (slug, title) for path, slug, title in db.session.execute(query)}
    for slug, needed in wanted.items():
        for path in list(needed):
            if path not in stored:
                continue
            needed.remove(path)
            owner_slug, title = stored[path]
            if owner_slug != slug:
                post = claimed[path]
                message = f"old address {path} already leads to “{title}” (`{owner_slug}`)"
                problems.append(Problem(post.shown, 1, message))
    return problems, wanted


def import_site(
    detected: detection.Detected,
    *,
    default_author: str,
    default_topic: str | None = None,
    ignore: frozenset[str] = frozenset(),
    strict: bool = False,
    skip_invalid: bool = False,
    progress: bool = False,
    uploads: Path | None = None,
) -> SiteCounts:
    """Read and check the whole site, writing nothing; then save it in batches of BATCH
    posts, each its own transaction, so the write lock is never held longer than one batch
    and an import stopped half-way is finished by running it again.

    Any problem refuses the import before anything is written (ImportRefused); with
    `skip_invalid`, the files with problems are left out and the rest saved.
    """
    site = read_site(detected, ignore=ignore, strict=strict, uploads=uploads, progress=progress)
    counts = SiteCounts(kind=site.kind, skipped=site.skipped, notes=site.notes)
    counts.ignored = dict(site.ignored.most_common())
    checked = None
    rendered: dict[str, Rendering] = {}
    while checked is None:
        checked, problems = _check(site, default_topic, progress, rendered)
        if problems and skip_invalid and site.posts:
            refused = {problem.path for problem in problems}
            counts.refused += problems
            site.problems = []
            site.posts = [post for post in site.posts if post.shown not in refused]
            checked = None
        elif problems:
            problems.sort(key=lambda problem: (problem.path, problem.line))
            raise files.ImportRefused(problems)
    loaded, new_images, wanted, pictures = checked
    counts.images = len(new_images)
    for start in range(0, len(new_images), BATCH):
        with files._transaction():
            db.session.add_all(new_images[start : start + BATCH])
    topics_before, authors_before = _named_counts()
    db.session.rollback()
    bar = Bar(len(loaded), "Saving posts", progress)
    for start in range(0, len(loaded), BATCH):
        batch = loaded[start : start + BATCH]
        saved = counts.posts.created + counts.posts.updated + counts.posts.unchanged
        with files._transaction(), _stopped_after(saved):
            done = files._save(
                batch,
                pictures,
                {},
                {},
                default_author=default_author,
                default_topic=default_topic,
                progress=False,
                rendered=_early_renders(batch, rendered),
            )
            counts.posts.created += done.created
            counts.posts.updated += done.updated
            counts.posts.unchanged += done.unchanged
            db.session.flush()
            slugs = {item.entry.slug for item in batch}
            counts.old_addresses += _keep_old_addresses(
                {slug: paths for slug, paths in wanted.items() if slug in slugs}
            )
        bar.update(len(batch))
    bar.finish()
    topics_after, authors_after = _named_counts()
    db.session.rollback()
    counts.topics = topics_after - topics_before
    counts.authors = authors_after - authors_before
    counts.left = dict(site.left.most_common())
    return counts


Checked = tuple[list[files.Loaded], list[Image], dict[str, list[str]], dict[str, Image]]
# What checking a file's body made: the render its save takes, the problem of a body too slow
# to render, or None for a body its post already holds (not rendered).
Rendering = store.EarlyRender | Problem | None


def _early_renders(
    batch: list[files.Loaded], rendered: dict[str, Rendering]
) -> dict[str, store.EarlyRender]:
    """The renders the check made of the batch's bodies, handed over to its save: they are
    let go of as they are saved."""
    found = {}
    for item in batch:
        made = rendered.pop(item.source.shown, None)
        if isinstance(made, store.EarlyRender):
            found[item.source.shown] = made
    return found


class StoppedHalfway(Exception):
    """A batch was refused after earlier ones were saved (a body too slow to render)."""

    def __init__(self, problems: list[Problem], saved: int) -> None:
        super().__init__(f"{len(problems)} problems after {saved} posts")
        self.problems = problems
        self.saved = saved


@contextmanager
def _stopped_after(saved: int) -> Iterator[None]:
    """A batch refused by the store's own checks, said with how many posts are in."""
    try:
        yield
    except files.ImportRefused as refused:
        raise StoppedHalfway(refused.problems, saved) from None


def _check(
    site: Site,
    default_topic: str | None,
    progress: bool = False,
    rendered: dict[str, Rendering] | None = None,
) -> tuple[Checked, list[Problem]]:
    """Everything an import checks against the files and the database, writing nothing:
    the entries to save (bodies pointing at their stored images), the images the store
    lacks (one per content), the old paths each post needs, each post's picture by slug;
    and the problems, a body too slow to render among them. `rendered` keeps what checking
    each file's body made, by the name it is shown under: for the save, which takes the
    render instead of making it again, and between two checks of one import (--skip-invalid
    checks again what is left)."""
    problems = site.problems + _checked(site, default_topic)
    try:
        with db.session.no_autoflush:
            read: dict[Path, Image] = {}
            bodies, image_problems, added = _body_images(site, read, progress)
            pictures, picture_problems = _pictures(site, read, added)
            image_problems += picture_problems
            address_problems, wanted = _old_addresses(site)
            loaded = [
                replace(
                    post.loaded,
                    entry=replace(post.entry, body=bodies[post.entry.slug]),
                )
                for post in site.posts
            ]
            problems += image_problems + address_problems + files._taken_addresses(loaded)
            problems += _slow_bodies(loaded, {} if rendered is None else rendered, added, progress)
            by_hash = {image.sha256: image for image in added}
            # Two files of one content are one image: each post shows the one that is saved.
            pictures = {slug: by_hash.get(image.sha256, image) for slug, image in pictures.items()}
            for image in added:
                db.session.expunge(image)
    finally:
        db.session.rollback()
    return (loaded, list(by_hash.values()), wanted, pictures), problems


def _pictures(
    site: Site, by_path: dict[Path, Image], added: list[Image]
) -> tuple[dict[str, Image], list[Problem]]:
    """Each post's own picture (a WordPress featured image) read like any image of the
    site, by slug, and the problems; images the store lacks join `added`."""
    pictures: dict[str, Image] = {}
    problems: list[Problem] = []
    for post in site.posts:
        given = post.entry.image
        if given is None:
            continue
        known = len(by_path)
        image = files.image_file(post.base, given, site.root, "featured image", by_path)
        if isinstance(image, str):
            problems.append(Problem(post.shown, post.entry.line("image"), image))
            continue
        if len(by_path) > known and sa.inspect(image).pending:
            added.append(image)
        pictures[post.entry.slug] = image
    return pictures, problems


def _slow_bodies(
    loaded: list[files.Loaded],
    rendered: dict[str, Rendering],
    unsaved_images: list[Image],
    progress: bool,
) -> list[Problem]:
    """The bodies that take longer than MARKDOWN_TIME_LIMIT to render, each named at its
    first line, found before anything is written; the others' renders are kept in
    `rendered` for their save (made as it would make them, the import's new images counted
    as stored). A body its post already holds is not rendered: it was when saved, and a
    save leaves it as is."""
    problems: list[Problem] = []
    stored = _stored_bodies([item.entry.slug for item in loaded])
    for item in steps(loaded, "Checking bodies", progress):
        shown = item.source.shown
        if shown not in rendered:
            same = stored.get(item.entry.slug) == store.clean_text(item.entry.body)
            rendered[shown] = None if same else files.render_checked(item, unsaved_images)
        made = rendered[shown]
        if isinstance(made, Problem):
            problems.append(made)
    return problems


def _stored_bodies(slugs: list[str]) -> dict[str, str]:
    """The Markdown the store holds for these slugs' posts."""
    found: dict[str, str] = {}
    for start in range(0, len(slugs), files.LOOKUP_CHUNK):
        query = sa.select(Post.slug, Post.body_markdown).where(
            Post.slug.in_(slugs[start : start + files.LOOKUP_CHUNK])
        )
        found |= {slug: body for slug, body in db.session.execute(query)}
    return found


def _named_counts() -> tuple[int, int]:
    """How many topics and authors the store holds (new ones not yet flushed included)."""
    from blog.models import Author, Topic

    db.session.flush()
    count = sa.func.count()
    topics = db.session.scalar(sa.select(count).select_from(Topic)) or 0
    authors = db.session.scalar(sa.select(count).select_from(Author)) or 0
    return topics, authors


def _keep_old_addresses(wanted: dict[str, list[str]]) -> int:
    """Add each post's new old paths; how many were added."""
    slugs = list(wanted)
    ids: dict[str, int] = {}
    for start in range(0, len(slugs), files.LOOKUP_CHUNK):
        query = sa.select(Post.slug, Post.id).where(
            Post.slug.in_(slugs[start : start + files.LOOKUP_CHUNK])
        )
        ids |= {slug: post_id for slug, post_id in db.session.execute(query)}
    added = 0
    for slug, paths in wanted.items():
        for path in paths:
            db.session.add(OldAddress(path=path, post_id=ids[slug]))
            added += 1
    return added


def _report(counts: SiteCounts) -> None:
    """The summary, and on standard error what was left out."""
    click.echo(str(counts))
    for line in counts.skipped:
        click.echo(f"skipped: {terminal_safe(line)}", err=True)
    for problem in counts.refused:
        click.echo(f"skipped: {problem}", err=True)
    for line in counts.notes:
        click.echo(f"note: {terminal_safe(line)}", err=True)
    if counts.ignored:
        unit = "post" if counts.kind == detection.WORDPRESS else "file"
        listed = ", ".join(
            f"{terminal_safe(name)} ({number} {unit}{'s' if number > 1 else ''})"
            for name, number in counts.ignored.items()
        )
        click.echo(f"ignored: {listed}", err=True)
    for what, number in counts.left.items():
        click.echo(f"left as written: {what}: {number}", err=True)


@click.command("import")
@click.argument("path", type=click.Path(exists=True, path_type=Path))
@click.option(
    "--author",
    "default_author",
    metavar="NAME",
    help="Author of posts that name none (default: the site name).",
)
@click.option("--topic", "default_topic", metavar="NAME", help="Topic of posts that list none.")
@click.option(
    "--ignore-field",
    "ignore",
    multiple=True,
    metavar="NAME",
    help="A front-matter field to skip instead of refusing the file (repeatable).",
)
@click.option(
    "--skip-invalid",
    is_flag=True,
    help="Another generator's site: save the files that read well, name the others.",
)
@click.option(
    "--strict",
    is_flag=True,
    help="Another generator's site: refuse fields Fieldnotes keeps no place for.",
)
@click.option(
    "--uploads",
    type=click.Path(exists=True, file_okay=False, path_type=Path),
    metavar="DIR",
    help="A WordPress export: a copy of its wp-content/uploads folder, for the images.",
)
@with_appcontext
def import_command(
    path: Path,
    default_author: str | None,
    default_topic: str | None,
    ignore: tuple[str, ...],
    skip_invalid: bool,
    strict: bool,
    uploads: Path | None,
) -> None:
    """Import posts from PATH: Fieldnotes files (all of them, or none), or a Hugo, Zola or
    Jekyll site or a WordPress export, whose generator is told from what PATH holds."""
    detected = detection.detect(path)
    if uploads is not None and detected.kind != detection.WORDPRESS:
        raise click.UsageError("--uploads is for a WordPress export (an .xml file)")
    if detected.kind == detection.FIELDNOTES:
        if skip_invalid or strict:
            raise click.UsageError(
                "--skip-invalid and --strict are for other generators' sites; Fieldnotes"
                " files are always read strictly, all or none"
            )
        wanted, problems = addresses.read_addresses(path)
        if problems:
            for problem in problems:
                click.echo(str(problem), err=True)
            raise click.ClickException(
                f"{len(problems)} problem(s) in {addresses.ADDRESSES_FILE}; nothing was imported."
            )
        files.import_files(path, default_author, default_topic, ignore)
        if wanted:
            with files._transaction():
                done = addresses.apply_addresses(wanted)
            addresses.report(done)
        return
    author = store.clean_text(default_author).strip() or current_app.config["SITE_NAME"]
    topic = store.clean_text(default_topic).strip() or None
    try:
        counts = import_site(
            detected,
            default_author=author,
            default_topic=topic,
            ignore=frozenset(name.lower() for name in ignore),
            strict=strict,
            skip_invalid=skip_invalid,
            progress=on_terminal(),
            uploads=uploads,
        )
    except files.ImportRefused as refused:
        for problem in refused.problems:
            click.echo(str(problem), err=True)
        count = len({problem.path for problem in refused.problems})
        raise click.ClickException(
            f"{len(refused.problems)} problem(s) in {count} file(s); nothing was imported"
            " (--skip-invalid saves the other files)."
        ) from None
    except StoppedHalfway as stopped:
        for problem in stopped.problems:
            click.echo(str(problem), err=True)
        raise click.ClickException(
            f"{len(stopped.problems)} problem(s); the import stopped after {stopped.saved}"
            " posts: fix the file and run it again to finish (what is in stays as it is)."
        ) from None
    except sa.exc.IntegrityError:
        raise click.ClickException(
            "the database changed while importing; nothing was imported, run it again."
        ) from None
    _report(counts)
