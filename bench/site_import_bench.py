"""How much images cost a moved blog's import: the same Hugo site, with and without a picture
in each post's page bundle, imported into fresh databases.

    .venv/bin/python -m bench.site_import_bench                 # 1,000 posts into SQLite
    .venv/bin/python -m bench.site_import_bench --count 200 --database-url \\
        postgresql+psycopg://postgres@127.0.0.1:5432/postgres

Each post is a bundle (`content/posts/post-00001/index.md`, TOML front matter) of about 400
words; with images, each also shows its own 640 × 400 PNG. The bar: with images, the import
takes at most twice as long as without. Both the wall-clock time and the import's CPU time are
given, and a ratio of each: on a shared, busy machine the wall clock swings with the load, the
CPU time much less.
"""

from __future__ import annotations

import argparse
import multiprocessing
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import flask_migrate  # noqa: E402
import PIL.Image  # noqa: E402
import PIL.ImageDraw  # noqa: E402

from bench.import_bench import throwaway_postgres  # noqa: E402
from bench.prose import Prose  # noqa: E402
from blog import create_app  # noqa: E402
from blog.transfer.formats import detection  # noqa: E402
from blog.transfer.site_import import import_site  # noqa: E402

TOPICS = ["Databases", "Operations", "Performance", "Security", "Frontend", "Testing"]


def picture(number: int) -> bytes:
    """A PNG of its own for each post: bands and a label, about what a screenshot holds."""
    image = PIL.Image.new("RGB", (640, 400), (number * 37 % 256, number * 91 % 256, 180))
    draw = PIL.ImageDraw.Draw(image)
    for band in range(0, 400, 20):
        draw.rectangle([0, band, 640, band + 8], fill=(band % 256, number % 256, 90))
    draw.text((20, 20), f"post {number}", fill=(255, 255, 255))
    path = Path(tempfile.mkstemp(suffix=".png")[1])
    image.save(path, optimize=True)
    data = path.read_bytes()
    path.unlink()
    return data


def generate(site: Path, count: int, images: bool) -> None:
    """Write a Hugo site of `count` page bundles, each showing its own PNG when `images`."""
    site.mkdir(parents=True)
    (site / "hugo.toml").write_text('baseURL = "https://bench.example/"\n')
    for number in range(count):
        prose = Prose(f"site-import-bench-{number}")
        bundle = site / "content" / "posts" / f"post-{number:05d}"
        bundle.mkdir(parents=True)
        shown = ""
        if images:
            (bundle / "picture.png").write_bytes(picture(number))
            shown = "\n\n![the figure of this post](picture.png)\n"
        topic = TOPICS[number % len(TOPICS)]
        (bundle / "index.md").write_text(
            f'+++\ntitle = "{prose.title()}"\ndate = 2020-01-{number % 28 + 1:02d}\n'
            f'tags = ["{topic}"]\nauthors = ["Writer {number % 20}"]\n+++\n\n'
            f"{prose.body(400)}{shown}",
            encoding="utf-8",
        )


def measure(label: str, url: str, site: Path) -> None:
    """Import the site into the database at `url` and print the time it took, on the wall
    clock and in CPU time."""
    app = create_app({"SECRET_KEY": "bench", "SQLALCHEMY_DATABASE_URI": url})
    with app.app_context(), app.test_request_context():
        flask_migrate.upgrade(revision="heads")
        started, cpu = time.perf_counter(), time.process_time()
        counts = import_site(detection.detect(site), default_author="Bench")
        elapsed, cpu = time.perf_counter() - started, time.process_time() - cpu
    print(f"{label:<26} {elapsed:7.1f} s wall, {cpu:7.1f} s CPU   {counts}")
    (site / "elapsed").write_text(f"{elapsed} {cpu}")


def timed(label: str, url: str, site: Path) -> tuple[float, float]:
    """`measure` in a forked process (an app of its own); the wall-clock and CPU seconds."""
    child = multiprocessing.get_context("fork").Process(target=measure, args=(label, url, site))
    child.start()
    child.join()
    if child.exitcode != 0:
        raise SystemExit(f"{label}: the import failed (exit code {child.exitcode})")
    wall, cpu = (float(part) for part in (site / "elapsed").read_text().split())
    return wall, cpu


def main() -> None:
    """Generate both sites, import each into its own fresh database, compare."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--count", type=int, default=1_000, help="posts in each site")
    parser.add_argument("--database-url", help="a PostgreSQL server to use instead of SQLite")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="fieldnotes-site-import-bench-") as scratch:
        times = {}
        for images in (False, True):
            site = Path(scratch) / ("with" if images else "without")
            generate(site, args.count, images)
            label = f"{args.count} posts {'with' if images else 'without'} images"
            if args.database_url:
                with throwaway_postgres(args.database_url) as url:
                    times[images] = timed(label, url, site)
            else:
                url = f"sqlite:///{Path(scratch) / f'{site.name}.sqlite3'}"
                times[images] = timed(label, url, site)
        for what, index in (("wall clock", 0), ("CPU time", 1)):
            ratio = times[True][index] / times[False][index]
            verdict = "within" if ratio <= 2 else "over"
            print(f"with images / without, {what}: {ratio:.2f}x ({verdict} the 2x bar)")


if __name__ == "__main__":
    main()
