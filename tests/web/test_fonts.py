"""The self-hosted fonts: the files site.css names are there, with their licences, served
for a year at the URLs the stylesheet and the preload use."""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

import pytest

from tests.conftest import require

STATIC = Path(__file__).resolve().parents[2] / "static"
FONTS = STATIC / "vendor" / "fonts"
FACE_URL = re.compile(r'url\("\.\./(vendor/fonts/([a-z-]+\.woff2))\?v=([0-9a-f]+)"\)')


def faces() -> list[tuple[str, str, str]]:
    """(path under static/, file name, hash in the URL) of each font site.css names."""
    return FACE_URL.findall((STATIC / "css" / "site.css").read_text())


@pytest.fixture(autouse=True)
def _copied() -> None:
    require((FONTS / ".copied").exists(), "static/vendor/fonts/ is missing: run `make setup`")


def test_each_font_is_there_with_its_hash_and_licence():
    """Every font site.css names was copied, its URL's hash is the file's (a new package
    version must update site.css), and each family's licence travels with it."""
    found = faces()
    assert {name.split("-latin")[0] for _, name, _ in found} == {"inter", "jetbrains-mono"}
    for _, name, digest in found:
        data = (FONTS / name).read_bytes()
        assert data[:4] == b"wOF2", f"{name} is not a woff2 file"
        assert hashlib.sha256(data).hexdigest()[:16] == digest, f"site.css has an old {name}"
    for family in ("inter", "jetbrains-mono"):
        licence = (FONTS / f"{family}-LICENSE.txt").read_text()
        assert "SIL Open Font License" in licence
    css = (STATIC / "css" / "site.css").read_text()
    assert css.count("font-display: swap") == len(found)


def test_fonts_are_served_for_a_year_and_preloaded_at_the_same_url(client):
    """The page preloads the text font at the very URL site.css asks for, which is kept a year."""
    page = client.get("/").get_data(as_text=True)
    preload = re.search(r'<link rel="preload" href="([^"]+)" as="font" type="font/woff2"', page)
    assert preload is not None
    for path, _, digest in faces():
        response = client.get(f"/static/{path}?v={digest}")
        assert response.status_code == 200
        assert response.mimetype == "font/woff2"
        assert "immutable" in response.headers["Cache-Control"]
    assert preload.group(1) in {f"/static/{path}?v={digest}" for path, _, digest in faces()}
    policy = client.get("/").headers["Content-Security-Policy"]
    directives = dict(part.strip().split(" ", 1) for part in policy.split(";"))
    assert "'self'" in directives.get("font-src", directives["default-src"]).split()
