"""The authoring area under /editor: the post list, the post editor, preview, history."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any, TypeVar

import sqlalchemy as sa
import sqlalchemy.orm as so
from flask import (
    Blueprint,
    Flask,
    abort,
    current_app,
    flash,
    redirect,
    render_template,
    request,
    url_for,
)
from flask.wrappers import Response
from flask_login import current_user
from flask_wtf.csrf import CSRFError, generate_csrf
from flask_wtf.file import FileField
from sqlalchemy.orm.exc import StaleDataError
from werkzeug.exceptions import BadRequest, HTTPException, RequestEntityTooLarge, Unauthorized
from werkzeug.wrappers import Response as BaseResponse
from wtforms import HiddenField

from blog import markup
from blog.authoring import revisions, store, taxonomy
from blog.authoring.forms import (
    MAX_TOPIC_NAME,
    MAX_TOPICS,
    SLUG_MAX,
    SUMMARY_MAX,
    TITLE_MAX,
    ConfirmForm,
    PostForm,
    topic_names,
)
from blog.authoring.images import ImageError, image_by_hash, image_url, store_image
from blog.extensions import csrf, db, login_manager
from blog.models import (
    DRAFT,
    PUBLISHED,
    STATUSES,
    Author,
    Image,
    Post,
    PostRevision,
    Topic,
    live,
    scheduled,
    utcnow,
)
from blog.reading import drawing_spec, listing
from blog.reading.pictures import drawing_for
from blog.web import htmx
from blog.web.errors import error_page
from blog.web.params import page_number
from blog.web.templating import in_site_zone

bp = Blueprint("editor", __name__, url_prefix="/editor")

# Swap targets on the authoring pages and the template blocks that fill them.
LIST_FRAGMENTS = {"post-table": "post_table"}
EDITOR_FRAGMENTS = {"post-editor": "editor"}
HISTORY_FRAGMENTS = {"revision-detail": "detail"}
# Every element an authoring page swaps: requests aimed at them get alerts, not whole pages.
HTMX_TARGETS = {
    target: "alert"
    for target in ("post-table", "post-editor", "preview", "slug-hint", "revision-detail")
}
FILTERS = {"": "All", DRAFT: "Drafts", store.SCHEDULED: "Scheduled", PUBLISHED: "Published"}
# The post list's orders, newest first, and how many posts one of its pages holds.
SORTS = {"changed": "Last change", "published": "Publish date"}
DEFAULT_SORT = "changed"
POSTS_PER_LIST_PAGE = 50
ALERT_TARGET = "#editor-alert"
NEW_DRAFT = "new-draft"  # the action of "Save as a new draft", offered when a post is gone
UNPUBLISH = "unpublish"  # the action of "Unpublish (back to draft)"
KEEP_THEIRS = "keep-theirs"  # after a conflict: set this editor's text aside, show theirs
TAKE_MINE = "take-mine"  # after a conflict: save this editor's text over theirs
BODY_MAX = 200_000  # the longest body the form accepts, autosaves included
# What usually makes a body slow to render, said after the time limit refuses one.
SLOW_TEXT_HINT = (
    "Long runs of brackets, asterisks or code fences are the usual cause: break them up."
)


# Reading -----------------------------------------------------------------------------------


def _state_filter(state: str) -> sa.ColumnElement[bool]:
    """The SQL condition for one of the list's quick filters."""
    if state == DRAFT:
        return Post.status == DRAFT
    if state == store.SCHEDULED:
        return scheduled()
    return live()


@dataclass(frozen=True)
class ListView:
    """What the post list shows, as its URL says: a status, a title search, a topic, an
    author, an order and a page."""

    state: str = ""
    search: str = ""
    topic: Topic | None = None
    author: Author | None = None
    sort: str = DEFAULT_SORT
    page: int = 1
    cut: bool = False  # the search was longer than any title and only its start is used

    def url(self, **changes: Any) -> str:
        """This view's plain URL with some parts changed; defaults stay out of it."""
        view = replace(self, **changes)
        return url_for(
            "editor.index",
            status=view.state or None,
            q=view.search or None,
            topic=view.topic.slug if view.topic is not None else None,
            author=view.author.slug if view.author is not None else None,
            sort=view.sort if view.sort != DEFAULT_SORT else None,
            page=view.page if view.page > 1 else None,
        )

    @property
    def narrowed(self) -> bool:
        """True when anything but the status narrows the list."""
        return bool(self.search or self.topic or self.author)

    def conditions(self) -> list[sa.ColumnElement[bool]]:
        """The SQL conditions of the search, topic and author (the status is apart: the
        status tabs count each one within these)."""
        found: list[sa.ColumnElement[bool]] = []
        if self.search:
            # LIKE with % and _ (and the escape character) escaped: an editor's % is a %.
            found.append(Post.title.icontains(self.search, autoescape=True))
        if self.topic is not None:
            found.append(listing.in_topic(self.topic))
        if self.author is not None:
            found.append(Post.author_id == self.author.id)
        return found


Named = TypeVar("Named", Author, Topic)


def _by_slug(slug: str, rows: Sequence[Named], what: str) -> Named | None:
    """The row among `rows` with this slug, None for "", 400 for one that does not exist."""
    if not slug:
        return None
    for row in rows:
        if row.slug == slug:
            return row
    abort(400, description=f"There is no {what} with that address: choose one from the list.")


def list_view(topics: Sequence[Topic], authors: Sequence[Author]) -> ListView:
    """The post list's view read from the query string (400 for a value it cannot show)."""
    args = request.args
    state = args.get("status", "")
    if state not in FILTERS:
        abort(400, description="The status filter must be draft, scheduled or published.")
    sort = args.get("sort", "") or DEFAULT_SORT
    if sort not in SORTS:
        abort(
            400,
            description="The list sorts by last change or publish date: ?sort=changed "
            "or ?sort=published.",
        )
    search = store.clean_text(args.get("q", "")).strip()
    cut = len(search) > TITLE_MAX
    return ListView(
        state=state,
        search=search[:TITLE_MAX].strip() if cut else search,
        topic=_by_slug(args.get("topic", ""), topics, "topic"),
        author=_by_slug(args.get("author", ""), authors, "author"),
        sort=sort,
        page=page_number(),
        cut=cut,
    )


def state_counts(*conditions: sa.ColumnElement[bool]) -> dict[str, int]:
    """How many posts each quick filter holds, among those meeting `conditions`."""
    counts = {
        state: sa.func.count(Post.id).filter(_state_filter(state)) for state in FILTERS if state
    }
    query = sa.select(sa.func.count(Post.id), *counts.values()).where(*conditions)
    row = db.session.execute(query).one()
    return dict(zip(["", *counts], row, strict=True))


def post_page(view: ListView, total: int) -> listing.Page[Post]:
    """One page of the list, with each post's author and primary topic in the same query."""
    newest: sa.UnaryExpression[Any] = (
        Post.published_at.desc().nulls_last()  # drafts never published come last
        if view.sort == "published"
        else Post.modified_at.desc()
    )
    query = (
        sa.select(Post)
        .options(
            so.load_only(
                Post.id,
                Post.slug,
                Post.title,
                Post.status,
                Post.published_at,
                Post.updated_at,
                Post.modified_at,
                Post.author_id,
                Post.primary_topic_id,
            ),
            so.joinedload(Post.author),
            so.joinedload(Post.primary_topic),
            so.lazyload(Post.image),
        )
        .where(*view.conditions())
        .order_by(newest, Post.id.desc())
        .limit(POSTS_PER_LIST_PAGE)
        .offset((view.page - 1) * POSTS_PER_LIST_PAGE)
    )
    if view.state:
        query = query.where(_state_filter(view.state))
    posts = list(db.session.scalars(query))
    return listing.Page(posts, view.page, POSTS_PER_LIST_PAGE, total)


def post_or_404(post_id: int) -> Post:
    """The post being edited, with its topics, author and image."""
    query = (
        sa.select(Post)
        .options(so.selectinload(Post.topic_links), so.joinedload(Post.author))
        .where(Post.id == post_id)
    )
    post = db.session.scalar(query)
    if post is None:
        abort(404, description="This post no longer exists: another editor may have deleted it.")
    return post


# Pages -------------------------------------------------------------------------------------


@bp.before_request
def _require_login() -> Response | None:
    """Every authoring page is for logged-in editors only."""
    if not current_user.is_authenticated:
        return login_manager.unauthorized()
    return None


@bp.after_request
def _private(response: Response) -> Response:
    """Drafts and forms are never stored by browsers or shared caches."""
    response.cache_control.no_store = True
    return response


@bp.get("/")
def index() -> Response:
    """A page of posts with their state and dates: searched by title, filtered by status,
    topic and author, sorted by last change or publish date."""
    topics = db.session.scalars(sa.select(Topic).order_by(Topic.position, Topic.name)).all()
    authors = db.session.scalars(sa.select(Author).order_by(Author.name, Author.id)).all()
    try:
        view = list_view(topics, authors)
        counts = state_counts(*view.conditions())
        total = counts[view.state]
        if view.page > listing.last_page(total, POSTS_PER_LIST_PAGE):
            abort(404, description="That page is past the end of the list.")
    except BadRequest as error:  # from the editor's own controls: an alert on the page
        return refusal(error, error.description or "The list cannot show that.")
    block = htmx.fragment_for(LIST_FRAGMENTS)
    response = htmx.render(
        "editor/index.html",
        block,
        page=post_page(view, total),
        view=view,
        counts=counts,
        state=view.state,
        filters=FILTERS,
        sorts=SORTS,
        title_max=TITLE_MAX,
        topics=topics,
        authors=authors,
        state_of=store.state_of,
        now=utcnow(),
    )
    if block is not None:
        # The form sends every control, empty ones too: the address bar gets the short URL.
        response.headers["HX-Push-Url"] = view.url()
    return response


def _form_for(post: Post) -> PostForm:
    """The editor form filled in from a stored post."""
    form = PostForm(formdata=None, obj=post)
    form.status.data = store.state_of(post)  # draft, scheduled or published, as chosen
    form.image.data = None
    form.social_image.data = None
    form.topics.data = ", ".join(topic.name for topic in post.topics)
    form.body.data = post.body_markdown
    form.author.data = post.author.name
    form.post_id.data = str(post.id)
    form.lock_version.data = str(post.lock_version)
    form.image_alt.data = post.image_alt or ""
    return form


def _editor_page(
    form: PostForm,
    post: Post | None,
    *,
    status: int = 200,
    image: Image | None = None,
    conflict: Post | None = None,
    saved: bool = False,
    gone: bool = False,
    compared: dict[str, object] | None = None,
    preview_problem: str = "",
    new_names: Sequence[taxonomy.NewName] = (),
) -> Response:
    """The post editor, or only its swappable part for htmx (`compared`: a conflict's diff;
    `preview_problem`: why the body was not rendered, shown in place of the preview;
    `new_names`: topics and author to offer to create)."""
    suggested = store.slug_for(form.title.data or "")
    rendered = None
    if not preview_problem:
        rendered, preview_problem = _preview(form.body.data or "")
    return htmx.render(
        "editor/post.html",
        htmx.fragment_for(EDITOR_FRAGMENTS),
        status,
        form=form,
        post=post,
        state=store.state_of(post) if post is not None else DRAFT,
        image=image,
        conflict=conflict,
        compared=compared or {},
        saved=saved,
        gone=gone,
        image_src=image_url(image) if image is not None else None,
        max_image_mb=f"{current_app.config['MAX_IMAGE_BYTES'] / (1024 * 1024):g}",
        preview_html=rendered.html if rendered is not None else "",
        rendered=rendered,
        preview_problem=preview_problem,
        topics=db.session.scalars(sa.select(Topic).order_by(Topic.position, Topic.name)).all(),
        authors=db.session.scalars(sa.select(Author.name).order_by(Author.name)).all(),
        suggested_slug=suggested,
        hint_slug=form.slug.data or suggested,
        hint_typed=bool(form.slug.data),
        hint_problem=None,
        new_names=new_names,
    )


@bp.get("/posts/new")
def new() -> Response:
    """An empty editor for a new post, credited to the editor who writes it."""
    form = PostForm()
    form.author.data = current_user.name
    return _editor_page(form, None)


@bp.post("/posts/new")
def create() -> BaseResponse:
    """Save a new post (a draft, published, or scheduled)."""
    return _save(None)


@bp.get("/posts/<id:post_id>")
def edit(post_id: int) -> Response:
    """The editor for a stored post."""
    post = post_or_404(post_id)
    return _editor_page(_form_for(post), post, image=post.image)


@bp.post("/posts/<id:post_id>")
def update(post_id: int) -> BaseResponse:
    """Save changes to a post, refusing a save based on an older lock version.

    A post deleted meanwhile answers 410 with the editor's text, never a save elsewhere.
    """
    form_id = request.form.get("post_id")
    if form_id is not None and form_id != str(post_id):
        abort(400, description="This form belongs to another post. Reload the page.")
    post = db.session.get(Post, post_id)
    if post is None and store.id_was_used(post_id):
        return _gone()
    return _save(post_or_404(post_id))


def _gone() -> Response:
    """410: the post was deleted while this editor had it open. Their text stays in a form
    for a new post, with a button that saves it as a new draft."""
    form = PostForm()
    form.validate()  # show what would still need fixing, but save nothing
    form.image.data = None
    form.social_image.data = None
    form.post_id.data = ""
    form.lock_version.data = ""
    image = image_by_hash(form.kept_image.data or "")
    return _editor_page(form, None, status=410, image=image, gone=True)


def _chosen_image(form: PostForm, post: Post | None) -> tuple[Image | None, int | None]:
    """The illustration the post should carry after this save, and the status of a refused
    upload (see `_chosen_upload`)."""
    current = post.image if post is not None else None
    return _chosen_upload(form.image, form.kept_image, form.remove_image.data, current)


def _chosen_upload(
    field: FileField, kept: HiddenField, remove: bool, current: Image | None
) -> tuple[Image | None, int | None]:
    """The image an image field leaves the post with, and the status of a refused upload.

    A new upload is committed at once (images are immutable and shared by hash), so it
    survives a save that is refused for another reason; the form remembers it by hash in
    `kept`. A refused upload puts its message beside the field and keeps `current`.
    """
    upload = field.data
    if upload is not None and getattr(upload, "filename", None):
        limit = current_app.config["MAX_IMAGE_BYTES"]
        try:
            image = store_image(upload.stream.read(limit + 1))
            digest = image.sha256
            try:
                db.session.commit()
            except sa.exc.IntegrityError:  # the same image, uploaded by someone at this moment
                db.session.rollback()
            kept.data = digest
            return image_by_hash(digest), None
        except ImageError as error:
            _add_error(field, error.message)
            refused = 413 if error.status == 413 else 422
            return current, refused
    if remove:
        return None, None
    if kept.data:
        found = image_by_hash(kept.data)
        if found is not None:
            return found, None
    return current, None


def _add_error(field: object, message: str) -> None:
    """Show `message` next to a form field."""
    field.errors = [*field.errors, message]  # type: ignore[attr-defined]


def _based_on(form: PostForm) -> int:
    """The lock version the editor's form was loaded at (400 when it was tampered with)."""
    raw = form.lock_version.data or ""
    if not (raw.isascii() and raw.isdigit()) or len(raw) > 9:
        abort(400, description="The form lost track of the post's version. Reload the page.")
    return int(raw)


def _save(post: Post | None) -> BaseResponse:
    """Check and store the editor form for a new (`post` is None) or stored post."""
    form = PostForm()
    is_new = post is None
    if post is not None and request.form.get("action") == KEEP_THEIRS:
        return _keep_theirs(form, post)
    based_on = _based_on(form) if post is not None else 0
    if request.form.get("action") in (UNPUBLISH, NEW_DRAFT):
        # Unpublishing, or keeping a deleted post's text: a draft, whatever the form says,
        # so the rules of the other statuses do not stand in its way.
        form.status.data = DRAFT
    valid = form.validate_on_submit()
    image, upload_status = _chosen_image(form, post)
    social_image, social_status = _chosen_upload(
        form.social_image,
        form.kept_social_image,
        form.remove_social_image.data,
        post.social_image if post is not None else None,
    )
    upload_status = upload_status or social_status
    if image is not None and not form.image_alt.data:
        _add_error(form.image_alt, "Describe the image for readers who cannot see it.")
    slug = form.slug.data or store.slug_for(form.title.data or "")
    if form.title.data and not slug:
        _add_error(form.slug, "Choose an address: the title has no letters or digits to use.")
    elif slug and not form.slug.errors:
        problem = store.slug_problem(slug, post)
        if problem:
            _add_error(form.slug, problem)
    new_names = _new_names(form)
    if not valid or form.errors:
        return _editor_page(
            form, post, status=upload_status or 422, image=image, new_names=new_names
        )
    if post is not None and post.lock_version != based_on:
        return _conflict(form, post, image, based_on)
    fields = store.PostFields(
        title=form.title.data or "",
        slug=slug,
        body=form.body.data or "",
        summary=form.summary.data or "",
        topics=list(dict.fromkeys(store.topics_named(topic_names(form.topics.data)).values())),
        author=store.author_named(form.author.data or ""),
        status=stored_status(form.status.data),
        published_at=_published_at(form, post),
        featured=form.featured.data,
        editors_pick=form.editors_pick.data,
        image=image,
        image_alt=form.image_alt.data,
        illustration=drawing_spec.canonical(form.illustration.data or ""),
        meta_description=form.meta_description.data or "",
        social_image=social_image,
        updated_at=post.updated_at if post is not None else None,
        keep_updated_date=form.keep_updated_date.data,
    )
    try:
        if post is None:
            post = store.create_post(fields)
        else:
            if not revisions.has_saved_version(post):
                # Saved outside the editor (an import): keep that text before replacing it.
                revisions.record(post)
            store.update_post(post, fields, based_on=based_on)
        db.session.flush()  # the id and lock version the revision records
        revisions.record(post, editor_name=current_user.name)
        db.session.commit()
    except (StaleDataError, store.VersionConflict):
        db.session.rollback()
        assert post is not None
        return _conflict(form, post_or_404(post.id), image, based_on)
    except (store.SlugTaken, sa.exc.IntegrityError) as error:
        db.session.rollback()
        if isinstance(error, store.SlugTaken):
            _add_error(form.slug, str(error))
        else:
            _add_error(form.slug, "Another post took this address a moment ago; choose another.")
        return _editor_page(form, None if is_new else post, status=409, image=image)
    except markup.TooSlow as slow:
        db.session.rollback()  # nothing of this save is kept
        _add_error(form.body, f"{_too_slow(slow)}, so it was not saved. {SLOW_TEXT_HINT}")
        return _editor_page(
            form,
            None if is_new else post,
            status=422,
            image=image,
            preview_problem=_preview_refused(slow),
        )
    return _saved(post, created=is_new)


def _new_names(form: PostForm) -> list[taxonomy.NewName]:
    """The topics and author the form names that do not exist yet; each one the editor has
    not ticked to create puts a refusal beside its field."""
    if form.topics.errors or form.author.errors:
        return []
    found = taxonomy.new_names(
        topic_names(form.topics.data), form.author.data or "", current_user.name
    )
    for new in taxonomy.unconfirmed(found, form.confirm_new.data or []):
        _add_error(
            form.topics if new.kind == taxonomy.TOPIC else form.author, taxonomy.refusal_for(new)
        )
    return found


def stored_status(chosen: str | None) -> str:
    """The status the store keeps for the one chosen in the form: a scheduled post is a
    published one whose time is still to come (`blog.models.scheduled`)."""
    if chosen == store.SCHEDULED:
        return PUBLISHED
    return chosen if chosen in STATUSES else DRAFT


def _published_at(form: PostForm, post: Post | None) -> datetime | None:
    """The UTC publish time the form asks for. A time the clocks show twice is taken as its
    first occurrence, unless it is the post's stored time shown back unchanged."""
    stored = post.published_at if post is not None else None
    wall = form.published_at.wall
    if stored is not None and wall is not None:
        shown = in_site_zone(stored).replace(tzinfo=None, microsecond=0)
        if shown == wall:
            return stored
    return form.published_at.data


def _conflict(form: PostForm, post: Post, image: Image | None, based_on: int) -> Response:
    """409: show the other editor's saved version beside this editor's text, with a diff.

    This editor's text is kept at once as a "conflict" revision, so it survives whatever
    happens next, a closed tab included. The form keeps it and now carries the stored lock
    version: "Take mine" (or Save, after merging by hand) replaces the other version, which
    its own save already recorded; "Keep theirs" shows theirs in the editor instead.
    """
    db.session.refresh(post)
    theirs, mine = revisions.text_of(post), _form_text(form)
    kept = revisions.record_text(
        post.id,
        mine,
        revisions.CONFLICT,
        editor_name=current_user.name,
        lock_version=based_on,
    )
    db.session.commit()
    compared = revisions.compare(theirs, mine) | {"kept": kept}
    form.lock_version.data = str(post.lock_version)
    return _editor_page(form, post, status=409, image=image, conflict=post, compared=compared)


def _keep_theirs(form: PostForm, post: Post) -> BaseResponse:
    """After a conflict, take the other editor's version: this editor's text is set aside
    as a "conflict" revision (recoverable from the history) and theirs fills the editor."""
    _keep_form_text(
        form, post.id, revisions.CONFLICT, "This text is too long to keep; nothing was changed."
    )
    db.session.commit()
    flash(
        "Their version is in the editor. Yours is kept in the history, marked “Set aside "
        "in a conflict”: open History to compare or restore it."
    )
    if htmx.fragment_for(EDITOR_FRAGMENTS) is None:
        return redirect(url_for("editor.edit", post_id=post.id), 303)
    post = post_or_404(post.id)
    return _editor_page(_form_for(post), post, image=post.image)


def _keep_form_text(form: PostForm, post_id: int, kind: str, refusal: str) -> None:
    """Add the form's text to the post's history as a revision of `kind`, without saving the
    post (the caller commits); `refusal` is the 422 when it is over a save's limits."""
    text = _form_text(form)
    if text.too_long() is not None or len(text.body) > BODY_MAX:
        abort(422, description=refusal)
    revisions.record_text(
        post_id, text, kind, editor_name=current_user.name, lock_version=_sent_version(form)
    )


def _sent_version(form: PostForm) -> int | None:
    """The lock version a form says its text is based on, None when it holds no number."""
    raw = form.lock_version.data or ""
    return int(raw) if raw.isascii() and raw.isdigit() and len(raw) <= 9 else None


def _form_text(form: PostForm) -> revisions.Text:
    """What the editor's form holds, as a revision keeps it (nothing checked but kept as is)."""
    status = stored_status(form.status.data)
    return revisions.Text(
        title=form.title.data or "",
        slug=form.slug.data or "",
        summary=form.summary.data or "",
        body=form.body.data or "",
        topics=tuple(topic_names(form.topics.data)),
        author=form.author.data or "",
        status=status,
        published_at=form.published_at.data,
        image_alt=form.image_alt.data or None,
        meta_description=form.meta_description.data or "",
        illustration=form.illustration.data or "",
    )


def _saved(post: Post, *, created: bool) -> BaseResponse:
    """After a save: the fresh editor in place for htmx, a redirect to it otherwise."""
    edit_url = url_for("editor.edit", post_id=post.id)
    if htmx.fragment_for(EDITOR_FRAGMENTS) is None:
        flash("Saved.")
        return redirect(edit_url, 303)
    post = post_or_404(post.id)
    response = _editor_page(_form_for(post), post, image=post.image, saved=True)
    if created:
        response.headers["HX-Replace-Url"] = edit_url
    return response


def _too_slow(slow: markup.TooSlow, what: str = "This text") -> str:
    """The start of every message about a body refused by the render time limit."""
    return f"{what} takes too long to render (more than {slow.limit:g} seconds)"


def _preview_refused(slow: markup.TooSlow) -> str:
    """What the preview says in place of a body the time limit refused."""
    return f"{_too_slow(slow)}, so it cannot be shown or saved as it is. {SLOW_TEXT_HINT}"


def _rendered(body: str) -> markup.Rendered | None:
    """The body rendered exactly as the post page renders it, None when it is blank
    (TooSlow past the time limit)."""
    if not body.strip():
        return None
    return store.render_body(store.clean_text(body))


def _preview(body: str) -> tuple[markup.Rendered | None, str]:
    """The preview's render (its HTML, words and reading time) and, when the render time
    limit stopped it, the message to show in its place."""
    try:
        return _rendered(body), ""
    except markup.TooSlow as slow:
        return None, _preview_refused(slow)


@bp.post("/preview")
def preview() -> Response:
    """The live preview of the body being typed (an htmx fragment); 422 with a message in
    its place when the body takes too long to render."""
    rendered, problem = _preview(request.form.get("body", ""))
    return htmx.render(
        "editor/post.html",
        "preview",
        422 if problem else 200,
        preview_html=rendered.html if rendered is not None else "",
        rendered=rendered,
        preview_problem=problem,
    )


@bp.get("/slug")
def slug_hint() -> Response:
    """Where the post will live, for the address being typed or suggested from the title."""
    typed = store.clean_text(request.args.get("slug", "")).strip()
    slug = typed or store.slug_for(request.args.get("title", ""))
    post_id = request.args.get("post", "")
    post = db.session.get(Post, int(post_id)) if post_id.isdigit() and len(post_id) < 10 else None
    problem = store.slug_problem(slug, post) if slug else None
    return htmx.render(
        "editor/post.html",
        "slug_hint",
        hint_slug=slug,
        hint_problem=problem,
        hint_typed=bool(typed),
    )


def _restored_drawing(kept: str, post: Post) -> str:
    """A revision's drawing spec in its stored spelling; the post's own when the rules no
    longer take the kept one."""
    try:
        return drawing_spec.canonical(kept)
    except drawing_spec.SpecError:
        return post.illustration


@bp.post("/drawing")
def drawing_preview() -> Response:
    """The live preview of the drawing the `illustration` field chooses, for the title,
    summary and address typed (an htmx fragment); 422 with the rule it breaks instead."""
    form = request.form
    text = store.clean_text(form.get("illustration", "")).strip()
    title = store.clean_text(form.get("title", ""))[:TITLE_MAX]
    summary = store.clean_text(form.get("summary", ""))[:SUMMARY_MAX]
    slug = store.slug_for(form.get("slug", "")[:SLUG_MAX] or title) or "new-post"
    try:
        written = drawing_spec.canonical(text)
    except drawing_spec.SpecError as error:
        return htmx.render("editor/_drawing.html", None, 422, drawing_problem=error.plain)
    drawing = drawing_for(slug, title, summary, written)
    return htmx.render("editor/_drawing.html", None, drawing=drawing, written=written)


# History -------------------------------------------------------------------------------------


def _chosen_revision(post_id: int) -> PostRevision | None:
    """The revision named by `?revision=`, None without one (400 for a malformed id, 404
    for one this post never had)."""
    raw = request.args.get("revision", "")
    if not raw:
        return None
    if not (raw.isascii() and raw.isdigit()) or len(raw) > 10 or raw.startswith("0"):
        abort(400, description="A revision is named by its number.")
    chosen = revisions.revision_of(post_id, int(raw))
    if chosen is None:
        abort(404, description="This post has no such revision (it may have been pruned).")
    return chosen


def _history_page(post_id: int, *, status: int = 200, problem: str = "") -> Response:
    """A post's revisions, newest first, and the chosen one compared with the current text."""
    post = db.session.scalar(
        sa.select(Post)
        .options(so.selectinload(Post.topic_links), so.joinedload(Post.author))
        .where(Post.id == post_id)
    )
    kept = revisions.history(post_id)
    if post is None and not kept:
        abort(404, description="This post no longer exists: another editor may have deleted it.")
    chosen = _chosen_revision(post_id)
    compared: dict[str, object] = {}
    if chosen is not None:
        old = revisions.text_in(chosen)
        new = revisions.text_of(post) if post is not None else revisions.NOTHING
        compared = revisions.compare(old, new)
    return htmx.render(
        "editor/revisions.html",
        htmx.fragment_for(HISTORY_FRAGMENTS),
        status,
        post=post,
        post_id=post_id,
        heading_title=post.title if post is not None else kept[0].title,
        revisions=kept,
        chosen=chosen,
        compared=compared,
        problem=problem,
        kinds=revisions.KIND_LABELS,
        form=ConfirmForm(),
    )


@bp.get("/posts/<id:post_id>/revisions", endpoint="revisions")
def history(post_id: int) -> Response:
    """The revisions of a post (kept after it is deleted); `?revision=N` compares one with
    the current text and offers to restore it."""
    return _history_page(post_id)


def _restored_topics(revision: PostRevision, post: Post) -> list[Topic]:
    """The revision's topics when they still make a valid list, else the post's own."""
    names = [
        name
        for name in topic_names(", ".join(revision.topics or []))
        if len(name) <= MAX_TOPIC_NAME and store.topic_slug(name)
    ][:MAX_TOPICS]
    if not names:
        return post.topics
    return list(dict.fromkeys(store.topics_named(names).values()))


@bp.post("/posts/<id:post_id>/revisions/<id:revision_id>/restore")
def restore(post_id: int, revision_id: int) -> BaseResponse:
    """Put a revision's text back as a new save: the current text stays in the history.

    The title, summary, meta description, body, topics and author come back; the address,
    images and the publishing state stay as they are, so a restore never publishes or
    unpublishes.
    """
    form = ConfirmForm()
    if not form.validate_on_submit():
        abort(400, description="This page's security token is no longer valid. Reload it.")
    post = post_or_404(post_id)
    revision = revisions.revision_of(post_id, revision_id)
    if revision is None:
        abort(404, description="This post has no such revision (it may have been pruned).")
    raw = request.form.get("lock_version", "")
    if raw != str(post.lock_version):
        return _history_page(
            post_id,
            status=409,
            problem="The post was saved again since this page was opened, so nothing was "
            "restored. Compare again below, then restore if you still want to.",
        )
    body = revision.body_markdown
    if post.status == PUBLISHED and not body.strip():
        return _history_page(
            post_id,
            status=422,
            problem="This revision has no body, and a published post needs one: nothing "
            "was restored. Unpublish the post first to restore it.",
        )
    fields = store.PostFields(
        title=revision.title.strip() or post.title,
        slug=post.slug,
        body=body,
        summary=revision.summary,
        topics=_restored_topics(revision, post),
        author=store.author_named(revision.author_name or post.author.name),
        status=post.status,
        published_at=post.published_at,
        featured=post.featured,
        editors_pick=post.editors_pick,
        image=post.image,
        image_alt=post.image_alt,
        illustration=_restored_drawing(revision.illustration, post),
        meta_description=revision.meta_description,
        social_image=post.social_image,
        updated_at=post.updated_at,
    )
    try:
        if not revisions.has_saved_version(post):
            revisions.record(post)
        store.update_post(post, fields, based_on=post.lock_version)
        db.session.flush()
        revisions.record(post, revisions.RESTORE, editor_name=current_user.name)
        db.session.commit()
    except (StaleDataError, store.VersionConflict):
        db.session.rollback()
        return _history_page(
            post_id,
            status=409,
            problem="Another editor saved the post at this moment, so nothing was restored. "
            "Compare again below.",
        )
    except markup.TooSlow as slow:
        db.session.rollback()
        return _history_page(
            post_id,
            status=422,
            problem=f"{_too_slow(slow, 'This revision')}, so nothing was restored. "
            + SLOW_TEXT_HINT,
        )
    when = revision.created_at.strftime("%Y-%m-%d %H:%M:%S")
    flash(f"Restored the revision of {when} UTC as a new save; the text it replaced is kept below.")
    return redirect(url_for("editor.revisions", post_id=post_id), 303)


@bp.get("/posts/<id:post_id>/autosave")
def autosave_offer(post_id: int) -> Response:
    """The offer of an autosave newer than the post's last save (autosave.js shows it as the
    editor opens), or 204 when there is none."""
    post = post_or_404(post_id)
    newer = revisions.autosave_after(post.id, post.modified_at)
    if newer is None:
        return current_app.response_class(status=204)
    return htmx.render(
        "editor/revisions.html",
        "autosave_offer",
        post=post,
        offered=newer,
        form=ConfirmForm(),
    )


@bp.post("/posts/<id:post_id>/autosave")
def autosave(post_id: int) -> Response:
    """Keep the text being typed as an "autosave" revision (204): the post, what readers
    see and every cached page stay exactly as they were."""
    form_id = request.form.get("post_id")
    if form_id is not None and form_id != str(post_id):
        abort(400, description="This form belongs to another post. Reload the page.")
    post = post_or_404(post_id)
    form = PostForm()
    _keep_form_text(
        form, post.id, revisions.AUTOSAVE, "This text is too long to autosave; save it to see why."
    )
    db.session.commit()
    return current_app.response_class(status=204)


# Refusals ----------------------------------------------------------------------------------


def _wants_alert() -> bool:
    """True for an htmx request from an authoring page, which shows errors in its alert box."""
    return htmx.fragment_for(HTMX_TARGETS) is not None


def refusal(error: HTTPException, message: str, *, login_link: bool = False) -> Response:
    """An error as an alert the authoring page shows (htmx), or as the site's error page."""
    code = error.code or 400
    if _wants_alert():
        body = render_template("editor/_alert.html", message=message, login_link=login_link)
        response = current_app.make_response((body, code))
        response.headers["HX-Retarget"] = ALERT_TARGET
        response.headers["HX-Reswap"] = "innerHTML"
        response.vary.update(htmx.VARY)
        return response
    return error_page(code, message)


def _signed_out() -> BaseResponse:
    """Not logged in: htmx saves get an alert (the page keeps its text), pages go to login."""
    if _wants_alert():
        return refusal(
            Unauthorized(),
            "You are logged out, so this was not saved. Your text is still here: log in "
            "again in another tab, then come back and save.",
            login_link=True,
        )
    if request.method != "GET":
        return redirect(url_for("auth.login"), 303)
    return redirect(url_for("auth.login", next=request.full_path.rstrip("?")))


def _sent_from_this_site() -> bool:
    """True when the browser says the form came from one of this site's own pages.

    Browsers set Sec-Fetch-Site (or at least Origin) on form posts, and no other site can
    make them say "same-origin": a forged post never gets its text shown back with a token.
    """
    fetch_site = request.headers.get("Sec-Fetch-Site")
    if fetch_site is not None:
        return fetch_site == "same-origin"
    origin = request.headers.get("Origin")
    return origin is not None and origin == request.host_url.rstrip("/")


def _kept_after_stale_token() -> Response:
    """The editor's own save with a stale token: their text back in the editor, not saved,
    with a fresh token, so pressing Save again stores it."""
    post_id = (request.view_args or {}).get("post_id")
    post = post_or_404(post_id) if post_id is not None else None
    form = PostForm()
    form.image.data = None
    form.social_image.data = None
    image = image_by_hash(form.kept_image.data or "") or (post.image if post else None)
    chose_file = any(upload.filename for upload in request.files.getlist("image"))
    flash(
        "Not saved: this page's security token had expired (the session changed since the "
        "page was opened). Everything you typed is below: press Save again."
        + (" Choose the image again too." if chose_file else "")
    )
    return _editor_page(form, post, status=400, image=image)


@bp.errorhandler(CSRFError)
def _csrf_refused(error: CSRFError) -> Response:
    """A missing or stale CSRF token: say so; an htmx page also gets a fresh token to retry,
    and a plain save from the editor's own page comes back with its text."""
    problem = "This page's security token is no longer valid (the session may have ended), so "
    if (
        not _wants_alert()
        and request.endpoint in ("editor.create", "editor.update")
        and current_user.is_authenticated
        and _sent_from_this_site()
    ):
        return _kept_after_stale_token()
    if not _wants_alert():
        return refusal(
            error,
            problem + "nothing was saved. Go back to the form (your browser keeps what you "
            "typed), copy your text, reload the page and save again.",
        )
    response = refusal(error, problem + "nothing was saved. Your text is still here: save again.")
    response.headers["X-CSRF-Token"] = generate_csrf()
    return response


@bp.errorhandler(RequestEntityTooLarge)
def _too_large(error: RequestEntityTooLarge) -> Response:
    """An upload over the request limit: a clear 413 that says what the limits are."""
    image_mb = current_app.config["MAX_IMAGE_BYTES"] / (1024 * 1024)
    text_kb = (current_app.config.get("MAX_FORM_MEMORY_SIZE") or 500_000) / 1000
    kept = (
        "your text is still on the page."
        if _wants_alert()
        else "go back to the form: your browser keeps what you typed."
    )
    return refusal(
        error,
        f"That upload is too large: images may be at most {image_mb:g} MB and a post's text "
        f"at most {text_kb:g} KB. Nothing was saved; {kept}",
    )


@bp.errorhandler(404)
def _not_found(error: HTTPException) -> Response:
    """A missing post or page inside the authoring area."""
    return refusal(error, error.description or "There is nothing at this address.")


def init_app(app: Flask) -> None:
    """Register the authoring area and its refusals."""
    from blog.authoring import (  # noqa: F401  (their views join this blueprint)
        preview,
        social,
        taxonomy_views,
        trash,
    )

    csrf.init_app(app)
    login_manager.unauthorized_handler(_signed_out)
    app.register_blueprint(bp)
