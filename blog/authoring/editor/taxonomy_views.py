"""The pages that tidy topics and authors: /editor/topics and /editor/authors.

Plain forms, each answered with a redirect to the page that shows the result (303), or with
the page again, the editor's text kept and the refusal beside the form, with its status.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from flask import abort, current_app, flash, redirect, request, url_for
from flask.wrappers import Response
from flask_wtf import FlaskForm
from werkzeug.wrappers import Response as BaseResponse

from blog import catalog
from blog.authoring import taxonomy
from blog.authoring.editor import bp
from blog.authoring.taxonomy_forms import (
    DeleteForm,
    DescribeForm,
    MergeForm,
    ProfileForm,
    RenameForm,
)
from blog.extensions import db
from blog.media.images import ImageError, image_url, store_image
from blog.models import Author, Image, Topic
from blog.web import htmx
from blog.web.converters import MAX_ROW_ID

Named = TypeVar("Named", Author, Topic)
FORMS: dict[str, type[FlaskForm]] = {
    "rename": RenameForm,
    "describe": DescribeForm,
    "merge": MergeForm,
    "delete": DeleteForm,
    "profile": ProfileForm,
}
LIST_ENDPOINT = {Topic: "editor.topics", Author: "editor.authors"}
PAGE_ENDPOINT = {Topic: "editor.topic", Author: "editor.author"}


def _list_page(model: type[Named]) -> Response:
    """Every topic or author with its post count, linking to the page that tidies it."""
    kind = taxonomy.kind_of(model)
    return htmx.render(
        "editor/taxonomy.html",
        None,
        kind=kind,
        rows=taxonomy.with_post_counts(model),
    )


def _item_page(
    model: type[Named],
    row_id: int,
    *,
    status: int = 200,
    action: str = "",
    problem: str = "",
    forms: dict[str, FlaskForm] | None = None,
) -> Response:
    """The page of one topic or author: its forms, filled from the row unless `forms` (the
    editor's refused submission) says otherwise; `problem` is shown beside `action`'s form."""
    row = taxonomy.row_by_id(model, row_id)
    if row is None:
        abort(404, description=f"There is no such {taxonomy.kind_of(model)}.")
    filled = {name: form_class(formdata=None) for name, form_class in FORMS.items()}
    filled["rename"].name.data = row.name
    for form in filled.values():
        if hasattr(form, "shown_name"):
            form.shown_name.data = row.name
    if isinstance(row, Topic):
        filled["describe"].description.data = row.description
        filled["describe"].shown_description.data = row.description
    else:
        filled["profile"].bio.data = filled["profile"].shown_bio.data = row.bio
        filled["profile"].url.data = filled["profile"].shown_url.data = row.url or ""
    filled |= forms or {}
    avatar = row.avatar if isinstance(row, Author) else None
    others = [other for other, _ in taxonomy.with_post_counts(model) if other.id != row.id]
    return htmx.render(
        f"editor/{taxonomy.kind_of(model)}.html",
        None,
        status,
        kind=taxonomy.kind_of(model),
        row=row,
        posts=taxonomy.post_count(model, row.id),
        old_addresses=catalog.old_addresses(row) if isinstance(row, Topic) else [],
        others=others,
        forms=filled,
        action=action,
        problem=problem,
        avatar=avatar,
        avatar_src=image_url(avatar) if avatar is not None else None,
        max_image_mb=f"{current_app.config['MAX_IMAGE_BYTES'] / (1024 * 1024):g}",
    )


def _target_id(raw: str | None, kind: str) -> int:
    """The id of the topic or author to merge into: 422 when none was chosen, 404 when the
    value names no row this site could hold."""
    text = (raw or "").strip()
    if not text:
        raise taxonomy.Refused(422, f"Choose the {kind} to merge into.")
    if not (text.isascii() and text.isdigit()) or len(text) > 10 or int(text) > MAX_ROW_ID:
        raise taxonomy.Refused(404, f"There is no such {kind} to merge into.")
    return int(text)


def _act(
    model: type[Named],
    row_id: int,
    action: str,
    change: Callable[[FlaskForm], tuple[str, str]],
) -> BaseResponse:
    """Run one change from a posted form: commit and redirect to (endpoint, message) that
    `change` returns, or roll back and show the page again with the refusal."""
    form = FORMS[action]()
    if not form.validate_on_submit():
        abort(400, description="This page's security token is no longer valid. Reload it.")
    try:
        where, message = change(form)
        db.session.commit()
    except taxonomy.Refused as refused:
        db.session.rollback()
        if refused.status == 404 and taxonomy.row_by_id(model, row_id) is None:
            abort(404, description=refused.message)  # the row itself is gone
        return _item_page(
            model,
            row_id,
            status=refused.status,
            action=action,
            problem=refused.message,
            forms={action: form},
        )
    flash(message)
    return redirect(where, 303)


def _rename(model: type[Named], row_id: int) -> BaseResponse:
    """Rename, keeping a topic's old address as a redirect."""

    def change(form: FlaskForm) -> tuple[str, str]:
        old = taxonomy.row_or_404(model, row_id).name
        row = taxonomy.rename(model, row_id, form.name.data, form.shown_name.data)
        said = f"Renamed “{old}” to “{row.name}”."
        if isinstance(row, Topic) and old != row.name:
            said += f" Its old address now leads to /topics/{row.slug}."
        return url_for(PAGE_ENDPOINT[model], row_id=row.id), said

    return _act(model, row_id, "rename", change)


def _merge_question(model: type[Named], row_id: int, status: int = 200) -> Response:
    """The page that asks before a merge, saying how many posts move (from the merge form,
    sent with GET so it works without scripts); the topic or author's page with the refusal
    when the choice is no target at all, or the row itself."""
    kind = taxonomy.kind_of(model)
    form = MergeForm(request.args if request.method == "GET" else request.form)
    row = taxonomy.row_by_id(model, row_id)
    if row is None:
        abort(404, description=f"There is no such {kind}: another editor may have removed it.")
    try:
        target_id = _target_id(form.into.data, kind)
        target = taxonomy.row_by_id(model, target_id)
        if target is None:
            raise taxonomy.Refused(404, f"There is no such {kind} to merge into.")
        if target.id == row.id:
            raise taxonomy.Refused(
                422, f"A {kind} cannot be merged into itself: choose another {kind}."
            )
    except taxonomy.Refused as refused:
        return _item_page(
            model,
            row_id,
            status=refused.status,
            action="merge",
            problem=refused.message,
            forms={"merge": form},
        )
    posts = taxonomy.post_count(model, row.id)
    confirm = MergeForm(formdata=None)
    confirm.into.data, confirm.shown_name.data = str(target.id), row.name
    confirm.shown_posts.data, confirm.confirmed.data = str(posts), "yes"
    return htmx.render(
        "editor/merge.html",
        None,
        status,
        kind=kind,
        row=row,
        target=target,
        posts=posts,
        form=confirm,
        back=url_for(PAGE_ENDPOINT[model], row_id=row.id),
    )


def _merge(model: type[Named], row_id: int) -> BaseResponse:
    """Ask first (GET, or a POST without the confirmation: 422); once confirmed, merge into
    the other topic or author and show that one."""
    kind = taxonomy.kind_of(model)
    if request.method == "GET":
        return _merge_question(model, row_id)
    if request.form.get("confirmed") != "yes":
        if not MergeForm().validate_on_submit():
            abort(400, description="This page's security token is no longer valid. Reload it.")
        return _merge_question(model, row_id, status=422)

    def change(form: FlaskForm) -> tuple[str, str]:
        target_id = _target_id(form.into.data, kind)
        source = taxonomy.row_or_404(model, row_id).name
        moved = taxonomy.post_count(model, row_id)
        shown = (form.shown_posts.data or "").strip()
        if shown and shown != str(moved):
            raise taxonomy.Refused(
                409,
                f"“{source}” is now on {_posts(moved)}, not {shown}: another editor changed "
                "its posts while you had the page open. Nothing was merged; look again and "
                "retry.",
            )
        target = taxonomy.merge(model, row_id, target_id, form.shown_name.data)
        return (
            url_for(PAGE_ENDPOINT[model], row_id=target.id),
            f"Merged “{source}” into “{target.name}”: {_posts(moved)} moved.",
        )

    return _act(model, row_id, "merge", change)


def _posts(count: int) -> str:
    """ "1 post", "1,204 posts"."""
    return f"{count:,} post" + ("" if count == 1 else "s")


def _delete(model: type[Named], row_id: int) -> BaseResponse:
    """Delete an unused topic or author, then show the list."""

    def change(form: FlaskForm) -> tuple[str, str]:
        name = taxonomy.delete(model, row_id, form.shown_name.data)
        return url_for(LIST_ENDPOINT[model]), f"Deleted “{name}”."

    return _act(model, row_id, "delete", change)


# Topics ------------------------------------------------------------------------------------


@bp.get("/topics")
def topics() -> Response:
    """Every topic with its post count and description."""
    return _list_page(Topic)


@bp.get("/topics/<id:row_id>")
def topic(row_id: int) -> Response:
    """One topic: rename, describe, merge or delete it."""
    return _item_page(Topic, row_id)


@bp.post("/topics/<id:row_id>/rename")
def rename_topic(row_id: int) -> BaseResponse:
    """Rename a topic; its old address answers 301 with the new one."""
    return _rename(Topic, row_id)


@bp.post("/topics/<id:row_id>/describe")
def describe_topic(row_id: int) -> BaseResponse:
    """Set the description the topic page shows under its heading."""

    def change(form: FlaskForm) -> tuple[str, str]:
        topic = taxonomy.describe(
            row_id, form.description.data, request.form.get("shown_description")
        )
        return url_for("editor.topic", row_id=topic.id), f"Saved the description of “{topic.name}”."

    return _act(Topic, row_id, "describe", change)


@bp.route("/topics/<id:row_id>/merge", methods=["GET", "POST"])
def merge_topic(row_id: int) -> BaseResponse:
    """Ask, then move a topic's posts and addresses to another topic and remove it."""
    return _merge(Topic, row_id)


@bp.post("/topics/<id:row_id>/delete")
def delete_topic(row_id: int) -> BaseResponse:
    """Delete a topic no post is filed under (409 otherwise)."""
    return _delete(Topic, row_id)


# Authors -----------------------------------------------------------------------------------


@bp.get("/authors")
def authors() -> Response:
    """Every author with their post count."""
    return _list_page(Author)


@bp.get("/authors/<id:row_id>")
def author(row_id: int) -> Response:
    """One author: rename, merge or delete them."""
    return _item_page(Author, row_id)


@bp.post("/authors/<id:row_id>/rename")
def rename_author(row_id: int) -> BaseResponse:
    """Rename an author."""
    return _rename(Author, row_id)


@bp.route("/authors/<id:row_id>/merge", methods=["GET", "POST"])
def merge_author(row_id: int) -> BaseResponse:
    """Ask, then credit an author's posts to another author and remove the first."""
    return _merge(Author, row_id)


@bp.post("/authors/<id:row_id>/delete")
def delete_author(row_id: int) -> BaseResponse:
    """Delete an author no post credits (409 otherwise)."""
    return _delete(Author, row_id)


@bp.post("/authors/<id:row_id>/profile")
def author_profile(row_id: int) -> BaseResponse:
    """Set an author's bio, link (http or https) and avatar (an uploaded image)."""

    def change(form: FlaskForm) -> tuple[str, str]:
        author = taxonomy.set_profile(
            row_id,
            bio=form.bio.data,
            url=form.url.data,
            avatar=_avatar(form),
            shown_bio=request.form.get("shown_bio"),
            shown_url=request.form.get("shown_url"),
        )
        return url_for("editor.author", row_id=author.id), f"Saved the profile of {author.name}."

    return _act(Author, row_id, "profile", change)


def _avatar(form: FlaskForm) -> Image | str | None:
    """The avatar the profile form asks for: a new upload (checked and cleaned by the image
    store), none when "remove" is ticked, else KEEP."""
    upload = form.avatar.data
    if upload is not None and getattr(upload, "filename", None):
        limit = current_app.config["MAX_IMAGE_BYTES"]
        try:
            return store_image(upload.stream.read(limit + 1))
        except ImageError as error:
            status = 413 if error.status == 413 else 422
            raise taxonomy.Refused(status, f"{error.message} Choose the image again.") from None
    if form.remove_avatar.data:
        return None
    return taxonomy.KEEP
