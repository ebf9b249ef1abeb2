"""Reading a post's title and summary for its drawing: noun phrases, figures, comparisons."""

from __future__ import annotations

import time

import pytest

from blog.media.wording import read


def phrases(title: str, summary: str = "") -> list[str]:
    """The noun phrases read, as written."""
    return [p.text for p in read(title, summary).phrases]


def figures(title: str, summary: str = "") -> list[tuple[str, str]]:
    """The figures read: their text and what they measure."""
    return [(f.text, f.dimension) for f in read(title, summary).figures]


@pytest.mark.parametrize(
    ("text", "expected", "absent"),
    [
        ("Cutting our container image from 1.2 GB to 140 MB", ["container image"], ["Cutting"]),
        (
            "Heap snapshots led us to event listeners that outlived their components.",
            ["Heap snapshots", "event listeners", "components"],
            ["led"],
        ),
        ("Tracing showed head-of-line blocking behind slow receivers.", ["slow receivers"], []),
        ("How we rotate secrets without restarting services", ["secrets", "services"], ["rotate"]),
        ("A token bucket per tenant at the edge", ["token bucket per tenant", "edge"], []),
        ("Two training runs with the same seed", ["training runs", "seed"], []),
        ("We handle the two-minute warning", ["two-minute warning"], []),
    ],
)
def test_noun_phrases_stop_at_verbs_articles_and_prepositions(text, expected, absent):
    """Phrases are runs of words no verb, article or preposition breaks, as written."""
    found = phrases(text)
    for phrase in expected:
        assert phrase in found, found
    assert not any(word in p.split() for p in found for word in absent), found


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("from 1.2 GB to 140 MB", [("1.2 GB", "bytes"), ("140 MB", "bytes")]),
        ("p99 went from 800 ms to 120 ms", [("800 ms", "time"), ("120 ms", "time")]),
        ("forty percent reserved", [("forty percent", "share")]),
        ("failing one CI run in five", [("one CI run in five", "rate")]),
        ("a third of our nodes", [("a third", "share")]),
        ("twenty-two minutes", [("twenty-two minutes", "time")]),
        ("half a million live rows", [("half a million live rows", "count")]),
        (
            "3 of 8 nodes and 340 commits",
            [("3", "plain"), ("8 nodes", "count"), ("340 commits", "count")],
        ),
        ("a forty-minute outage", [("forty-minute", "time")]),
        ("released in 2024", []),
        ("one small CLI", []),
        ("a quarter of work", []),
    ],
)
def test_figures_are_read_as_written_with_their_units(text, expected):
    """Numbers in digits or words, with their units or counted nouns; years, "one" alone
    and a quarter of a year are not figures."""
    assert figures("", text) == expected


def test_comparisons_pair_the_numbers_the_post_sets_against_each_other():
    """A change ("from A to B", "down to B"), a pair of shares with their names, a factor."""
    [change] = read("Cutting our container image from 1.2 GB to 140 MB", "").comparisons
    assert [f.text for f in change.figures] == ["1.2 GB", "140 MB"] and change.change
    assert change.measure == "container image"
    bare = read("", "cut ranking latency from 45 to 6 milliseconds").comparisons[0]
    assert [f.value for f in bare.figures] == [0.045, 0.006]  # 45 takes the unit of 6 ms
    later = read("", "CI had crept up to twenty-two minutes. We brought it down to ten.")
    assert [f.text for f in later.comparisons[0].figures] == ["twenty-two minutes", "ten"]
    pair = read("", "Our cluster was forty percent reserved and twelve percent used.")
    assert pair.comparisons[0].names == ("reserved", "used") and not pair.comparisons[0].change
    factor = read("", "Dynamic batching tripled throughput per core.").comparisons[0]
    assert factor.relative == "tripled" and factor.measure == "throughput per core"
    assert not read("Failover across three regions", "No numbers compared here.").comparisons


def test_reading_is_fast_and_bounded_on_hostile_text():
    """A long, repetitive or odd text reads at once."""
    # CPU time of this process: the clock of a machine running three test passes says little.
    started = time.process_time()
    for text in ("latency " * 75, "1" * 600, "🚀 " * 300, "a-" * 300, "one in " * 80):
        read(text[:300], text[:600])
    assert time.process_time() - started < 1.0
