"""The editors' forms: login and the post editor (Flask-WTF, so every POST carries a CSRF token)."""

from __future__ import annotations

from flask_wtf import FlaskForm
from flask_wtf.file import FileField
from wtforms import (
    BooleanField,
    DateTimeLocalField,
    EmailField,
    Field,
    HiddenField,
    PasswordField,
    RadioField,
    SelectChoice,
    StringField,
    TextAreaField,
)
from wtforms.validators import DataRequired, Optional, Regexp, ValidationError

from blog.authoring.store import TOPIC_SLUG_MAX, clean_text, slug_for, topic_slug
from blog.models import DRAFT, PUBLISHED

SLUG_PATTERN = r"^[a-z0-9]+(?:-[a-z0-9]+)*$"
MAX_TOPICS = 8
MAX_TOPIC_NAME = 80

# The longest text each field takes, in characters (Unicode code points, counted after the
# filters below, as the store keeps them). Title and alt text fit their columns (String(300),
# String(500)). The body stays well under the request's limit on one text field
# (MAX_FORM_MEMORY_SIZE, 500 KB by default), so an ASCII body over it gets a 422 that says so
# rather than the request-size 413.
TITLE_MAX = 300
SLUG_MAX = 200
SUMMARY_MAX = 600
BODY_MAX = 200_000
IMAGE_ALT_MAX = 500
AUTHOR_MAX = 120
EMAIL_MAX = 254
PASSWORD_MAX = 1024


def _strip(value: str | None) -> str | None:
    """Leading and trailing spaces are never meant."""
    return value.strip() if isinstance(value, str) else value


def _printable(value: str | None) -> str | None:
    """Control characters never reach the store (it removes them): check what it will keep."""
    return clean_text(value) if isinstance(value, str) else value


def _unix_newlines(value: str | None) -> str | None:
    """Browsers send textarea lines ending in CR LF; the store keeps LF only."""
    return value.replace("\r\n", "\n").replace("\r", "\n") if isinstance(value, str) else value


class Limit:
    """At most `limit` characters, with a message naming the field, the limit and the length.

    Unlike WTForms' Length it sets no `maxlength` flag: a browser would cut longer text
    silently, and the editor would lose words without being told. The server is the judge.
    """

    field_flags: dict[str, object] = {}

    def __init__(self, limit: int, name: str) -> None:
        self.limit = limit
        self.name = name

    def __call__(self, form: FlaskForm, field: Field) -> None:
        """Refuse text longer than the limit, saying by how much."""
        length = len(field.data or "")
        if length > self.limit:
            raise ValidationError(
                f"{self.name} is {length:,} characters long; "
                f"the limit is {self.limit:,} characters."
            )


def topic_names(raw: str | None) -> list[str]:
    """The topic names in a comma-separated list, in order, without blanks or repeats
    (two names are the same topic when they have the same slug)."""
    names: list[str] = []
    seen: set[str] = set()
    for part in (raw or "").split(","):
        name = " ".join(part.split())
        key = topic_slug(name)
        if name and key not in seen:
            seen.add(key)
            names.append(name)
    return names


class LoginForm(FlaskForm):
    """Email and password; `next` is where to go afterwards (checked before use)."""

    email = EmailField(
        "Email",
        validators=[
            DataRequired(message="Enter your email address."),
            Limit(EMAIL_MAX, "The email address"),
        ],
        filters=[_printable, _strip],
    )
    password = PasswordField(
        "Password",
        validators=[
            DataRequired(message="Enter your password."),
            Limit(PASSWORD_MAX, "The password"),
        ],
    )
    next = HiddenField()


class PostForm(FlaskForm):
    """Everything an editor sets on a post; the view adds the checks that need the database."""

    # Control characters are removed before the checks, as the store removes them: a title
    # of nothing else is empty, and lengths count what will be kept.
    title = StringField(
        "Title",
        validators=[
            DataRequired(message="Give the post a title."),
            Limit(TITLE_MAX, "The title"),
        ],
        filters=[_printable, _strip],
    )
    slug = StringField(
        "Address",
        validators=[
            Optional(),
            Limit(SLUG_MAX, "The address"),
            Regexp(
                SLUG_PATTERN,
                message="Use lower-case letters, digits and single hyphens, like my-first-post.",
            ),
        ],
        filters=[_printable, _strip],
    )
    topics = StringField(
        "Topics",
        validators=[DataRequired(message="Give the post at least one topic.")],
        filters=[_printable, _strip],
    )
    summary = TextAreaField(
        "Summary",
        validators=[Limit(SUMMARY_MAX, "The summary")],
        filters=[_unix_newlines, _printable, _strip],
    )
    body = TextAreaField(
        "Body", validators=[Limit(BODY_MAX, "The body")], filters=[_unix_newlines, _printable]
    )
    image = FileField("Illustration")
    image_alt = StringField(
        "Alt text",
        validators=[Limit(IMAGE_ALT_MAX, "The alt text")],
        filters=[_printable, _strip],
    )
    remove_image = BooleanField("Remove the image (the post shows its generated drawing)")
    # The hash of an image uploaded with an earlier, refused submission of this form.
    kept_image = HiddenField()
    featured = BooleanField("Featured")
    editors_pick = BooleanField("Editor’s pick")
    status = RadioField(
        "Status",
        choices=[SelectChoice(DRAFT, "Draft"), SelectChoice(PUBLISHED, "Published")],
        default=DRAFT,
    )
    published_at = DateTimeLocalField(
        "Publish date (UTC)",
        format=["%Y-%m-%dT%H:%M", "%Y-%m-%dT%H:%M:%S"],
        validators=[Optional()],
    )
    keep_updated_date = BooleanField("Minor fix: keep the “Updated” date as it is")
    author = StringField(
        "Author",
        validators=[DataRequired(message="Name the author."), Limit(AUTHOR_MAX, "The author")],
        filters=[_printable, _strip],
    )
    # The post this form edits and the version it was loaded at: a save carries both.
    post_id = HiddenField()
    lock_version = HiddenField()

    def validate_topics(self, field: Field) -> None:
        """One to MAX_TOPICS names, each short and with letters or digits in it."""
        names = topic_names(field.data)
        if not names:
            raise ValidationError("Give the post at least one topic.")
        if len(names) > MAX_TOPICS:
            raise ValidationError(f"A post takes at most {MAX_TOPICS} topics.")
        for name in names:
            if len(name) > MAX_TOPIC_NAME:
                raise ValidationError(f"Topic names are at most {MAX_TOPIC_NAME} characters.")
            if not slug_for(name, TOPIC_SLUG_MAX):
                raise ValidationError(f"“{name}” needs a letter or a digit to be a topic.")

    def validate_body(self, field: Field) -> None:
        """A draft may be empty; a published post may not."""
        if self.status.data == PUBLISHED and not (field.data or "").strip():
            raise ValidationError("A published post needs a body.")


class ConfirmForm(FlaskForm):
    """A button that only carries the CSRF token (delete, log out)."""
