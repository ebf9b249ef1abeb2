"""The post editor: the form and its saves, and the writing aids beside it (body preview,
address hint, drawing preview). A save that meets another editor's is answered by
`conflicts`, the autosaves by `autosaving`."""

from __future__ import annotations

import dataclasses
import uuid
from datetime import datetime
from typing import Any

import sqlalchemy as sa
from flask import (
    abort,
    flash,
    redirect,
    request,
    url_for,
)
from flask.wrappers import Response
from flask_login import current_user
from sqlalchemy.orm.exc import StaleDataError
from werkzeug.wrappers import Response as BaseResponse

from blog import catalog, markup, roles
from blog.authoring import pending, publishing, review, revisions, store, taxonomy
from blog.authoring.editor import bp, post_or_404
from blog.authoring.editor.conflicts import (
    KEEP_THEIRS,
    TAKE_MINE,
    keep_theirs,
    merge_step,
    pending_conflict,
    touched_image,
    version_conflict,
)
from blog.authoring.editor.post_page import (
    DISCARD,
    EDITOR_FRAGMENTS,
    NEW_DRAFT,
    SLOW_TEXT_HINT,
    SUBMIT,
    UNPUBLISH,
    UNSCHEDULE_CHANGES,
    add_error,
    asked_publish_time,
    body_preview,
    chosen_image,
    chosen_upload,
    editor_page,
    form_text,
    keep_form_text,
    opened,
    preview_refused,
    stored_status,
    too_slow,
)
from blog.authoring.forms import (
    BODY_MAX,
    SLUG_MAX,
    SUMMARY_MAX,
    TITLE_MAX,
    PostForm,
    author_names,
    slug_refusal,
    topic_names,
)
from blog.extensions import db
from blog.media import drawing_spec
from blog.media.images import image_by_hash
from blog.media.pictures import drawing_for
from blog.models import DRAFT, PUBLISHED, Image, PendingChange, Post
from blog.web import htmx
from blog.web.templating import in_words, site_datetime

NOTICE = "notice"  # the flash category of a notice that is no save's outcome
MERGED = "merged"  # the flash category of a merged save's note
# What a writer's save may not do, said beside Save with the text kept (403).
WRITERS_DRAFT = (
    "Not saved: writers save drafts, and an editor publishes or schedules them. Your text is "
    "still here: save it as a draft, or submit it for review."
)
WRITERS_FLAGS = "Not saved: only editors feature a post or make it an editor’s pick."
WRITERS_BYLINE = "Not saved: the author of this post is {name}; only an editor changes it."
WRITERS_TOPICS = "Only editors add topics: choose one of the existing topics."
TAKEN_ADDRESS = "Another post already uses this address; choose another."
FIRST_VERSION = 1  # the lock version every post is stored at first (Post.lock_version)
# A new post's form whose identity (`uid`) finds a post it may not save into (409).
NOT_THIS_FORMS = (
    "This form's new post is another account's: open a new post and paste your text there."
)
NO_LONGER_A_DRAFT = (
    "This form's post is already saved and no longer a draft: open it from the post list."
)


@bp.get("/posts/new")
def new() -> Response:
    """An empty editor for a new post, credited to the editor who writes it."""
    form = PostForm()
    form.author.data = [current_user.name]
    form.uid.data = str(uuid.uuid4())
    return editor_page(form, None)


@bp.post("/posts/new")
def create() -> BaseResponse:
    """Save a new post (a draft, published, or scheduled). A form an autosave already stored
    as a post saves that post instead of making another: the form names the post's id, or,
    when the Save left before the autosave's answer came back, its identity finds it."""
    named = request.form.get("post_id", "")
    if named:
        return update(autosaved_post(named).id)
    uid = form_uid()
    made = made_by_form(uid)
    if made is not None:
        return _save_into(made)
    return _save(None, uid=uid)


def form_uid() -> uuid.UUID | None:
    """The identity a new post's form was given when first shown, which its post will keep:
    None for a form without one (a page shown before forms had it); 400 when malformed."""
    raw = request.form.get("uid", "")
    if not raw:
        return None
    try:
        uid = uuid.UUID(raw)
    except ValueError:
        uid = None
    if uid is None or str(uid) != raw:
        abort(400, description="The form lost track of its new post. Reload the page.")
    return uid


def made_by_form(uid: uuid.UUID | None) -> Post | None:
    """The post a new post's form already stored (its first autosave or its Save, whichever
    came first), found by the form's identity; None when there is none yet. 409 when that
    identity names another account's post: it is never taken over."""
    if uid is None:
        return None
    post = db.session.scalar(sa.select(Post).where(Post.uid == uid))
    if post is not None and post.created_by_id != current_user.id:
        abort(409, description=NOT_THIS_FORMS)
    return post


def _save_into(made: Post) -> BaseResponse:
    """The Save of a new post's form that its autosave stored meanwhile: a save of that post,
    as based on the version the autosave stored (anything saved since is merged)."""
    if made.status != DRAFT:
        abort(409, description=NO_LONGER_A_DRAFT)
    if not roles.may_change(current_user, made):
        return _refused(PostForm(), made, roles.NOT_A_DRAFT + " Your text is still here.")
    return _save(made, adopted=True)


@bp.get("/posts/<id:post_id>")
def edit(post_id: int) -> Response:
    """The editor for a stored post."""
    post = post_or_404(post_id)
    form, image = opened(post)
    return editor_page(form, post, image=image)


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
    post = post_or_404(post_id, checked=False)
    if not roles.may_see(current_user, post):
        abort(403, description=roles.NOT_YOURS)
    if not roles.may_change(current_user, post):
        return _refused(PostForm(), post, roles.NOT_A_DRAFT + " Your text is still here.")
    return _save(post)


def _refused(form: PostForm, post: Post | None, message: str) -> Response:
    """403: the role may not save what the form asks; the text stays in the form, unsaved."""
    form.validate()  # show what would still need fixing too
    form.image.data = None
    form.social_image.data = None
    image = image_by_hash(form.kept_image.data or "") or (post.image if post else None)
    return editor_page(form, post, status=403, image=image, refused=message)


def beyond_a_writer(post: Post | None) -> str | None:
    """What a writer's form asks that only editors may do (publish or schedule, feature,
    credit someone else), or None. Read from the request itself: the page offers none of it,
    so only a hand-made form gets here."""
    sent = request.form
    if sent.get("status", DRAFT) != DRAFT or publishing.asked(sent.get("action", ""))[0]:
        return WRITERS_DRAFT
    if "featured" in sent or "editors_pick" in sent:
        return WRITERS_FLAGS
    # The byline as the page showed it to them: the post's, or their own on a new post.
    byline = _loaded_byline(post) if post is not None else [current_user.name]
    if author_names([store.clean_text(name) for name in sent.getlist("author")]) != byline:
        return WRITERS_BYLINE.format(name=in_words(byline))
    return None


def _loaded_byline(post: Post) -> list[str]:
    """The post's authors as the form was loaded: those of the version it started from when
    an editor has saved since (its save is merged in, their byline with it), else today's."""
    sent = request.form
    start = next(
        (
            int(raw)
            for raw in (sent.get("merge_base", ""), sent.get("lock_version", ""))
            if raw.isascii() and raw.isdigit() and len(raw) <= 9
        ),
        None,
    )
    if start is not None and start != post.lock_version:
        base = revisions.saved_version(post.id, start)
        if base is not None:
            return list(revisions.text_in(base).authors)
    return [author.name for author in post.authors]


def slug_problem_for(slug: str, post: Post | None) -> str | None:
    """Why the address cannot be the post's; a writer is not told which post has it (it
    may be another writer's draft)."""
    problem = store.slug_problem(slug, post)
    if problem and not current_user.publishes:
        return TAKEN_ADDRESS
    return problem


def _gone() -> Response:
    """410: the post was deleted while this editor had it open. Their text stays in a form
    for a new post, with a button that saves it as a new draft."""
    form = PostForm()
    form.validate()  # show what would still need fixing, but save nothing
    form.image.data = None
    form.social_image.data = None
    form.post_id.data = ""
    form.lock_version.data = ""
    form.uid.data = str(uuid.uuid4())  # the new draft is a post of its own
    image = image_by_hash(form.kept_image.data or "")
    return editor_page(form, None, status=410, image=image, gone=True)


def _based_on(form: PostForm) -> int:
    """The lock version the editor's form was loaded at (400 when it was tampered with)."""
    raw = form.lock_version.data or ""
    if not (raw.isascii() and raw.isdigit()) or len(raw) > 9:
        abort(400, description="The form lost track of the post's version. Reload the page.")
    return int(raw)


def _merge_base(form: PostForm) -> int | None:
    """The version a 409's form says its text started from, None when it names none (400
    when it was tampered with)."""
    raw = form.merge_base.data or ""
    if not raw:
        return None
    if not (raw.isascii() and raw.isdigit()) or len(raw) > 9:
        abort(400, description="The form lost track of the post's version. Reload the page.")
    return int(raw)


def _save(
    post: Post | None, *, uid: uuid.UUID | None = None, adopted: bool = False
) -> BaseResponse:
    """Check and store the editor form for a new (`post` is None, made with the form's `uid`
    when it has one) or stored post. `adopted`: a new post's form saving the post its
    autosave stored, which the form does not know yet."""
    form = PostForm()
    is_new = post is None
    if adopted:
        assert post is not None
        form.post_id.data = str(post.id)
        form.lock_version.data = str(FIRST_VERSION)
    if not current_user.publishes:
        beyond = beyond_a_writer(post)
        if beyond is not None:
            return _refused(form, post, beyond)
    action = request.form.get("action", "")
    if post is not None and action == KEEP_THEIRS:
        return keep_theirs(form, post)
    clash = None  # another editor's newer draft changes, merged with this form below
    if post is not None:
        change = pending.of(post.id)
        if pending.overwrites_another(change, form.pending_version.data or "", current_user):
            assert change is not None
            if action in (DISCARD, UNSCHEDULE_CHANGES) or change.based_on != post.lock_version:
                return pending_conflict(form, post, change)
            clash = change
        if action == DISCARD:
            return _discard(post)
        if action == UNSCHEDULE_CHANGES:
            return _unschedule(post, change)
    based_on = _based_on(form) if post is not None else 0
    merge_base = _merge_base(form) if post is not None else None
    submit = action == SUBMIT
    move, confirmed = publishing.asked(action)  # publishing, unpublishing...: asked first
    if action == publishing.KEEP_EDITING:
        return _keep_editing(form, post)
    if move in publishing.TO_READERS:
        # The action decides the state; the date decides between now and later.
        form.status.data = publishing.status_for(form.published_at.data)
    elif action == publishing.SAVE or (not action and "status" not in request.form):
        # "Save draft", or a form that names no state: a draft stays one; a published post
        # keeps its state.
        form.status.data = catalog.state_of(post) if post is not None else DRAFT
    if move == UNPUBLISH or action in (NEW_DRAFT, SUBMIT):
        # Unpublishing, keeping a deleted post's text or sending it for review: a draft,
        # whatever the form says, so the rules of the other statuses do not stand in its way.
        form.status.data = DRAFT
    form.for_review = submit  # a draft sent for review needs a topic, as a published post
    form.live = post is not None and catalog.state_of(post) == PUBLISHED
    valid = form.validate_on_submit()
    image, upload_status = chosen_image(form, post)
    social_image, social_status = chosen_upload(
        form.social_image,
        form.kept_social_image,
        form.remove_social_image.data,
        post.social_image if post is not None else None,
    )
    upload_status = upload_status or social_status
    start = merge_base if merge_base is not None else based_on  # where this text began
    # A picture someone else added since this form was loaded is theirs to describe: the
    # merge below takes their alt text with it.
    theirs_alone = post is not None and post.lock_version != start and not touched_image(form)
    if image is not None and not form.image_alt.data and not theirs_alone:
        add_error(form.image_alt, "Describe the image for readers who cannot see it.")
    slug = form.slug.data or store.slug_for(form.title.data or "")
    if form.title.data and not slug:
        add_error(form.slug, "Choose an address: the title has no letters or digits to use.")
    elif slug and not form.slug.errors:
        problem = slug_problem_for(slug, post)
        if problem:
            add_error(form.slug, problem)
    new_names = new_names_in(form)
    if not valid or form.errors:
        return editor_page(
            form, post, status=upload_status or 422, image=image, new_names=new_names
        )
    merged_note = ""
    if post is not None and (clash is not None or post.lock_version != start):
        outcome = merge_step(form, post, based_on, merge_base, image, social_image, clash)
        if isinstance(outcome, BaseResponse):
            return outcome
        image, social_image, merged_note = outcome
        slug, based_on = form.slug.data or slug, post.lock_version
    # Merged with draft changes, a save that does not go to readers stays draft changes.
    keeps_waiting = clash is not None and action in ("", TAKE_MINE)
    if (
        post is not None
        and post.status == PUBLISHED
        and (action == publishing.SAVE or keeps_waiting)
    ):
        # "Save draft" on a live or scheduled post: its changes wait, readers keep the text.
        return _save_pending(form, post, image, social_image, based_on, note=merged_note)
    if move:
        # Going to readers or leaving them: asked once, with what readers will see change.
        wanted = (
            move if move == UNPUBLISH else publishing.primary_action(post, form.published_at.data)
        )
        # An answer given before a merge took in another editor's changes did not see them:
        # the merged text is asked about again, so nothing unseen goes to readers.
        if not confirmed or action != publishing.CONFIRM + wanted or merged_note:
            asked = publishing.question(wanted, post, form_text(form), slug)
            if clash is not None and clash.go_live_at is not None and wanted != UNPUBLISH:
                who = clash.editor_name or "another editor"
                when = site_datetime(clash.go_live_at)
                taken_in = f"This takes in {who}’s changes scheduled for {when}: they go live now."
                asked = dataclasses.replace(asked, points=[*asked.points, taken_in])
            return editor_page(
                form,
                post,
                image=image,
                question=asked,
                new_names=new_names,
                merged_note=merged_note,
            )
    if move == publishing.SCHEDULE and post is not None and catalog.state_of(post) == PUBLISHED:
        # A live post's changes wait for their time as its draft changes; readers keep the
        # live text until then (scheduled_changes.py puts them live).
        go_live_at = asked_publish_time(form, None)
        return _save_pending(
            form, post, image, social_image, based_on, note=merged_note, go_live_at=go_live_at
        )
    fields = post_fields(
        form,
        slug,
        image,
        status=stored_status(form.status.data),
        published_at=asked_publish_time(form, post.published_at if post is not None else None),
        featured=form.featured.data,
        editors_pick=form.editors_pick.data,
        social_image=social_image,
        updated_at=post.updated_at if post is not None else None,
        keep_updated_date=form.keep_updated_date.data,
    )
    before = catalog.state_of(post) if post is not None else None
    try:
        if post is None:
            post = store.create_post(fields)
            post.created_by_id = current_user.id
            if uid is not None:
                post.uid = uid
        else:
            if not revisions.has_saved_version(post):
                # Saved outside the editor (an import): keep that text before replacing it.
                revisions.record(post)
            store.update_post(post, fields, based_on=based_on)
            pending.discard(post.id)  # this save holds the draft changes the form opened on
        changes = review.after_save(post, before, submit=submit)
        db.session.flush()  # the id and lock version the revision records
        revisions.record(post, editor_name=current_user.name)
        for kind in changes:
            review.record(post.id, kind, current_user.name)
        db.session.commit()
    except (StaleDataError, store.VersionConflict):
        db.session.rollback()
        assert post is not None
        return version_conflict(form, post_or_404(post.id), image, start)
    except (store.SlugTaken, sa.exc.IntegrityError) as error:
        db.session.rollback()
        made = made_by_form(uid) if is_new else None
        if made is not None:  # the form's autosave stored it while this save was on its way
            return _save_into(made)
        if isinstance(error, store.SlugTaken):
            add_error(form.slug, str(error) if current_user.publishes else TAKEN_ADDRESS)
        else:
            add_error(form.slug, "Another post took this address a moment ago; choose another.")
        return editor_page(form, None if is_new else post, status=409, image=image)
    except markup.TooSlow as slow:
        db.session.rollback()  # nothing of this save is kept
        add_error(form.body, f"{too_slow(slow)}, so it was not saved. {SLOW_TEXT_HINT}")
        return editor_page(
            form,
            None if is_new else post,
            status=422,
            image=image,
            preview_problem=preview_refused(slow),
        )
    return _saved(post, created=is_new or adopted, saved_as=move or action, note=merged_note)


def _save_pending(
    form: PostForm,
    post: Post,
    image: Image | None,
    social_image: Image | None,
    based_on: int,
    *,
    note: str = "",
    go_live_at: datetime | None = None,
) -> BaseResponse:
    """Keep the form as the published post's draft changes (and in its history), leaving the
    post, and all readers see of it, as it is (`note`: what a merged save says), scheduled
    to go live at `go_live_at` when given."""
    fields = pending.fields_of(form, image, social_image, post)
    if go_live_at is not None:
        # The date field is the post's first publish date again: the banner names the time
        # the changes go live, and Save draft or Update work on them as on any changes.
        fields["published_at"] = [pending.form_time(post.published_at)]
    pending.keep(post, fields, current_user, based_on=based_on, go_live_at=go_live_at)
    keep_form_text(form, post.id, revisions.PENDING, "This text is too long to keep.")
    if go_live_at is not None:
        when = site_datetime(go_live_at)
        review.record(post.id, review.CHANGES_SCHEDULED, current_user.name, f"for {when}")
    db.session.commit()
    saved_as = publishing.SCHEDULE if go_live_at is not None else publishing.SAVE
    return _saved(post, created=False, saved_as=saved_as, note=note)


def _discard(post: Post) -> BaseResponse:
    """Drop a published post's draft changes (their text stays in the history): the editor
    opens on the published version again."""
    pending.discard(post.id)
    db.session.commit()
    flash(
        "Draft changes discarded: the form shows the published version. They stay in the history.",
        NOTICE,
    )
    return _reopened(post)


def _unschedule(post: Post, change: PendingChange | None) -> BaseResponse:
    """Keep a live post's scheduled draft changes as plain draft changes: nothing goes live
    by itself."""
    if change is not None and change.go_live_at is not None:
        pending.unschedule(change)
        review.record(post.id, review.CHANGES_HELD, current_user.name, "schedule cancelled")
        db.session.commit()
    flash("Schedule cancelled: the draft changes are kept, and go live only with “Update”.", NOTICE)
    return _reopened(post)


def _reopened(post: Post) -> BaseResponse:
    """The editor on the post as it now stands, after a banner's button."""
    if htmx.fragment_for(EDITOR_FRAGMENTS) is None:
        return redirect(url_for("editor.edit", post_id=post.id), 303)
    post = post_or_404(post.id)
    form, image = opened(post)
    return editor_page(form, post, image=image)


def _keep_editing(form: PostForm, post: Post | None) -> Response:
    """The question's "not now": the editor again with the text as sent, nothing saved."""
    form.validate()
    image, _ = chosen_image(form, post)
    return editor_page(form, post, image=image, new_names=new_names_in(form))


def post_fields(form: PostForm, slug: str, image: Image | None, **state: Any) -> store.PostFields:
    """What the form says of the post's text, names and picture, with `state` (status, date,
    flags...) as the save or the autosave decides it: one reading of the form for both."""
    authors = store.credited(author_names(form.author.data))
    return store.PostFields(
        title=form.title.data or "",
        slug=slug,
        body=form.body.data or "",
        summary=form.summary.data or "",
        topics=list(dict.fromkeys(store.topics_named(topic_names(form.topics.data)).values())),
        author=authors[0],
        coauthors=authors[1:],
        image=image,
        image_alt=form.image_alt.data,
        illustration=drawing_spec.canonical(form.illustration.data or ""),
        meta_description=form.meta_description.data or "",
        **state,
    )


def new_names_in(form: PostForm) -> list[taxonomy.NewName]:
    """The topics and authors the form names that do not exist yet; each one the editor has
    not ticked to create puts a refusal beside its field."""
    if form.topics.errors or form.author.errors:
        return []
    found = taxonomy.new_names(
        topic_names(form.topics.data), author_names(form.author.data), current_user.name
    )
    if not current_user.publishes and any(new.kind == taxonomy.TOPIC for new in found):
        add_error(form.topics, WRITERS_TOPICS)
        return [new for new in found if new.kind != taxonomy.TOPIC]
    for new in taxonomy.unconfirmed(found, form.confirm_new.data or []):
        add_error(
            form.topics if new.kind == taxonomy.TOPIC else form.author, taxonomy.refusal_for(new)
        )
    return found


def _saved(post: Post, *, created: bool, saved_as: str = "", note: str = "") -> BaseResponse:
    """After a save: the fresh editor in place for htmx, a redirect to it otherwise
    (`saved_as`: the bar's action, which the notice names; `note`: what a merged save
    says)."""
    edit_url = url_for("editor.edit", post_id=post.id)
    if htmx.fragment_for(EDITOR_FRAGMENTS) is None:
        flash("Saved.")
        if saved_as:
            flash(saved_as, "saved-as")
        if note:
            flash(note, MERGED)
        return redirect(edit_url, 303)
    post = post_or_404(post.id)
    form, image = opened(post)
    response = editor_page(
        form,
        post,
        image=image,
        saved=True,
        saved_as=saved_as,
        merged_note=note,
    )
    if created:
        response.headers["HX-Replace-Url"] = edit_url
    return response


@bp.post("/preview")
def preview() -> Response:
    """The live preview of the body being typed (an htmx fragment); 422 with a message in
    its place when the body takes too long to render."""
    body = request.form.get("body", "")
    # Refused before any rendering: a body the save would refuse costs the preview nothing.
    length = len(body.replace("\r\n", "\n"))
    if length > BODY_MAX:
        problem = (
            f"The body is {length:,} characters long; a post's body may have at most "
            f"{BODY_MAX:,} characters, so it cannot be shown or saved as it is."
        )
        return htmx.render(
            "editor/post.html", "preview", 413, preview_html="", preview_problem=problem
        )
    rendered, problem = body_preview(body)
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
    problem = slug_refusal(typed)
    if problem:
        slug = ""
    else:  # what the save would keep of the address typed (`My Post!` is kept as `my-post`)
        slug = store.slug_for(typed, max_length=0) if typed else ""
        slug = slug or store.slug_for(request.args.get("title", ""))
    post_id = request.args.get("post", "")
    post = db.session.get(Post, int(post_id)) if post_id.isdigit() and len(post_id) < 10 else None
    problem = problem or (slug_problem_for(slug, post) if slug else None)
    return htmx.render(
        "editor/post.html",
        "slug_hint",
        hint_slug=slug,
        hint_problem=problem,
        hint_typed=bool(typed),
        hint_typed_as=typed if typed and typed != slug else "",
    )


@bp.post("/drawing")
def drawing_preview() -> Response:
    """The live preview of the drawing the `illustration` field chooses, for the title,
    summary and address typed (an htmx fragment); 422 with the rule it breaks instead."""
    form = request.form
    chosen = form.get("chosen", "")  # a suggested composition picked below the drawing
    text = store.clean_text(chosen or form.get("illustration", "")).strip()
    title = store.clean_text(form.get("title", ""))[:TITLE_MAX]
    summary = store.clean_text(form.get("summary", ""))[:SUMMARY_MAX]
    slug = store.slug_for(form.get("slug", "")[:SLUG_MAX] or title) or "new-post"
    try:
        written = drawing_spec.canonical(text)
    except drawing_spec.SpecError as error:
        return htmx.render("editor/_drawing.html", None, 422, drawing_problem=error.plain)
    if chosen:  # the field itself comes back holding the choice, and draws it
        picked = PostForm(formdata=None, illustration=written)
        return htmx.render("editor/_drawing_field.html", None, form=picked)
    drawing = drawing_for(slug, title, summary, written)
    return htmx.render(
        "editor/_drawing.html",
        None,
        drawing=drawing,
        written=written,
        slug=slug,
        title=title,
        summary=summary,
    )


def autosaved_post(raw: str) -> Post:
    """The post a new post's form names once an autosave stored it (400 for a bad id)."""
    if not (raw.isascii() and raw.isdigit()) or len(raw) > 9:
        abort(400, description="The form lost track of its post. Reload the page.")
    post = post_or_404(int(raw), checked=False)
    if not roles.may_change(current_user, post):
        abort(403, description=roles.NOT_A_DRAFT)
    return post
