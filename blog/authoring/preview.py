"""A stored post, draft or not, shown to editors in the real post template: never kept by
any cache, never indexed."""

from __future__ import annotations

from flask import render_template
from flask.wrappers import Response

from blog.authoring import store
from blog.authoring.editor import bp, post_or_404
from blog.reading import listing, seo


@bp.get("/posts/<id:post_id>/preview")
def post_preview(post_id: int) -> Response:
    """The post as readers would see it on its page, as last saved, with a note that it is a
    preview (the editor blueprint requires a login and forbids storing the answer)."""
    post = post_or_404(post_id)
    # A post without a date has no place among the others yet.
    newer, older = listing.neighbours(post) if post.published_at else (None, None)
    body = render_template(
        "editor/post_preview.html",
        post=post,
        state=store.state_of(post),
        meta=seo.post_meta(post),
        related=listing.related(post),
        newer=newer,
        older=older,
    )
    response = Response(body)
    response.headers["X-Robots-Tag"] = "noindex, nofollow"
    return response
