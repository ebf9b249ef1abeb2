"""A WordPress export (WXR) read into entries: statuses, shortcodes, authors, untitled posts,
uploads; and the XML that must never be expanded or fetched."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

import pytest

from blog.transfer.formats import detection, wordpress

DATA = Path(__file__).parents[2] / "data" / "transfer" / "wordpress"


def site_of(path: Path, **options):
    """The export read."""
    return wordpress.read_site(detection.detect(path), **options)


def test_each_status_and_shortcode():
    """Published, scheduled, draft, pending, private and password-protected posts map to
    published, scheduled or draft; pages and the rest are counted; shortcodes become
    figures, images and links; an untitled post gets its first words."""
    site = site_of(DATA / "export.xml", uploads=DATA / "uploads")
    assert site.problems == []
    posts = {post.entry.slug: post for post in site.posts}
    assert sorted(posts) == [
        "descaling-the-kettle",
        "kettle-rota",
        "locked-recipe",
        "new-kettle",
        "private-notes",
        "someone-left-the-kettle-on-all-weekend-again",
        "waiting-for-review",
    ]
    kettle = posts["descaling-the-kettle"]
    assert kettle.entry.published_at == datetime(2022, 5, 14, 7, 30)
    assert not kettle.entry.draft
    assert kettle.entry.topics == ["Kitchen", "Limescale"]
    assert kettle.authors == ["Rune Dahl"]
    assert kettle.entry.summary == "Four minutes to boil, then two."
    assert kettle.old_paths == ["/2022/05/14/descaling-the-kettle", "/?p=11"]
    body = kettle.entry.body
    assert "wp:paragraph" not in body and "[caption" not in body and "[gallery" not in body
    assert "<figcaption>The kettle before we started</figcaption>" in body
    assert 'src="2022/05/kettle.png"' in body  # the sized copy's original, from --uploads
    assert "![](2022/05/scale.png)" in body
    assert "<https://video.example/watch/descale>" in body
    assert "## What we used" in body
    assert '"two spoons"' in body
    assert site.left["[contact-form]"] == 1
    assert posts["new-kettle"].entry.published_at == datetime(2099, 1, 5, 8)
    assert not posts["new-kettle"].entry.draft
    for slug in ("kettle-rota", "waiting-for-review", "private-notes", "locked-recipe"):
        assert posts[slug].entry.draft, slug
    assert posts["kettle-rota"].entry.body == (
        "Whoever empties it last fills it.\n\nNobody argues with the rota."
    )
    untitled = posts["someone-left-the-kettle-on-all-weekend-again"]
    assert untitled.entry.title == "Someone left the kettle on all weekend again."
    skipped = "\n".join(site.skipped)
    for said in (
        "private, imported as a draft",
        "password-protected, imported as a draft",
        "no title; titled “Someone left the kettle on all weekend again.”",
        "status `trash`",
        "1 item(s) of type page",
        "1 item(s) of type nav_menu_item",
        "2 item(s) of type attachment",
    ):
        assert said in skipped


def test_without_uploads_images_keep_their_old_address():
    """No --uploads: an image stays at its old address, and is counted."""
    site = site_of(DATA / "export.xml")
    body = site.posts[0].entry.body
    assert "https://kettle.example/wp-content/uploads/2022/05/kettle-60x40.png" in body
    assert site.left["images kept at their old address (no --uploads file)"] == 3


BOMB = """<?xml version="1.0"?>
<!DOCTYPE rss [
 <!ENTITY a "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa">
 <!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">
 <!ENTITY c "&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;">
 <!ENTITY d "&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;">
]>
<rss><channel><title>&d;</title></channel></rss>
"""
EXTERNAL = """<?xml version="1.0"?>
<!DOCTYPE rss [<!ENTITY secret SYSTEM "file:///etc/passwd">]>
<rss xmlns:wp="http://wordpress.org/export/1.2/"><channel><wp:wxr_version>1.2</wp:wxr_version>
<item><title>&secret;</title><wp:post_type>post</wp:post_type></item></channel></rss>
"""


@pytest.mark.parametrize("text", [BOMB, EXTERNAL])
def test_entities_are_refused_never_expanded(tmp_path, text):
    """An entity bomb or an external entity refuses the file, with a clear message."""
    path = tmp_path / "export.xml"
    path.write_text(text)
    site = site_of(path)
    assert site.posts == []
    [problem] = site.problems
    assert problem.line == 1
    assert "declares a document type or entities" in problem.message


def test_not_an_export(tmp_path):
    """XML that is not a WordPress export, or not XML, is a problem with a line."""
    path = tmp_path / "export.xml"
    path.write_text("<rss><channel></channel></rss>")
    assert "not a WordPress export" in site_of(path).problems[0].message
    path.write_text("<rss><channel>\n<item></channel>")
    [problem] = site_of(path).problems
    assert problem.line == 2 and "not valid XML" in problem.message


HEAD = """<?xml version="1.0" encoding="UTF-8"?>
<rss version="2.0" xmlns:excerpt="http://wordpress.org/export/1.2/excerpt/"
 xmlns:content="http://purl.org/rss/1.0/modules/content/"
 xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:wp="http://wordpress.org/export/1.2/">
<channel><title>Garden log</title><link>https://garden.example</link>
<wp:wxr_version>1.2</wp:wxr_version>
<wp:author><wp:author_login>ola</wp:author_login>
<wp:author_display_name>Ola Berg</wp:author_display_name></wp:author>
"""


def meta(key: str, value: str) -> str:
    """A custom field of an item."""
    return (
        f"<wp:postmeta><wp:meta_key>{key}</wp:meta_key>"
        f"<wp:meta_value>{value}</wp:meta_value></wp:postmeta>"
    )


def item(number: int, slug: str, title: str, extra: str = "") -> str:
    """A published post of the garden log."""
    return (
        f"<item><title>{title}</title><link>https://garden.example/{slug}/</link>"
        f"<dc:creator>ola</dc:creator><content:encoded><![CDATA[<p>Notes on {title}.</p>]]>"
        f"</content:encoded><wp:post_id>{number}</wp:post_id>"
        f"<wp:post_date_gmt>2023-04-0{number} 08:00:00</wp:post_date_gmt>"
        f"<wp:post_name>{slug}</wp:post_name><wp:status>publish</wp:status>"
        f'<wp:post_type>post</wp:post_type><category domain="category">Beds</category>'
        f"{extra}</item>\n"
    )


def attachment(number: int, path: str, title: str, alt: str = "") -> str:
    """An uploaded file's item."""
    return (
        f"<item><title>{title}</title><wp:post_id>{number}</wp:post_id>"
        f"<wp:post_type>attachment</wp:post_type><wp:attachment_url>"
        f"https://garden.example/wp-content/uploads/{path}</wp:attachment_url>"
        f"{meta('_wp_attachment_image_alt', alt) if alt else ''}</item>\n"
    )


COMMENT = "<wp:comment><wp:comment_content>Nice beds.</wp:comment_content></wp:comment>"


def garden(root: Path, picture: str = "2023/04/bed.png") -> tuple[Path, Path]:
    """A WordPress export of four posts with featured images (one whose file is missing,
    one whose attachment is not in the export), comments, a custom field, a sticky post, an
    earlier slug, and a copy of its uploads; the export and the uploads folder."""
    uploads = root / "uploads" / "2023" / "04"
    uploads.mkdir(parents=True)
    png = Path(__file__).parents[2] / "data" / "transfer" / "images" / "vacuum-gauge.png"
    (uploads / "bed.png").write_bytes(png.read_bytes())
    # The same picture under a second name: two files, one stored image.
    (uploads / "heap.png").write_bytes(png.read_bytes())
    items = [
        item(
            1,
            "raised-beds",
            "Raised beds",
            meta("_thumbnail_id", "10")
            + meta("mood", "sunny")
            + COMMENT
            + COMMENT
            + "<wp:is_sticky>1</wp:is_sticky>",
        ),
        item(
            2,
            "compost",
            "Compost",
            meta("_thumbnail_id", "11")
            + meta("_wp_old_slug", "composting")
            + meta("_wp_old_slug", "../../etc"),
        ),
        item(3, "seeds", "Seeds", meta("_thumbnail_id", "12")),
        item(4, "frost", "Frost", meta("_thumbnail_id", "99")),
        attachment(10, picture, "Bed", "A raised bed of dark soil"),
        attachment(11, "2023/04/heap.png", "The compost heap in April"),
        attachment(12, "2023/04/gone.png", "Gone"),
    ]
    export = root / "garden.xml"
    export.write_text(HEAD + "".join(items) + "</channel></rss>\n")
    return export, root / "uploads"


def test_featured_images_comments_and_custom_fields(tmp_path):
    """A featured image in --uploads is the post's picture, with its alt text (else its
    attachment's title); one missing, or not in the export, is listed; comments and a
    public custom field are counted as ignored; a sticky post is featured."""
    export, uploads = garden(tmp_path)
    site = site_of(export, uploads=uploads)
    assert site.problems == []
    posts = {post.entry.slug: post.entry for post in site.posts}
    assert (posts["raised-beds"].image, posts["raised-beds"].image_alt) == (
        "2023/04/bed.png",
        "A raised bed of dark soil",
    )
    assert (posts["compost"].image, posts["compost"].image_alt) == (
        "2023/04/heap.png",
        "The compost heap in April",
    )
    assert posts["seeds"].image is None and posts["frost"].image is None
    assert posts["raised-beds"].featured and not posts["compost"].featured
    notes = "\n".join(site.notes)
    gone = "https://garden.example/wp-content/uploads/2023/04/gone.png"
    assert (
        f"(item 3, post 3): its featured image {gone} was not brought in"
        f" (no 2023/04/gone.png in {uploads})"
    ) in notes
    assert "(item 4, post 4): its featured image (attachment 99) is not in the export" in notes
    assert "2 comment(s) on 1 post(s) are not imported" in notes
    assert dict(site.ignored) == {"comments": 1, "meta.mood": 1}


def test_without_uploads_featured_images_are_listed(tmp_path):
    """Without --uploads no featured image is brought in, and each is listed."""
    export, _ = garden(tmp_path)
    site = site_of(export)
    assert all(post.entry.image is None for post in site.posts)
    assert sum("was not brought in (pass --uploads)" in note for note in site.notes) == 3


def test_strict_refuses_comments_and_custom_fields(tmp_path):
    """--strict refuses what has no place, named at the item; --ignore-field lets it go."""
    export, uploads = garden(tmp_path)
    site = site_of(export, uploads=uploads, strict=True)
    assert [str(problem) for problem in site.problems] == [
        f"{export} (item 1, post 1):1: `comments` has no place in Fieldnotes (1 post has"
        " it); pass --ignore-field comments to leave it out, or drop --strict",
        f"{export} (item 1, post 1):1: `meta.mood` has no place in Fieldnotes (1 post has"
        " it); pass --ignore-field meta.mood to leave it out, or drop --strict",
    ]
    quiet = site_of(
        export, uploads=uploads, strict=True, ignore=frozenset({"comments", "meta.mood"})
    )
    assert quiet.problems == [] and not quiet.ignored


def test_earlier_slugs_are_old_addresses(tmp_path):
    """Each `_wp_old_slug` gives the post's address with that slug, which WordPress still
    redirected; one that is not a slug (`../../etc`) gives nothing."""
    export, uploads = garden(tmp_path)
    posts = {post.entry.slug: post for post in site_of(export, uploads=uploads).posts}
    assert posts["compost"].old_paths == ["/compost", "/composting", "/?p=2"]
