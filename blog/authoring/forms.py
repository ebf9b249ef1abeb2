"""The editors' forms: login and the post editor (Flask-WTF, so every POST carries a CSRF token)."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

from flask_wtf import FlaskForm
from flask_wtf.file import FileField
from wtforms import (
    BooleanField,
    EmailField,
    Field,
    HiddenField,
    PasswordField,
    RadioField,
    SelectChoice,
    SelectMultipleField,
    StringField,
    TextAreaField,
)
from wtforms.validators import DataRequired, Optional, Regexp, StopValidation, ValidationError
from wtforms.widgets import DateTimeLocalInput, TextInput

from blog.authoring.store import TOPIC_SLUG_MAX, author_slug, clean_text, slug_for, topic_slug
from blog.catalog import SCHEDULED
from blog.media.drawing_spec import SpecError, parse
from blog.models import DRAFT, PUBLISHED, utcnow
from blog.web.templating import in_site_zone, site_zone

SLUG_PATTERN = r"^[a-z0-9]+(?:-[a-z0-9]+)*$"
MAX_TOPICS = 8
MAX_TOPIC_NAME = 80
# A post's authors: enough for any team that writes together; the byline names them all.
MAX_AUTHORS = 50

# The longest text each field takes, in characters (Unicode code points, counted after the
# filters below, as the store keeps them). Title and alt text fit their columns (String(300),
# String(500)). The body stays well under the request's limit on one text field
# (MAX_FORM_MEMORY_SIZE, 500 KB by default), so an ASCII body over it gets a 422 that says so
# rather than the request-size 413.
TITLE_MAX = 300
SLUG_MAX = 200
# An address typed longer than this is refused as typed, not made into a slug first.
SLUG_TYPED_MAX = 2 * SLUG_MAX
SUMMARY_MAX = 600
BODY_MAX = 200_000
IMAGE_ALT_MAX = 500
# Search engines show about 160 characters of a description; a little more is allowed.
META_DESCRIPTION_MAX = 300
AUTHOR_MAX = 120
EMAIL_MAX = 254
PASSWORD_MAX = 1024


def _strip(value: str | None) -> str | None:
    """Leading and trailing spaces are never meant."""
    return value.strip() if isinstance(value, str) else value


def _printable(value: str | None) -> str | None:
    """Control characters never reach the store (it removes them): check what it will keep."""
    return clean_text(value) if isinstance(value, str) else value


def _one_line(value: str | None) -> str | None:
    """A description is one line: line breaks and runs of spaces become single spaces."""
    return " ".join(value.split()) if isinstance(value, str) else value


def _unix_newlines(value: str | None) -> str | None:
    """Browsers send textarea lines ending in CR LF; the store keeps LF only."""
    return value.replace("\r\n", "\n").replace("\r", "\n") if isinstance(value, str) else value


def _slugged(value: str | None) -> str | None:
    """An address is saved as the site's slug rule makes it (`My Post!` becomes `my-post`);
    one of symbols alone, or far over the limit, stays as typed: `Slugged` refuses both,
    saying why, and the field still shows it."""
    if not isinstance(value, str) or not value or len(value) > SLUG_TYPED_MAX:
        return value
    return slug_for(value, max_length=0) or value


def slug_refusal(typed: str) -> str | None:
    """Why an address typed as `typed` cannot be used, before any post is looked at."""
    if len(typed) > SLUG_TYPED_MAX:
        return (
            f"The address is {len(typed):,} characters long; the limit is {SLUG_MAX:,} characters."
        )
    if typed and not slug_for(typed, max_length=0):
        return (
            f"An address needs a letter or a digit: \u201c{typed}\u201d has none. "
            "Leave it empty to use the title's words."
        )
    return None


class Slugged:
    """The address typed holds something the slug rule keeps (its refusal otherwise)."""

    field_flags: dict[str, object] = {}

    def __call__(self, form: FlaskForm, field: Field) -> None:
        """Refuse an address of symbols alone, or far too long to be made into one."""
        typed = _strip(_printable(field.raw_data[0] if field.raw_data else "")) or ""
        problem = slug_refusal(typed)
        if problem:
            raise StopValidation(problem)


def _drawing(field: Field) -> None:
    """The drawing's spec follows the rules of blog/media/drawing_spec.py (the message says
    which one it breaks)."""
    try:
        parse(field.data or "")
    except SpecError as error:
        raise ValidationError(error.plain) from error


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


# A date and time as a datetime-local field sends it (seconds optional), or typed with a space.
WALL_TIME = re.compile(
    r"([0-9]{4})-([0-9]{2})-([0-9]{2})[T ]([0-9]{2}):([0-9]{2})(?::([0-9]{2})(?:\.[0-9]{1,6})?)?"
)
WALL_TIME_LONGEST = 40  # characters: anything longer is not a date, whatever it holds
NOT_A_DATE = (
    "Not a valid date and time: use the date picker, or type it like 2027-01-15T09:00 "
    "(year-month-day, then hours and minutes)."
)


def wall_time(raw: str) -> datetime:
    """The date and time an editor typed, as a naive datetime (ValueError saying why not)."""
    text = raw.strip()
    found = WALL_TIME.fullmatch(text) if len(text) <= WALL_TIME_LONGEST else None
    if found is None:
        raise ValueError(NOT_A_DATE)
    year, month, day, hour, minute = (int(part) for part in found.groups()[:5])
    second = int(found.group(6) or 0)
    if year < 1:
        raise ValueError("Years start at 1: check the year of this date.")
    try:
        date = datetime(year, month, day)
    except ValueError:
        raise ValueError(
            f"{found.group(1)}-{found.group(2)}-{found.group(3)} is not a day of the calendar: "
            "check the month and the day."
        ) from None
    if hour > 23 or minute > 59 or second > 59:
        raise ValueError(f"{found.group(4)}:{found.group(5)} is not a time of day.")
    return date.replace(hour=hour, minute=minute, second=second)


def _span(delta: timedelta) -> str:
    """A clock change in words: "1 hour", "30 minutes", "1 hour 30 minutes"."""
    hours, minutes = divmod(int(delta.total_seconds()) // 60, 60)
    parts = [f"{hours} hour{'s' if hours != 1 else ''}"] if hours else []
    if minutes or not parts:
        parts.append(f"{minutes} minute{'s' if minutes != 1 else ''}")
    return " ".join(parts)


def utc_from_wall(wall: datetime, zone: ZoneInfo) -> datetime:
    """The naive UTC instant a wall-clock time in `zone` names (ValueError saying why none).

    A time that happens twice (clocks going back) is its first occurrence; a time that never
    happens (clocks going forward over it) is refused, with a time that does exist.
    """
    first = wall.replace(tzinfo=zone, fold=0)
    try:
        instant = first.astimezone(UTC)
        back = instant.astimezone(zone).replace(tzinfo=None)
    except (OverflowError, ValueError):
        raise ValueError(
            f"This date is out of range in {zone.key}: choose one between years 1 and 9999."
        ) from None
    if back != wall:
        jump = (wall.replace(tzinfo=zone, fold=1).utcoffset() or timedelta()) - (
            first.utcoffset() or timedelta()
        )
        raise ValueError(
            f"{wall:%Y-%m-%d %H:%M} does not exist in {zone.key}: the clocks there go forward "
            f"by {_span(abs(jump))} at that moment. Choose another time, such as {back:%H:%M}."
        )
    return instant.replace(tzinfo=None)


class SiteDateTimeField(Field):
    """A date and time typed in the site's time zone (SITE_TIMEZONE), kept as naive UTC.

    `data` is the UTC instant, as the store keeps it; `wall` is what the editor typed, so a
    save can tell an unchanged time from a new one. The field shows stored times converted
    back to the site's zone.
    """

    widget = DateTimeLocalInput()

    def __init__(self, label: str | None = None, validators: Any = None, **kwargs: Any) -> None:
        super().__init__(label, validators, **kwargs)
        self.wall: datetime | None = None

    def process_formdata(self, valuelist: list[Any]) -> None:
        """Read the typed time (empty means none) and convert it to UTC."""
        self.wall = None
        if not valuelist or not isinstance(valuelist[0], str) or not valuelist[0].strip():
            self.data = None
            return
        self.data = None
        self.wall = wall_time(valuelist[0])
        self.data = utc_from_wall(self.wall, site_zone())

    def _value(self) -> str:
        """What the input shows: the text as typed, else the stored time in the site's zone."""
        if self.raw_data:
            return str(self.raw_data[0])
        if not isinstance(self.data, datetime):
            return ""
        local = in_site_zone(self.data).replace(tzinfo=None)
        return local.strftime("%Y-%m-%dT%H:%M:%S" if local.second else "%Y-%m-%dT%H:%M")


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


LIVE_NEEDS_TOPIC = (
    "A post on the site keeps at least one topic: give it one, or unpublish it first."
)


def topic_needed_for(status: str | None, *, for_review: bool = False) -> str | None:
    """What a save in `status` does that needs a topic, in words ("publishing it"), or None
    for a draft, which may have none yet."""
    if status == PUBLISHED:
        return "publishing it"
    if status == SCHEDULED:
        return "scheduling it"
    if for_review:
        return "submitting it for review"
    return None


def author_names(names: list[str] | None) -> list[str]:
    """The author names typed in the author boxes, in order, without blanks or repeats (two
    names are the same author when they have the same slug)."""
    kept: list[str] = []
    seen: set[str] = set()
    for raw in names or []:
        name = raw.strip()
        key = author_slug(name)
        if name and key not in seen:
            seen.add(key)
            kept.append(name)
    return kept


class NamesField(Field):
    """Names typed one per box, in order (a post's authors): every value the form sends under
    the field's name, control characters removed and ends trimmed. A name may hold commas
    and "and". The editor's template draws the boxes; rendered alone, the field is the
    first box."""

    widget = TextInput()

    def process_data(self, value: Any) -> None:
        """Names given in code: a list of them (anything else, such as the post's Author
        when the form is filled from a post, is set by the view)."""
        self.data = [str(name) for name in value] if isinstance(value, list | tuple) else []

    def process_formdata(self, valuelist: list[Any]) -> None:
        """Keep each box's text, blank ones too (author_names drops those and repeats)."""
        self.data = [clean_text(value).strip() for value in valuelist if isinstance(value, str)]

    def _value(self) -> str:
        """What the first box shows."""
        return self.data[0] if self.data else ""


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
            Slugged(),
            Limit(SLUG_MAX, "The address"),
            Regexp(
                SLUG_PATTERN,
                message="Use lower-case letters, digits and single hyphens, like my-first-post.",
            ),
        ],
        filters=[_printable, _strip, _slugged],
    )
    # A draft may have none yet; publishing, scheduling or sending it for review needs one
    # (validate_topics).
    topics = StringField("Topics", filters=[_printable, _strip])
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
    illustration = StringField(
        "Drawing", validators=[lambda form, field: _drawing(field)], filters=[_printable, _strip]
    )
    remove_image = BooleanField("Remove the image (the post shows its generated drawing)")
    # The hash of an image uploaded with an earlier, refused submission of this form.
    kept_image = HiddenField()
    meta_description = TextAreaField(
        "Meta description",
        validators=[Limit(META_DESCRIPTION_MAX, "The meta description")],
        filters=[_printable, _one_line],
    )
    social_image = FileField("Social image")
    remove_social_image = BooleanField("Remove the social image (previews use the illustration)")
    # The hash of a social image uploaded with an earlier, refused submission of this form.
    kept_social_image = HiddenField()
    featured = BooleanField("Featured")
    editors_pick = BooleanField("Editor’s pick")
    status = RadioField(
        "Status",
        choices=[
            SelectChoice(DRAFT, "Draft"),
            SelectChoice(SCHEDULED, "Scheduled"),
            SelectChoice(PUBLISHED, "Published"),
        ],
        default=DRAFT,
    )
    # Labelled with the site's zone when the form is made (see __init__).
    published_at = SiteDateTimeField("Publish at")
    keep_updated_date = BooleanField("Minor fix: keep the “Updated” date as it is")
    # One box per author, in order; the form always sends the name `author` (one box is the
    # post form of old).
    author = NamesField("Authors")
    # The new topics and authors the editor ticked to create ("topic:<slug>", "author:<slug>"):
    # a name that finds none is made only once confirmed (blog/authoring/taxonomy.py).
    confirm_new = SelectMultipleField(validate_choice=False)
    # The post this form edits and the version it was loaded at: a save carries both.
    post_id = HiddenField()
    lock_version = HiddenField()
    # After a 409 whose overlaps are shown: the version the editor's text started from, which
    # the next save merges against again (lock_version is then the version shown as theirs).
    merge_base = HiddenField()
    # The version of the published post's draft changes this form was loaded with ("" for
    # none): saving over another editor's newer draft changes is refused.
    pending_version = HiddenField()
    # After a 409 whose overlaps are with another editor's draft changes: the version of them
    # shown as theirs, which the choices sent with the next save settle.
    merge_pending = HiddenField()
    # A new post's identity, made when its form is first shown: its first autosave and its
    # Save both store the post with it, so whichever comes second finds the post instead of
    # making another (blog/authoring/editor/posts.py, made_by_form).
    uid = HiddenField()

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.published_at.label.text = f"Publish at ({site_zone().key})"
        # Set by the view before validating when the save sends the draft for review: it is
        # then on its way to readers, and needs a topic as a published post does.
        self.for_review = False
        # Set by the view when the post is on the site now (its changes stay there or go live).
        self.live = False

    def validate_published_at(self, field: Field) -> None:
        """The date fits the chosen status: a scheduled post needs a time still to come, a
        published one a time already past (or none: now); a draft keeps any date."""
        if field.errors or self.status.data not in (SCHEDULED, PUBLISHED):
            return
        now = utcnow()
        if self.status.data == SCHEDULED and field.data is None:
            raise ValidationError(
                "Choose when the post goes live: a scheduled post needs a date and time."
            )
        if self.status.data == SCHEDULED and field.data <= now:
            raise ValidationError(
                "This time has already passed: a scheduled post needs a time in the future. "
                "Choose a later time, or Published to put the post on the site now."
            )
        if self.status.data == PUBLISHED and field.data is not None and field.data > now:
            raise ValidationError(
                "This time is still to come: choose Scheduled to publish the post then, or "
                "clear the date to publish it now."
            )

    def validate_topics(self, field: Field) -> None:
        """Up to MAX_TOPICS names, each short and with letters or digits in it; at least one
        for a post going to readers (published, scheduled, or sent for review)."""
        names = topic_names(field.data)
        if not names:
            going = topic_needed_for(self.status.data, for_review=self.for_review)
            if going and self.live:
                raise ValidationError(LIVE_NEEDS_TOPIC)
            if going:
                raise ValidationError(f"Give the post at least one topic before {going}.")
            return
        if len(names) > MAX_TOPICS:
            raise ValidationError(f"A post takes at most {MAX_TOPICS} topics.")
        for name in names:
            if len(name) > MAX_TOPIC_NAME:
                raise ValidationError(f"Topic names are at most {MAX_TOPIC_NAME} characters.")
            if not slug_for(name, TOPIC_SLUG_MAX):
                raise ValidationError(f"“{name}” needs a letter or a digit to be a topic.")

    def validate_author(self, field: Field) -> None:
        """One to MAX_AUTHORS names, each at most AUTHOR_MAX characters."""
        names = author_names(field.data)
        if not names:
            raise ValidationError("Name the author.")
        if len(names) > MAX_AUTHORS:
            raise ValidationError(
                f"A post takes at most {MAX_AUTHORS} authors; this one names {len(names)}."
            )
        for name in names:
            if len(name) > AUTHOR_MAX:
                raise ValidationError(
                    f"The author “{name[:40]}…” is {len(name):,} characters long; "
                    f"the limit is {AUTHOR_MAX:,} characters."
                )

    def validate_body(self, field: Field) -> None:
        """A draft may be empty; a published or scheduled post may not."""
        if self.status.data in (PUBLISHED, SCHEDULED) and not (field.data or "").strip():
            raise ValidationError(f"A {self.status.data} post needs a body.")


class ConfirmForm(FlaskForm):
    """A button that only carries the CSRF token (delete, log out)."""
