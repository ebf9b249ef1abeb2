"""The store: lookups of topics and authors by name, and a post's state."""

from __future__ import annotations

from datetime import timedelta

import pytest
import sqlalchemy as sa

from blog import catalog, markup
from blog.authoring import store
from blog.extensions import db
from blog.media.images import store_image
from blog.models import DRAFT, PUBLISHED, Image, Post, live, scheduled, utcnow
from blog.web.versions import data_version
from tests.media.test_images import picture_bytes


@pytest.mark.parametrize("lookup", [store.topic_named, store.author_named])
def test_names_differing_only_in_case_are_one_row(app, lookup):
    """ "Ada Example" and "ada example" share a slug, so they are the same row, not a crash."""
    with app.app_context():
        first = lookup("Ada Example")
        db.session.commit()
        assert lookup("ada example").id == first.id
        assert lookup("  Ada Example ").id == first.id
        assert lookup("ADA   example").id == first.id


@pytest.mark.parametrize("lookup", [store.topic_named, store.author_named])
def test_names_without_letters_still_get_a_slug(app, lookup):
    """A name made only of symbols gets a stable slug instead of an empty one."""
    with app.app_context():
        row = lookup("!!!")
        other = lookup("???")
        db.session.commit()
        assert row.slug and other.slug and row.slug != other.slug
        assert lookup("!!!").id == row.id


@pytest.mark.parametrize("lookup", [store.topics_named, store.authors_named])
def test_one_lookup_makes_one_row_per_slug(app, lookup):
    """New names that share a slug, given together, make one row; repeats map to it too."""
    with app.app_context():
        found = lookup(["Rust", "rust", " RUST ", "Go"])
        db.session.commit()
        assert len({row.id for row in found.values()}) == 2
        assert found["rust"] is found["Rust"] is found[" RUST "]
        assert found["Rust"].name == "Rust" and found["Go"].slug == "go"


def test_new_topics_go_to_the_end_of_the_filter_in_the_order_named(app):
    """Each new topic takes the next position after the last one."""
    with app.app_context():
        first = store.topic_named("First")
        db.session.commit()
        found = store.topics_named(["Second", "First", "Third"])
        db.session.commit()
        positions = [found[name].position for name in ("First", "Second", "Third")]
        assert positions == [first.position, first.position + 1, first.position + 2]


def test_a_fixed_slug_must_be_the_one_the_name_makes(app):
    """Demo data and benchmarks name their slugs; a slug the rule would not make is refused."""
    with app.app_context():
        assert store.topic_named("Developer tools", "developer-tools").slug == "developer-tools"
        with pytest.raises(ValueError, match="developer-tools"):
            store.topic_named("Developer tools", "tools")


@pytest.mark.parametrize(
    ("status", "hours", "state"),
    [
        (DRAFT, None, DRAFT),
        (DRAFT, -1, DRAFT),
        (PUBLISHED, None, DRAFT),
        (PUBLISHED, -1, PUBLISHED),
        (PUBLISHED, 0, PUBLISHED),
        (PUBLISHED, 1, catalog.SCHEDULED),
    ],
)
def test_state_of_a_post_agrees_with_the_live_and_scheduled_rules(app, status, hours, state):
    """The editor's label for one post says what the readers' queries do with it."""
    now = utcnow()
    with app.app_context():
        post = store.new_post(
            title="Any post",
            body="Body.",
            author=store.author_named("Ada Example"),
            topics=[store.topic_named("Databases")],
        )
        post.status = status
        post.published_at = None if hours is None else now + timedelta(hours=hours)
        db.session.commit()
        found = sa.select(live(now), scheduled(now)).where(Post.id == post.id)
        is_live, is_scheduled = db.session.execute(found).one()
        assert catalog.state_of(post, now) == state
        assert bool(is_live) == (state == PUBLISHED)
        assert bool(is_scheduled) == (state == catalog.SCHEDULED)


def _credited(post_id: int) -> list[tuple[str, int]]:
    """The post's author links as stored: (name, position), in order, and its first author."""
    db.session.expire_all()
    post = db.session.get_one(Post, post_id)
    links = [(link.author.name, link.position) for link in post.author_links]
    assert post.author is post.authors[0]  # posts.author_id names the first
    return links


def test_a_post_credits_its_authors_in_order_each_once(app):
    """new_post credits `author`, then `coauthors`; a name given twice (or with another
    spelling of its slug) is one author, credited at its first place."""
    with app.app_context():
        ada, bo = store.author_named("Ada Example"), store.author_named("Bo Writer")
        twice = store.credited(["Cy Third", "ada example", "Bo Writer", "Cy Third"])
        assert [author.name for author in twice] == ["Cy Third", "Ada Example", "Bo Writer"]
        post = store.new_post(
            title="Together",
            body="Text.",
            author=ada,
            coauthors=[bo, ada, *twice],
            topics=[store.topic_named("Databases")],
        )
        db.session.commit()
        assert _credited(post.id) == [("Ada Example", 0), ("Bo Writer", 1), ("Cy Third", 2)]


def test_a_save_reorders_adds_and_drops_authors(app):
    """update_post keeps the links in step with the fields: a new order (the first author
    changes too), a new author, one taken off; a save that leaves them alone writes none."""
    with app.app_context():
        ada, bo, cy = (store.author_named(name) for name in ("Ada", "Bo", "Cy"))
        post = store.new_post(
            title="T", body="B", author=ada, coauthors=[bo], topics=[store.topic_named("Ops")]
        )
        db.session.commit()

        def save(*authors) -> None:
            fields = store.PostFields(
                title=post.title,
                slug=post.slug,
                body=post.body_markdown,
                summary="",
                topics=post.topics,
                author=authors[0],
                coauthors=list(authors[1:]),
                status=post.status,
                published_at=post.published_at,
            )
            store.update_post(post, fields)
            db.session.commit()

        save(bo, ada)
        assert _credited(post.id) == [("Bo", 0), ("Ada", 1)]
        save(bo, cy, ada)
        assert _credited(post.id) == [("Bo", 0), ("Cy", 1), ("Ada", 2)]
        save(cy)
        assert _credited(post.id) == [("Cy", 0)]
        version = post.lock_version
        save(cy)
        assert post.lock_version == version + 1  # one write of the post, no more


def test_fifty_authors_are_credited_in_order(app):
    """A long team is stored whole, in order."""
    with app.app_context():
        names = [f"Writer {n:02d}" for n in range(50)]
        authors = store.credited(names)
        post = store.new_post(
            title="Everyone",
            body="B",
            author=authors[0],
            coauthors=authors[1:],
            topics=[store.topic_named("Ops")],
        )
        db.session.commit()
        assert _credited(post.id) == [(name, n) for n, name in enumerate(names)]


def test_a_post_needs_an_author(app):
    """Crediting nobody is refused before anything is written."""
    with app.app_context(), pytest.raises(ValueError, match="at least one author"):
        Post().set_authors([])


def test_a_post_written_outside_the_store_has_its_one_author(app):
    """A post row with no author links (bulk SQL, a restore of old data) still names its
    author wherever posts are shown."""
    with app.app_context():
        post = store.new_post(
            title="Plain",
            body="B",
            author=store.author_named("Ada"),
            topics=[store.topic_named("Ops")],
        )
        db.session.commit()
        db.session.execute(sa.text("DELETE FROM post_authors"))
        db.session.commit()
        db.session.expire_all()
        assert [author.name for author in db.session.get_one(Post, post.id).authors] == ["Ada"]


def test_crediting_another_author_moves_the_data_version(app):
    """Cached pages name the authors: a change to the links alone is a change readers see."""
    with app.app_context():
        post = store.new_post(
            title="T", body="B", author=store.author_named("Ada"), topics=[store.topic_named("O")]
        )
        db.session.commit()
        bo = store.author_named("Bo")
        db.session.commit()
        before = data_version()
        post.set_authors([post.author, bo])
        db.session.commit()
        assert data_version() > before


def counted_renders(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every Markdown render from now on, by the text rendered."""
    real, seen = markup.render, []

    def render(text: str, **options):
        seen.append(text)
        return real(text, **options)

    monkeypatch.setattr(markup, "render", render)
    return seen


def test_an_early_render_that_fits_is_stored_as_made(app, monkeypatch):
    """A body rendered before its save (an import's check), with the same text, link policy
    and stored images, is stored without rendering it again."""
    with app.app_context():
        src = f"/images/{store_image(picture_bytes('PNG', (1200, 600))).sha256}.png"
        db.session.commit()
        text = f"Intro, [out](https://example.org).\n\n![A chart]({src})\n"
        early = store.render_early(text)
        rendered = counted_renders(monkeypatch)
        post = Post(summary="")
        store.set_body(post, text, early)
        assert rendered == [] and post.body_html == early.rendered.html
        assert 'width="1200"' in post.body_html


@pytest.mark.parametrize("change", ["text", "nofollow", "image"])
def test_an_early_render_that_no_longer_fits_is_made_again(app, monkeypatch, change):
    """The save renders again when the text differs, the link policy changed, or an image
    the early render counted as about to be stored is not stored after all."""
    with app.app_context():
        unsaved = Image(sha256="a" * 64, content_type="image/png", width=1200, height=600)
        text = f"Words, [out](https://example.org).\n\n![A chart](/images/{'a' * 64}.png)\n"
        monkeypatch.setitem(app.config, "LINK_NOFOLLOW", False)
        early = store.render_early(text, [unsaved] if change == "image" else [])
        saved = text + "More.\n" if change == "text" else text
        if change == "nofollow":
            monkeypatch.setitem(app.config, "LINK_NOFOLLOW", True)
        rendered = counted_renders(monkeypatch)
        post = Post(summary="")
        store.set_body(post, saved, early)
        assert rendered == [saved]
        assert post.body_html == store.render_body(saved).html != early.rendered.html
