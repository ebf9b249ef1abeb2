"""Liquid in Jekyll posts, rendered as Jekyll would before the Markdown is stored.

The tags blogs use: `highlight` (a fenced code block in its language), `raw` (literal text),
`post_url` and `link` (the imported post's address here, or the old site's address for a page
not imported), `{{ site.* }}` from `_config.yml`, `{{ page.* }}` from the post's front matter,
and Liquid's own `if`, `for`, `assign` and the like, rendered by python-liquid within limits
(loop iterations, output size, CPU time). Any other tag (`include`, `gist`...) is left as
written and counted; Liquid that does not parse leaves the whole body as written.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from liquid import Environment
from liquid.exceptions import LiquidError, LiquidSyntaxError

from blog.markup.budget import TooSlow, within

# Liquid's own tags, and the Jekyll ones turned into Markdown before rendering.
LIQUID_TAGS = frozenset(
    {"if", "elsif", "else", "endif", "unless", "endunless", "case", "when", "endcase"}
    | {"for", "endfor", "break", "continue", "cycle", "tablerow", "endtablerow", "assign"}
    | {"capture", "endcapture", "increment", "decrement", "comment", "endcomment", "echo"}
    | {"liquid", "raw", "endraw"}
)
TIME_LIMIT = 2.0  # CPU seconds to render one post's Liquid

# What the body is prepared by, in one pass: a raw block (kept), a highlight block (a fence),
# any other tag; tried in that order at each place.
_PIECE = re.compile(
    r"(?P<raw>\{%-?\s*raw\s*-?%\}.*?\{%-?\s*endraw\s*-?%\})"
    r"|\{%-?\s*highlight\s+(?P<language>[\w+#.-]+)[^%]*?-?%\}\n?(?P<code>.*?)\n?"
    r"\{%-?\s*endhighlight\s*-?%\}"
    r"|\{%-?\s*(?P<tag>\w+)(?P<argument>.*?)-?%\}",
    re.DOTALL,
)


class _Environment(Environment):
    """python-liquid with limits a hostile post cannot get round."""

    loop_iteration_limit = 10_000
    output_stream_limit = 2_000_000
    context_depth_limit = 30
    local_namespace_limit = 200_000


class LiquidRefused(Exception):
    """Liquid that cannot be rendered or would run past a limit (a loop that does not end,
    output without end), with the line of the body it was found on when Liquid says."""

    def __init__(self, message: str, line: int | None = None) -> None:
        super().__init__(message)
        self.line = line


@dataclass
class Rendered:
    """A post's body with its Liquid rendered, and what was left as written."""

    text: str
    left: Counter[str] = field(default_factory=Counter)


def _environment(base_url: str) -> _Environment:
    """An environment with Jekyll's two URL filters; other unknown filters pass values on."""
    environment = _Environment(strict_filters=False)
    environment.filters["relative_url"] = lambda value: base_url + str(value)
    environment.filters["absolute_url"] = lambda value: str(value)
    return environment


def _kept(text: str) -> str:
    """Text Liquid must leave as it is."""
    return "{% raw %}" + text + "{% endraw %}"


@dataclass
class _Prepared:
    """The body as python-liquid reads it, and where its lines moved from the body's."""

    text: str
    # Where a replacement ends in `text`, and how many lines it added (or took away).
    shifts: list[tuple[int, int]] = field(default_factory=list)

    def body_line(self, offset: int) -> int:
        """The body's line (from 1) of a place in the prepared text."""
        moved = sum(delta for end, delta in self.shifts if end <= offset)
        return self.text.count("\n", 0, offset) + 1 - moved


def _prepared(
    text: str, addresses: Callable[[str, str], str | None], left: Counter[str]
) -> _Prepared:
    """`highlight` as fenced code, `post_url` and `link` as addresses, unknown tags kept as
    written, raw blocks left raw; with the lines each change moved."""
    pieces: list[str] = []
    shifts: list[tuple[int, int]] = []
    length = position = 0
    for match in _PIECE.finditer(text):
        given = match.group(0)
        replaced = given if match.group("raw") else _replacement(match, addresses, left)
        before = text[position : match.start()]
        pieces += [before, replaced]
        length += len(before) + len(replaced)
        if replaced.count("\n") != given.count("\n"):
            shifts.append((length, replaced.count("\n") - given.count("\n")))
        position = match.end()
    pieces.append(text[position:])
    return _Prepared("".join(pieces), shifts)


def _replacement(
    match: re.Match[str], addresses: Callable[[str, str], str | None], left: Counter[str]
) -> str:
    """What a highlight block or a tag becomes before python-liquid reads the body."""
    if match.group("language") is not None:
        # Jekyll renders the Liquid inside a highlight block too: its tags are prepared alike.
        code = _prepared(match.group("code"), addresses, left).text
        ticks = "`" * max(3, max((len(run) for run in re.findall(r"`+", code)), default=0) + 1)
        return f"{ticks}{match.group('language')}\n{code}\n{ticks}"
    name, argument = match.group("tag"), match.group("argument").strip()
    if name in ("post_url", "link"):
        address = addresses(name, argument)
        if address is not None:
            return address
        left[f"{{% {name} %}} to a missing file"] += 1
        return _kept(match.group(0))
    if name in LIQUID_TAGS:
        return match.group(0)
    left[f"{{% {name} %}}"] += 1
    return _kept(match.group(0))


def _line_of(error: LiquidError, prepared: _Prepared) -> int | None:
    """The body's line an error of python-liquid points at, when it points in the body."""
    token = getattr(error, "token", None)
    start = getattr(token, "start_index", -1)
    if token is None or getattr(token, "source", None) != prepared.text or start < 0:
        return None
    return prepared.body_line(start)


def render(
    text: str,
    *,
    site: dict[str, Any],
    page: dict[str, Any],
    base_url: str,
    addresses: Callable[[str, str], str | None],
    time_limit: float = TIME_LIMIT,
) -> Rendered:
    """The body with its Liquid rendered (LiquidRefused past a limit)."""
    if "{%" not in text and "{{" not in text:
        return Rendered(text)
    left: Counter[str] = Counter()
    prepared = _prepared(text, addresses, left)
    environment = _environment(base_url)
    try:
        template = environment.from_string(prepared.text)
    except LiquidSyntaxError:
        left["Liquid that does not parse (the body is kept as written)"] += 1
        return Rendered(text, left)
    try:
        rendered = within(time_limit, lambda: template.render(site=site, page=page))
    except TooSlow:
        raise LiquidRefused(
            f"its Liquid takes more than {time_limit:g} seconds to render"
        ) from None
    except LiquidSyntaxError:
        left["Liquid that does not parse (the body is kept as written)"] += 1
        return Rendered(text, left)
    except LiquidError as error:
        message = str(error).splitlines()[0] if str(error) else type(error).__name__
        raise LiquidRefused(
            f"its Liquid cannot be rendered: {message}", _line_of(error, prepared)
        ) from None
    return Rendered(rendered, left)
