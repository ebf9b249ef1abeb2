"""How a search's text is read, and written for each store's engine, for the readers' search
(blog/reading/search.py) and the editor's (blog/authoring/post_search.py) alike: the same
words are searched, within the same limits, and excerpts are cut the same way.

The text never reaches either engine's query syntax: it is split into terms here, and each
term is passed as a quoted string (FTS5) or as bound text (PostgreSQL).
"""

from __future__ import annotations

import html
import re
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import sqlalchemy as sa
from markupsafe import Markup, escape
from sqlalchemy.dialects import postgresql as pg

MAX_QUERY_LENGTH = 200
# Distinct words a search looks for. Each word costs the engines a pass over its index
# entries (and FTS5 scores every term as a phrase of its own), so a search of 200 characters
# of common words would cost many times one of a few words.
MAX_WORDS = 8
# A search looks at the most recently added posts holding all its words, this many at most
# (the page says when more hold them): each one is looked at on its own, so the cost grows
# with their number.
RANKED_MATCHES = 200
# The last word grows as a prefix from this length: one letter would match half the index.
MIN_PREFIX = 2
# Excerpts wrap matched words in these private-use characters (taken out of the post's text
# first); only after the excerpt is escaped do they become <mark> tags, so a post's own text
# can never open a tag.
MARK_OPEN, MARK_CLOSE = "\ue000", "\ue001"
ELLIPSIS = "\u2026"
SNIPPET_WORDS = 28
# Words of context before the first marked word of an excerpt.
SNIPPET_LEAD_WORDS = 6
# How much of a body an excerpt is cut from: a match further in shows the card alone.
SNIPPET_WINDOW = 20_000

PG_CONFIG: sa.ColumnElement[str] = sa.literal_column("'english'::regconfig")

_TERMS = re.compile(r'"([^"]*)("?)|([^\s"]+)')
_WORDS = re.compile(r"[^\W_]+")
_LAST_WORD = re.compile(r"[^\W_]+[\W_]*$")
# The rendered body read as text: a heading's permanent link is no word of it, a block ends a
# word, other tags vanish, and a tag cut in two at the window's end is dropped.
_HEADERLINK = re.compile(r'<a class="headerlink"[^>]*>[^<]*</a>')
_BLOCK_TAG = re.compile(
    r"</?(?:p|h[1-6]|li|ul|ol|pre|div|table|thead|tbody|tr|td|th|blockquote|br|hr|dl|dt|dd"
    r"|figure|figcaption|details|summary|section)\b[^>]*>"
)
_TAG = re.compile(r"<[^>]*>|<[^>]*$")


# --- The reader's text -------------------------------------------------------------------


def clean_query(raw: str) -> tuple[str, bool]:
    """The text to search: control characters and runs of space gone, cut to 200 characters.

    Returns the text and whether it had to be cut.
    """
    visible = "".join(" " if unicodedata.category(ch)[0] == "C" else ch for ch in raw)
    text = " ".join(visible.split())
    if len(text) <= MAX_QUERY_LENGTH:
        return text, False
    return text[:MAX_QUERY_LENGTH].rstrip(), True


def _searchable(text: str) -> bool:
    """True when the text holds a letter or digit, the only characters the engines index."""
    return any(unicodedata.category(ch)[0] in "LN" for ch in text)


@dataclass(frozen=True)
class Term:
    """Something every result must contain: a word, or words in a row (a quoted phrase).

    `prefix` marks the last term the reader is still typing: its last word (from two
    characters on) also matches longer words that start with it.
    """

    text: str
    prefix: bool = False

    @property
    def words(self) -> list[str]:
        """The term's letters-and-digits runs."""
        return _WORDS.findall(self.text)


def parse_query(text: str) -> list[Term]:
    """Split the reader's text into terms; quotes make phrases, everything else is literal."""
    terms: list[tuple[str, bool]] = []
    for phrase, closing, word in _TERMS.findall(text):
        body = word or phrase
        if _searchable(body):
            # A closed phrase is finished; a bare word or an open quote may still be growing.
            terms.append((body.strip(), bool(word) or not closing))
    if not terms:
        return []
    *done, (last, growing) = terms
    words = _WORDS.findall(last)
    if growing and (not words or len(words[-1]) < MIN_PREFIX):
        # One letter of a new word says too little to search on: leave it out until the
        # next keystroke, unless it is all there is.
        shorter = _LAST_WORD.sub("", last).strip()
        if _searchable(shorter):
            return [Term(body) for body, _ in done] + [Term(shorter)]
        if done:
            return [Term(body) for body, _ in done]
        return [Term(last)]
    return [Term(body) for body, _ in done] + [Term(last, prefix=growing)]


@dataclass(frozen=True)
class Query:
    """The terms a search looks for, and the words of the reader's text it leaves out."""

    terms: tuple[Term, ...]
    left_out: tuple[str, ...] = ()

    @property
    def phrased(self) -> bool:
        """True when a term is several words in a row: only their positions can tell."""
        return any(len(term.words) > 1 for term in self.terms)

    @property
    def words(self) -> tuple[Term, ...]:
        """Each distinct word of the terms as a term of its own (the last still a prefix when
        the reader is typing it): every post that has the phrases has all of these."""
        found: dict[str, Term] = {}
        for term in self.terms:
            words = term.words
            for index, word in enumerate(words):
                prefix = term.prefix and index == len(words) - 1
                key = word.casefold()
                if key not in found or (found[key].prefix and not prefix):
                    found[key] = Term(word, prefix)
        return tuple(found.values())


def _key(words: Iterable[str]) -> tuple[str, ...]:
    """What makes two terms the same search, whatever their case or punctuation."""
    return tuple(word.casefold() for word in words)


def limit_terms(terms: Sequence[Term]) -> Query:
    """The terms with repeats dropped and at most MAX_WORDS words in all, in the reader's order.

    A repeat changes no result, so it goes silently (a repeated word while typing is also
    one the reader finished before: that one stays). Words past the limit are named in
    `left_out`, a phrase that crosses it is cut there, so the page can say what was not
    searched.
    """
    kept: list[Term] = []
    seen: set[tuple[str, ...]] = set()
    left_out: list[str] = []
    room = MAX_WORDS
    for term in terms:
        words = term.words
        if _key(words) in seen:
            continue
        if room == 0:
            left_out.append(" ".join(words))
            continue
        if len(words) > room:
            cut = [match.end() for match in _WORDS.finditer(term.text)][room - 1]
            left_out.append(" ".join(words[room:]))
            term = Term(term.text[:cut])
            words = term.words
            if _key(words) in seen:
                continue
        seen.add(_key(words))
        kept.append(term)
        room -= len(words)
    return Query(tuple(kept), tuple(left_out))


# --- Queries on each engine --------------------------------------------------------------


def fts5_match(terms: Sequence[Term]) -> str:
    """An FTS5 query: every term as a quoted string (so no operator survives), ANDed."""
    parts = []
    for term in terms:
        quoted = '"' + term.text.replace('"', '""') + '"'
        parts.append(f"{quoted} *" if term.prefix else quoted)
    return " AND ".join(parts)


def tsquery_lexeme(word: str) -> str:
    """A word as a quoted to_tsquery lexeme."""
    return "'" + word.replace("\\", "\\\\").replace("'", "''") + "'"


def tsquery(shape: Sequence[bool], name: str, *, in_a_row: bool = True) -> sa.ColumnElement:
    """A PostgreSQL tsquery for terms, one bound text each (`{name}_{i}`, and `{name}_{i}_prefix`
    for a prefix term, `shape[i]`): the reader's text never becomes query syntax.

    With `in_a_row` false, a phrase's words may be anywhere in the post: a query the GIN
    index answers alone, without reading any post's positions.
    """
    parse = sa.func.phraseto_tsquery if in_a_row else sa.func.plainto_tsquery
    query: sa.ColumnElement | None = None
    for index, prefix in enumerate(shape):
        text = sa.bindparam(f"{name}_{index}", type_=sa.Text)
        part: sa.ColumnElement = parse(PG_CONFIG, text, type_=pg.TSQUERY)
        if prefix:
            lexemes = sa.bindparam(f"{name}_{index}_prefix", type_=sa.Text)
            started = sa.func.to_tsquery(PG_CONFIG, lexemes, type_=pg.TSQUERY)
            part = part.op("||", return_type=pg.TSQUERY)(started)
        query = part if query is None else query.op("&&", return_type=pg.TSQUERY)(part)
    assert query is not None
    return query


def tsquery_values(terms: Sequence[Term], name: str, *, in_a_row: bool = True) -> dict:
    """The bound texts of `tsquery` for these terms."""
    joiner = " <-> " if in_a_row else " & "
    values: dict[str, str] = {}
    for index, term in enumerate(terms):
        values[f"{name}_{index}"] = term.text
        if term.prefix and term.words:
            lexemes = joiner.join(tsquery_lexeme(word) for word in term.words)
            values[f"{name}_{index}_prefix"] = lexemes + ":*"
    return values


def prefix_shape(terms: Sequence[Term]) -> tuple[bool, ...]:
    """Which terms are prefixes: all a PostgreSQL statement's form depends on."""
    return tuple(bool(term.prefix and term.words) for term in terms)


# --- Snippets ----------------------------------------------------------------------------

# Endings a word may have or lack and still be the reader's word ("checkpointing" marks
# "checkpoint", "latency" marks "latencies"): close to what the engines' stemmers fold
# together, for marking only (which posts match is the engines' business).
_ENDINGS = sorted(
    "s es ies ied ed d e y er ers ly ing ings ion ions ation ations ment ments ness".split(),  # noqa: SIM905
    key=len,
    reverse=True,
)
_ENDING = "(?:" + "|".join(_ENDINGS) + ")?"
_STEM_FLOOR = 3  # an ending is taken off only when this many letters stay
_AFTER_WORD = r"(?![^\W_])"
_SPACED = re.compile(r"\S+")


def _stem(word: str) -> str:
    """The word without the longest ending that leaves it at least three letters long."""
    for ending in _ENDINGS:
        if word.endswith(ending) and len(word) - len(ending) >= _STEM_FLOOR:
            return word[: -len(ending)]
    return word


def _term_pattern(term: Term) -> str:
    """A regular expression for the term in lower-cased text: its words in a row, each with
    or without an ending (the last word of a prefix with any ending)."""
    words = [word.lower() for word in term.words]
    parts = [re.escape(_stem(word)) + _ENDING for word in words]
    if term.prefix:  # the word typed so far, finished or not
        parts[-1] = f"(?:{re.escape(words[-1])}[^\\W_]*|{parts[-1]})"
    return r"[\W_]+".join(parts) + _AFTER_WORD


def marker(terms: Sequence[Term]) -> re.Pattern[str] | None:
    """One pattern that finds any of the terms in lower-cased text (None without terms).

    It starts with the words' own letters and has no groups, so the regular expression
    engine skips to likely places instead of trying every position.
    """
    patterns = [_term_pattern(term) for term in terms if term.words]
    return re.compile("|".join(patterns)) if patterns else None


def _lower(text: str) -> str:
    """The text in lower case, character for character (offsets stay valid)."""
    lowered = text.lower()
    if len(lowered) == len(text):
        return lowered
    return "".join(low if len(low := ch.lower()) == 1 else ch for ch in text)


def _found(pattern: re.Pattern[str], text: str, lowered: str, start: int, end: int):
    """The pattern's matches in text[start:end] that begin a word."""
    for match in pattern.finditer(lowered, start, end):
        at = match.start()
        if at == 0 or not text[at - 1].isalnum():
            yield match


def excerpt(window: str, pattern: re.Pattern[str], cut: bool) -> Markup | None:
    """A one-line excerpt around the first match in `window` (the start of a body; `cut`
    when the body goes on), its matches marked, or None when nothing in it matches.

    The window is read once for its first match; the excerpt is cut from the few hundred
    characters around it, so its cost does not grow with the body.
    """
    text = window.replace(MARK_OPEN, " ").replace(MARK_CLOSE, " ")
    lowered = _lower(text)
    first = next(_found(pattern, text, lowered, 0, len(text)), None)
    if first is None:
        return None
    # A few words of context before the match (none cut in two), then SNIPPET_WORDS words.
    lead = max(0, first.start() - 120)
    starts = [word.start() for word in _SPACED.finditer(text, lead, first.start())]
    if lead > 0 and not text[lead - 1].isspace():
        starts = starts[1:]
    start = starts[-SNIPPET_LEAD_WORDS:][0] if starts else first.start()
    words = _SPACED.finditer(text, start, start + 600)
    ends = [word.end() for _, word in zip(range(SNIPPET_WORDS), words, strict=False)]
    end = max(ends[-1] if ends else first.end(), first.end())
    parts: list[str] = []
    at = start
    for match in _found(pattern, text, lowered, start, end):
        parts += [text[at : match.start()], MARK_OPEN, text[match.start() : match.end()]]
        parts.append(MARK_CLOSE)
        at = match.end()
    parts.append(text[at:end])
    body = _tidy("".join(parts))
    before = f"{ELLIPSIS} " if start > 0 else ""
    after = f" {ELLIPSIS}" if end < len(text) or cut else ""
    return highlighted(before + body + after)


def highlighted(snippet: str) -> Markup:
    """Escape a snippet and turn its markers into balanced <mark> tags."""
    parts: list[str] = []
    inside = False
    for piece in re.split(f"([{MARK_OPEN}{MARK_CLOSE}])", snippet):
        if piece in (MARK_OPEN, MARK_CLOSE):
            opening = piece == MARK_OPEN
            if opening != inside:
                parts.append("<mark>" if opening else "</mark>")
                inside = opening
        else:
            parts.append(str(escape(piece)))
    if inside:
        parts.append("</mark>")
    return Markup("".join(parts))


def _tidy(snippet: str) -> str:
    """The excerpt on one line."""
    return " ".join(snippet.split())


# An excerpt reads at most this far past its first match (SNIPPET_WORDS words from a start a
# few words before it); a text that goes on this far past the match holds the whole excerpt.
_EXCERPT_REACH = 700
# How much of the rendered body past a match found in its markup is read first (in
# characters of markup, which holds more than its text).
_MARKUP_REACH = 4_000


def body_excerpt(start: str, pattern: re.Pattern[str]) -> Markup | None:
    """The excerpt of a rendered body from its start (SNIPPET_WINDOW characters, and one
    more when it goes on), or None when its text holds no match.

    Turning markup into text costs as much as the markup is long, and the first match is
    usually early: the markup is read as text only up to a little past the first place the
    words appear in it. The text of a prefix of the markup is a prefix of its text, so
    the first match found there is the first of all, and the excerpt the same; when the
    words appear only split by tags (or not at all), the whole window is read.
    """
    window, cut = start[:SNIPPET_WINDOW], len(start) > SNIPPET_WINDOW
    hint = next(_found(pattern, window, _lower(window), 0, len(window)), None)
    end = hint.end() + _MARKUP_REACH if hint is not None else len(window)
    if end < len(window):
        text = rendered_text(window[:end])
        first = next(_found(pattern, text, _lower(text), 0, len(text)), None)
        if first is not None and len(text) - first.start() > _EXCERPT_REACH:
            return excerpt(text, pattern, True)
    return excerpt(rendered_text(window), pattern, cut)


def rendered_text(body_html: str) -> str:
    """What a reader reads of (the start of) a rendered body: its text, without tags or
    Markdown, entities decoded. Excerpts quote this, not the Markdown the editor typed."""
    text = _HEADERLINK.sub("", body_html)
    return html.unescape(_TAG.sub("", _BLOCK_TAG.sub(" ", text)))


# --- What a page says about the text searched ---------------------------------------------


def notices(was_cut: bool, left_out: Sequence[str]) -> list[str]:
    """What a page says about the text searched: what it cut and what it left out."""
    said = []
    if was_cut:
        said.append(
            f"Searches are limited to {MAX_QUERY_LENGTH} characters: "
            f"only the first {MAX_QUERY_LENGTH} were used."
        )
    if left_out:
        left = " ".join(left_out)
        verb = "was" if len(left.split()) == 1 else "were"
        said.append(
            f"Searches are limited to {MAX_WORDS} different words: "
            f"\u201c{left}\u201d {verb} not searched."
        )
    return said


def more_notice(looked_at: int = RANKED_MATCHES) -> str:
    """What a page says when more posts hold the words than a search looks at."""
    return (
        f"Only the {looked_at:,} most recently added posts with these words were "
        "searched: add a word to narrow the search."
    )
