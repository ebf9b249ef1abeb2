"""What a post's title and summary name: their noun phrases and the figures they give.

A drawing is labelled only with what this finds, so every label is a phrase the post wrote and
every number one it gave. No language model: words are split at the ones that cannot sit inside
a noun phrase (articles, prepositions, pronouns, common verbs), and numbers are read with their
units, in digits ("1.2 GB") or in words ("forty percent", "one in five", "twenty-two minutes").
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

# Words that end a noun phrase: they never sit inside one.
_BREAK = frozenset(
    """a an the our ours we us you your yours their theirs its it it's they them this that these
    those there here which who whom whose what when where why how whether if then than so as
    and or but nor yet not no never only also even just still again ever instead too very
    of in on at to for from with without by into onto over under across through between behind
    beyond after before about around against along among during until within toward towards
    upon via off out up down away back
    is are was were be been being am has have had having do does did doing done can could will
    would shall should may might must
    all any both each every either neither some such many much more most less least few several
    other another same own enough rather quite almost nearly about exactly
    i me my he him his she her one ones something nothing everything anything someone nobody
    everyone anyone
    made make makes making took take takes taking gave give gives got get gets getting kept keep
    keeps keeping let lets put puts set sets found find finds went go goes going came come comes
    ran run runs became become becomes began begin begins brought bring brings showed show shows
    shown told tell tells said say says saw see sees seen knew know knows thought think thinks
    led lead leads left cut cuts won win wins grew grow grows grown fell fall falls held hold
    holds meant mean means needed need needs wanted want wants worked works tried try tries
    used use uses using turned turns moved moves added adds spent spend spends paid pay pays
    lost lose loses sent send sends built build builds wrote write writes rewrote rewriting
    started starts stopped stops looked looks seemed seems helped helps felt feel feels
    happened happens ended ends tells called calls
    ask asks asked tell fit fits fitted caught catch catches hit hits sped crept spent sent
    dealt stood understood chose drove swept because since while although though unless
    whenever once remove removes replace replaces reduce reduces fix fixes avoid avoids ship
    ships check checks compare compares choose chooses decide decides stop handle handles
    shrink shrinks twice thrice taught teach teaches beat beats delivers deliver proposes
    propose sounds walks explains reaches fills affect affects merges misses disables trust
    follow remember confirm interrupt complete explain covers now later today always sometimes
    often usually apart inside late better worse faster slower easier harder simpler useful
    safe expecting holding learned learning tuning react people designers engineers
    developers last""".split()  # noqa: SIM905
)
# Words ending in -ly that are adjectives, and -ed and -ing words that name things.
_KEEP = frozenset(
    """nightly weekly daily monthly quarterly hourly early friendly only
    embedding loading routing ranking scaling caching logging pooling batching shedding
    indexing partitioning rendering pricing billing onboarding streaming hashing sharding
    processing""".split()  # noqa: SIM905
)

_SUBJECTS = frozenset({"we", "they", "i", "you"})
# "run" names a thing after these ("CI run", "training runs"), and is a verb elsewhere.
_RUN_NOUNS = frozenset({"ci", "test", "training", "nightly", "full", "batch", "build", "pipeline"})
_ONES = [
    *"zero one two three four five six seven eight nine ten eleven twelve".split(),  # noqa: SIM905
    *"thirteen fourteen fifteen sixteen seventeen eighteen nineteen".split(),  # noqa: SIM905
]
_TENS = "twenty thirty forty fifty sixty seventy eighty ninety".split()  # noqa: SIM905
_SCALES = {"hundred": 1e2, "thousand": 1e3, "million": 1e6, "billion": 1e9}
_FRACTIONS = {"half": 0.5, "third": 1 / 3, "thirds": 1 / 3, "quarter": 0.25, "quarters": 0.25}
_NUMBER_WORDS = frozenset(_ONES + _TENS + list(_SCALES))
_OWNERS = frozenset("our the all its it their them every each this that those these".split())  # noqa: SIM905

# A unit's word (lower case) → (what it measures, how many base units it is).
UNITS: dict[str, tuple[str, float]] = {
    "ns": ("time", 1e-9),
    "µs": ("time", 1e-6),
    "us": ("time", 1e-6),
    "ms": ("time", 1e-3),
    "millisecond": ("time", 1e-3),
    "milliseconds": ("time", 1e-3),
    "s": ("time", 1.0),
    "sec": ("time", 1.0),
    "second": ("time", 1.0),
    "seconds": ("time", 1.0),
    "min": ("time", 60.0),
    "minute": ("time", 60.0),
    "minutes": ("time", 60.0),
    "hour": ("time", 3600.0),
    "hours": ("time", 3600.0),
    "h": ("time", 3600.0),
    "day": ("time", 86400.0),
    "days": ("time", 86400.0),
    "week": ("time", 604800.0),
    "weeks": ("time", 604800.0),
    "month": ("time", 2629800.0),
    "months": ("time", 2629800.0),
    "year": ("time", 31557600.0),
    "years": ("time", 31557600.0),
    "b": ("bytes", 1.0),
    "bytes": ("bytes", 1.0),
    "kb": ("bytes", 1e3),
    "kilobytes": ("bytes", 1e3),
    "mb": ("bytes", 1e6),
    "megabytes": ("bytes", 1e6),
    "gb": ("bytes", 1e9),
    "gigabytes": ("bytes", 1e9),
    "tb": ("bytes", 1e12),
    "terabytes": ("bytes", 1e12),
    "%": ("share", 1.0),
    "percent": ("share", 1.0),
    "x": ("times", 1.0),
    "×": ("times", 1.0),
    "times": ("times", 1.0),
    "rps": ("rate", 1.0),
    "qps": ("rate", 1.0),
}
_TOKEN = re.compile(
    r"(?P<num>\d[\d,]*(?:\.\d+)?)"
    r"|(?P<word>[^\W\d_](?:[\w’'-]*\w)?(?:\.[^\W\d_]\w*)*)"
    r"|(?P<mark>[%×]|[.,;:!?()\[\]\"“”—–]|\s-\s)",
)
_DIGITS = re.compile(r"\d[\d,]*(?:\.\d+)?")


@dataclass(frozen=True, slots=True)
class Token:
    """One word, number or mark of the text, with where it starts and ends, and its lower
    case (a possessive's 's taken off) for matching."""

    text: str
    kind: str  # "num", "word" or "mark"
    start: int
    end: int
    low: str


@dataclass(frozen=True)
class Phrase:
    """A noun phrase as the post wrote it, and where."""

    text: str
    start: int
    words: tuple[str, ...]  # lower case

    @property
    def head(self) -> str:
        """Its last word: what the phrase names."""
        return self.words[-1]


@dataclass(frozen=True)
class Figure:
    """A number the post gives, as written ("1.2 GB", "forty percent", "one in five").

    `value` is in the base unit of its `dimension` (seconds, bytes, percent, a share of one
    for rates); `noun` is the word it counts or measures ("commits", "minutes").
    """

    text: str
    value: float
    dimension: str  # time, bytes, share, rate, times, count or plain
    noun: str
    start: int
    end: int


@dataclass(frozen=True)
class Comparison:
    """Figures the post sets side by side: a change from one to another, or a pair.

    `names` name each figure in the post's words where it does ("reserved", "used"); `measure`
    is the phrase the figures measure ("container image"); `relative` marks a change the post
    gives only as a factor or a cut ("tripled", "by eighty percent"), drawn without numbers.
    """

    figures: tuple[Figure, ...]
    names: tuple[str, ...]
    measure: str
    change: bool
    relative: str = ""


@dataclass(frozen=True)
class Reading:
    """What the title and summary say, for the drawing: their text, phrases and figures."""

    text: str
    title_end: int
    tokens: tuple[Token, ...]
    phrases: tuple[Phrase, ...]
    figures: tuple[Figure, ...]
    comparisons: tuple[Comparison, ...]

    def in_title(self, start: int) -> bool:
        """Whether the offset falls in the title."""
        return start < self.title_end


def tokens(text: str) -> list[Token]:
    """The words, numbers and marks of a text, in order."""
    found = []
    for match in _TOKEN.finditer(text):
        kind = match.lastgroup or "mark"
        word = match.group().strip()
        low = word.lower().replace("’", "'").removesuffix("'s")
        found.append(Token(word, kind, match.start(), match.end(), low))
    return found


def _verbish(token: Token, before: Token | None, after: Token | None) -> bool:
    """Whether a word is likely a verb or adverb here, so it cannot be part of a phrase."""
    low = token.low
    if "-" in low or "_" in low or "." in low or (low in _KEEP and not low.endswith("ing")):
        return False
    if before is not None and before.low in _SUBJECTS:
        return True  # "we rotate", "we version": what follows a subject is its verb
    if low.endswith("ly") and len(low) > 4:
        return True
    inside = before is not None and before.kind == "word" and before.low not in _BREAK
    follows = after is not None and after.kind == "word" and after.low not in _BREAK
    if low.endswith("ed") and len(low) > 4:
        # "coordinated restart" leads its phrase; "Tracing showed", "it slowed" do not.
        return inside or not follows
    if low.endswith("ing") and len(low) > 5:
        # A gerund after a preposition or at a sentence's start takes an object: a verb.
        opens = before is None or before.kind == "mark" or before.low in _BREAK
        determined = before is not None and before.low in {"a", "an", "the", "our", "their", "its"}
        return opens and not determined and not (low in _KEEP and follows)
    return False


def _is_number_word(low: str) -> bool:
    return all(part in _NUMBER_WORDS for part in low.split("-"))


def phrases(found: list[Token], text: str, taken: frozenset[int] = frozenset()) -> list[Phrase]:
    """The noun phrases: runs of words between words that cannot sit in one, up to four
    (the last three of a longer run). `taken` are tokens a figure holds: they end a phrase."""
    runs: list[list[Token]] = [[]]
    for i, token in enumerate(found):
        before = found[i - 1] if i else None
        after = found[i + 1] if i + 1 < len(found) else None
        noun_run = token.low in ("run", "runs") and before is not None and before.low in _RUN_NOUNS
        breaks = (
            token.kind != "word"
            or i in taken
            or (token.low in _BREAK and not noun_run)
            or _is_number_word(token.low)
            or token.low in _FRACTIONS
            or _verbish(token, before, after)
        )
        if breaks:
            runs.append([])
        else:
            runs[-1].append(token)
    out = []
    for run in runs:
        run = run if len(run) <= 4 else run[-3:]
        if run:
            start, end = run[0].start, run[-1].end
            out.append(Phrase(text[start:end], start, tuple(t.low for t in run)))
    return out


def _number(words: list[str]) -> float | None:
    """The value of number words ("twenty-two", "half a million", "five million")."""
    parts = [p for w in words for p in w.split("-")]
    if parts[:2] == ["half", "a"] and len(parts) == 3 and parts[2] in _SCALES:
        return 0.5 * _SCALES[parts[2]]
    total, current = 0.0, 0.0
    for part in parts:
        if part in _ONES:
            current += _ONES.index(part)
        elif part in _TENS:
            current += 20 + 10 * _TENS.index(part)
        elif part in _SCALES:
            current = max(current, 1.0) * _SCALES[part]
            if part != "hundred":
                total, current = total + current, 0.0
        else:
            return None
    return total + current


def _value(token: Token) -> float | None:
    """A single token's number: digits ("1,020", "0.31") or one number word ("fifty")."""
    if token.kind == "num":
        return float(token.text.replace(",", ""))
    return _number([token.low]) if token.kind == "word" and _is_number_word(token.low) else None


Match = tuple[Figure, int]  # a figure and the index of the token after it


def _rate(found: list[Token], i: int, text: str) -> Match | None:
    """ "one CI run in five", "one in fifty": one in so many."""
    if found[i].low not in ("one", "1"):
        return None
    for j in range(i + 1, min(i + 5, len(found) - 1)):
        if found[j].low == "in":
            n = _value(found[j + 1])
            if n is None or n <= 1:
                return None
            start, end = found[i].start, found[j + 1].end
            return Figure(text[start:end], 1 / n, "rate", "", start, end), j + 2
        if found[j].kind != "word":
            return None
    return None


def _share(found: list[Token], i: int, text: str) -> Match | None:
    """ "a third of", "half of", "two thirds of": a share of something."""
    low = found[i].low
    if low in _FRACTIONS:
        count, head = 1.0, i
    elif low in ("a", "one", "two", "three") and i + 1 < len(found):
        if found[i + 1].low not in _FRACTIONS or found[i + 1].low == "half":
            return None
        count, head = (1.0 if low in ("a", "one") else float(_ONES.index(low))), i + 1
    else:
        return None
    # "a third of our nodes", "a third of it"; not "a quarter of work" (a quarter of a year)
    if head + 2 >= len(found) or found[head + 1].low != "of" or found[head + 2].low not in _OWNERS:
        return None
    start, end = found[i].start, found[head].end
    share = 100 * count * _FRACTIONS[found[head].low]
    return Figure(text[start:end], share, "share", "", start, end), head + 1


def _quantity(found: list[Token], i: int, text: str) -> Match | None:
    """A number in digits or words, with its unit or the noun it counts."""
    token = found[i]
    low = token.low
    j = i + 1
    if i and found[i - 1].low in ("few", "several", "many", "some", "hundreds", "thousands"):
        return None  # "a few hundred megabytes" gives no number to draw
    if token.kind == "num":
        number: float | None = float(token.text.replace(",", ""))
    elif low == "half" and j + 1 < len(found) and found[j].low == "a":
        number, j = _number(["half", "a", found[j + 1].low]), j + 2
    elif token.kind == "word" and low.split("-")[0] in _NUMBER_WORDS and low != "zero":
        parts = low.split("-")
        numeric = [p for p in parts if p in _NUMBER_WORDS]
        if len(numeric) < len(parts):  # "forty-minute outage", "two-billion-row table"
            rest = parts[len(numeric)]
            number = _number(numeric)
            if number is None or rest in _NUMBER_WORDS:
                return None
            end = token.start + len("-".join(parts[: len(numeric) + 1]))
            dimension, scale = UNITS.get(rest, ("count", 1.0))
            value = number * scale
            return Figure(text[token.start : end], value, dimension, rest, token.start, end), j
        words = [low]
        while j < len(found) and found[j].kind == "word" and _is_number_word(found[j].low):
            words.append(found[j].low)
            j += 1
        number = _number(words)
    else:
        return None
    if number is None:
        return None
    start, end = token.start, found[j - 1].end
    unit = found[j] if j < len(found) else None
    if (
        unit is not None
        and unit.text.lower() in UNITS
        and (unit.kind == "word" or unit.text in "%×")
    ):
        dimension, scale = UNITS[unit.text.lower()]
        figure = Figure(
            text[start : unit.end], number * scale, dimension, unit.text.lower(), start, unit.end
        )
        return figure, j + 1
    if unit is not None and unit.kind == "word" and unit.low not in _BREAK:
        # The noun counted, after up to two words: "600 real queries", "three primary key types".
        counted = unit
        for k in range(j, min(j + 3, len(found))):
            plural_after = k > j and found[k].low.endswith("s")  # "two training runs"
            if found[k].kind != "word" or (found[k].low in _BREAK and not plural_after):
                break
            counted = found[k]
            if counted.low.endswith("s"):
                break
        if low != "one" and counted.low.endswith("s") and not _verbish(counted, None, None):
            end = counted.end
            figure = Figure(text[start:end], number, "count", counted.low, start, end)
            return figure, found.index(counted) + 1
    if low == "one" or (token.kind == "num" and 1900 <= number <= 2100 and "." not in token.text):
        return None  # "one" alone is an article more often than a number; 2024 is a year
    return Figure(text[start:end], number, "plain", "", start, end), j


def figures(found: list[Token], text: str) -> list[Figure]:
    """Every number with its unit or counted noun, as the text writes them."""
    out: list[Figure] = []
    i = 0
    while i < len(found):
        match = _rate(found, i, text) or _share(found, i, text) or _quantity(found, i, text)
        if match is None:
            i += 1
            continue
        figure, i = match
        out.append(figure)
    return out


_CHANGE_VERBS = frozenset(
    """cut cuts cutting halved halve brought bring reduced reduce dropped drop fell shaved
    shrank trimmed lowered raised doubled tripled quadrupled made making""".split()  # noqa: SIM905
)
_LINKS = frozenset("and or of the a an to in on for with by at as from".split())  # noqa: SIM905
_FACTORS = {"doubled": 2.0, "tripled": 3.0, "quadrupled": 4.0, "halved": 0.5}


def _index_at(found: list[Token], offset: int) -> int:
    """The index of the token that starts at offset (or the next one)."""
    return next((i for i, t in enumerate(found) if t.start >= offset), len(found))


def _sentence(found: list[Token], i: int) -> tuple[int, int]:
    """The token range of the sentence holding token i."""
    start = i
    while start > 0 and found[start - 1].text not in ".!?":
        start -= 1
    end = i
    while end < len(found) and found[end].text not in ".!?":
        end += 1
    return start, end


def _phrase_before(phrases: list[Phrase], found: list[Token], i: int) -> str:
    """The nearest phrase ending before token i, in its sentence."""
    start, _ = _sentence(found, i)
    lower = found[start].start if start < len(found) else 0
    before = [p for p in phrases if lower <= p.start < found[i].start]
    return before[-1].text if before else ""


def _phrase_after(phrases: list[Phrase], found: list[Token], i: int) -> str:
    """The first phrase after token i, in its sentence."""
    _, end = _sentence(found, i)
    upper = found[end - 1].end if end else 0
    after = [p for p in phrases if found[i].end <= p.start < upper]
    return after[0].text if after else ""


def _like(a: Figure, b: Figure) -> tuple[Figure, Figure] | None:
    """The two figures in one dimension, a bare number taking the other's unit ("from 45 to
    6 milliseconds"); None when they measure different things."""
    if a.dimension == b.dimension and (a.dimension != "count" or a.noun == b.noun):
        return a, b
    if a.dimension == "plain" and b.dimension in ("time", "bytes", "share"):
        scale = UNITS[b.noun][1]
        return Figure(a.text, a.value * scale, b.dimension, b.noun, a.start, a.end), b
    if b.dimension == "plain" and a.dimension in ("time", "bytes", "share"):
        scale = UNITS[a.noun][1]
        return a, Figure(b.text, b.value * scale, a.dimension, a.noun, b.start, b.end)
    return None


def comparisons(
    found: list[Token], text: str, numbers: list[Figure], named: list[Phrase]
) -> list[Comparison]:
    """The figures the text sets against each other, in the order it gives them."""
    at = {_index_at(found, f.start): f for f in numbers}
    out: list[Comparison] = []
    used: set[int] = set()
    lows = [t.low for t in found]
    for i, figure in sorted(at.items()):
        if figure.start in used:
            continue
        # "from A to B", "from A down to B", "A to B"
        after = _index_at(found, figure.end)
        k = after + (1 if after < len(lows) and lows[after] in ("down", "up") else 0)
        if k < len(lows) and lows[k] == "to" and k + 1 in at:
            pair = _like(figure, at[k + 1])
            if pair is not None and pair[0].value != pair[1].value:
                opener = i - 1 if i and lows[i - 1] == "from" else i
                measure = _phrase_before(named, found, opener)
                out.append(Comparison(pair, (), measure, True))
                used |= {figure.start, at[k + 1].start}
                continue
    for i, figure in sorted(at.items()):
        if (
            figure.start in used
            or i < 2
            or lows[i - 1] != "to"
            or lows[i - 2] not in ("down", "up")
        ):
            continue
        # "... down to B", against the figure the text gave before it
        earlier = [f for j, f in sorted(at.items()) if j < i and f.start not in used]
        for before in reversed(earlier):
            pair = _like(before, figure)
            if pair is not None and pair[0].value != pair[1].value:
                measure = _phrase_before(named, found, _index_at(found, before.start))
                out.append(Comparison(pair, (), measure, True))
                used |= {before.start, figure.start}
                break
    for i, figure in sorted(at.items()):
        if figure.start in used or figure.dimension != "share":
            continue
        # "cut our pager volume by eighty percent": a cut given as a share
        if i and lows[i - 1] == "by":
            verb = next(
                (j for j in range(i - 1, max(i - 6, -1), -1) if lows[j] in _CHANGE_VERBS), None
            )
            if verb is not None and lows[verb] not in (
                "raised",
                "doubled",
                "tripled",
                "quadrupled",
            ):
                measure = _phrase_after(named, found, verb)
                out.append(Comparison((figure,), (), measure, True, "cut"))
                used.add(figure.start)
    for i, low in enumerate(lows):
        # "tripled throughput per core", "cut p99 latency ... in half", "twice as fast"
        factor, measure = None, ""
        if low in _FACTORS:
            factor, measure = _FACTORS[low], _phrase_after(named, found, i)
        elif low == "half" and i and lows[i - 1] == "in":
            verb = next(
                (j for j in range(i - 1, max(i - 10, -1), -1) if lows[j] in _CHANGE_VERBS), None
            )
            if verb is not None:
                factor, measure = 0.5, _phrase_after(named, found, verb)
        elif low == "twice" and i + 2 < len(lows) and lows[i + 1] == "as" and lows[i + 2] == "fast":
            factor, measure = 0.5, _phrase_before(named, found, i)
        if factor is not None:
            word = text[
                found[i - 1].start if low == "half" else found[i].start : found[i + 2].end
                if low == "twice"
                else found[i].end
            ]
            out.append(Comparison((), (), measure, True, word))
    by_sentence: dict[tuple[int, int], list[tuple[int, Figure]]] = {}
    for i, figure in sorted(at.items()):
        if figure.start not in used:
            by_sentence.setdefault(_sentence(found, i), []).append((i, figure))
    for group in by_sentence.values():
        # "forty percent reserved and twelve percent used"; "two seconds ... twenty minutes"
        for dimension in ("share", "time", "bytes", "rate"):
            alike = [(i, f) for i, f in group if f.dimension == dimension]
            if len(alike) < 2 or len({f.value for _, f in alike}) < 2:
                continue
            names = []
            for _, f in alike:
                j = _index_at(found, f.end)
                nxt = found[j] if j < len(found) else None
                ok = nxt is not None and nxt.kind == "word" and nxt.low not in _LINKS
                names.append(nxt.text if ok and nxt is not None else "")
            if not all(names):
                names = []
            out.append(Comparison(tuple(f for _, f in alike[:5]), tuple(names[:5]), "", False))
            used |= {f.start for _, f in alike}
    return out


@lru_cache(maxsize=4096)
def read(title: str, summary: str) -> Reading:
    """The title and summary, read for a drawing: their phrases, figures and comparisons."""
    title = title.strip()
    text = (
        f"{title}. {summary.strip()}"
        if title and not title.endswith((".", "?", "!"))
        else f"{title} {summary.strip()}"
    )
    found = tokens(text)
    numbers = figures(found, text)
    # A figure's number and unit end phrases; a hyphenated one ("two-minute warning") and the
    # noun a count counts ("two training runs") stay in theirs.
    taken = frozenset(
        i
        for i, t in enumerate(found)
        for f in numbers
        if f.start <= t.start < f.end
        and not (t.kind == "word" and "-" in t.text)
        and not (f.dimension == "count" and t.kind == "word" and not _is_number_word(t.low))
    )
    named = phrases(found, text, taken)
    compared = comparisons(found, text, numbers, named)
    return Reading(text, len(title), tuple(found), tuple(named), tuple(numbers), tuple(compared))
