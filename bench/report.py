"""The listing benchmark's targets (those of the issue "One simple reader path"), and its
results as a Markdown report.

`python -m bench.report bench/results/listing-<time>.json` prints a saved run's report again.
"""

from __future__ import annotations

import statistics
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

PAGE_WEIGHT_LIMIT = 60_000  # bytes, compressed: HTML + stylesheets + scripts, no images

ROLE_LABELS = {
    "app": "app",
    "app-cold": "app, caches off",
    "constant": "reference: constant page",
    "constant-otf": "reference: constant page, compressed per request",
    "inmemory": "reference: in-memory render",
}

LEGEND = """\
- **app**: the blog as deployed, `gunicorn -w 2 'blog:create_app()'` on the data set.
- **app, caches off**: the same, started with {cold_env} so that nothing is served from a
  cache (a cold render); "renders warm" shows whether that held.
- **reference: constant page**: a tiny Flask app (`bench/reference_app.py:constant`) answering
  with the exact bytes the blog sent for its home page at {main:,} posts: the plain page, or
  the compressed body the blog sent for `Accept-Encoding: gzip, br`, sent as it is. The
  compressed targets compare with this row: the cost of sending the bytes.
- **reference: constant page, compressed per request**: the same plain page compressed on
  every request{compress_note} (what on-the-fly compression costs; for information).
- **reference: in-memory render**: the blog itself with its home view replaced by a render of
  the same template from the context captured at startup, rows copied into plain objects, no
  database (`bench/reference_app.py:inmemory`){identical_note}.
- Encoding: "plain" sends no `Accept-Encoding`; otherwise the request sends
  `Accept-Encoding: gzip, br` and the column shows the `Content-Encoding` that came back.
  A 304 has no body, so it runs once, plain.
- req/s, p50 and p99: medians over the runs; spread: (highest − lowest req/s) / median, how
  much the machine's other load moved the runs. Bytes: the response body as sent (compressed
  when encoded). SQL: statements per request, transaction control (BEGIN/COMMIT) not counted,
  first request of a fresh app (cold) and the same request again (warm).
- Ratios are taken round by round (rows compared with each other run next to each other, in
  alternating order), and the median of the rounds is reported.
- **Editor's save** (`bench/editor_save.py`): an editor logged in through /login loads
  `/editor/posts/<id>` of the newest post, sends back every field the form holds (hidden ones
  and the CSRF token included) with the title changed slightly, as htmx posts that form, and
  the POST is timed: in-process with Flask's test client, on a throwaway copy of the smallest
  and of the largest data set, sizes alternating round by round; the median of per-round
  ratios is reported.
- **Worker memory** (`bench/memory.py`): each worker's VmRSS before and after 5,000 anonymous
  requests to the app at {main:,} posts (after the timed rows) for `/`, `/topics/<t>` and
  `/posts/<slug>` with `?utm_x=<random>&page=1` or `?v=<random>`, a Host spelling the
  site's own name another way (case, a random port; one in ten another host, refused with
  a 400) and, for half of them, `HX-Request: true` with a random HX-Target.
"""


@dataclass(frozen=True)
class Target:
    """One target of the issue, evaluated on one database's rows."""

    key: str
    label: str
    limit: str
    measure: Callable[[dict[str, dict[str, Any]], dict[str, Any]], tuple[float | None, str]]
    passes: Callable[[float], bool] = lambda _value: True
    # For a limit that follows a setting of the app: the most the value may be in this run.
    ceiling: Callable[[dict[str, Any]], float | None] | None = None

    def verdict(self, value: float | None, facts: dict[str, Any]) -> str:
        """PASS, FAIL, or n/a when nothing was measured."""
        if value is None:
            return "n/a"
        if self.ceiling is not None:
            ceiling = self.ceiling(facts)
            if ceiling is None:
                return "n/a"
            return "PASS" if value <= ceiling else "FAIL"
        return "PASS" if self.passes(value) else "FAIL"


def _row(rows: dict[str, dict[str, Any]], key: str) -> dict[str, Any] | None:
    """A measured row by key, or None when it was not measured or failed."""
    row = rows.get(key)
    if not row or row.get("error") or row.get("rps") is None:
        return None
    return row


def _missing(rows: dict[str, dict[str, Any]], key: str) -> str:
    """Why a row a target needs has no number."""
    row = rows.get(key)
    if not row:
        return "not measured: this run left that row out"
    return f"not measured: {row['label']} {row['size']:,} {row['encoding']}: {row.get('error')}"


def _per_round(a: dict[str, Any], b: dict[str, Any], field: str) -> list[float]:
    """`field` of row `a` over that of row `b`, round by round (each pair measured close)."""
    ratios = []
    for run_a, run_b in zip(a["runs"], b["runs"], strict=False):
        if run_a.get(field) is not None and run_b.get(field):
            ratios.append(run_a[field] / run_b[field])
    return ratios


def _ratio_text(ratios: list[float], a: float, b: float, unit: str) -> tuple[float | None, str]:
    """The median of per-round ratios, with the rounds and the rows' medians."""
    if not ratios:
        return None, "not measured: no round measured both rows"
    value = statistics.median(ratios)
    rounds = ", ".join(f"{r:.2f}" for r in ratios)
    return value, f"{value:.2f}× (rounds {rounds}; medians {a:,.1f} / {b:,.1f} {unit})"


def _rps_ratio(top: str, bottom: str) -> Callable[..., tuple[float | None, str]]:
    """Measure requests/s of row `top` over row `bottom`, as the median of per-round ratios."""

    def measure(
        rows: dict[str, dict[str, Any]], _facts: dict[str, Any]
    ) -> tuple[float | None, str]:
        a, b = _row(rows, top), _row(rows, bottom)
        if a is None or b is None:
            return None, _missing(rows, top if a is None else bottom)
        return _ratio_text(_per_round(a, b, "rps"), a["rps"], b["rps"], "req/s")

    return measure


def _cold_ratio(top: str, bottom: str, *cold: str) -> Callable[..., tuple[float | None, str]]:
    """Measure row `top` over row `bottom` (keys in facts), only when every `cold` row really
    rendered on each request."""

    def measure(rows: dict[str, dict[str, Any]], facts: dict[str, Any]) -> tuple[float | None, str]:
        ratio, text = _rps_ratio(facts["keys"][top], facts["keys"][bottom])(rows, facts)
        for name in cold:
            row = rows.get(facts["keys"][name]) or {}
            renders = (row.get("counts") or {}).get("renders") or [0, 0]
            if ratio is not None and renders[1] < 1:
                return None, f"{text}, but the warm request rendered nothing: a cache is still on"
        return ratio, text

    return measure


def _p50_ratio(rows: dict[str, dict[str, Any]], facts: dict[str, Any]) -> tuple[float | None, str]:
    """p50 at the largest size over p50 at the smallest."""
    big_key, small_key = facts["keys"]["home_big"], facts["keys"]["home_small"]
    big, small = _row(rows, big_key), _row(rows, small_key)
    if big is None or small is None:
        return None, _missing(rows, big_key if big is None else small_key)
    return _ratio_text(_per_round(big, small, "p50_ms"), big["p50_ms"], small["p50_ms"], "ms")


def _sql(which: int) -> Callable[..., tuple[float | None, str]]:
    """The most statements any listing request ran, cold (0) or warm (1)."""

    def measure(
        rows: dict[str, dict[str, Any]], _facts: dict[str, Any]
    ) -> tuple[float | None, str]:
        counted = [
            (row["counts"]["statements"][which], row["label"])
            for row in rows.values()
            if row.get("listing") and (row.get("counts") or {}).get("statements")
        ]
        if not counted:
            return None, "not measured"
        worst, label = max(counted)
        return float(worst), f"{worst} ({label})"

    return measure


def _fragment_bytes(
    rows: dict[str, dict[str, Any]], facts: dict[str, Any]
) -> tuple[float | None, str]:
    """Compressed bytes of the read-more fragment over those of the full page."""
    more, page = rows.get(facts["keys"]["more"]), rows.get(facts["keys"]["home"])
    if not more or not page or not more.get("bytes") or not page.get("bytes"):
        return None, "not measured"
    ratio = more["bytes"] / page["bytes"]
    return ratio, f"{ratio:.2f} ({more['bytes']:,} / {page['bytes']:,} bytes)"


def _page_weight(
    _rows: dict[str, dict[str, Any]], facts: dict[str, Any]
) -> tuple[float | None, str]:
    """Compressed bytes of the home page with its stylesheets and scripts."""
    weight = facts.get("page_weight")
    if not weight:
        return None, "not measured"
    parts = ", ".join(f"{path} {size:,}" for path, size in weight["parts"])
    return float(weight["total"]), f"{weight['total']:,} bytes ({parts})"


def _memory_growth(
    _rows: dict[str, dict[str, Any]], facts: dict[str, Any]
) -> tuple[float | None, str]:
    """The most any worker's resident memory grew under the varied anonymous requests."""
    found = facts.get("memory")
    if not found:
        return None, "not measured"
    if found.get("error"):
        return None, f"not measured: {found['error']}"
    growths = [w["growth_mb"] for w in found["workers"] if w.get("growth_mb") is not None]
    if not growths or found.get("replaced"):
        return None, f"not measured: workers replaced during the requests ({found['replaced']})"
    per_worker = ", ".join(
        f"{w['before_mb']:.1f} → {w['after_mb']:.1f}"
        for w in found["workers"]
        if w["growth_mb"] is not None
    )
    answers = ", ".join(f"{n:,}× {status}" for status, n in found["answers"].items())
    worst = max(growths)
    return worst, (
        f"+{worst:.1f} MB, worst worker (RSS before → after, MB: {per_worker}; "
        f"{found['requests']:,} requests to {found['server']} in {found['seconds']:.0f} s: "
        f"{answers})"
    )


def _memory_ceiling(facts: dict[str, Any]) -> float | None:
    """PAGE_CACHE_MB of the app plus the headroom, in MB."""
    found = facts.get("memory") or {}
    return found.get("limit_mb")


def _save_ratio(
    _rows: dict[str, dict[str, Any]], facts: dict[str, Any]
) -> tuple[float | None, str]:
    """The editor's save at the largest size over the same save at the smallest, by rounds."""
    found = facts.get("save")
    wanted = (facts["sizes"]["small"], facts["sizes"]["big"])
    if not found:
        return None, "not measured"
    if found.get("error"):
        return None, f"not measured: {found['error']}"
    small, big = found["sizes"]
    ratios = [r[str(big)] / r[str(small)] for r in found["rounds"]]
    if not ratios:
        return None, "not measured: no round saved at both sizes"
    value = statistics.median(ratios)
    medians = found["median_ms"]
    statements = {size: f"{n:g}" for size, n in (found.get("statements") or {}).items()}
    text = (
        f"{value:.2f}× ({len(ratios)} rounds, spread {min(ratios):.2f}–{max(ratios):.2f}; "
        f"median save {medians[str(big)]:.1f} ms at {big:,} / {medians[str(small)]:.1f} ms "
        f"at {small:,}; SQL statements per save {statements.get(str(big), '–')} / "
        f"{statements.get(str(small), '–')})"
    )
    if (small, big) != wanted:
        return None, f"not measured at {wanted[1]:,} vs {wanted[0]:,}: this run has {text}"
    return value, text


TARGETS = (
    Target(
        "home_vs_constant",
        "Home at {main:,} posts, compressed, vs the constant-page app",
        "≥ 1.00×",
        lambda rows, facts: _rps_ratio(facts["keys"]["home"], facts["keys"]["constant"])(
            rows, facts
        ),
        lambda value: value >= 1.0,
    ),
    Target(
        "topic_vs_constant",
        "Topic page 1 at {main:,} posts, compressed, vs the constant-page app",
        "≥ 1.00×",
        lambda rows, facts: _rps_ratio(facts["keys"]["topic"], facts["keys"]["constant"])(
            rows, facts
        ),
        lambda value: value >= 1.0,
    ),
    Target(
        "cold_vs_inmemory",
        "Cold render of home (caches off), plain, vs the in-memory render",
        "≥ 0.67×",
        _cold_ratio("cold", "inmemory", "cold"),
        lambda value: value >= 0.67,
    ),
    Target(
        "cold_last_vs_page1",
        "Cold render (caches off) of the last page of {big:,} vs of page 1, plain",
        "≥ 0.25×",
        _cold_ratio("cold_last_big", "cold_home_big", "cold_last_big", "cold_home_big"),
        lambda value: value >= 0.25,
    ),
    Target(
        "deep_vs_page1",
        "Page 800 of {main:,} vs page 1, compressed",
        "≥ 0.90×",
        lambda rows, facts: _rps_ratio(facts["keys"]["deep"], facts["keys"]["home"])(rows, facts),
        lambda value: value >= 0.9,
    ),
    Target(
        "last_vs_page1",
        "Last page of {big:,} vs page 1, compressed",
        "≥ 0.90×",
        lambda rows, facts: _rps_ratio(facts["keys"]["last"], facts["keys"]["home_big"])(
            rows, facts
        ),
        lambda value: value >= 0.9,
    ),
    Target(
        "p50_big_vs_small",
        "Home p50 at {big:,} posts vs at {small:,}, compressed",
        "≤ 1.20×",
        _p50_ratio,
        lambda value: value <= 1.2,
    ),
    Target(
        "sql_cold",
        "SQL statements per listing request, cold (worst)",
        "≤ 4",
        _sql(0),
        lambda value: value <= 4,
    ),
    Target(
        "sql_warm",
        "SQL statements per listing request, warm (worst)",
        "≤ 1",
        _sql(1),
        lambda value: value <= 1,
    ),
    Target(
        "save_big_vs_small",
        "An editor's save of one post at {big:,} posts vs at {small:,}",
        "≤ 1.30×",
        _save_ratio,
        lambda value: value <= 1.3,
    ),
    Target(
        "memory_growth",
        "Worker memory growth after 5,000 anonymous requests with random query strings, "
        "Host and HX-Target",
        "≤ PAGE_CACHE_MB + 20 MB",
        _memory_growth,
        ceiling=_memory_ceiling,
    ),
    Target(
        "fragment_bytes",
        "Read-more fragment vs full page, compressed bytes",
        "≤ 0.50",
        _fragment_bytes,
        lambda value: value <= 0.5,
    ),
    Target(
        "page_weight",
        "Home page without images, compressed, scripts and styles included",
        f"< {PAGE_WEIGHT_LIMIT:,} bytes",
        _page_weight,
        lambda value: value < PAGE_WEIGHT_LIMIT,
    ),
)


def evaluate(rows: dict[str, dict[str, Any]], facts: dict[str, Any]) -> list[dict[str, Any]]:
    """Every target's measured value and verdict for one database."""
    results = []
    for target in TARGETS:
        value, text = target.measure(rows, facts)
        limit = target.limit
        ceiling = target.ceiling(facts) if target.ceiling is not None else None
        if ceiling is not None:
            limit = f"{limit} = {ceiling:g} MB"
        results.append(
            {
                "key": target.key,
                "label": target.label.format(**facts["sizes"]),
                "limit": limit,
                "value": value,
                "measured": text,
                "result": target.verdict(value, facts),
            }
        )
    return results


def _number(value: float | None, digits: int = 0) -> str:
    """A number for the table, or a dash."""
    return "–" if value is None else f"{value:,.{digits}f}"


def _spread(row: dict[str, Any]) -> str:
    """How far apart the runs' requests/s were, as a share of the median."""
    values = [run["rps"] for run in row.get("runs") or []]
    if len(values) < 2 or not row.get("rps"):
        return "–"
    return f"{(max(values) - min(values)) / row['rps']:.0%}"


def _pair(values: list[int] | None) -> str:
    """`cold / warm`, or a dash."""
    return "–" if not values else f"{values[0]} / {values[1]}"


def database_section(name: str, result: dict[str, Any]) -> str:
    """The Markdown for one database: every row, then the targets."""
    lines = [f"## {name}", ""]
    if result.get("skipped"):
        return "\n".join([*lines, f"Not measured: {result['skipped']}", ""])
    sets = result.get("datasets") or {}
    if sets:
        sizes = " · ".join(f"{int(size):,}" for size in sets)
        fingerprint = next(iter(sets.values()))["fingerprint"]
        origins = "; ".join(
            f"{int(size):,}: {found.get('origin', 'cached')}" for size, found in sets.items()
        )
        lines += [f"Data sets: {sizes} posts, fingerprint `{fingerprint}` ({origins}).", ""]
    lines += [
        "| What | Posts | Encoding | req/s | spread | p50 ms | p99 ms | Bytes | SQL cold / warm "
        "| Renders cold / warm |",
        "|---|--:|---|--:|--:|--:|--:|--:|--:|--:|",
    ]
    for row in result["rows"].values():
        counts = row.get("counts") or {}
        encoding = row["encoding"] if row["encoding"] == "plain" else row.get("content_encoding")
        if row.get("error"):
            lines.append(
                f"| {row['label']} | {row['size']:,} | {row['encoding']} | "
                f"error: {row['error']} | | | | | | |"
            )
            continue
        lines.append(
            f"| {row['label']} | {row['size']:,} | {encoding or 'none'} | {_number(row['rps'])} "
            f"| {_spread(row)} | {_number(row['p50_ms'], 1)} | {_number(row['p99_ms'], 1)} "
            f"| {_number(row.get('bytes'))} | {_pair(counts.get('statements'))} "
            f"| {_pair(counts.get('renders'))} |"
        )
    lines += ["", "| Target | Measured | Needs | Result |", "|---|---|---|---|"]
    for target in result["targets"]:
        verdict = f"**{target['result']}**" if target["result"] == "FAIL" else target["result"]
        lines.append(
            f"| {target['label']} | {target['measured']} | {target['limit']} | {verdict} |"
        )
    notes = [*_save_notes(result.get("save")), *(result.get("notes") or [])]
    if notes:
        lines += ["", *[f"- {note}" for note in notes]]
    return "\n".join(lines) + "\n"


def _save_notes(found: dict[str, Any] | None) -> list[str]:
    """What the editor's save measured at each size, for the notes under the targets."""
    if not found or found.get("error") or not found.get("median_ms"):
        return []
    sizes = found["sizes"]
    at = ", ".join(
        f"{found['median_ms'][str(size)]:.1f} ms and {found['statements'][str(size)]:g} SQL "
        f"statements at {size:,} posts"
        for size in sizes
    )
    fields = ", ".join(f"`{name}`" for name in found.get("fields") or [])
    status = ", ".join(str(code) for code in found.get("status") or [])
    return [
        f"Editor's save of `{found['post']}` ({found['how']}): median {at}; "
        f"{len(found['rounds'])} rounds, answered {status}; fields the form handed out and "
        f"the save sent: {fields}."
    ]


def _building(results: dict[str, Any]) -> str:
    """How much of the run went into building data sets, when any were built."""
    minutes = sum(db.get("build_minutes") or 0 for db in results["databases"].values())
    return f", {minutes:.1f} of them building data sets" if minutes >= 0.5 else ""


def markdown(results: dict[str, Any]) -> str:
    """The whole report: settings, legend, and one section per database."""
    settings = results["settings"]
    machine = results["machine"]
    main = settings["main_size"]
    compress = results.get("reference_compression")
    compress_note = (
        " by Flask-Compress with the blog's own settings"
        if compress
        else " (not measured: the blog does not use Flask-Compress)"
    )
    identical = [
        db.get("inmemory_identical")
        for db in results["databases"].values()
        if not db.get("skipped")
    ]
    identical_note = (
        "; its page is byte-for-byte the blog's"
        if identical and all(identical)
        else "; its page is NOT byte-for-byte the blog's (see notes)"
    )
    cold_env = " ".join(f"`{k}={v}`" for k, v in settings["cold_env"].items()) or "no setting"
    lines = [
        f"# Listing benchmark, {results['started']}",
        "",
        *([settings["label"], ""] if settings.get("label") else []),
        f"`{settings['command']}`: wrk -t{settings['threads']} -c{settings['connections']}, "
        f"{settings['runs']} run(s) of {settings['duration']} s per row (medians), a "
        f"{settings['warmup']} s warm-up per server thrown away, runs interleaved across rows; "
        f"gunicorn {settings['workers']} sync workers on 127.0.0.1. Machine: {machine['cores']} "
        f"cores, load average {machine['load_start']} at the start and {machine['load_end']} at "
        f"the end; code {machine['commit']}. Took {results['elapsed_minutes']:.1f} min"
        f"{_building(results)}.",
        "",
        LEGEND.format(
            cold_env=cold_env,
            main=main,
            compress_note=compress_note,
            identical_note=identical_note,
        ),
    ]
    for name, result in results["databases"].items():
        lines.append(
            database_section({"sqlite": "SQLite", "postgresql": "PostgreSQL"}[name], result)
        )
    return "\n".join(lines)


def main() -> None:
    """Print the Markdown report of the JSON results named on the command line."""
    import json
    import sys

    if len(sys.argv) != 2:
        sys.exit("usage: python -m bench.report RESULTS.json")
    with open(sys.argv[1]) as results:
        print(markdown(json.load(results)))


if __name__ == "__main__":
    main()
