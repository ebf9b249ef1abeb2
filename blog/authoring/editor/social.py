"""The post editor's fields for search engines and link previews: what the social image
field shows while a post is being edited."""

from __future__ import annotations

from blog.authoring.editor import bp
from blog.authoring.forms import PostForm
from blog.media.images import image_by_hash
from blog.models import Image, Post


@bp.app_template_global()
def social_image_shown(form: PostForm, post: Post | None) -> Image | None:
    """The social image the form stands for: one uploaded with a refused save (kept by
    hash), else the post's own unless the editor chose to remove it."""
    kept = image_by_hash(form.kept_social_image.data or "")
    if kept is not None:
        return kept
    if post is None or form.remove_social_image.data:
        return None
    return post.social_image
