"""Lighthouse's SEO category scores 100 on the home page and on a post page."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import time

import pytest

from tests.browser.conftest import CHROMIUM, CHROMIUM_ARGS, HERE, ROOT, LiveServer, Site
from tests.conftest import require

pytestmark = pytest.mark.browser

LIGHTHOUSE = ROOT / "node_modules" / "lighthouse" / "package.json"
SCRIPT = HERE / "lighthouse_seo.mjs"


def test_home_and_a_post_score_100_for_seo(live_server: LiveServer, site: Site):
    """One Lighthouse run (SEO only, both pages in one Chromium) finds nothing to fix: each
    failing audit is named with its details (about 17 s on this machine)."""
    require(LIGHTHOUSE.exists(), "lighthouse is missing from node_modules: run `make setup`")
    require(shutil.which("node") is not None, "node is missing: run `make setup`")
    urls = [live_server.url + site.paths[name] for name in ("home", "post")]
    env = os.environ | {
        "CHROME_PATH": str(CHROMIUM),
        "CHROME_FLAGS": json.dumps(["--headless", *CHROMIUM_ARGS]),
    }
    started = time.monotonic()
    result = subprocess.run(
        ["node", str(SCRIPT), *urls],
        capture_output=True,
        text=True,
        timeout=180,
        env=env,
        cwd=ROOT,
        check=False,
    )
    assert result.returncode == 0, result.stderr[-2000:]
    found = json.loads(result.stdout)
    assert {url: (found[url]["score"], found[url]["failing"]) for url in urls} == {
        url: (1, []) for url in urls
    }
    assert time.monotonic() - started < 150
