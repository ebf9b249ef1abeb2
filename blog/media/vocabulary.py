"""The composition vocabulary: which words of a post ask for which drawing, and which of its
phrases label each part.

Each kind lists the stems that ask for it (a stem of four letters or more matches the words it
starts; a shorter one matches the word or its plural) and, per label slot, the stems a phrase
must hold to name that part. A slot stem starting with `#` takes a figure instead: `#commits`
the post's count of commits ("340 commits"). `counted` are the nouns whose count, when the post
gives one ("three regions"), is the number of parts drawn.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache


@dataclass(frozen=True)
class Entry:
    """What asks for one kind, what labels its parts, and what sets its count."""

    asks: tuple[str, ...]
    slots: tuple[tuple[str, ...], ...] = ()
    counted: tuple[str, ...] = ()
    strong: tuple[str, ...] = ()  # stems that ask twice as loud


def _s(words: str) -> tuple[str, ...]:
    return tuple(words.split())


_STORES = "database databases postgres mysql sqlite redis store primary"
VOCABULARY: dict[str, Entry] = {
    "database": Entry(
        _s("database table column row rows record soft deleted archive foreign postgres"),
        (_s(_STORES), _s("#rows column table rows records"), _s("archive view")),
        strong=_s("soft deleted_at archive"),
    ),
    "partitions": Entry(
        _s("partition partitioning month monthly retention shard sharding"),
        (_s("table events"), _s("month partition day week shard")),
        strong=_s("partition partitioning shard"),
    ),
    "replication": Entry(
        _s("replication replica export dump warehouse stream sync lag redis moved moving"),
        (
            _s("production primary analytics postgres database"),
            _s("warehouse reporting replica redis database"),
            _s("replication stream export sessions"),
        ),
        strong=_s("replication replica"),
    ),
    "snapshot": Entry(
        _s(
            "snapshot snapshots copy anonymized anonymised backup manifest version production-sized"
        ),
        (
            _s("production data storage database"),
            _s("snapshot snapshots copy"),
            _s("migration migrations manifest training test"),
        ),
        strong=_s("snapshot snapshots production-sized"),
    ),
    "queue": Entry(
        _s(
            "queue queues consumer consumers worker workers job jobs message "
            "messages backlog depth kafka deliveries"
        ),
        (
            _s("queue backlog messages message deliveries jobs"),
            _s("workers worker consumer consumers fleet receivers dispatcher"),
        ),
        strong=_s("queue queues consumer"),
    ),
    "batch": Entry(
        _s("batching batch batches inference throughput window embedding"),
        (_s("batching batch window requests"), _s("model cpu core server")),
        strong=_s("batching"),
    ),
    "pool": Entry(
        _s(
            "pool pooling connection connections pgbouncer thread threads shared "
            "environment environments"
        ),
        (
            _s("environment environments application clients services request"),
            _s("pool pgbouncer connections"),
            _s(_STORES + " server"),
        ),
        strong=_s("pool pgbouncer shared"),
    ),
    "layers": Entry(
        _s("cache caching cached cdn proxy eviction memoize bloom filter"),
        (
            _s("store server api origin database"),
            _s("cache caches filter"),
            _s("cache layer"),
            _s("cache layer"),
        ),
        strong=_s("cache caching bloom"),
    ),
    "stack": Entry(
        _s("layout terraform module modules tier tiers stack layers repository state rewrites"),
        (
            _s("state file repository"),
            _s("resource type"),
            _s("environment blast radius"),
            _s("module layer"),
        ),
        strong=_s("terraform stack"),
    ),
    "cluster": Entry(
        _s("kubernetes cluster node nodes pod pods rightsizing workload workloads usage reserved"),
        (_s("cluster kubernetes"), _s("nodes node workloads pods")),
        counted=_s("nodes"),
        strong=_s("rightsizing cluster"),
    ),
    "growth": Entry(
        _s("leak leaks memory heap bloat grew grown crawl disk vacuum listeners"),
        (
            _s("#rows memory heap table app session listeners"),
            _s("#bytes disk capacity limit eviction"),
        ),
        strong=_s("leak bloat heap"),
    ),
    "nodes": Entry(
        _s(
            "region regions zone zones datacenter provider providers dns failover "
            "resolvers site sites edge"
        ),
        (
            _s("provider providers region zone site primary"),
            _s("resolvers region replica zone"),
            _s("region zone site"),
        ),
        counted=_s("regions zones sites providers datacenters replicas"),
        strong=_s("region regions dns failover"),
    ),
    "timeline": Entry(
        _s(
            "timeline postmortem postmortems incident drill outage history schedule "
            "delay sigterm shutdown rollout advisory"
        ),
        (
            _s("drill incident summary pod deploy sigterm outage"),
            _s("delay timeline actions hour"),
            _s("#problems cluster action owner date"),
        ),
        counted=_s("problems events steps"),
        strong=_s("timeline postmortem postmortems drill shutdown"),
    ),
    "pipeline": Entry(
        _s(
            "pipeline build builds ci deploy deploys release stage stages "
            "pre-commit checks make target seed render format module expand "
            "contract phase phases"
        ),
        (
            _s("pre-commit token source expand check prerequisites store file"),
            _s("build variables ci dependencies formatting module containers migrate application"),
            _s("themes contract deploy release test seed render platform"),
        ),
        strong=_s("pipeline pre-commit"),
    ),
    "chain": Entry(
        _s("timeout timeouts deadline deadlines hop hops chain cascade budget"),
        (_s("service services hop layer dependency"), _s("deadline timeout budget retries")),
        counted=_s("services layers hops"),
        strong=_s("timeout timeouts deadline deadlines chain"),
    ),
    "network": Entry(
        _s(
            "api apis service services mesh client clients products caller callers "
            "sidecar libraries"
        ),
        (_s("#products #clients products clients callers teams"), _s("api service mesh")),
        counted=_s("products services clients callers teams"),
        strong=_s("mesh api"),
    ),
    "sequence": Entry(
        _s(
            "webhook webhooks idempotency idempotent handshake protocol payment "
            "provider handler duplicate response flags"
        ),
        (_s("provider server browser client"), _s("handler webhooks account database")),
        strong=_s("idempotency webhooks handshake flags"),
    ),
    "tree": Entry(
        _s(
            "tree graph dependency import imports monorepo package packages "
            "hierarchy component components key keys index"
        ),
        (
            _s("monorepo graph repository tree index"),
            _s("packages package tests test modules keys"),
        ),
        strong=_s("monorepo graph tree"),
    ),
    "commits": Entry(
        _s("bisect commit commits git culprit"),
        (_s("#commits commits release"), _s("#steps steps culprit script")),
        strong=_s("bisect commits"),
    ),
    "funnel": Entry(
        _s(
            "search relevance ranking query queries filter filtered judgment funnel "
            "conversion signup"
        ),
        (_s("#queries queries query documents chunks"), _s("ranking score results list")),
        strong=_s("relevance ranking funnel"),
    ),
    "model": Entry(
        _s(
            "model models regression classifier gradient-boosted training prediction churn auc onnx"
        ),
        (_s("regression model"), _s("gradient-boosted model"), _s("features inputs data")),
        strong=_s("regression gradient-boosted"),
    ),
    "histogram": Entry(
        _s(
            "distribution distributions drift percentile percentiles tail spread "
            "confidence histogram shifts"
        ),
        (_s("distributions distribution input labels"), _s("confidence prediction shifts drift")),
        strong=_s("drift distribution distributions histogram"),
    ),
    "wave": Entry(
        _s(
            "alert alerts pager pages metric metrics monitoring traffic spike load signal threshold"
        ),
        (_s("usage metric traffic load pager volume"), _s("#times alert alerts threshold")),
        strong=_s("alert alerts pager"),
    ),
    "bucket": Entry(
        _s("bucket buckets tenant tenants shedding shed quota throttling rate-limit limiter"),
        (_s("bucket limiter"), _s("requests traffic tenant script")),
        strong=_s("bucket shedding"),
    ),
    "page": Entry(
        _s(
            "page pages layout paint frontend dark css component components flicker "
            "screen form forms lazy fold banner image images browser dashboard "
            "theme"
        ),
        (
            _s("page dashboard screen form forms app"),
            _s("tokens properties banner selector images image component block fold labels theme"),
        ),
        strong=_s("layout lazy-loading forms"),
    ),
    "files": Entry(
        _s(
            "file files setup.py pyproject.toml template config configuration "
            "script scripts manifest document handbook runbook guide schema openapi "
            "cli"
        ),
        (
            _s("#packages #scripts scripts packages files setup.py wrappers"),
            _s("template pyproject.toml cli file schema handbook document"),
        ),
        counted=_s("packages scripts files"),
        strong=_s("pyproject.toml setup.py scripts handbook openapi"),
    ),
    "keys": Entry(
        _s(
            "secret secrets credential credentials password passwords rotate "
            "rotation certificate certificates"
        ),
        (_s("credentials password secrets secret"), _s("services service servers")),
        strong=_s("secret secrets credentials rotate"),
    ),
    "checkpoint": Entry(
        _s("checkpoint checkpoints spot interrupt interruption preempt resume warning"),
        (_s("jobs job batch work"), _s("warning interruption spot")),
        strong=_s("spot checkpoint"),
    ),
    "mirror": Entry(
        _s("shadow mirror dual twin identical candidate canary seed runs"),
        (
            _s("production live routing run runs provider"),
            _s("shadow candidate copy seed provider"),
        ),
        strong=_s("shadow identical seed"),
    ),
    "grid": Entry(
        _s("judgment list logs logging json fields field matrix grid grade graded columns"),
        (_s("list logs conventions table"), _s("#queries fields queries grades columns")),
        strong=_s("judgment logging json"),
    ),
    "ring": Entry(
        _s("rotation cycle weekly schedule loop on-call round rotating routine updates"),
        (_s("batch rotation schedule updates cycle"), _s("owner team")),
        strong=_s("schedule rotating weekly"),
    ),
    "flow": Entry(
        _s(
            "review reviews guideline guidelines rule rules decision flag flags "
            "quarantine process policy blocking"
        ),
        (_s("change pull request"), _s("review guidelines rules quarantine decision process")),
        strong=_s("guidelines quarantine decision"),
    ),
    "waterfall": Entry(
        _s("paint bundle font fonts critical loading contentful waterfall trace render"),
        (_s("#time"), _s("critical css"), _s("font loading chain fonts"), _s("bundle script")),
        strong=_s("paint bundle"),
    ),
}


VOCABULARY |= {
    "breaker": Entry(
        _s("breaker breakers circuit"),
        (
            _s("service services caller call"),
            _s("breakers breaker circuit"),
            _s("dependency incident"),
        ),
        strong=_s("breaker breakers circuit"),
    ),
    "report": Entry(
        _s("postmortem postmortems handbook runbook guide template checklist document documents"),
        (
            _s("postmortems handbook guide document"),
            _s("template timeline summary"),
            _s("action runbook owner"),
        ),
        strong=_s("postmortem postmortems handbook runbook"),
    ),
    "move": Entry(
        _s("moving moved back migrate"),
        (_s("postgres database primary"), _s("redis store"), _s("sessions session storage data")),
        strong=_s("moving moved"),
    ),
    "terminal": Entry(
        _s("cli command commands terminal shell scripts binary flags"),
        (_s("#scripts scripts shell"), _s("cli tool binary command")),
        counted=_s("scripts"),
        strong=_s("cli shell"),
    ),
    "amplify": Entry(
        _s("retry retries retried amplification blips storm"),
        (_s("database hiccup request call"), _s("outage outages failures")),
        strong=_s("retries retried retry"),
    ),
    "fold": Entry(
        _s("fold lazy lazy-loading eager eagerly deferring deferred viewport above"),
        (_s("images image components"), _s("fold paint regression")),
        strong=_s("fold lazy lazy-loading"),
    ),
    "fanout": Entry(
        _s("token tokens compiled generated generating themes variables source"),
        (_s("token file source schema"), _s("variables css"), _s("themes platform"), _s("types")),
        strong=_s("compiled generated"),
    ),
}


def matches(word: str, stem: str) -> bool:
    """Whether a word (lower case) is one a stem asks for; a hyphenated word by its whole or
    its last part ("two-billion-row" is a row, "production-sized" is no production)."""
    if "-" in word and not word.startswith(stem + "-") and word != stem:
        word = word.rsplit("-", 1)[1]
    elif "-" in word and word != stem:
        return False
    return word.startswith(stem) if len(stem) > 3 else word in (stem, stem + "s")


def _by_stem(stems_of: str) -> dict[str, set[str]]:
    """Each stem of the entries' `asks` (or `strong`) → the kinds it belongs to."""
    out: dict[str, set[str]] = {}
    for kind, entry in VOCABULARY.items():
        for stem in getattr(entry, stems_of):
            out.setdefault(stem, set()).add(kind)
    return out


_ASKING = _by_stem("asks")
_STRONG = _by_stem("strong")
_LONGEST = max(map(len, [*_ASKING, *_STRONG]))


def _stems(word: str) -> list[str]:
    """The stems that match a word, as `matches` has it, by looking them up rather than
    trying each: a long stem is one of the word's beginnings, a short one the word itself
    or the word without its plural s."""
    if "-" in word:
        found = [word] if word in _ASKING or word in _STRONG else []
        last = word.rsplit("-", 1)[1]
        return found + [s for s in _stems(last) if not word.startswith(s + "-")]
    found = [
        word[:n]
        for n in range(4, min(len(word), _LONGEST) + 1)
        if word[:n] in _ASKING or word[:n] in _STRONG
    ]
    found += [w for w in (word, word[:-1] if word.endswith("s") else "") if 0 < len(w) <= 3]
    return [s for s in found if s in _ASKING or s in _STRONG]


@lru_cache(maxsize=16384)
def asks(word: str) -> tuple[tuple[str, float], ...]:
    """The kinds a word (lower case) asks for, each with how loudly (2 for a strong stem)."""
    stems = _stems(word)
    kinds = {kind for stem in stems for kind in _ASKING.get(stem, ())}
    strong = {kind for stem in stems for kind in _STRONG.get(stem, ())}
    return tuple((kind, 2.0 if kind in strong else 1.0) for kind in VOCABULARY if kind in kinds)
