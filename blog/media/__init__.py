"""Media: what both readers and editors show.

Stored images and their resized copies (`images`, `renditions`, `image_route`), the drawings
generated for posts without an image (`drawings`, `illustrations`, `drawing_spec`), the picture
a card or page shows (`pictures`) and link-preview PNGs (`previews`).

It may import `config`, `models`, `database`, `markup`, `extensions` and `web`; never
`reading`, `authoring`, `transfer` or `cli`.
"""

from __future__ import annotations

from flask import Flask


def init_app(app: Flask) -> None:
    """Register the media routes and the template globals pages draw pictures with."""
    from blog.media import image_route, pictures, previews
    from blog.media.images import image_url

    app.register_blueprint(pictures.bp)
    app.register_blueprint(previews.bp)
    app.register_blueprint(image_route.bp)
    app.jinja_env.globals["picture"] = pictures.picture
    app.jinja_env.globals["image_url"] = image_url
