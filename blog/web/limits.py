"""Every form field within its limit, url-encoded or multipart: a field or a form too large
is refused (413) as the form is read, before a view renders anything it holds.

Werkzeug applies its per-field limit (MAX_FORM_MEMORY_SIZE, in bytes) and its field count
(MAX_FORM_PARTS) to multipart forms only: a url-encoded form is read whole, up to
MAX_CONTENT_LENGTH, and every field taken as it comes. Here both limits apply to both kinds,
and so does MAX_FORM_FIELD_CHARS, in characters: bytes alone cannot tell a 600,000-character
paste from a body at its limit in four-byte characters.
"""

from __future__ import annotations

import io
from typing import IO, TYPE_CHECKING, Any

from flask import Flask, current_app
from htmx_flask.requests import HtmxAwareRequest
from werkzeug.exceptions import RequestEntityTooLarge
from werkzeug.formparser import FormDataParser

if TYPE_CHECKING:
    from werkzeug.formparser import t_parse_result

URL_ENCODED = "application/x-www-form-urlencoded"
LONGEST_NAME_SHOWN = 40  # characters of a field's name an error message repeats


class FieldTooLarge(RequestEntityTooLarge):
    """A form field longer than any form takes, or a form of more fields than any has."""


def _too_large(label: str, text: str, max_chars: int | None, max_bytes: int | None) -> str:
    """Why `text` (which `label` names) is too large for one field, or "" when it is not."""
    if max_chars is not None and len(text) > max_chars:
        return (
            f"{label} is {len(text):,} characters long; a field may have at most "
            f"{max_chars:,} characters."
        )
    # UTF-8 takes at most four bytes a character: count them only when that could be too many.
    if max_bytes is not None and 4 * len(text) > max_bytes:
        size = len(text.encode("utf-8", "surrogatepass"))
        if size > max_bytes:
            return f"{label} is {size:,} bytes long; a field may have at most {max_bytes:,} bytes."
    return ""


def _field_problem(name: str, value: str, max_chars: int | None, max_bytes: int | None) -> str:
    """Why the field `name` (its value, or a name too long to repeat) is too large, or ""."""
    if len(name) <= LONGEST_NAME_SHOWN:
        return _too_large(f"The form field “{name}”", value, max_chars, max_bytes)
    return _too_large("A form field's name", name, max_chars, max_bytes) or _too_large(
        "A form field", value, max_chars, max_bytes
    )


class FieldLimitedParser(FormDataParser):
    """Werkzeug's form parser, holding url-encoded forms to the limits of multipart ones and
    every field to a number of characters."""

    def __init__(self, *, max_field_chars: int | None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.max_field_chars = max_field_chars

    def parse(
        self,
        stream: IO[bytes],
        mimetype: str,
        content_length: int | None,
        options: dict[str, str] | None = None,
    ) -> t_parse_result:
        """The form's stream, fields and files; FieldTooLarge past a limit."""
        if mimetype == URL_ENCODED and self.max_form_parts is not None:
            data = stream.read()  # limited to MAX_CONTENT_LENGTH, as Werkzeug reads it
            if data.count(b"&") >= self.max_form_parts:
                raise FieldTooLarge(f"A form may have at most {self.max_form_parts:,} fields.")
            stream = io.BytesIO(data)
        parsed = super().parse(stream, mimetype, content_length, options)
        for name, value in parsed[1].items(multi=True):
            problem = _field_problem(name, value, self.max_field_chars, self.max_form_memory_size)
            if problem:
                raise FieldTooLarge(problem)
        return parsed


class FieldLimitedRequest(HtmxAwareRequest):
    """The request htmx-flask gives the app (with `request.htmx`), its forms read by
    FieldLimitedParser."""

    def make_form_data_parser(self) -> FormDataParser:
        """The parser for this request's form, with the app's limits."""
        return FieldLimitedParser(
            stream_factory=self._get_file_stream,
            max_form_memory_size=self.max_form_memory_size,
            max_content_length=self.max_content_length,
            max_form_parts=self.max_form_parts,
            cls=self.parameter_storage_class,
            max_field_chars=current_app.config.get("MAX_FORM_FIELD_CHARS"),
        )


def init_app(app: Flask) -> None:
    """Read every request's form with the limits above (after htmx-flask sets its request)."""
    app.request_class = FieldLimitedRequest
