"""The demo's drawings, post by post: figures only from the post, labels only its phrases, and
a drawing that stays put when a word it does not use changes."""

from __future__ import annotations

import re
from collections import Counter

import pytest

from blog.config import Config
from blog.media import wording
from blog.media.drawings import CHARTS
from blog.media.illustrations import illustration
from blog.media.vocabulary import VOCABULARY, matches
from blog.transfer import demo

POSTS = sorted(demo.read_demo(), key=lambda post: post.entry.published_at, reverse=True)
NUMBER_WORDS = re.compile(
    r"\b(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|twenty|thirty|forty"
    r"|fifty|sixty|seventy|eighty|ninety|hundred|thousand|million|billion|half|third|quarter)\b",
    re.IGNORECASE,
)


def plain(text: str) -> str:
    """Text with its spacing made single and its case lowered, to look phrases up in."""
    return " ".join(text.split()).lower()


def drawn(entry) -> tuple[str, list[str]]:
    """A demo post's drawing as its card shows it, and the labels written on it."""
    drawing = illustration(entry.slug, entry.title, entry.summary.strip())
    found = re.findall(r'<text class="t"[^>]*>([^<]*)</text>', drawing.svg)
    return drawing.svg, [t.replace("&amp;", "&").replace("&lt;", "<") for t in found]


@pytest.mark.parametrize("post", POSTS, ids=lambda post: post.entry.slug[:40])
def test_every_label_is_a_phrase_and_every_number_one_of_the_post(post):
    """What the drawing writes, the post wrote: each label word for word, each number."""
    entry = post.entry
    text = plain(f"{entry.title}\n{entry.summary}\n{entry.body}")
    _, labels = drawn(entry)
    for words in labels:
        assert plain(words) in text, words
        for digits in re.findall(r"\d+(?:[.,]\d+)?", words):
            assert re.search(rf"(?<![\d.]){re.escape(digits)}(?![\d])", text), digits
        for word in NUMBER_WORDS.findall(words):
            assert re.search(rf"\b{word.lower()}\b", text), word


def _asks(word: str) -> bool:
    """Whether any kind's vocabulary has a stem for the word."""
    stems = {s for e in VOCABULARY.values() for s in (*e.asks, *[x for t in e.slots for x in t])}
    return any(matches(word, stem.lstrip("#")) for stem in stems)


def _same_kind_of_word(word: str) -> str:
    """Another word with the same ending, so it reads as the same part of speech."""
    ending = next((e for e in ("ing", "ed", "ly", "s") if word.endswith(e)), "")
    return "gizmo" + ending


@pytest.mark.parametrize("post", POSTS, ids=lambda post: post.entry.slug[:40])
def test_editing_a_word_the_drawing_does_not_use_leaves_it_alone(post):
    """Each content word of the summary that no label holds (nor the phrase a label was cut
    from) and no kind asks for: put another word in its place and the drawing is the same,
    byte for byte."""
    entry = post.entry
    summary = entry.summary.strip()
    svg, labels = drawn(entry)
    reading = wording.read(entry.title, summary)
    # The words of a label, and of the phrase it was cut from ("shorter template" when the
    # label is "template": a shorter word there would let the whole phrase fit).
    sources = [p.text for p in reading.phrases if any(plain(x) in plain(p.text) for x in labels)]
    used = {w for words in [*labels, *sources] for w in plain(words).split()}
    start = len(entry.title) + 2
    figures = [(f.start, f.end) for f in reading.figures]
    for token in reading.tokens:
        if token.kind != "word" or token.start < start or not token.text.isalpha():
            continue
        if token.low in used or _asks(token.low) or NUMBER_WORDS.fullmatch(token.low):
            continue
        if token.low in wording._BREAK or any(a <= token.start < b for a, b in figures):
            continue  # a word that shapes the sentence, not one that names a thing
        at = token.start - start
        edited = summary[:at] + _same_kind_of_word(token.low) + summary[at + len(token.text) :]
        again = illustration(entry.slug, entry.title, edited)
        assert again.svg == svg, token.text


def test_the_demo_pages_never_repeat_a_composition():
    """The listing's pages (newest first, POSTS_PER_PAGE to a page) show a composition once
    each; more than a few drawings are charts of the post's own numbers."""
    per_page = Config.POSTS_PER_PAGE
    kinds = [illustration(p.entry.slug, p.entry.title, p.entry.summary.strip()).kind for p in POSTS]
    pages = [kinds[i : i + per_page] for i in range(0, len(kinds), per_page)]
    for number, page in enumerate(pages, 1):
        assert max(Counter(page).values()) == 1, (number, page)
    assert len(set(kinds[: 3 * per_page])) >= 24
    assert sum(kind in CHARTS for kind in kinds) >= 5
