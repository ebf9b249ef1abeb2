"""What each role may open and change: the one table of /editor routes, and the rules for a
writer's own posts.

Every route under /editor is in ROUTES, with who may use it; a route missing from it is
refused to everyone (403), so a new page is closed until someone says who it is for. The
check runs before any view (`init_app`); views that load a post ask `may_see` or
`may_change` for it. docs/roles.md shows the same table, and tests/test_roles.py holds the
two and the app's routes to each other.

Imports only `models`, so both reading (the draft preview) and authoring use it.
"""

from __future__ import annotations

from flask import Flask, abort, request
from flask_login import current_user

from blog.models import ADMIN, DRAFT, EDITOR, WRITER, Editor, Post

# Who may use a route. Editors and admins may use every route but ADMINS' on every post.
ANYONE = "anyone"  # every role
OWN_POSTS = "own posts"  # writers: only posts they created
OWN_DRAFTS = "own drafts"  # writers: only posts they created, while they are drafts
EDITORS = "editors"  # editors and admins
ADMINS = "admins"  # admins only
LEVELS = (ANYONE, OWN_POSTS, OWN_DRAFTS, EDITORS, ADMINS)

ROUTES: dict[str, str] = {
    # The post list (a writer's holds their own posts) and the post editor.
    "editor.index": ANYONE,
    "editor.new": ANYONE,
    "editor.create": ANYONE,  # writers save drafts only
    "editor.edit": OWN_POSTS,
    "editor.update": OWN_DRAFTS,  # writers save drafts only
    "editor.delete": OWN_DRAFTS,
    "editor.preview": ANYONE,
    "editor.slug_hint": ANYONE,
    "editor.drawing_preview": ANYONE,
    "drafts.post_preview": OWN_POSTS,
    "typed_preview.page": ANYONE,  # a stored post's own is checked on the post
    "body_images.upload": ANYONE,
    "body_images.fetch": ANYONE,
    # History and autosave.
    "editor.revisions": OWN_POSTS,
    "editor.restore": OWN_DRAFTS,
    "editor.autosave_offer": OWN_POSTS,
    "editor.autosave": OWN_DRAFTS,
    "editor.autosave_new": ANYONE,  # stores a draft; a post it names is checked on the post
    "editor.presence": OWN_POSTS,  # who else has the post open
    # Review and draft links (sending for review is the editor form's own button).
    "editor.send_back": EDITORS,
    "editor.old_addresses": OWN_POSTS,
    "editor.remove_old_address": EDITORS,  # a removed path is a 404 for every reader
    "editor.draft_links": OWN_DRAFTS,
    "editor.make_draft_link": OWN_DRAFTS,
    "editor.revoke_draft_link": OWN_DRAFTS,
    # The trash, topics and authors.
    "editor.trash": EDITORS,
    "editor.restore_post": EDITORS,
    "editor.empty_trash": EDITORS,
    "editor.topics": EDITORS,
    "editor.topic": EDITORS,
    "editor.rename_topic": EDITORS,
    "editor.describe_topic": EDITORS,
    "editor.merge_topic": EDITORS,
    "editor.delete_topic": EDITORS,
    "editor.authors": EDITORS,
    "editor.author": EDITORS,
    "editor.rename_author": EDITORS,
    "editor.merge_author": EDITORS,
    "editor.delete_author": EDITORS,
    "editor.author_profile": EDITORS,
    # Accounts.
    "editor.accounts": ADMINS,
    "editor.invite": ADMINS,
    "editor.revoke_invite": ADMINS,
    "editor.set_role": ADMINS,
    "editor.disable_account": ADMINS,
    "editor.enable_account": ADMINS,
    "editor.reset_link": ADMINS,
}

FORBIDDEN = {
    EDITORS: "Only editors and admins may do this: ask an editor.",
    ADMINS: "Only admins manage accounts: ask an admin.",
}
NOT_YOURS = "This post belongs to another writer: only its writer and the editors may open it."
NOT_A_DRAFT = "This post is no longer a draft: only editors change it now."
UNLISTED = "No role may use this address yet."


def opens(role: str, level: str) -> bool:
    """Whether an account of `role` may use a route of `level` at all (a writer's own posts
    are checked on the post)."""
    if level == ADMINS:
        return role == ADMIN
    if level == EDITORS:
        return role in (EDITOR, ADMIN)
    return role in (WRITER, EDITOR, ADMIN)


def may_see(editor: Editor, post: Post) -> bool:
    """Editors see every post; a writer sees the posts they created."""
    return editor.publishes or (post.created_by_id is not None and post.created_by_id == editor.id)


def may_change(editor: Editor, post: Post) -> bool:
    """Editors change every post; a writer changes the posts they created while they are
    drafts."""
    return editor.publishes or (may_see(editor, post) and post.status == DRAFT)


def refusal_for(editor: Editor, post: Post, level: str) -> str | None:
    """Why `editor` may not use a route of `level` on `post`, or None when they may."""
    if level in (OWN_POSTS, OWN_DRAFTS) and not may_see(editor, post):
        return NOT_YOURS
    if level == OWN_DRAFTS and not may_change(editor, post):
        return NOT_A_DRAFT
    return None


def check_post(post: Post) -> None:
    """403 when the signed-in account may not use this request's route on `post`."""
    level = ROUTES.get(request.endpoint or "", ADMINS)
    problem = refusal_for(current_user, post, level)
    if problem is not None:
        abort(403, description=problem)


def _check_route() -> None:
    """Before any view of /editor: 403 for a role the route is not for, or a route that is
    not in the table. Visitors are left to the area's own login check."""
    rule = request.url_rule
    if rule is None or not rule.rule.startswith("/editor"):
        return
    if not current_user.is_authenticated:
        return
    level = ROUTES.get(request.endpoint or "")
    if level is None:
        abort(403, description=UNLISTED)
    if not opens(current_user.role, level):
        abort(403, description=FORBIDDEN.get(level, UNLISTED))


def init_app(app: Flask) -> None:
    """Check the role on every request for an /editor route, before its view runs."""
    app.before_request(_check_route)
