"""The demo content: its files read cleanly and `demo load` imports them dated up to today."""

from __future__ import annotations

import functools
import re
import shutil
import statistics
from datetime import datetime, timedelta
from pathlib import Path
from urllib.parse import urlsplit

import pytest
import sqlalchemy as sa
from bs4 import BeautifulSoup

from blog.authoring.taxonomy import BIO_MAX
from blog.extensions import db
from blog.markup.text import CODE_WORD_WEIGHT, text_stats
from blog.models import Author, Post, Topic, live, utcnow
from blog.transfer import demo
from blog.transfer.files import ImportRefused
from blog.transfer.frontmatter import Entry, write_post
from blog.transfer.profiles import AUTHORS, read_named

EXAMPLE_IMAGE = Path(__file__).parents[1] / "data" / "transfer" / "images" / "vacuum-gauge.png"
FILES = demo.post_files()


@functools.cache
def demo_posts() -> tuple[demo.DemoPost, ...]:
    """The demo's files as read, once per test process (every file's test looks up its own)."""
    return tuple(demo.read_demo())


def demo_entries() -> dict[str, Entry]:
    """The demo posts as their files give them, by slug."""
    return {post.entry.slug: post.entry for post in demo_posts()}


def stored_posts() -> dict[str, Post]:
    """Every stored post by slug."""
    return {post.slug: post for post in db.session.scalars(sa.select(Post))}


def test_the_demo_has_a_full_site_of_posts():
    """Enough posts for several listing pages, with a featured post and editor's picks."""
    entries = list(demo_entries().values())
    assert len(entries) == len(FILES) >= 60
    assert sum(entry.featured for entry in entries) == 1
    assert sum(entry.editors_pick for entry in entries) >= 4
    assert sum(entry.updated_at is not None for entry in entries) >= 4


@pytest.mark.parametrize("path", FILES, ids=[path.stem for path in FILES])
def test_every_demo_file_reads_cleanly(path):
    """Each file is named after its slug, sets every field the cards show, and is stable."""
    (post,) = [post for post in demo_posts() if post.path == path]
    entry = post.entry
    assert path.name == f"{entry.slug}.md"
    assert entry.title and entry.author and entry.topics and entry.summary and entry.body
    assert entry.published_at is not None and not entry.draft
    assert entry.updated_at is None or entry.updated_at > entry.published_at
    assert write_post(entry) == path.read_text(encoding="utf-8")


def test_topics_file_names_every_demo_topic_once():
    """topics.txt holds exactly the topics the posts use, each once."""
    order = demo.topic_order()
    used = {name for entry in demo_entries().values() for name in entry.topics}
    assert len(order) == len(set(order))
    assert set(order) == used


def test_every_demo_author_has_a_profile():
    """authors.yml gives each author of a demo post a bio, and lists no one else; links
    point only at example domains."""
    profiles, problems = read_named(demo.DEMO_FOLDER / AUTHORS.file, AUTHORS.file, AUTHORS)
    assert problems == []
    authors = {entry.author for entry in demo_entries().values()}
    assert {profile.name for profile in profiles} == authors
    for profile in profiles:
        assert 60 <= len(profile.values["bio"]) <= BIO_MAX
        url = profile.values.get("url")
        host = urlsplit(url).hostname if url else "example.com"
        assert host and re.fullmatch(r"(.+\.)?example\.(com|org|net)", host), url


def test_demo_load_imports_every_field_dated_up_to_now(app, runner, client):
    """Every post arrives with its file's title, author, topics, flags, summary and body, and
    every date moves by one amount: the newest post goes live this minute, in UTC; every
    author gets their bio, shown on their page; a second load changes nothing, and the home
    page counts every post. The posts read like an engineering blog: real length (words
    counted as the reading time counts them: code words at half weight), code in several
    languages, tables and a spread of reading times. (One load, and one render, for all: the
    demo takes seconds to render.)"""
    before = utcnow().replace(second=0, microsecond=0)
    result = runner.invoke(args=["demo", "load"])
    after = utcnow()
    assert result.exit_code == 0, result.output
    entries = demo_entries()
    topics = {name for entry in entries.values() for name in entry.topics}
    assert result.output.strip() == f"Loaded {len(entries)} posts over {len(topics)} topics."
    newest_in_files = max(entry.published_at for entry in entries.values())
    with app.app_context():
        stored = stored_posts()
        assert stored.keys() == entries.keys()
        for slug, entry in entries.items():
            post = stored[slug]
            assert post.status == "published"
            assert post.title == entry.title
            assert post.author.name == entry.author
            assert [topic.name for topic in post.topics] == entry.topics
            assert post.summary == entry.summary
            assert post.body_markdown == entry.body
            assert (post.featured, post.editors_pick) == (entry.featured, entry.editors_pick)
            assert post.body_html and post.excerpt
        assert len(stored) == len(FILES) >= 60
        assert sum(post.featured for post in stored.values()) == 1
        assert sum(post.editors_pick for post in stored.values()) >= 4
        assert len({topic.slug for post in stored.values() for topic in post.topics}) >= 5
        assert all(post.published_at <= after for post in stored.values())
        words, minutes, languages, tables = [], set(), set(), 0
        for post in stored.values():
            stats = text_stats(post.body_html)
            words.append(stats.prose_words + CODE_WORD_WEIGHT * stats.code_words)
            minutes.add(post.reading_minutes)
            languages |= set(re.findall(r"^```([\w+-]+)", post.body_markdown, re.MULTILINE))
            tables += post.body_html.count("<table")
        assert statistics.median(words) >= 1200
        assert len(languages) >= 4, languages
        assert tables >= 5
        assert len(minutes) > 3, minutes
        filter_order = db.session.scalars(sa.select(Topic.name).order_by(Topic.position))
        assert list(filter_order) == demo.topic_order()
        newest = db.session.scalars(
            sa.select(Post).where(live()).order_by(Post.published_at.desc())
        ).first()
        assert newest.published_at.date() == after.date()
        assert before <= newest.published_at <= after
        assert db.session.scalar(sa.select(sa.func.count(Post.id)).where(live())) == len(entries)
        for slug, post in stored.items():
            entry = entries[slug]
            assert newest.published_at - post.published_at == newest_in_files - entry.published_at
            if entry.updated_at is None:
                assert post.updated_at is None
            else:
                assert post.updated_at - post.published_at == entry.updated_at - entry.published_at
        profiles, _ = read_named(demo.DEMO_FOLDER / AUTHORS.file, AUTHORS.file, AUTHORS)
        bios = {author.name: author.bio for author in db.session.scalars(sa.select(Author))}
        assert bios == {profile.name: profile.values["bio"] for profile in profiles}
    page = BeautifulSoup(client.get("/authors/priya-raman").text, "lxml")
    assert page.select_one(".author-bio").get_text() == bios["Priya Raman"]
    again = runner.invoke(args=["demo", "load"])
    assert "demo content not loaded" in again.output
    with app.app_context():
        assert db.session.scalar(sa.select(sa.func.count(Post.id))) == len(entries)
    home = BeautifulSoup(client.get("/").get_data(as_text=True), "lxml")
    assert home.select_one("#counter").get_text() == f"Showing 1–12 of {len(entries)} posts"


def test_load_demo_puts_the_newest_post_at_the_given_time(app, tmp_path):
    """`now` is where the newest post lands, to the minute (three of the demo's files)."""
    for path in FILES[:3]:
        shutil.copy(path, tmp_path / path.name)
    now = datetime(2031, 5, 17, 8, 42, 39)
    with app.app_context():
        done = demo.load_demo(tmp_path, now=now)
        newest = db.session.scalar(sa.select(sa.func.max(Post.published_at)))
    assert done.posts == 3
    assert newest == datetime(2031, 5, 17, 8, 42)


def demo_sample(folder: Path, count: int = 3) -> Path:
    """`folder` holding the demo's first `count` posts and its topic order."""
    for path in FILES[:count]:
        shutil.copy(path, folder)
    shutil.copy(demo.DEMO_FOLDER / demo.TOPICS_FILE, folder)
    return folder


def test_demo_load_twice_does_not_duplicate(app, runner, client, tmp_path, monkeypatch):
    """The second run refuses and changes nothing; the home page lists the demo posts. (Three
    of them: what is checked is the command, not the content, which the test above loads.)"""
    monkeypatch.setattr(demo, "DEMO_FOLDER", demo_sample(tmp_path))
    assert runner.invoke(args=["demo", "load"]).exit_code == 0
    with app.app_context():
        first = {slug: post.published_at for slug, post in stored_posts().items()}
    assert len(first) == 3
    again = runner.invoke(args=["demo", "load"])
    assert again.exit_code == 0, again.output
    assert again.output.strip() == (
        f"The database already holds {len(first)} posts; demo content not loaded."
    )
    with app.app_context():
        assert {slug: post.published_at for slug, post in stored_posts().items()} == first
    home = client.get("/")
    assert home.status_code == 200
    page = BeautifulSoup(home.get_data(as_text=True), "lxml")
    entries = [post.entry for post in demo.read_demo(tmp_path)]
    shown = {link.get_text(strip=True) for link in page.select(".card-title a")}
    assert shown == {entry.title for entry in entries}


def test_demo_load_leaves_a_database_with_posts_alone(app, runner, posts):
    """One post of the editors' own is enough for the demo to stay out."""
    posts.create(1)
    result = runner.invoke(args=["demo", "load"])
    assert result.exit_code == 0, result.output
    assert "already holds 1 posts; demo content not loaded" in result.output
    with app.app_context():
        assert db.session.scalar(sa.select(sa.func.count(Post.id))) == 1


def test_a_broken_demo_file_loads_nothing(app, tmp_path):
    """A file with a problem refuses the whole demo, names the demo's file, keeps no topic."""
    demo_sample(tmp_path)
    broken = tmp_path / FILES[0].name
    broken.write_text(broken.read_text().replace("\ndate:", "\ndated:", 1))
    with app.app_context():
        with pytest.raises(ImportRefused) as refused:
            demo.load_demo(tmp_path)
        assert [problem.path for problem in refused.value.problems] == [str(broken)] * 2
        assert db.session.scalar(sa.select(sa.func.count(Topic.id))) == 0
        assert db.session.scalar(sa.select(sa.func.count(Post.id))) == 0


def test_demo_images_travel_with_their_posts(app, tmp_path):
    """An image beside a demo file is copied along and imported with the post."""
    (tmp_path / "images").mkdir()
    shutil.copy(EXAMPLE_IMAGE, tmp_path / "images" / "gauge.png")
    entry = Entry(
        title="A gauge",
        slug="a-gauge",
        author="Ada Example",
        topics=["Databases"],
        published_at=datetime(2020, 1, 1),
        image="images/gauge.png",
        image_alt="A gauge",
        body="Text.",
    )
    (tmp_path / "a-gauge.md").write_text(write_post(entry))
    (tmp_path / demo.README).write_text("# Not a post\n")
    with app.app_context():
        assert demo.load_demo(tmp_path).posts == 1
        post = db.session.scalar(sa.select(Post))
        assert post.image is not None and post.image.content_type == "image/png"
        assert post.published_at.date() == utcnow().date()


def test_date_shift_moves_every_date_alike():
    """Drafts and dateless fields stay as they are; the newest published date lands on `now`."""
    old = Entry(title="Old", slug="old", published_at=datetime(2020, 1, 1))
    new = Entry(
        title="New", slug="new", published_at=datetime(2020, 3, 1), updated_at=datetime(2020, 4, 1)
    )
    draft = Entry(title="Draft", slug="draft", draft=True, published_at=datetime(2021, 1, 1))
    now = datetime(2030, 3, 1, 12, 30)
    by = demo.date_shift([old, new, draft], now)
    assert by == now - datetime(2020, 3, 1)
    assert demo.shifted(new, by).published_at == now
    assert demo.shifted(new, by).updated_at == now + timedelta(days=31)
    assert demo.shifted(old, by).published_at == now - timedelta(days=60)
    assert demo.shifted(Entry(title="D", slug="d", draft=True), by).published_at is None
    assert demo.date_shift([draft], now) == timedelta(0)
