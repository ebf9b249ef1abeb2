"""The listing's queries: counts kept by the database's triggers, pages, featured and picks."""

from __future__ import annotations

from datetime import timedelta

import sqlalchemy as sa

from blog import catalog
from blog.extensions import db
from blog.models import DRAFT, PUBLISHED, Post, PostTopic, Topic, live, utcnow
from blog.reading import listing


def _counted(app) -> tuple[int, dict[str, int]]:
    """The topic filter's counts, as the listing reads them."""
    with app.app_context():
        found = listing.topic_filter()
        return found.total, {entry.topic.slug: entry.count for entry in found.topics}


def _recounted(app) -> tuple[int, dict[str, int]]:
    """The same counts worked out the slow way, from every live post."""
    with app.app_context():
        total = db.session.scalar(sa.select(sa.func.count(Post.id)).where(live()))
        rows = db.session.execute(
            sa.select(Topic.slug, sa.func.count(Post.id))
            .join(PostTopic, PostTopic.topic_id == Topic.id)
            .join(Post, Post.id == PostTopic.post_id)
            .where(live())
            .group_by(Topic.slug)
        )
        return total, dict(rows.all())


def _post(app, slug: str) -> int:
    with app.app_context():
        return db.session.scalar(sa.select(Post.id).where(Post.slug == slug))


def test_counts_follow_every_kind_of_write(app, posts):
    """Publishing, unpublishing, retopicking and deleting (through the ORM and in plain SQL)
    keep the counts equal to a full recount after every step."""
    posts.topics("Databases", "Frontend", "Security")
    live_ones = posts.create(3, topics=("Databases", "Frontend"))
    [draft] = posts.create(1, topics=("Security",), published_at=None)
    [later] = posts.create(1, topics=("Frontend",), published_at=utcnow() + timedelta(days=2))
    assert _counted(app) == _recounted(app) == (3, {"databases": 3, "frontend": 3})

    steps = []
    with app.app_context():
        post = db.session.get(Post, _post(app, draft))
        post.status, post.published_at = PUBLISHED, utcnow() - timedelta(minutes=1)
        db.session.commit()
    steps.append(
        _counted(app) == _recounted(app) == (4, {"databases": 3, "frontend": 3, "security": 1})
    )
    with app.app_context():
        post = db.session.get(Post, _post(app, live_ones[0]))
        post.set_topics([db.session.scalar(sa.select(Topic).where(Topic.slug == "security"))])
        db.session.commit()
    steps.append(_counted(app) == _recounted(app))
    with app.app_context():
        post = db.session.get(Post, _post(app, live_ones[1]))
        post.status = DRAFT
        db.session.commit()
    steps.append(_counted(app) == _recounted(app))
    with app.app_context():
        db.session.delete(db.session.get(Post, _post(app, live_ones[2])))
        db.session.commit()
    steps.append(_counted(app) == _recounted(app))
    with app.app_context():
        db.session.execute(sa.delete(Post).where(Post.slug == draft))  # cascades to its links
        db.session.commit()
    steps.append(_counted(app) == _recounted(app))
    assert steps == [True] * len(steps)
    assert _counted(app) == (1, {"security": 1})
    # The scheduled post is counted as published but shown only when its time comes.
    with app.app_context():
        db.session.execute(sa.update(Post).where(Post.slug == later).values(published_at=utcnow()))
        db.session.commit()
    assert _counted(app) == _recounted(app) == (2, {"frontend": 1, "security": 1})


def test_a_topic_with_only_drafts_or_scheduled_posts_is_not_listed(app, posts):
    """Topics appear in the filter only once a live post carries them."""
    posts.topics("Databases", "Drafts", "Soon")
    posts.create(1)
    posts.create(2, topics=("Drafts",), published_at=None)
    posts.create(1, topics=("Soon",), published_at=utcnow() + timedelta(hours=1))
    with app.app_context():
        assert [entry.topic.slug for entry in listing.topic_filter().topics] == ["databases"]
        assert catalog.topic_by_slug("drafts") is None
        assert catalog.topic_by_slug("soon") is None


def test_pages_walk_every_live_post_once_newest_first(app, posts):
    """Pages by OFFSET over the listing index: no post twice, none missed, in order."""
    posts.topics("Databases", "Frontend")
    posts.create(30, topics=("Databases", "Frontend"))
    posts.create(5, topics=("Frontend",))
    with app.app_context():
        topic = db.session.scalar(sa.select(Topic).where(Topic.slug == "frontend"))
        for chosen, expected in ((None, 35), (topic, 35)):
            seen = [p for n in range(1, 5) for p in listing.cards(chosen, n, 12).page]
            assert len(seen) == len({p.id for p in seen}) == expected
            keys = [(p.published_at, p.id) for p in seen]
            assert keys == sorted(keys, reverse=True)
        assert listing.cards(None, 4, 12, featured=True, picks=4).page == []


def test_featured_is_the_newest_flagged_post_and_picks_the_newest_picks(app, posts):
    """The page, the featured post and the picks come from one statement and keep their rules
    (the factory makes each post older than the one before)."""
    [newest_plain] = posts.create(1)
    [featured_pick] = posts.create(1, featured=True, editors_pick=True)
    picks = posts.create(5, editors_pick=True)
    [older_featured] = posts.create(1, featured=True)
    with app.app_context():
        found = listing.cards(None, 1, 3, featured=True, picks=4)
        assert found.featured is not None and found.featured.slug == featured_pick
        assert [p.slug for p in found.picks] == [featured_pick, *picks[:3]]
        # The page is its own: the flagged posts shown beside it are not on it.
        assert [p.slug for p in found.page] == [newest_plain, featured_pick, picks[0]]
        assert listing.cards(None, 1, 3, featured=True).picks == []
        assert listing.cards(None, 1, 3, picks=2).featured is None
    assert newest_plain not in (featured_pick, older_featured)
