"""A WordPress export (WXR 1.2, the `.xml` file of Tools → Export).

What maps to what:

- items of type `post` are posts; pages, attachments and menu items are counted and skipped;
- `publish` → published, `future` → scheduled (published at its future date), `draft` and
  `pending` → drafts; `private` and password-protected posts → drafts, listed; trashed and
  automatic drafts are skipped;
- categories then tags: the topics; `dc:creator` the author, by the display name of its
  `wp:author`; the excerpt the summary; `wp:post_name` the slug; `wp:post_date_gmt` the date;
- the body's HTML becomes Markdown (markdownify), its Gutenberg block comments removed,
  paragraphs kept (WordPress writes them as blank lines); `[caption]` becomes a figure,
  `[gallery]` a list of its images, `[embed]` a link; other shortcodes are left and counted;
- a post with no title gets its first words (or its date), and is listed;
- old addresses: the item's `<link>` path, the same with each earlier slug (`_wp_old_slug`)
  in place of the present one, and `/?p=ID`;
- images under `wp-content/uploads/` are read from `--uploads DIR` (a copy of that folder);
  without it, or when a file is missing, an image keeps its old address and is counted;
- the featured image (`_thumbnail_id` → its attachment) is the post's picture, with the
  attachment's alt text (else its title, else the post's), from `--uploads`; without it, or
  when the file is missing, it is listed; a path leading outside the folder is refused;
- sticky posts are featured;
- comments, custom fields and post formats have no place: they are counted as ignored, and
  `--strict` refuses them.

The XML is read by defusedxml with document types refused: no entity is ever expanded and
nothing outside the file is ever read.
"""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit
from xml.etree.ElementTree import Element

import defusedxml.ElementTree as SafeTree
from defusedxml import DefusedXmlException
from markdownify import MarkdownConverter

from blog.authoring.store import slug_for
from blog.transfer.formats import detection
from blog.transfer.formats.site import (
    Fields,
    ForeignPost,
    Site,
    entry_of,
    foreign_post,
)
from blog.transfer.frontmatter import ALT_MAX, Problem
from blog.transfer.progress import steps

# A WXR file is read whole: a bigger one is refused unread.
WXR_MAX = 200 * 1024 * 1024
NS = {
    "content": "http://purl.org/rss/1.0/modules/content/",
    "excerpt": "http://wordpress.org/export/1.2/excerpt/",
    "dc": "http://purl.org/dc/elements/1.1/",
}
WP_VERSIONS = ("1.2", "1.1", "1.0")
PUBLISHED = {"publish", "future"}
DRAFTS = {"draft", "pending", "private"}
TITLE_WORDS = 8
UPLOADS = "/wp-content/uploads/"
_BLOCK_COMMENT = re.compile(r"<!--\s*/?wp:.*?-->\n?", re.DOTALL)
_SHORTCODE = re.compile(r"\[(/?)([a-z_][\w-]*)([^\]]*)\]")
_CAPTION = re.compile(r"\[caption([^\]]*)\](.*?)\[/caption\]", re.DOTALL)
_EMBED = re.compile(r"\[embed[^\]]*\](.*?)\[/embed\]", re.DOTALL)
_GALLERY = re.compile(r"\[gallery([^\]]*)\]")
_ATTRIBUTE = re.compile(r"(\w+)=(?:\"([^\"]*)\"|'([^']*)'|(\S+))")
_SIZED = re.compile(r"-\d+x\d+(?=\.\w+$)")
# Field names (for --ignore-field and --strict) of what a post item has and Fieldnotes keeps
# no place for; a custom field is `meta.<its key>`.
COMMENTS = "comments"
POST_FORMAT = "post_format"
THUMBNAIL = "_thumbnail_id"
ALT_KEY = "_wp_attachment_image_alt"
OLD_SLUG = "_wp_old_slug"
_BLOCK_TAGS = re.compile(r"<(p|div|h[1-6]|ul|ol|pre|table|figure|blockquote)\b", re.IGNORECASE)


class _Converter(MarkdownConverter):
    """markdownify, keeping as HTML what the allow-list reads and Markdown cannot write."""

    def convert_figure(self, el: Any, text: str, parent_tags: Any = None) -> str:
        return f"\n\n{el}\n\n"

    def convert_details(self, el: Any, text: str, parent_tags: Any = None) -> str:
        return f"\n\n{el}\n\n"

    def convert_sup(self, el: Any, text: str, parent_tags: Any = None) -> str:
        return f"<sup>{text}</sup>"

    def convert_sub(self, el: Any, text: str, parent_tags: Any = None) -> str:
        return f"<sub>{text}</sub>"


def _language(el: Any) -> str:
    """A code block's language, from a `language-x` class on it or its code."""
    for node in (el, el.find("code")):
        for name in (node.get("class") or []) if node is not None else []:
            if name.startswith("language-"):
                return str(name.removeprefix("language-"))
    return ""


def to_markdown(html: str) -> str:
    """A WordPress body's HTML as Markdown."""
    converter = _Converter(
        heading_style="ATX", bullets="-", code_language_callback=_language, escape_misc=False
    )
    return str(converter.convert(html))


def _text(item: Element, tag: str) -> str:
    """An element's text ("" when it is missing)."""
    found = item.find(tag, NS)
    return (found.text or "") if found is not None else ""


def _attributes(text: str) -> dict[str, str]:
    """A shortcode's attributes."""
    return {m[1].lower(): m[2] or m[3] or m[4] or "" for m in _ATTRIBUTE.finditer(text)}


def _paragraphs(html: str) -> str:
    """WordPress's paragraphs: text between blank lines, when the body has no block tags."""
    if _BLOCK_TAGS.search(html):
        return html
    parts = [part.strip() for part in re.split(r"\n\s*\n", html) if part.strip()]
    return "\n".join(f"<p>{part.replace(chr(10), '<br>')}</p>" for part in parts)


def _shortcodes(html: str, attachments: dict[str, str], left: Counter[str]) -> str:
    """[caption] as a figure, [gallery] as its images, [embed] as a link; others counted."""

    def caption(match: re.Match[str]) -> str:
        inner = match.group(2).strip()
        image = re.search(r"<a\b[^>]*>\s*<img\b[^>]*>\s*</a>|<img\b[^>]*>", inner)
        if image is None:
            return inner
        words = (inner[: image.start()] + inner[image.end() :]).strip()
        return f"<figure>{image.group(0)}<figcaption>{words}</figcaption></figure>"

    def gallery(match: re.Match[str]) -> str:
        ids = _attributes(match.group(1)).get("ids", "")
        images = [attachments[i.strip()] for i in ids.split(",") if i.strip() in attachments]
        if not images:
            left["[gallery] without its images"] += 1
            return ""
        return "".join(f'<p><img src="{url}" alt=""></p>' for url in images)

    html = _CAPTION.sub(caption, html)
    html = _GALLERY.sub(gallery, html)
    html = _EMBED.sub(
        lambda m: f'<p><a href="{m.group(1).strip()}">{m.group(1).strip()}</a></p>', html
    )
    for match in _SHORTCODE.finditer(html):
        if not match.group(1):
            left[f"[{match.group(2)}]"] += 1
    return html


def _local_images(html: str, site_urls: list[str], uploads: Path | None, left: Counter[str]) -> str:
    """Images under wp-content/uploads/ pointed at their file in `uploads` (a path relative
    to it) when it has them; the others keep their old address and are counted."""

    def local(match: re.Match[str]) -> str:
        relative = _uploaded(match.group(2), site_urls)
        if relative is None:
            return match.group(0)
        if uploads is not None:
            for candidate in (relative, _SIZED.sub("", relative)):
                if (uploads / candidate).is_file():
                    return f"{match.group(1)}{candidate}{match.group(3)}"
        left["images kept at their old address (no --uploads file)"] += 1
        return match.group(0)

    return re.sub(r"(<img\b[^>]*?\bsrc=[\"'])([^\"']+)([\"'])", local, html)


def read_site(
    detected: detection.Detected,
    *,
    ignore: frozenset[str] = frozenset(),
    strict: bool = False,
    uploads: Path | None = None,
    progress: bool = False,
) -> Site:
    """Every post of the export, checked, with what was skipped and left."""
    path = detected.root
    shown = str(path)
    site = Site(kind=detection.WORDPRESS, root=(uploads or path.parent).resolve())
    try:
        size = path.stat().st_size
        if size > WXR_MAX:
            site.problems.append(Problem(shown, 1, f"larger than {WXR_MAX:,} bytes"))
            return site
        root = SafeTree.fromstring(path.read_bytes(), forbid_dtd=True)
    except DefusedXmlException as error:
        message = (
            f"refused: the file declares a document type or entities ({type(error).__name__}),"
            " which a WordPress export never has; nothing in it is expanded or fetched"
        )
        site.problems.append(Problem(shown, 1, message))
        return site
    except SafeTree.ParseError as error:
        line = getattr(error, "position", (1, 0))[0]
        site.problems.append(Problem(shown, line, f"not valid XML: {error}"))
        return site
    except OSError as error:
        site.problems.append(Problem(shown, 1, f"cannot be read: {error.strerror}"))
        return site
    channel = root.find("channel")
    wp = _wp_namespace(root)
    if channel is None or wp is None:
        site.problems.append(Problem(shown, 1, "not a WordPress export (no channel, no wp:)"))
        return site
    names = {
        _text(author, f"{{{wp}}}author_login"): _text(author, f"{{{wp}}}author_display_name")
        for author in channel.findall(f"{{{wp}}}author")
    }
    site_urls = [
        url.rstrip("/")
        for url in (
            _text(channel, "link"),
            _text(channel, f"{{{wp}}}base_site_url"),
            _text(channel, f"{{{wp}}}base_blog_url"),
        )
        if url
    ]
    items = channel.findall("item")
    attachments = {
        _text(item, f"{{{wp}}}post_id"): _text(item, f"{{{wp}}}attachment_url")
        for item in items
        if _text(item, f"{{{wp}}}post_type") == "attachment"
    }
    alts = {
        _text(item, f"{{{wp}}}post_id"): _meta(item, wp).get(ALT_KEY, "").strip()
        or _text(item, "title").strip()
        for item in items
        if _text(item, f"{{{wp}}}post_type") == "attachment"
    }
    kinds: Counter[str] = Counter()
    comments = commented = 0
    for number, item in steps(list(enumerate(items, 1)), "Reading posts", progress):
        kind = _text(item, f"{{{wp}}}post_type") or "post"
        if kind != "post":
            kinds[kind] += 1
            continue
        post = _read_item(item, number, wp, shown, names, site_urls, attachments, uploads, site)
        if post is None:
            continue
        site.posts.append(post)
        _featured(post, item, wp, attachments, alts, site_urls, uploads, site)
        count = _unplaced(post.shown, item, wp, site, ignore)
        comments, commented = comments + count, commented + bool(count)
    site.skipped += [f"{shown}: {count} item(s) of type {kind}" for kind, count in kinds.items()]
    if comments:
        site.notes.append(
            f"{shown}: {comments} comment(s) on {commented} post(s) are not imported"
            " (Fieldnotes has no comments)"
        )
    if strict:
        for name, (where, line) in sorted(site.ignored_at.items()):
            count = site.ignored[name]
            posts = "1 post has" if count == 1 else f"{count} posts have"
            message = (
                f"`{name}` has no place in Fieldnotes ({posts} it);"
                f" pass --ignore-field {name} to leave it out, or drop --strict"
            )
            site.problems.append(Problem(where, line, message))
    return site


def _old_slug_paths(path: str, slug: str, item: Element, wp: str) -> list[str]:
    """The addresses the post had under its earlier slugs (`_wp_old_slug`, which WordPress
    still redirects): its address with each old slug in place of the present one."""
    parts = path.split("/")
    if not slug or slug not in parts:
        return []
    at = len(parts) - 1 - parts[::-1].index(slug)
    return [
        "/".join([*parts[:at], old, *parts[at + 1 :]])
        for meta in item.findall(f"{{{wp}}}postmeta")
        if _text(meta, f"{{{wp}}}meta_key") == OLD_SLUG
        and (old := _text(meta, f"{{{wp}}}meta_value").strip())
        and "/" not in old
        and old not in (".", "..")
    ]


def _meta(item: Element, wp: str) -> dict[str, str]:
    """An item's custom fields (`wp:postmeta`), by key."""
    return {
        _text(meta, f"{{{wp}}}meta_key"): _text(meta, f"{{{wp}}}meta_value")
        for meta in item.findall(f"{{{wp}}}postmeta")
    }


def _uploaded(address: str, site_urls: list[str]) -> str | None:
    """The path under wp-content/uploads/ of one of the site's own files, or None."""
    parts = urlsplit(address)
    path = unquote(parts.path)
    own = not parts.netloc or any(address.startswith(url) for url in site_urls)
    return path.split(UPLOADS, 1)[1] if own and UPLOADS in path else None


def _featured(
    post: ForeignPost,
    item: Element,
    wp: str,
    attachments: dict[str, str],
    alts: dict[str, str],
    site_urls: list[str],
    uploads: Path | None,
    site: Site,
) -> None:
    """Make the item's featured image the post's picture when --uploads holds it (or names
    a path leading out, which the import then refuses); list it otherwise."""
    number = _meta(item, wp).get(THUMBNAIL, "").strip()
    if not number:
        return
    address = attachments.get(number)
    if address is None:
        site.notes.append(
            f"{post.shown}: its featured image (attachment {number}) is not in the export"
        )
        return
    relative = _uploaded(address, site_urls)
    if relative is None:
        site.notes.append(
            f"{post.shown}: its featured image {address} is not one of the site's uploads"
        )
        return
    climbs = ".." in Path(relative).parts or Path(relative).is_absolute()
    if uploads is None or not (climbs or (uploads / relative).is_file()):
        why = "pass --uploads" if uploads is None else f"no {relative} in {uploads}"
        site.notes.append(f"{post.shown}: its featured image {address} was not brought in ({why})")
        return
    post.entry.image = relative
    alt = alts.get(number) or post.entry.title
    post.entry.image_alt = alt[:ALT_MAX]
    post.entry.lines["image"] = 1


def _unplaced(where: str, item: Element, wp: str, site: Site, ignore: frozenset[str]) -> int:
    """Count what a post item has and Fieldnotes keeps no place for: its comments, its
    public custom fields (keys not starting with `_`), its post format; how many comments
    it has."""
    names: list[str] = []
    if item.find(f"{{{wp}}}comment") is not None:
        names.append(COMMENTS)
    names += [f"meta.{key}" for key in _meta(item, wp) if key and not key.startswith("_")]
    if any(node.get("domain") == POST_FORMAT for node in item.findall("category")):
        names.append(POST_FORMAT)
    for name in dict.fromkeys(names):
        if name.lower() in ignore:
            continue
        site.ignored[name] += 1
        site.ignored_at.setdefault(name, (where, 1))
    return len(item.findall(f"{{{wp}}}comment"))


def _wp_namespace(root: Element) -> str | None:
    """The export's wp: namespace (its WXR version), or None when it is not an export."""
    for version in WP_VERSIONS:
        name = f"http://wordpress.org/export/{version}/"
        if root.find(f"channel/{{{name}}}wxr_version") is not None:
            return name
    return None


def _read_item(
    item: Element,
    number: int,
    wp: str,
    shown: str,
    names: dict[str, str],
    site_urls: list[str],
    attachments: dict[str, str],
    uploads: Path | None,
    site: Site,
) -> ForeignPost | None:
    """One post item (None when skipped or refused, which `site` records)."""
    post_id = _text(item, f"{{{wp}}}post_id")
    where = f"{shown} (item {number}, post {post_id or '?'})"
    status = _text(item, f"{{{wp}}}status")
    if status not in PUBLISHED | DRAFTS:
        site.skipped.append(f"{where}: status `{status or 'none'}`")
        return None
    html = _BLOCK_COMMENT.sub("", _text(item, "content:encoded"))
    html = _shortcodes(_paragraphs(html), attachments, site.left)
    html = _local_images(html, site_urls, uploads, site.left)
    body = to_markdown(html)
    gmt = _text(item, f"{{{wp}}}post_date_gmt")
    local = _text(item, f"{{{wp}}}post_date")
    when = gmt if gmt and not gmt.startswith("0000") else local
    date = None if not when or when.startswith("0000") else when.replace(" ", "T")
    title = _text(item, "title").strip()
    slug = _text(item, f"{{{wp}}}post_name")
    if not title:
        slug = ""  # WordPress names a title-less post by its id: the given title names it
        words = re.sub(r"[#*_`>\[\]()!]", " ", body).split()[:TITLE_WORDS]
        title = " ".join(words) or (f"Post of {date[:10]}" if date else f"Post {post_id}")
        site.left["posts without a title, given their first words"] += 1
        site.skipped.append(f"{where}: no title; titled “{title}”")
    password = _text(item, f"{{{wp}}}post_password")
    draft = status not in PUBLISHED or bool(password)
    if status == "private" or password:
        why = "private" if status == "private" else "password-protected"
        site.skipped.append(f"{where}: {why}, imported as a draft")
    fields = Fields(name_slug=slug or title)
    fields.title = (title, 1)
    fields.slug = (slug_for(slug), 1) if slug_for(slug) else None
    if date is not None:
        fields.date = (date, 1)
    elif not draft:
        fields.draft = ("true", 1)
    if draft:
        fields.draft = ("true", 1)
    sticky = _text(item, f"{{{wp}}}is_sticky").strip() == "1"
    excerpt = _text(item, "excerpt:encoded").strip()
    if excerpt:
        fields.summary = (re.sub(r"<[^>]+>", "", excerpt).strip(), 1)
    creator = _text(item, "dc:creator")
    if creator:
        fields.authors.append((names.get(creator) or creator, 1))
    categories = [
        (node.text or "").strip()
        for node in item.findall("category")
        if node.get("domain") == "category"
    ]
    tags = [
        (node.text or "").strip()
        for node in item.findall("category")
        if node.get("domain") == "post_tag"
    ]
    if categories or tags:
        fields.topics.append(([*categories, *tags], 1))
    entry, authors, problems = entry_of(fields, body, where, 1)
    if entry is None:
        site.problems += problems
        return None
    if status == "future" and entry.published_at is not None:
        entry.draft = False
    entry.featured = sticky
    link = _text(item, "link")
    addresses = [urlsplit(link).path or "/"] if link else []
    addresses += _old_slug_paths(addresses[0] if addresses else "", slug, item, wp)
    if post_id:
        addresses.append(f"/?p={post_id}")
    post = foreign_post(Path(shown), where, entry, authors, addresses)
    post.base = uploads.resolve() if uploads is not None else Path(shown).parent
    return post
