"""`posts import` and `posts export`: posts in and out as Markdown files with front matter."""

from __future__ import annotations

import hashlib
import os
import uuid
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TypeVar

import click
import sqlalchemy as sa
import sqlalchemy.orm as so
from flask import current_app

from blog import markup
from blog.authoring import store
from blog.database import begin_write
from blog.extensions import db
from blog.markup.policy import web_link
from blog.media import images
from blog.media.renditions import BODY_IMAGE
from blog.models import DRAFT, PUBLISHED, Author, Image, Post, SlugRedirect, Topic
from blog.transfer import progress as progress_bar
from blog.transfer.frontmatter import (
    SLUG,
    Entry,
    Problem,
    canonical_body,
    read_post,
    write_post,
)
from blog.transfer.profiles import (
    AUTHORS,
    AVATAR_SUFFIX,
    TOPICS,
    Filled,
    Kind,
    Named,
    apply_descriptions,
    apply_profiles,
    described_topics,
    profiled_authors,
    read_named,
    write_named,
)

MARKDOWN_SUFFIXES = (".md", ".markdown")
# Where an export puts image files, relative to its folder.
IMAGE_FOLDER = "images"
# The social image of post `s` is written as images/s.social.<ext>, beside its illustration.
SOCIAL_SUFFIX = ".social"
# Slugs per `IN (...)` when looking up the posts and old addresses an import touches.
LOOKUP_CHUNK = 500

T = TypeVar("T")


@dataclass(frozen=True)
class Source:
    """A file to import and the name its problems are reported under."""

    path: Path
    shown: str


@dataclass(frozen=True)
class Loaded:
    """A file that read cleanly, and what it holds."""

    source: Source
    entry: Entry


@dataclass
class Counts:
    """What an import did."""

    created: int = 0
    updated: int = 0
    unchanged: int = 0
    # What the folder's authors.yml did, when it has one.
    profiles: Filled | None = None
    # And what its topics.yml did.
    descriptions: Filled | None = None

    def __str__(self) -> str:
        done = f"created {self.created}, updated {self.updated}, unchanged {self.unchanged}"
        return "; ".join([done, *(str(f) for f in (self.profiles, self.descriptions) if f)])


@dataclass
class Exported:
    """What an export did."""

    posts: int = 0
    drafts: int = 0
    images: int = 0
    written: int = 0
    profiles: int = 0
    descriptions: int = 0
    others: list[str] = field(default_factory=list)
    # Posts with an image but no alt text: their files need `image_alt` before they import.
    no_alt: list[str] = field(default_factory=list)


class ImportRefused(Exception):
    """An import found problems and saved nothing."""

    def __init__(self, problems: list[Problem]) -> None:
        super().__init__(f"{len(problems)} problems")
        self.problems = problems


def markdown_files(root: Path) -> list[Source]:
    """The file itself, or every .md/.markdown file under the folder (hidden ones skipped)."""
    if root.is_file():
        return [Source(root, str(root))]
    found = []
    for path in root.rglob("*"):
        relative = path.relative_to(root)
        if any(part.startswith(".") for part in relative.parts):
            continue
        if path.suffix.lower() in MARKDOWN_SUFFIXES and path.is_file():
            found.append(Source(path, str(root / relative)))
    return sorted(found, key=lambda source: source.path.relative_to(root).parts)


def _steps(items: list[T], label: str, shown: bool) -> Iterator[T]:
    """Iterate, drawing a progress bar on standard error when `shown` (a terminal)."""
    return progress_bar.steps(items, label, shown)


def _slug_line(entry: Entry) -> int:
    """Where an entry's slug comes from: its `slug` field, or else its title."""
    return entry.line("slug" if "slug" in entry.lines else "title")


def read_sources(
    sources: list[Source],
    *,
    default_topic: str | None = None,
    ignore: Iterable[str] = (),
    progress: bool = False,
) -> tuple[list[Loaded], list[Problem]]:
    """Read and check every file on its own and against the others (no database needed)."""
    loaded: list[Loaded] = []
    problems: list[Problem] = []
    by_slug: dict[str, Loaded] = {}
    by_uid: dict[uuid.UUID, Loaded] = {}
    for source in _steps(sources, "Checking files", progress):
        try:
            data = source.path.read_bytes()
        except OSError as error:
            problems.append(Problem(source.shown, 1, f"cannot be read: {error.strerror}"))
            continue
        parsed = read_post(data, source.shown, ignore)
        problems += parsed.problems
        entry = parsed.entry
        if entry is None:
            continue
        if not entry.topics and not default_topic and not entry.draft:  # a draft may have none
            message = "no topics: add `topics:` or pass --topic NAME"
            problems.append(Problem(source.shown, 1, message))
        first = by_slug.setdefault(entry.slug, Loaded(source, entry))
        if first.source is not source:
            where = f"{first.source.shown}:{_slug_line(first.entry)}"
            message = f"slug `{entry.slug}` is also the slug of {where}"
            problems.append(Problem(source.shown, _slug_line(entry), message))
        if entry.uid is not None:
            first = by_uid.setdefault(entry.uid, Loaded(source, entry))
            if first.source is not source:
                where = f"{first.source.shown}:{first.entry.line('id')}"
                message = f"`id` {entry.uid} is also the id of {where}; each post has its own"
                problems.append(Problem(source.shown, entry.line("id"), message))
        loaded.append(Loaded(source, entry))
    return loaded, problems + _crossed_addresses(loaded)


def _crossed_addresses(loaded: list[Loaded]) -> list[Problem]:
    """`redirect_from` entries that another file of the import claims, as its slug or as an
    old address of its own post: an address leads to one post."""
    by_slug: dict[str, Loaded] = {}
    for item in loaded:
        by_slug.setdefault(item.entry.slug, item)
    listed: dict[str, Loaded] = {}
    problems = []
    for item in loaded:
        line = item.entry.line("redirect_from")
        for old in item.entry.redirect_from:
            owner = by_slug.get(old)
            if owner is not None:
                where = f"{owner.source.shown}:{_slug_line(owner.entry)}"
                message = f"`redirect_from`: `{old}` is the slug of {where}, another post"
                problems.append(Problem(item.source.shown, line, message))
                continue
            first = listed.setdefault(old, item)
            if first is not item:
                where = f"{first.source.shown}:{first.entry.line('redirect_from')}"
                message = (
                    f"`redirect_from`: `{old}` is also listed by {where};"
                    " an old address leads to one post"
                )
                problems.append(Problem(item.source.shown, line, message))
    return problems


def _store_images(
    loaded: list[Loaded],
    folder: Path,
    progress: bool,
    name: str = "image",
    by_path: dict[Path, Image] | None = None,
) -> tuple[dict[str, Image], list[Problem]]:
    """Check and add each entry's image (`name`: the field giving its file, `image` or
    `social_image`) to the session; the images by post slug. `by_path` shares the images
    already read between calls."""
    pictures: dict[str, Image] = {}
    problems: list[Problem] = []
    by_path = {} if by_path is None else by_path
    wanted = [item for item in loaded if getattr(item.entry, name) is not None]
    for item in _steps(wanted, "Checking images", progress and bool(wanted)):
        entry = item.entry
        given = getattr(entry, name)
        assert isinstance(given, str)
        image = image_file(item.source.path.parent, given, folder, name, by_path)
        if isinstance(image, str):
            problems.append(Problem(item.source.shown, entry.line(name), image))
            continue
        pictures[entry.slug] = image
    return pictures, problems


def image_file(
    base: Path, given: str, folder: Path, name: str, by_path: dict[Path, Image]
) -> Image | str:
    """The image of the file `given` (relative to `base`), added to the session, or the
    problem with it, said under the field `name`. `by_path` holds the files already read.

    An image must be a file inside the imported folder once every `..` and link is
    followed: an import never publishes what else the server can read.
    """
    path = (base / given).resolve()
    if not path.is_relative_to(folder):
        return f"`{name}`: {given} is outside the imported folder {folder}"
    image = by_path.get(path)
    if image is not None:
        return image
    limit = current_app.config["MAX_IMAGE_BYTES"]
    try:
        with path.open("rb") as file:
            data = file.read(limit + 1)
    except OSError as error:
        return f"`{name}`: cannot read {given} next to this file ({error.strerror})"
    # A file exported from a store holds that stored image's exact bytes: reuse it.
    image = images.image_by_hash(hashlib.sha256(data).hexdigest())
    try:
        image = image or images.store_image(data)
    except images.ImageError as error:
        return f"`{name}` {given}: {error.message}"
    by_path[path] = image
    return image


def _body_image_names(bodies: Iterable[str]) -> list[str]:
    """The file names (`<sha256>.<ext>`) of the stored images the bodies show, sorted."""
    return sorted(
        {
            found.group(0).rpartition("/")[2]
            for body in bodies
            for found in BODY_IMAGE.finditer(body)
        }
    )


def _store_body_images(loaded: list[Loaded], folder: Path) -> list[Problem]:
    """Add the images bodies show (`/images/<sha256>.<ext>`) and the store lacks, from
    `images/<sha256>.<ext>` in the imported folder, where exports write them.

    An address with no such file stays as written, like any link. A file that is not an
    image, or not the image its name says, is a problem of the first file that shows it.
    """
    problems: list[Problem] = []
    limit = current_app.config["MAX_IMAGE_BYTES"]
    shown_by: dict[str, Loaded] = {}
    for item in loaded:
        for name in _body_image_names([item.entry.body]):
            shown_by.setdefault(name, item)
    for name, item in sorted(shown_by.items()):
        digest = name.partition(".")[0]
        path = (folder / IMAGE_FOLDER / name).resolve()
        if images.image_by_hash(digest) is not None or not path.is_relative_to(folder):
            continue
        if not path.is_file():
            continue
        where = (item.source.shown, item.entry.line("body"))
        try:
            with path.open("rb") as file:
                data = file.read(limit + 1)
            image = images.store_image(data)
        except OSError as error:
            problems.append(
                Problem(*where, f"cannot read {IMAGE_FOLDER}/{name} ({error.strerror})")
            )
            continue
        except images.ImageError as error:
            problems.append(Problem(*where, f"body image {IMAGE_FOLDER}/{name}: {error.message}"))
            continue
        if f"{image.sha256}.{name.partition('.')[2]}" != name:
            message = f"body image {IMAGE_FOLDER}/{name} holds another image than its name says"
            problems.append(Problem(*where, message))
    return problems


def _taken_addresses(loaded: list[Loaded]) -> list[Problem]:
    """Entries whose slug is an old address that still redirects to another post."""
    slugs = [item.entry.slug for item in loaded]
    redirects: dict[str, SlugRedirect] = {}
    for start in range(0, len(slugs), LOOKUP_CHUNK):
        query = (
            sa.select(SlugRedirect)
            .where(SlugRedirect.old_slug.in_(slugs[start : start + LOOKUP_CHUNK]))
            .options(so.joinedload(SlugRedirect.post))
        )
        redirects |= {row.old_slug: row for row in db.session.scalars(query)}
    problems = []
    for item in loaded:
        redirect = redirects.get(item.entry.slug)
        if redirect is not None and redirect.post.slug != item.entry.slug:
            message = (
                f"slug `{item.entry.slug}` used to belong to “{redirect.post.title}”"
                f" (now `{redirect.post.slug}`) and still leads there; choose another"
            )
            problems.append(Problem(item.source.shown, _slug_line(item.entry), message))
    return problems


def _claimed_ids(loaded: list[Loaded]) -> list[Problem]:
    """`id` entries that disagree with the database: the id of a post stored under another
    slug, or a slug whose stored post has another id. An import never moves an id from one
    post to another, nor changes a post's id."""
    wanted = [(item, item.entry.uid) for item in loaded if item.entry.uid is not None]
    if not wanted:
        return []
    uids = list(dict.fromkeys(uid for _, uid in wanted))
    slugs = list(dict.fromkeys(item.entry.slug for item, _ in wanted))
    owners: dict[uuid.UUID, tuple[str, str]] = {}  # the slug and title of the post with an id
    for start in range(0, len(uids), LOOKUP_CHUNK):
        chunk = uids[start : start + LOOKUP_CHUNK]
        rows = db.session.execute(
            sa.select(Post.uid, Post.slug, Post.title).where(Post.uid.in_(chunk))
        )
        owners |= {uid: (slug, title) for uid, slug, title in rows}
    uid_of: dict[str, uuid.UUID] = {}  # the id of the stored post with a slug
    for start in range(0, len(slugs), LOOKUP_CHUNK):
        chunk_slugs = slugs[start : start + LOOKUP_CHUNK]
        stored = db.session.execute(
            sa.select(Post.slug, Post.uid).where(Post.slug.in_(chunk_slugs))
        )
        uid_of |= {slug: uid for slug, uid in stored}
    problems = []
    for item, uid in wanted:
        entry, line = item.entry, item.entry.line("id")
        owner = owners.get(uid)
        if owner is not None and owner[0] != entry.slug:
            slug, title = owner
            message = (
                f"`id` {uid} is the id of “{title}”, stored at `{slug}`; an import matches"
                " posts by slug and never gives a post's id to another: if this file is that"
                " post renamed, rename it in the editor first, else remove `id:` to import"
                " this file as a new post"
            )
            problems.append(Problem(item.source.shown, line, message))
            continue
        stored_uid = uid_of.get(entry.slug)
        if stored_uid is not None and stored_uid != uid:
            message = (
                f"`id` {uid} is not the id of the stored post at `{entry.slug}`"
                f" ({stored_uid}); an import never changes a post's id: remove `id:` to"
                " update that post from this file, or give the file another slug to import"
                " it as a new post"
            )
            problems.append(Problem(item.source.shown, line, message))
    return problems


def _claimed_addresses(loaded: list[Loaded]) -> tuple[list[Problem], dict[str, set[str]]]:
    """`redirect_from` entries the database gives to another post (as its slug or as one of
    its old addresses); and, by slug, the entries each post already has as old addresses."""
    olds = list(dict.fromkeys(old for item in loaded for old in item.entry.redirect_from))
    if not olds:
        return [], {}
    file_slugs = {item.entry.slug for item in loaded}
    titles: dict[str, str] = {}  # title of the stored post whose slug an entry is
    leads_to: dict[str, tuple[str, str]] = {}  # slug and title of the post an entry leads to
    for start in range(0, len(olds), LOOKUP_CHUNK):
        chunk = olds[start : start + LOOKUP_CHUNK]
        posts = sa.select(Post.slug, Post.title).where(Post.slug.in_(chunk))
        titles |= {slug: title for slug, title in db.session.execute(posts)}
        redirects = (
            sa.select(SlugRedirect.old_slug, Post.slug, Post.title)
            .join(Post, SlugRedirect.post_id == Post.id)
            .where(SlugRedirect.old_slug.in_(chunk))
        )
        leads_to |= {old: (slug, title) for old, slug, title in db.session.execute(redirects)}
    problems = []
    kept: dict[str, set[str]] = {}
    for item in loaded:
        line = item.entry.line("redirect_from")
        for old in item.entry.redirect_from:
            if old in file_slugs:
                continue  # read_sources reported it against the file that has this slug
            if old in titles:
                message = (
                    f"`redirect_from`: `{old}` is the address of “{titles[old]}”, another"
                    " post (an import matches posts by slug; rename a post in the editor)"
                )
                problems.append(Problem(item.source.shown, line, message))
                continue
            if old not in leads_to:
                continue
            slug, title = leads_to[old]
            if slug == item.entry.slug:
                kept.setdefault(slug, set()).add(old)
                continue
            message = (
                f"`redirect_from`: `{old}` is already an old address of “{title}”"
                f" (now `{slug}`) and leads there; an old address leads to one post"
            )
            problems.append(Problem(item.source.shown, line, message))
    return problems, kept


def entry_of(post: Post) -> Entry:
    """A stored post as the file format sees it, normalized as an import would store it."""
    return Entry(
        title=store.clean_text(post.title).strip(),
        slug=post.slug,
        uid=post.uid,
        authors=[store.clean_text(author.name).strip() for author in post.authors],
        topics=[store.clean_text(topic.name).strip() for topic in post.topics],
        summary=store.clean_text(post.summary).strip(),
        published_at=post.published_at,
        updated_at=post.updated_at,
        draft=post.status == DRAFT,
        featured=post.featured,
        editors_pick=post.editors_pick,
        image_alt=store.clean_text(post.image_alt).strip() or None,
        illustration=post.illustration,
        meta_description=store.clean_text(post.meta_description).strip(),
        body=canonical_body(post.body_markdown),
    )


def _existing(slugs: list[str]) -> dict[str, Post]:
    """The stored posts among these slugs, with topics, author and image, in a few queries."""
    found: dict[str, Post] = {}
    for start in range(0, len(slugs), LOOKUP_CHUNK):
        query = (
            sa.select(Post)
            .where(Post.slug.in_(slugs[start : start + LOOKUP_CHUNK]))
            .options(
                so.selectinload(Post.topic_links),
                so.joinedload(Post.author),
                so.selectinload(Post.author_links),
                # The render is only ever replaced, never compared: leave it in the database.
                so.defer(Post.body_html),
                so.defer(Post.excerpt),
                so.defer(Post.toc),
            )
        )
        found |= {post.slug: post for post in db.session.scalars(query)}
    return found


def _fields(
    entry: Entry,
    authors: list[Author],
    topics: list[Topic],
    image: Image | None,
    social_image: Image | None = None,
) -> store.PostFields:
    """What the entry sets on its post; alt text only with an image, as the editor keeps it."""
    return store.PostFields(
        title=entry.title,
        slug=entry.slug,
        body=entry.body,
        summary=entry.summary,
        topics=topics,
        author=authors[0],
        coauthors=authors[1:],
        status=DRAFT if entry.draft else PUBLISHED,
        published_at=entry.published_at,
        featured=entry.featured,
        editors_pick=entry.editors_pick,
        image=image,
        image_alt=entry.image_alt if image is not None else None,
        illustration=entry.illustration,
        meta_description=entry.meta_description,
        social_image=social_image,
        updated_at=entry.updated_at,
        keep_updated_date=True,
    )


def _topic_names(entry: Entry, default_topic: str | None) -> list[str]:
    """The entry's topics, else the --topic default, else none: a draft may have no topic yet
    (read_sources refused the published posts with neither)."""
    if entry.topics:
        return entry.topics
    if default_topic is None:
        assert entry.draft
        return []
    return [default_topic]


def _save(
    loaded: list[Loaded],
    pictures: dict[str, Image],
    social_pictures: dict[str, Image],
    kept: dict[str, set[str]],
    *,
    default_author: str,
    default_topic: str | None,
    progress: bool,
    rendered: Mapping[str, store.EarlyRender] | None = None,
) -> Counts:
    """Create or update a post per entry, by slug, in the session (the caller commits).

    `kept` holds, by slug, the old addresses each post already has: only the others are added
    (an import never removes an old address). `rendered` holds, by the name a file is shown
    under, the renders its check made: a save takes them instead of rendering again.
    ImportRefused when a body takes longer to render than the time limit allows: nothing is
    saved then, and the bodies after it are only rendered, so that one run reports every
    such body.
    """
    early = rendered or {}
    existing = _existing([item.entry.slug for item in loaded])
    # New topics and authors go in with the posts, in the one flush at the end.
    topics_by_name = store.topics_named(
        (name for item in loaded for name in _topic_names(item.entry, default_topic)),
        flush=False,
    )
    authors = store.authors_named(
        (name for item in loaded for name in item.entry.authors or [default_author]),
        flush=False,
    )
    counts = Counts()

    def save(item: Loaded) -> None:
        """Create or update the entry's post (TooSlow when its body takes too long to render)."""
        entry = item.entry
        credited = list(dict.fromkeys(authors[name] for name in entry.authors or [default_author]))
        names = _topic_names(entry, default_topic)
        topics = list(dict.fromkeys(topics_by_name[name] for name in names))
        image = pictures.get(entry.slug)
        social_image = social_pictures.get(entry.slug)
        fields = _fields(entry, credited, topics, image, social_image)
        fields.old_slugs = [
            old for old in entry.redirect_from if old not in kept.get(entry.slug, ())
        ]
        post = existing.get(entry.slug)
        if post is None:
            post = store.new_post(
                title=fields.title,
                slug=fields.slug,
                body=fields.body,
                summary=fields.summary,
                author=fields.author,
                coauthors=fields.coauthors,
                topics=topics,
                published_at=fields.published_at,
                updated_at=fields.updated_at,
                featured=fields.featured,
                editors_pick=fields.editors_pick,
                image_alt=fields.image_alt,
                illustration=fields.illustration,
                meta_description=fields.meta_description,
                social_image=social_image,
                old_slugs=fields.old_slugs,
                rendered=early.get(item.source.shown),
            )
            post.status = fields.status
            post.image = image
            if entry.uid is not None:  # else the model makes one as the post goes in
                post.uid = entry.uid
            existing[entry.slug] = post
            counts.created += 1
            return
        wanted = replace(
            entry,
            uid=post.uid,  # _claimed_ids refused a file whose id is not the post's
            authors=[author.name for author in credited],
            topics=[topic.name for topic in topics],
            image=None,
            image_alt=fields.image_alt,
            social_image=None,
            redirect_from=[],
        )
        same_images = post.image is image and post.social_image is social_image
        if entry_of(post) == wanted and same_images and not fields.old_slugs:
            counts.unchanged += 1
            return
        store.update_post(post, fields, rendered=early.get(item.source.shown))
        counts.updated += 1

    too_slow: list[Problem] = []
    for item in _steps(loaded, "Importing posts", progress):
        if too_slow:  # nothing will be saved: only look for more bodies as slow
            checked = render_checked(item)
            if isinstance(checked, Problem):
                too_slow.append(checked)
            continue
        try:
            save(item)
        except markup.TooSlow as slow:
            too_slow.append(_too_slow_problem(item, slow))
    if too_slow:
        raise ImportRefused(too_slow)
    return counts


def _too_slow_problem(item: Loaded, slow: markup.TooSlow) -> Problem:
    """The problem reported for a body the render time limit stopped."""
    message = (
        f"the body takes too long to render (more than {slow.limit:g} seconds, the"
        " MARKDOWN_TIME_LIMIT); long runs of brackets, asterisks or code fences are the usual"
        " cause: break them up"
    )
    return Problem(item.source.shown, item.entry.line("body"), message)


def render_checked(
    item: Loaded, unsaved_images: Iterable[Image] = ()
) -> store.EarlyRender | Problem:
    """The entry's body rendered as a save would render it (a save may take the render), or
    the problem when it takes too long; `unsaved_images` are the import's, not yet stored."""
    try:
        return store.render_early(item.entry.body, unsaved_images)
    except markup.TooSlow as slow:
        return _too_slow_problem(item, slow)


@contextmanager
def _transaction() -> Iterator[None]:
    """A write transaction, committed when the block ends normally, rolled back otherwise.

    Opened as a writer (the SQLite write lock first) when no transaction is open yet.
    """
    if not db.session().in_transaction():
        begin_write()
    try:
        yield
        db.session.commit()
    except BaseException:
        db.session.rollback()
        raise


def import_posts(
    root: Path,
    *,
    default_author: str,
    default_topic: str | None = None,
    ignore: Iterable[str] = (),
    progress: bool = False,
) -> Counts:
    """Check every file under `root`, then save them all in one transaction, or nothing.

    Raises ImportRefused with every problem found, having saved nothing.
    """
    sources = markdown_files(root)
    if not sources:
        raise ImportRefused([Problem(str(root), 1, "no .md or .markdown files here")])
    loaded, problems = read_sources(
        sources, default_topic=default_topic, ignore=ignore, progress=progress
    )
    with _transaction():
        folder = (root if root.is_dir() else root.parent).resolve()
        read: dict[Path, Image] = {}
        pictures, image_problems = _store_images(loaded, folder, progress, "image", read)
        social, social_problems = _store_images(loaded, folder, progress, "social_image", read)
        image_problems += social_problems
        image_problems += _store_body_images(loaded, folder)
        profiles, profile_problems = _read_named(root, AUTHORS)
        avatars, avatar_problems = _store_avatars(profiles or [], root, folder, read)
        descriptions, description_problems = _read_named(root, TOPICS)
        claimed, kept = _claimed_addresses(loaded)
        problems += image_problems + _taken_addresses(loaded) + claimed + _claimed_ids(loaded)
        problems += profile_problems + avatar_problems + description_problems
        if problems:
            problems.sort(key=lambda problem: (problem.path, problem.line))
            raise ImportRefused(problems)
        counts = _save(
            loaded,
            pictures,
            social,
            kept,
            default_author=default_author,
            default_topic=default_topic,
            progress=progress,
        )
        if profiles is not None:
            counts.profiles = apply_profiles(profiles, avatars)
        if descriptions is not None:
            counts.descriptions = apply_descriptions(descriptions)
        return counts


def _read_named(root: Path, kind: Kind) -> tuple[list[Named] | None, list[Problem]]:
    """The entries of the imported folder's authors.yml or topics.yml (None without one)."""
    path = root / kind.file
    if not root.is_dir() or not path.is_file():
        return None, []
    return read_named(path, str(path), kind)


def _store_avatars(
    profiles: list[Named], root: Path, folder: Path, by_path: dict[Path, Image]
) -> tuple[dict[str, Image], list[Problem]]:
    """The authors' avatars by name, checked and added to the session, and their problems."""
    avatars: dict[str, Image] = {}
    problems: list[Problem] = []
    shown = str(root / AUTHORS.file)
    for profile in profiles:
        given = profile.values.get("avatar")
        if given is None:
            continue
        image = image_file(folder, given, folder, "avatar", by_path)
        if isinstance(image, str):
            problems.append(Problem(shown, profile.line("avatar"), image))
        else:
            avatars[profile.name] = image
    return avatars, problems


def image_name(post: Post, image: Image | None = None, suffix: str = "") -> str | None:
    """Where an export writes the post's image (or another of its images, named with a
    suffix), relative to the export folder."""
    image = post.image if image is None and not suffix else image
    if image is None:
        return None
    return f"{IMAGE_FOLDER}/{post.slug}{suffix}.{_extension(image)}"


def _extension(image: Image) -> str:
    """The file extension of a stored image's format."""
    return next(
        (ext for ext, kind in images.EXTENSIONS.items() if kind == image.content_type),
        "bin",
    )


def export_posts(root: Path) -> Exported:
    """Write every post, drafts included, as `<slug>.md` (images under images/); only changes."""
    query = (
        sa.select(Post)
        .options(so.selectinload(Post.topic_links), so.joinedload(Post.author))
        .order_by(Post.slug)
    )
    posts = list(db.session.scalars(query))
    unsafe = [post.slug for post in posts if not SLUG.fullmatch(post.slug)]
    if unsafe:
        raise click.ClickException(
            "these slugs cannot be file names, so nothing was exported: " + ", ".join(unsafe)
        )
    old_slugs = _old_slugs()
    bad = [old for olds in old_slugs.values() for old in olds if not SLUG.fullmatch(old)]
    if bad:
        raise click.ClickException(
            "these old addresses are not slugs an import accepts, so nothing was exported: "
            + ", ".join(bad)
        )
    root.mkdir(parents=True, exist_ok=True)
    done = Exported(posts=len(posts))
    names = set()
    for post in posts:
        entry = entry_of(post)
        entry.image = image_name(post)
        entry.redirect_from = old_slugs.get(post.id, [])
        done.drafts += entry.draft
        if entry.image is not None:
            if entry.image_alt is None:
                done.no_alt.append(post.slug)
            (root / IMAGE_FOLDER).mkdir(exist_ok=True)
            done.images += 1
            assert post.image is not None
            done.written += _write_if_changed(root / entry.image, post.image.data)
            # Let the bytes go: an export may walk many large images.
            db.session.expire(post.image, ["data"])
        entry.social_image = image_name(post, post.social_image, SOCIAL_SUFFIX)
        if entry.social_image is not None:
            assert post.social_image is not None
            (root / IMAGE_FOLDER).mkdir(exist_ok=True)
            done.images += 1
            done.written += _write_if_changed(root / entry.social_image, post.social_image.data)
            db.session.expire(post.social_image, ["data"])
        target = root / f"{post.slug}.md"
        names.add(target.name)
        done.written += _write_if_changed(target, write_post(entry).encode("utf-8"))
    _export_body_images(root, [post.body_markdown for post in posts], done)
    _export_profiles(root, done)
    done.others = sorted(
        path.name for path in root.glob("*.md") if path.name not in names and path.is_file()
    )
    return done


def _export_body_images(root: Path, bodies: list[str], done: Exported) -> None:
    """Write each stored image the bodies show to `images/<sha256>.<ext>`, the name of its
    address, so an import into another database stores it again under the same address."""
    for name in _body_image_names(bodies):
        digest, _, extension = name.partition(".")
        image = images.image_by_hash(digest)
        if image is None or images.EXTENSIONS[extension] != image.content_type:
            continue  # the body shows a missing image: nothing to keep
        (root / IMAGE_FOLDER).mkdir(exist_ok=True)
        done.images += 1
        done.written += _write_if_changed(root / IMAGE_FOLDER / name, image.data)
        db.session.expire(image, ["data"])


def _export_profiles(root: Path, done: Exported) -> None:
    """Write authors.yml with every author's bio, own link and avatar file
    (images/<author slug>.avatar.<ext>), and topics.yml with every topic's description,
    each when some row has any of them or an earlier export wrote it."""
    profiles = []
    for author in profiled_authors():
        values = {"bio": author.bio, "url": web_link(author.url) or ""}
        if author.avatar is not None:
            stem = author.slug if SLUG.fullmatch(author.slug) else author.avatar.sha256
            values["avatar"] = f"{IMAGE_FOLDER}/{stem}{AVATAR_SUFFIX}.{_extension(author.avatar)}"
            (root / IMAGE_FOLDER).mkdir(exist_ok=True)
            done.images += 1
            done.written += _write_if_changed(root / values["avatar"], author.avatar.data)
            db.session.expire(author.avatar, ["data"])
        # A stored link the site would not show is not worth carrying.
        profiles.append(Named(author.name, values))
    topics = described_topics()
    done.profiles, done.descriptions = len(profiles), len(topics)
    for kind, entries in ((AUTHORS, profiles), (TOPICS, topics)):
        # An earlier export's file is emptied, not left to bring back what is gone.
        if entries or (root / kind.file).is_file():
            text = write_named(entries, kind)
            done.written += _write_if_changed(root / kind.file, text.encode("utf-8"))


def _old_slugs() -> dict[int, list[str]]:
    """Every post's old addresses by post id, sorted (in Python: databases collate unalike)."""
    found: dict[int, list[str]] = {}
    for post_id, old_slug in db.session.execute(
        sa.select(SlugRedirect.post_id, SlugRedirect.old_slug)
    ):
        found.setdefault(post_id, []).append(old_slug)
    return {post_id: sorted(olds) for post_id, olds in found.items()}


def _write_if_changed(target: Path, data: bytes) -> bool:
    """Write the bytes through a temporary file unless the file already holds them."""
    if target.is_file() and target.read_bytes() == data:
        return False
    temporary = target.with_name(f".{target.name}.tmp")
    temporary.write_bytes(data)
    os.replace(temporary, target)
    return True


def _count(number: int, noun: str) -> str:
    """`1 post`, `2 posts`."""
    return f"{number} {noun}{'' if number == 1 else 's'}"


def import_files(
    path: Path, default_author: str | None, default_topic: str | None, ignore: tuple[str, ...]
) -> None:
    """Import Fieldnotes' own Markdown files, one or every one under a folder: all of them,
    or none (`flask posts import`, site_import.py, tells them from other sites' files)."""
    progress = progress_bar.on_terminal()
    author = store.clean_text(default_author).strip() or current_app.config["SITE_NAME"]
    topic = store.clean_text(default_topic).strip() or None
    try:
        counts = import_posts(
            path, default_author=author, default_topic=topic, ignore=ignore, progress=progress
        )
    except ImportRefused as refused:
        for problem in refused.problems:
            click.echo(str(problem), err=True)
        files = len({problem.path for problem in refused.problems})
        raise click.ClickException(
            f"{len(refused.problems)} problem(s) in {files} file(s); nothing was imported."
        ) from None
    except sa.exc.IntegrityError:
        raise click.ClickException(
            "the database changed while importing; nothing was imported, run it again."
        ) from None
    click.echo(str(counts))
    if counts.profiles is not None and counts.profiles.kept:
        kept = counts.profiles.kept
        click.echo(
            f"{_count(len(kept), 'author')} kept the site's own bio, link or avatar where"
            f" {AUTHORS.file} gives another: {', '.join(kept)}",
            err=True,
        )


def export_files(path: Path) -> None:
    """Write every post, drafts included, as Markdown files with front matter, and say what
    was written (`flask posts export`, addresses.py, adds the old addresses)."""
    done = export_posts(path)
    parts = [
        f"{_count(done.posts, 'post')} ({_count(done.drafts, 'draft')},"
        f" {_count(done.images, 'image')})"
    ]
    if done.profiles:
        parts.append(_count(done.profiles, "author profile"))
    if done.descriptions:
        parts.append(_count(done.descriptions, "topic description"))
    listed = ", ".join(parts[:-1]) + " and " + parts[-1] if len(parts) > 1 else parts[0]
    click.echo(
        f"exported {listed} to {path}:"
        f" {_count(done.written, 'file')} written, the rest already up to date"
    )
    if done.no_alt:
        click.echo(
            f"{_count(len(done.no_alt), 'post')} with an image but no alt text"
            f" ({', '.join(done.no_alt)}): add `image_alt:` to their files before importing them",
            err=True,
        )
    if done.others:
        click.echo(
            f"{len(done.others)} other .md file(s) in {path} were left as they were;"
            " an import would bring them back",
            err=True,
        )
