"""The forms of /editor/topics and /editor/authors (Flask-WTF: each carries a CSRF token).

Each carries what the page showed (`shown_*`), so a change another editor made meanwhile is
noticed; the checks on names and texts are the store's (blog/authoring/taxonomy.py).
"""

from __future__ import annotations

from flask_wtf import FlaskForm
from flask_wtf.file import FileField
from wtforms import BooleanField, HiddenField, StringField, TextAreaField, URLField


class RenameForm(FlaskForm):
    """A new name for a topic or an author."""

    name = StringField("New name")
    shown_name = HiddenField()


class DescribeForm(FlaskForm):
    """A topic's description, shown under the heading of its page."""

    description = TextAreaField("Description")
    shown_description = HiddenField()


class MergeForm(FlaskForm):
    """The topic or author to move everything into; `into` is its id. The confirmation page
    sends `confirmed`, and the name and post count it asked about (`shown_posts`)."""

    into = StringField("Merge into")
    shown_name = HiddenField()
    shown_posts = HiddenField()
    confirmed = HiddenField()


class DeleteForm(FlaskForm):
    """Delete a topic or author no post carries."""

    shown_name = HiddenField()


class ProfileForm(FlaskForm):
    """An author's short bio, own link and avatar, shown on their page and their posts."""

    bio = TextAreaField("Bio")
    url = URLField("Link")
    avatar = FileField("Avatar")
    remove_avatar = BooleanField("Remove the avatar")
    shown_bio = HiddenField()
    shown_url = HiddenField()
