"""Print the slowest tests across the passes of `make test`, and what each pass counted.

Reads the JUnit reports the passes leave in one folder (one file per pass). The last line is
the total over every pass, in pytest's words, so whoever reads the end of the run reads it:
a pass that left no report counts as failed.

    python -m tests.slowest artifacts/test-reports [--count 15]
"""

from __future__ import annotations

import argparse
import sys
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from pathlib import Path

PASSES = ("sqlite", "postgresql", "browser")


@dataclass
class Counts:
    """What one pass (or all of them) counted."""

    passed: int = 0
    failed: int = 0
    skipped: int = 0
    seconds: float = 0.0

    def add(self, other: Counts) -> None:
        """Count `other` in as well."""
        self.passed += other.passed
        self.failed += other.failed
        self.skipped += other.skipped

    def __str__(self) -> str:
        return f"{self.passed} passed, {self.failed} failed, {self.skipped} skipped"


def read_report(path: Path) -> tuple[Counts, list[tuple[float, str]]]:
    """A pass's counts and each test's time (set-up, call and teardown) from its report."""
    root = ET.parse(path).getroot()
    suites = [root] if root.tag == "testsuite" else root.findall("testsuite")
    counts = Counts()
    times: list[tuple[float, str]] = []
    for suite in suites:
        counts.seconds += float(suite.get("time", 0))
        for case in suite.iter("testcase"):
            outcome = {child.tag for child in case}
            if outcome & {"failure", "error"}:
                counts.failed += 1
            elif "skipped" in outcome:
                counts.skipped += 1
            else:
                counts.passed += 1
            module = (case.get("classname") or "").replace(".", "/")
            times.append((float(case.get("time", 0)), f"{module}.py::{case.get('name')}"))
    return counts, times


def main(argv: list[str] | None = None) -> int:
    """Print the report; exit 1 when a test failed or a pass left no report."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder", type=Path)
    parser.add_argument("--count", type=int, default=15)
    args = parser.parse_args(argv)
    total = Counts()
    slowest: list[tuple[float, str, str]] = []
    lines = []
    for name in PASSES:
        path = args.folder / f"{name}.xml"
        if not path.exists():
            lines.append(f"  {name:<10}  no report: the pass did not finish")
            total.failed += 1
            continue
        counts, times = read_report(path)
        total.add(counts)
        slowest += [(seconds, name, test) for seconds, test in times]
        lines.append(f"  {name:<10}  {counts} in {counts.seconds:.0f} s")
    print(f"\n{args.count} slowest tests (set-up + call + teardown), over every pass:")
    for seconds, name, test in sorted(slowest, reverse=True)[: args.count]:
        print(f"  {seconds:7.2f}s  {name:<10}  {test}")
    print("\nPasses (run side by side):")
    print("\n".join(lines))
    print(f"total: {total}")
    return 1 if total.failed else 0


if __name__ == "__main__":
    sys.exit(main())
