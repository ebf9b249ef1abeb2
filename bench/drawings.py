"""What the demo's drawings show: charts of their post's numbers, schematics, and how the
compositions spread over the listing's pages.

    .venv/bin/python -m bench.drawings

Reads the demo posts as the listing shows them (newest first, POSTS_PER_PAGE to a page) and
draws each from its title and summary, as its card does. Prints one line per post (its page,
composition, labels) and then the counts.
"""

from __future__ import annotations

import re
import sys
from collections import Counter
from datetime import datetime

from blog.config import Config
from blog.media.drawings import CHARTS
from blog.media.illustrations import illustration
from blog.transfer import demo

_NUMBER = re.compile(
    r"\d|\b(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|twenty|thirty"
    r"|forty|fifty|sixty|seventy|eighty|ninety|hundred|thousand|million|billion|half|third"
    r"|quarter|percent)\b",
    re.IGNORECASE,
)


def main() -> int:
    """Print the demo's drawings and the counts the issue asks for."""
    posts = sorted(
        demo.read_demo(), key=lambda p: p.entry.published_at or datetime.min, reverse=True
    )
    per_page = Config.POSTS_PER_PAGE
    charts = schematics = with_figures = 0
    pages: list[Counter[str]] = []
    for n, post in enumerate(posts):
        entry = post.entry
        drawing = illustration(entry.slug, entry.title, entry.summary.strip())
        labels = re.findall(r'<text class="t"[^>]*>([^<]*)</text>', drawing.svg)
        shows_figure = any(_NUMBER.search(text) for text in labels)
        if drawing.kind in CHARTS:
            charts += 1
        else:
            schematics += 1
        with_figures += drawing.kind in CHARTS or shows_figure
        if n % per_page == 0:
            pages.append(Counter())
        pages[-1][drawing.kind] += 1
        print(
            f"{n // per_page + 1:>2} {drawing.kind:<12} {entry.slug[:52]:<52} {' | '.join(labels)}"
        )
    print()
    print(f"posts: {len(posts)}")
    print(f"drawings showing figures taken from their post: {with_figures}")
    print(f"  charts of the post's numbers: {charts}")
    print(f"schematics: {schematics} (of which {with_figures - charts} label a figure of the post)")
    for number, page in enumerate(pages[:3], 1):
        print(f"page {number}: {len(page)} compositions for {sum(page.values())} cards")
    print(f"compositions on the first three pages: {len(sum(pages[:3], Counter()))}")
    worst = max(max(page.values()) for page in pages)
    print(f"the most times one composition appears on one page: {worst}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
