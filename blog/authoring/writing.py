"""Writing aids in the post editor: the body's word count and reading time, counted by the
rule the post page uses (code words weigh half, WORDS_PER_MINUTE, at least a minute)."""

from __future__ import annotations

from dataclasses import dataclass

from blog.authoring.editor import bp
from blog.markup import WORDS_PER_MINUTE
from blog.markup.text import minutes_for, text_stats


@dataclass(frozen=True)
class WritingStats:
    """How long a body is, as the editor shows it beside the preview."""

    words: int
    minutes: int


@bp.app_template_global()
def writing_stats(html: str) -> WritingStats:
    """The words in a rendered body and its reading time, as its post page will say."""
    stats = text_stats(html)
    return WritingStats(stats.prose_words + stats.code_words, minutes_for(stats, WORDS_PER_MINUTE))
