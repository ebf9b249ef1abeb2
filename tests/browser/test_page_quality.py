"""The page's weight and safety: little JavaScript, one stylesheet, a strict CSP that holds."""

from __future__ import annotations

from urllib.parse import urlsplit

import pytest
from playwright.sync_api import Page, expect

from tests.browser.conftest import HeldRequests, PageWatch, Site

pytestmark = pytest.mark.browser

# "htmx plus at most a few KB of our own": every other script is ours, under static/js/.
# 9 KB, was 5: listings add place.js (3.2 KB, Back after read more) to site.js and search.js;
# posts with code add code.js (1.3 KB, the copy button).
OWN_SCRIPT_BUDGET = 9 * 1024


def static_name(url: str) -> str:
    """A static file's path under /static/, without its cache-busting query."""
    return urlsplit(url).path.split("/static/", 1)[-1]


def test_scripts_and_styles_are_few(page: Page, site: Site):
    """Each page loads htmx, a few KB of our own script and one stylesheet; nothing inline."""
    for name in ("home", "post"):
        page.goto(site.paths[name])
        loaded = page.evaluate(
            """() => ({
              scripts: [...document.scripts].filter((s) => s.src).map((s) => s.src),
              styles: [...document.querySelectorAll('link[rel~="stylesheet"]')].map((l) => l.href),
            })"""
        )
        scripts = {static_name(url): url for url in loaded["scripts"]}
        assert "vendor/htmx.min.js" in scripts and "js/site.js" in scripts, name
        own = {path: url for path, url in scripts.items() if path != "vendor/htmx.min.js"}
        assert all(path.startswith("js/") for path in own), f"{name}: {sorted(scripts)}"
        weight = sum(len(page.request.get(url).body()) for url in own.values())
        assert weight <= OWN_SCRIPT_BUDGET, f"{name}: our scripts weigh {weight} bytes"
        assert [static_name(url) for url in loaded["styles"]] == ["css/site.css"], name
        inline = page.evaluate(
            # Structured data (application/ld+json) is inert text, not script.
            "() => [document.querySelectorAll("
            "'script:not([src]):not([type=\"application/ld+json\"]), style, [style]').length,"
            " [...document.querySelectorAll('*')].some((el) =>"
            " [...el.attributes].some((a) => a.name.startsWith('on')))]"
        )
        assert inline == [0, False], f"{name} has inline script or style: {inline}"


# The page as served (compressed): HTML, stylesheet and scripts; images and fonts apart.
PAGE_BUDGET = 60 * 1024
LOADED_JS = """() => document.fonts.ready.then(() => {
  const nav = performance.getEntriesByType("navigation")[0];
  return [nav, ...performance.getEntriesByType("resource")].map((e) => ({
    url: e.name, kind: e.initiatorType, bytes: e.encodedBodySize, plain: e.decodedBodySize,
  }));
})"""
FONT_FAMILIES_JS = (
    "() => [...document.fonts].filter((f) => f.status === 'loaded').map((f) => f.family)"
)


def test_page_weight_is_within_budget(open_page, site: Site, record_property):
    """Home, topic and post pages weigh under 60 KB compressed, without images; the fonts
    they load (both self-hosted families, Latin only) are counted apart, and reported in the
    JUnit report's properties (`make test` writes it to artifacts/test-reports/)."""
    for name in ("home", "topic", "post"):
        page = open_page()
        page.goto(site.paths[name])
        loaded = page.evaluate(LOADED_JS)
        fonts = [e for e in loaded if urlsplit(e["url"]).path.endswith(".woff2")]
        images = [e for e in loaded if e["kind"] in ("img", "other") or e in fonts]
        counted = [e for e in loaded if e not in images]
        weight = sum(e["bytes"] for e in counted)
        font_bytes = sum(e["bytes"] for e in fonts)
        record_property(f"{name}_bytes", weight)
        record_property(f"{name}_font_bytes", font_bytes)
        print(f"{name}: {weight} bytes compressed, fonts {font_bytes} bytes")
        assert 0 < weight <= PAGE_BUDGET, f"{name} weighs {weight} bytes: {counted}"
        document = loaded[0]
        assert document["bytes"] < document["plain"] / 2, f"{name} went out uncompressed"
        files = {static_name(e["url"]).removeprefix("vendor/fonts/") for e in fonts}
        assert {"inter-latin-wght-normal.woff2", "jetbrains-mono-latin-wght-normal.woff2"} <= files
        assert all("latin" in file for file in files), f"{name} loads other scripts' fonts"
        families = set(page.evaluate(FONT_FAMILIES_JS))
        assert families == {"Inter Variable", "JetBrains Mono Variable"}, name


def test_content_security_policy_blocks_inline_script(page: Page, page_watch: PageWatch):
    """The CSP is sent, allows no inline script, and Chromium enforces it."""
    response = page.goto("/")
    assert response is not None
    policy = response.headers["content-security-policy"]
    directives = dict(d.strip().split(" ", 1) for d in policy.split(";"))
    assert directives["script-src"] == "'self'" and "unsafe-inline" not in policy
    blocked = page.evaluate(
        """() => new Promise((resolve) => {
          document.addEventListener("securitypolicyviolation",
            (e) => resolve({ran: window.inlineRan === true, directive: e.effectiveDirective}));
          const script = document.createElement("script");
          script.textContent = "window.inlineRan = true";
          document.body.append(script);
        })"""
    )
    assert blocked == {"ran": False, "directive": "script-src-elem"}
    # Chromium logs the refusal as a console error: that one was provoked on purpose.
    assert any("Content Security Policy" in line for line in page_watch.console_errors)
    page_watch.clear()


def test_htmx_runs_under_the_policy(page: Page):
    """htmx is configured by its meta tag and its request indicator is styled by site.css."""
    page.goto("/")
    config = page.evaluate(
        "() => ({version: htmx.version, eval: htmx.config.allowEval,"
        " styles: htmx.config.includeIndicatorStyles, self: htmx.config.selfRequestsOnly})"
    )
    assert config["version"].startswith("2.")
    assert config == config | {"eval": False, "styles": False, "self": True}
    held = HeldRequests(page, "**/?page=2")
    more = page.locator("#more .read-more")
    more.click()
    # While the request is out, the control is dimmed by the stylesheet's indicator rule.
    expect(more).to_have_class("read-more htmx-request")
    expect(more).to_have_css("opacity", "0.6")
    held.wait()
    held.release()
    expect(page.locator("#post-list .card")).to_have_count(24)


def test_the_watch_catches_what_it_guards(open_page, page_watch: PageWatch, live_server):
    """The per-test watch really records error responses and requests to other hosts."""
    page = open_page(bypass_csp=True)
    page.goto("/")
    page.evaluate(
        """() => new Promise((resolve) => {
          const img = new Image();
          img.onerror = img.onload = resolve;
          img.src = "http://elsewhere.invalid/pixel.png";
        })"""
    )
    page.evaluate("() => fetch('/no-such-page')")
    assert page_watch.foreign_requests == ["http://elsewhere.invalid/pixel.png"]
    assert f"GET {live_server.url}/no-such-page: HTTP 404" in page_watch.failed_requests
    assert any("404" in line for line in page_watch.console_errors)
    page_watch.clear()
