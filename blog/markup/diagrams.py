"""Diagrams from text: a ```` ```dot ```` fence drawn by Graphviz as inline SVG, at save time.

The fence's source stays in the Markdown (so the editor edits it and an export carries it);
the render holds the drawing. Graphviz's `dot` runs as a separate process under the render's
budget (``budget``: the same MARKDOWN_TIME_LIMIT), with every file it could read shut off
(SERVER_NAME without GV_FILE_PATH, Graphviz's own web-server switch), its CPU time and memory
capped by the kernel, its output capped in bytes, and is killed past the budget, which is
then ``DiagramTooSlow`` naming the diagram: the editor answers 422, like any text too slow.

Its SVG is read back as XML and written out anew: only the shapes of the sanitizer's SVG
allow-list (``policy.SVG_TAGS``), each attribute checked by the same policy, nothing that
refers to anything (links, images, styles, scripts, foreign objects), at most MAX_SHAPES
elements. Black lines and text become ``currentColor`` and the white page goes, so the
drawing follows the reader's colour scheme. A diagram that does not draw (a syntax error)
shows its source as code with Graphviz's message, so nothing typed is lost from the page.
"""

from __future__ import annotations

import contextlib
import html
import math
import os
import re
import resource
import select
import shutil
import signal
import time
import xml.etree.ElementTree as etree
from dataclasses import dataclass

from markdown import Markdown
from markdown.extensions import Extension
from markdown.preprocessors import Preprocessor

from blog.markup.budget import DEFAULT_LIMIT, WALL_FACTOR, TooSlow
from blog.markup.code import fence_options, fences
from blog.markup.policy import LABEL_MAX, SVG_TAGS, allow_attribute

LANGUAGES = frozenset({"dot", "graphviz"})
SOURCE_MAX = 20_000  # characters of one diagram's source
OUTPUT_MAX = 2_000_000  # bytes of SVG dot may write for one diagram
MAX_SHAPES = 5_000  # elements in one drawing
MEMORY_MAX = 512 * 1024 * 1024  # bytes of address space dot may take
CACHED_MAX = 64  # drawings a converter keeps, by source, for the preview's redraws
FONT = "Helvetica,Arial,sans-serif"
_SVG_NS = "{http://www.w3.org/2000/svg}"
_INK = frozenset({"black", "#000000", "#000"})
_PAPER = frozenset({"white", "#ffffff", "#fff"})
_ERROR_LINE_RE = re.compile(r"^(?:Error|Warning): (?:<stdin>: )?(.*)$", re.MULTILINE)


class DiagramError(ValueError):
    """A diagram that does not draw, with Graphviz's reason."""


class DiagramTooSlow(TooSlow):
    """A diagram ran past the render's budget; `diagram` names it for the writer."""

    def __init__(self, limit: float, diagram: str = "a diagram") -> None:
        super().__init__(limit)
        self.diagram = diagram
        self.args = (f"{diagram} takes too long to draw (more than {limit:g} seconds)",)

    def __reduce__(self) -> tuple[type[DiagramTooSlow], tuple[float, str]]:  # type: ignore[override]
        """Pickled with its limit and name, as a child process sends it back."""
        return (DiagramTooSlow, (self.limit, self.diagram))


def dot_path() -> str | None:
    """Where Graphviz's dot is installed, or None (`make setup` installs Debian's graphviz)."""
    return shutil.which("dot", path="/usr/bin:/usr/local/bin:/bin")


@dataclass(frozen=True)
class Ran:
    """What one run of a program gave: its exit code, output, errors and CPU seconds."""

    status: int
    output: bytes
    errors: bytes
    cpu: float


class _OverBudget(Exception):
    """The program used up its time (or wrote more than it may) and was killed."""


def _spawn(argv: list[str], data: bytes, cpu: float, output_max: int) -> Ran:
    """Run `argv` on `data` within `cpu` seconds of CPU time (the kernel's limit, and
    WALL_FACTOR times as long on the clock) and `output_max` bytes of output; _OverBudget
    past either. The process is killed and reaped whatever happens, a stop included."""
    child_in, feed = os.pipe()
    drain, child_out = os.pipe()
    errors_in, child_err = os.pipe()
    env = {"PATH": "/usr/bin:/bin", "SERVER_NAME": "fieldnotes", "LC_ALL": "C.UTF-8"}
    actions = [
        (os.POSIX_SPAWN_DUP2, child_in, 0),
        (os.POSIX_SPAWN_DUP2, child_out, 1),
        (os.POSIX_SPAWN_DUP2, child_err, 2),
    ]
    pid = 0
    try:
        pid = os.posix_spawn(argv[0], argv, env, file_actions=actions, setsid=True)
        seconds = max(1, math.ceil(cpu))
        resource.prlimit(pid, resource.RLIMIT_CPU, (seconds, seconds + 1))
        resource.prlimit(pid, resource.RLIMIT_AS, (MEMORY_MAX, MEMORY_MAX))
        for fd in (child_in, child_out, child_err):
            os.close(fd)
        child_in = child_out = child_err = -1
        with contextlib.suppress(BrokenPipeError):
            view = memoryview(data)
            while view:
                view = view[os.write(feed, view) :]
        os.close(feed)
        feed = -1
        output, errors = _read(drain, errors_in, time.monotonic() + cpu * WALL_FACTOR, output_max)
        _, status, usage = os.wait4(pid, 0)
        pid = 0
    finally:
        for fd in (child_in, child_out, child_err, feed, drain, errors_in):
            if fd >= 0:
                os.close(fd)
        if pid:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
            os.wait4(pid, 0)
    used = usage.ru_utime + usage.ru_stime
    if os.WIFSIGNALED(status) and os.WTERMSIG(status) in (signal.SIGXCPU, signal.SIGKILL):
        raise _OverBudget
    return Ran(os.waitstatus_to_exitcode(status), output, errors, used)


def _read(output_fd: int, errors_fd: int, deadline: float, output_max: int) -> tuple[bytes, bytes]:
    """Everything written to the two pipes until both close; _OverBudget at the deadline or
    past output_max bytes (the caller then kills the writer)."""
    parts: dict[int, list[bytes]] = {output_fd: [], errors_fd: []}
    sizes = dict.fromkeys(parts, 0)
    poller = select.poll()  # not select(): a busy server's descriptors may pass 1024
    for fd in parts:
        poller.register(fd, select.POLLIN)
    open_fds = set(parts)
    while open_fds:
        left = deadline - time.monotonic()
        if left <= 0:
            raise _OverBudget
        for fd, _event in poller.poll(max(1, math.ceil(left * 1000))):
            chunk = os.read(fd, 1 << 16)
            if not chunk:
                poller.unregister(fd)
                open_fds.discard(fd)
                continue
            parts[fd].append(chunk)
            sizes[fd] += len(chunk)
            if sizes[fd] > output_max:
                raise _OverBudget
    return b"".join(parts[output_fd]), b"".join(parts[errors_fd])


def _reason(errors: bytes) -> str:
    """Graphviz's first error message, in one short line."""
    text = errors.decode("utf-8", "replace")
    found = _ERROR_LINE_RE.search(text)
    line = found.group(1) if found else text.strip().splitlines()[0] if text.strip() else ""
    return " ".join(line.split())[:200] or "Graphviz could not read it"


def _paint(name: str, value: str) -> str | None:
    """A colour the way the page shows it: black as the text colour, so it follows the
    colour scheme; "transparent" as none."""
    lowered = value.strip().lower()
    if lowered in _INK:
        return "currentColor"
    if lowered == "transparent":
        return "none"
    return value


class _Writer:
    """Writes dot's SVG out anew, keeping only what the policy allows."""

    def __init__(self) -> None:
        self.out: list[str] = []
        self.shapes = 0
        self.edges: list[str] = []

    def element(self, node: etree.Element, *, page: bool = False) -> None:
        tag = str(node.tag).removeprefix(_SVG_NS)
        if tag == "title":
            return
        if tag == "a":  # a link: its shapes are kept, not the link
            self.children(node)
            return
        if tag not in SVG_TAGS:
            return
        if page and tag == "polygon" and (node.get("fill") or "").lower() in _PAPER:
            return  # the white page behind the drawing: the reader's page shows instead
        self.shapes += 1
        if self.shapes > MAX_SHAPES:
            raise DiagramError(f"it has more than {MAX_SHAPES:,} shapes")
        self.out.append(f"<{tag}{self.attributes(tag, node)}>")
        if tag == "text":
            self.out.append(html.escape(node.text or "", quote=False))
        else:
            self.children(node, page=node.get("class") == "graph")
        self.out.append(f"</{tag}>")

    def children(self, node: etree.Element, *, page: bool = False) -> None:
        for child in node:
            if str(child.tag).removeprefix(_SVG_NS) == "title" and node.get("class") == "edge":
                self.edges.append(" ".join((child.text or "").split()))
            self.element(child, page=page)

    @staticmethod
    def attributes(tag: str, node: etree.Element) -> str:
        written = [] if tag != "text" or "fill" in node.attrib else [' fill="currentColor"']
        for name, raw in node.attrib.items():
            value = _paint(name, raw) if name in ("fill", "stroke") else raw
            if value is not None and allow_attribute(tag, name, value):
                written.append(f' {name}="{html.escape(value)}"')
        return "".join(written)


def svg_of(document: bytes, label: str) -> str:
    """dot's SVG output as the page's inline SVG, named `label` (else after its edges)."""
    text = document.decode("utf-8", "replace")
    start = text.find("<svg")
    if start < 0 or "<!ENTITY" in text:
        raise DiagramError("Graphviz gave no drawing")
    try:
        root = etree.fromstring(text[start:])
    except etree.ParseError:
        raise DiagramError("Graphviz gave a drawing that does not read") from None
    writer = _Writer()
    writer.children(root)
    name = label or _edges_label(writer.edges)
    attributes = "".join(
        f' {key}="{html.escape(root.get(key) or "")}"'
        for key in ("width", "height", "viewBox")
        if allow_attribute("svg", key, root.get(key) or "")
    )
    return (
        f'<svg{attributes} role="img" aria-label="{html.escape(name)}">'
        + "".join(writer.out)
        + "</svg>"
    )


def _edges_label(edges: list[str]) -> str:
    """A name for a drawing with no title: what it joins to what, cut to the label limit."""
    shown = "; ".join(edge.replace("->", " → ").replace("--", " – ") for edge in edges)
    name = f"Diagram: {shown}" if shown else "Diagram"
    return name if len(name) <= LABEL_MAX else name[: LABEL_MAX - 1].rstrip() + "…"


def draw(source: str, cpu: float, title: str = "") -> tuple[str, float]:
    """The diagram as inline SVG and the CPU seconds it took; DiagramError when it does not
    draw, _OverBudget past `cpu` seconds."""
    program = dot_path()
    if program is None:
        raise DiagramError("Graphviz is not installed on this server (run `make setup`)")
    if len(source) > SOURCE_MAX:
        raise DiagramError(f"it is {len(source):,} characters long; the limit is {SOURCE_MAX:,}")
    argv = [program, "-Tsvg", f"-Gfontname={FONT}", f"-Nfontname={FONT}", f"-Efontname={FONT}"]
    ran = _spawn(argv, source.encode(), cpu, OUTPUT_MAX)
    if ran.status != 0 or b"<svg" not in ran.output:
        raise DiagramError(_reason(ran.errors))
    return svg_of(ran.output, title), ran.cpu


def _title(options: dict[str, str]) -> str:
    """The fence's title, in one line of at most LABEL_MAX characters."""
    return " ".join(options.get("title", "").split())[:LABEL_MAX]


def _failed(source: str, reason: str, title: str) -> str:
    """A diagram that did not draw: its source as code, and why."""
    caption = f"{title}: " if title else ""
    return (
        '<figure class="diagram diagram-failed">'
        '<pre tabindex="0" role="group" aria-label="Diagram source"><code>'
        f"{html.escape(source, quote=False)}</code></pre>"
        f"<figcaption>{html.escape(caption)}Not drawn: {html.escape(reason)}</figcaption>"
        "</figure>"
    )


def _drawn(svg: str, title: str) -> str:
    """A drawn diagram: the SVG in a figure, captioned by its title when it has one."""
    caption = f"<figcaption>{html.escape(title)}</figcaption>" if title else ""
    return f'<figure class="diagram">{svg}{caption}</figure>'


class DiagramPreprocessor(Preprocessor):
    """Draws each ```` ```dot ```` fence and stashes the figure where the fence was.

    `limit` is the render's budget in seconds, all diagrams together; drawings already made
    for the same source are reused (the preview redraws on every pause in typing)."""

    limit: float = DEFAULT_LIMIT
    drawn: dict[str, str]

    def __init__(self, md: Markdown) -> None:
        super().__init__(md)
        self.drawn = {}

    def run(self, lines: list[str]) -> list[str]:
        found = []
        for index, end, opening in fences(lines):
            parsed = fence_options(opening.group("info"))
            if parsed and parsed[0].lower() in LANGUAGES and end < len(lines):
                found.append((index, end, _title(parsed[1])))
        used = 0.0
        figures = []
        for number, (index, end, title) in enumerate(found, 1):
            source = "\n".join(lines[index + 1 : end])
            key = f"{title}\n{source}"
            figure = self.drawn.get(key)
            if figure is None:
                try:
                    svg, cpu = draw(source, self.limit - used, title)
                except DiagramError as error:
                    figure = _failed(source, str(error), title)
                except _OverBudget:
                    raise DiagramTooSlow(self.limit, _name(number, title)) from None
                else:
                    used += cpu
                    if used > self.limit:
                        raise DiagramTooSlow(self.limit, _name(number, title))
                    figure = _drawn(svg, title)
                if len(self.drawn) >= CACHED_MAX:
                    self.drawn.clear()
                self.drawn[key] = figure
            figures.append(figure)
        for (index, end, _), figure in reversed(list(zip(found, figures, strict=True))):
            lines[index : end + 1] = ["", self.md.htmlStash.store(figure), ""]
        return lines


def _name(number: int, title: str) -> str:
    """How a message names a diagram: by its title, else by its place in the text."""
    return f"The diagram “{title}”" if title else f"Diagram {number} (```dot)"


class DiagramExtension(Extension):
    """Registers :class:`DiagramPreprocessor` ahead of the code fences (priority 25)."""

    def extendMarkdown(self, md: Markdown) -> None:
        md.preprocessors.register(DiagramPreprocessor(md), "diagrams", 28)
