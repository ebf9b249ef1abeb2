"""Seeded engineering prose for benchmark posts: titles, summaries and 1,500-word bodies.

Everything here is a pure function of its seed, so a data set built twice holds the same text.
Words are drawn with falling weights from a few hundred terms: common words appear in almost
every post and rare ones in few, which keeps full-text search over the data set meaningful.
"""

from __future__ import annotations

import itertools
import random


def _words(text: str) -> list[str]:
    """The distinct words of a whitespace-separated list, in order."""
    return list(dict.fromkeys(text.split()))


NOUNS = _words(
    """
cache queue index replica shard cluster node pod container image volume snapshot backup
schema migration table column query planner optimizer transaction lock deadlock latency
throughput budget alert dashboard metric trace span log sampler exporter collector agent
gateway proxy router balancer listener socket connection pool thread worker scheduler
timer deadline retry backoff circuit breaker fallback timeout heartbeat lease quorum leader
follower election consensus ledger journal checkpoint compaction segment partition topic
consumer producer broker offset watermark window aggregate pipeline stage artifact build
release rollout canary rollback flag toggle experiment cohort tenant account session token
credential secret certificate handshake cipher key vault policy role permission audit
incident postmortem runbook pager rotation escalation outage regression benchmark profile
flamegraph allocator heap stack buffer page cursor iterator parser compiler linter formatter
bundle module package dependency lockfile registry mirror checksum signature manifest
template fragment component layout stylesheet viewport browser request response header
payload endpoint route handler middleware validator serializer encoder decoder codec stream
chunk frame packet datagram checksum counter histogram quantile percentile baseline budget
capacity headroom forecast quota limit throttle spike burst plateau trend anomaly
"""
)

VERBS_PAST = _words(
    """
measured rewrote replaced removed doubled halved sharded indexed cached batched throttled
profiled traced sampled rolled migrated split merged pinned bumped vendored patched tuned
retried drained rebalanced promoted demoted fenced restarted scaled trimmed compacted
vacuumed rebuilt reordered flattened inlined deferred prefetched streamed buffered hashed
signed rotated revoked audited paged silenced escalated documented automated simplified
"""
)

VERBS_PRESENT = _words(
    """
measure rewrite replace shard index cache batch throttle profile trace migrate split tune
drain rebalance scale compact rebuild stream sign rotate audit automate simplify
"""
)

VERBS_ING = _words(
    """
blocking starving thrashing leaking stalling spinning queueing retrying timing flapping
drifting growing shrinking contending swapping paging polling waiting serializing copying
"""
)

ADJECTIVES = _words(
    """
slow fast hot cold stale fresh noisy quiet flaky stable brittle sturdy shared private
global local remote nearby eager lazy strict loose narrow wide shallow deep partial full
sparse dense small large tiny huge cheap costly warm idle busy steady bursty ordered
unordered durable volatile atomic optimistic pessimistic synchronous asynchronous
incremental periodic nightly weekly transient persistent primary secondary upstream downstream
"""
)

ADVERBS = _words(
    """
quietly slowly quickly rarely often suddenly gradually briefly steadily reliably barely
"""
)

PREPOSITIONS = _words("in under behind across between beside after before during around")

TIMES = """
Last quarter|Over the winter|During the migration|On a quiet Sunday|Two releases ago|
Before the launch|After the freeze|Every night|Once a week|At peak traffic
""".replace("\n", "").split("|")

UNITS = _words("milliseconds seconds requests rows pages megabytes percent connections")

LANGUAGES = ("python", "sql", "toml")


def plural(noun: str) -> str:
    """The plural of one of our nouns."""
    if noun.endswith("y") and noun[-2] not in "aeiou":
        return noun[:-1] + "ies"
    if noun.endswith(("s", "x", "ch", "sh")):
        return noun + "es"
    return noun + "s"


def article(word: str) -> str:
    """The word with "a" or "an" in front."""
    return ("an " if word[0] in "aeiou" else "a ") + word


def _cumulative(words: list[str]) -> list[float]:
    """Cumulative, gently falling weights: the first words of a list are the most frequent."""
    return list(itertools.accumulate((rank + 1) ** -0.7 for rank in range(len(words))))


_WEIGHTS = {id(words): _cumulative(words) for words in (NOUNS, VERBS_PAST, ADJECTIVES)}


class Prose:
    """Sentences, paragraphs and documents drawn from one seeded random stream."""

    def __init__(self, seed: str) -> None:
        self.rng = random.Random(seed)

    def word(self, words: list[str]) -> str:
        """One word from a list, frequent words first."""
        weights = _WEIGHTS.get(id(words))
        if weights is None:
            return self.rng.choice(words)
        return self.rng.choices(words, cum_weights=weights)[0]

    def noun(self) -> str:
        """A noun."""
        return self.word(NOUNS)

    def adjective(self) -> str:
        """An adjective."""
        return self.word(ADJECTIVES)

    def sentence(self) -> str:
        """One sentence of engineering prose."""
        rng = self.rng
        n, a, v = self.noun, self.adjective, lambda: self.word(VERBS_PAST)
        shapes = (
            lambda: f"The {a()} {n()} {v()} the {n()} {rng.choice(PREPOSITIONS)} every {n()}",
            lambda: f"We {v()} the {n()} because the {n()} kept {rng.choice(VERBS_ING)}",
            lambda: (
                f"{rng.choice(TIMES)}, the {n()} {v()} {rng.randint(2, 900)} {rng.choice(UNITS)}"
            ),
            lambda: (
                f"Nobody expected the {a()} {n()} to matter until the {n()} started "
                f"{rng.choice(VERBS_ING)} {rng.choice(ADVERBS)}"
            ),
            lambda: (
                f"{article(a())} {n()} is cheaper than {article(a())} {n()} when the {n()} is {a()}"
            ),
            lambda: (
                f"Our {n()} {v()} the `{n()}_{n()}` setting, and the {n()} "
                f"{rng.choice(ADVERBS)} settled"
            ),
            lambda: (
                f"If the {n()} is {a()}, the {n()} should stay {a()} {rng.choice(PREPOSITIONS)} "
                f"the {n()}"
            ),
            lambda: f"The team {v()} {rng.randint(2, 40)} {plural(n())} and {v()} the {a()} {n()}",
        )
        text = rng.choice(shapes)()
        return text[0].upper() + text[1:] + "."

    def sentences(self, count: int) -> str:
        """Several sentences joined into running text."""
        return " ".join(self.sentence() for _ in range(count))

    def heading(self) -> str:
        """A section heading."""
        text = f"{self.adjective()} {self.noun()} {self.rng.choice(PREPOSITIONS)} the {self.noun()}"
        return text[0].upper() + text[1:]

    def title(self) -> str:
        """A post title."""
        rng, n, a = self.rng, self.noun, self.adjective
        shapes = (
            lambda: f"How we {rng.choice(VERBS_PRESENT)} the {a()} {n()}",
            lambda: f"The {a()} {n()} that kept {rng.choice(VERBS_ING)}",
            lambda: f"What {article(a())} {n()} taught us about {plural(n())}",
            lambda: f"Notes on {a()} {plural(n())} and {a()} {plural(n())}",
            lambda: f"{article(n())} postmortem: the {n()} was {a()}",
        )
        text = rng.choice(shapes)()
        return text[0].upper() + text[1:]

    def summary(self, length: int = 300) -> str:
        """Plain text of about `length` characters, cut at a word boundary."""
        text = ""
        while len(text) < length:
            text = f"{text} {self.sentence().replace('`', '')}".strip()
        cut = text[: length - 1].rsplit(" ", 1)[0].rstrip(",;:.")
        return cut + "\u2026"

    def _code(self) -> str:
        """A fenced code block in one of a few languages."""
        rng, n = self.rng, self.noun
        language = rng.choice(LANGUAGES)
        if language == "python":
            lines = [f"def {n()}_{n()}({n()}, {n()}):"]
            lines += [f"    {n()} = {n()}.{n()}({rng.randint(1, 99)})" for _ in range(4)]
            lines.append(f"    return {n()}")
        elif language == "sql":
            lines = [
                f"SELECT {n()}_id, count(*) AS {plural(n())}",
                f"FROM {plural(n())} JOIN {plural(n())} USING ({n()}_id)",
                f"WHERE {n()} > {rng.randint(1, 500)}",
                f"GROUP BY {n()}_id ORDER BY {plural(n())} DESC LIMIT {rng.randint(5, 50)};",
            ]
        else:
            lines = [f"[{n()}]"] + [f'{n()}_{n()} = "{self.adjective()}"' for _ in range(4)]
        return f"```{language}\n" + "\n".join(lines) + "\n```"

    def _list(self) -> str:
        """A bulleted list of short points."""
        return "\n".join(
            f"- {self.adjective()} {plural(self.noun())} {self.rng.choice(VERBS_ING)} "
            f"{self.rng.choice(ADVERBS)}"
            for _ in range(self.rng.randint(3, 6))
        )

    def body(self, words: int) -> str:
        """A Markdown document of about `words` words in sections, with lists and code."""
        blocks: list[str] = []
        count = 0
        while count < words:
            blocks.append(f"## {self.heading()}")
            for index in range(self.rng.randint(3, 5)):
                if index == 2 and self.rng.random() < 0.4:
                    block = self._code()
                elif index == 1 and self.rng.random() < 0.5:
                    block = self._list()
                else:
                    block = self.sentences(self.rng.randint(4, 7))
                blocks.append(block)
                count += len(block.split())
                if count >= words:
                    break
        return "\n\n".join(blocks)
