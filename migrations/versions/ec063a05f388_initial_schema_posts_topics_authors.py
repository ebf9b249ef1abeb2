"""Initial schema: posts, topics, authors

Revision ID: ec063a05f388
Revises: 
Create Date: 2026-11-29 20:33:05.321674

"""
from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = 'ec063a05f388'
down_revision = None
branch_labels = None
depends_on = None


def upgrade():
    op.create_table('authors',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('name', sa.String(length=120), nullable=False),
    sa.Column('slug', sa.String(length=120), nullable=False),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_authors')),
    sa.UniqueConstraint('slug', name=op.f('uq_authors_slug'))
    )
    op.create_table('topics',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('name', sa.String(length=80), nullable=False),
    sa.Column('slug', sa.String(length=80), nullable=False),
    sa.Column('position', sa.Integer(), nullable=False),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_topics')),
    sa.UniqueConstraint('name', name=op.f('uq_topics_name')),
    sa.UniqueConstraint('slug', name=op.f('uq_topics_slug'))
    )
    op.create_table('posts',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('slug', sa.String(length=200), nullable=False),
    sa.Column('title', sa.String(length=300), nullable=False),
    sa.Column('summary', sa.Text(), nullable=False),
    sa.Column('excerpt', sa.Text(), nullable=False),
    sa.Column('body_markdown', sa.Text(), nullable=False),
    sa.Column('body_html', sa.Text(), nullable=False),
    sa.Column('render_version', sa.Integer(), nullable=False),
    sa.Column('reading_minutes', sa.Integer(), nullable=False),
    sa.Column('toc', sa.JSON(), nullable=False),
    sa.Column('status', sa.String(length=16), nullable=False),
    sa.Column('published_at', sa.DateTime(), nullable=True),
    sa.Column('updated_at', sa.DateTime(), nullable=True),
    sa.Column('featured', sa.Boolean(), nullable=False),
    sa.Column('editors_pick', sa.Boolean(), nullable=False),
    sa.Column('image_alt', sa.String(length=500), nullable=True),
    sa.Column('author_id', sa.Integer(), nullable=False),
    sa.Column('primary_topic_id', sa.Integer(), nullable=True),
    sa.Column('created_at', sa.DateTime(), nullable=False),
    sa.Column('modified_at', sa.DateTime(), nullable=False),
    sa.CheckConstraint("status IN ('draft', 'published')", name=op.f('ck_posts_status')),
    sa.ForeignKeyConstraint(['author_id'], ['authors.id'], name=op.f('fk_posts_author_id_authors')),
    sa.ForeignKeyConstraint(['primary_topic_id'], ['topics.id'], name=op.f('fk_posts_primary_topic_id_topics')),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_posts')),
    sa.UniqueConstraint('slug', name=op.f('uq_posts_slug'))
    )
    with op.batch_alter_table('posts', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_posts_author_id'), ['author_id'], unique=False)
        batch_op.create_index('ix_posts_featured', ['featured', 'status', 'published_at'], unique=False)
        batch_op.create_index('ix_posts_listing', ['status', 'published_at', 'id'], unique=False)
        batch_op.create_index('ix_posts_pick', ['editors_pick', 'status', 'published_at'], unique=False)
        batch_op.create_index(batch_op.f('ix_posts_primary_topic_id'), ['primary_topic_id'], unique=False)

    op.create_table('site_state',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('version', sa.BigInteger(), nullable=False),
    sa.Column('changed_at', sa.DateTime(), nullable=False),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_site_state'))
    )
    op.create_table('post_topics',
    sa.Column('post_id', sa.Integer(), nullable=False),
    sa.Column('topic_id', sa.Integer(), nullable=False),
    sa.Column('position', sa.Integer(), nullable=False),
    sa.ForeignKeyConstraint(['post_id'], ['posts.id'], name=op.f('fk_post_topics_post_id_posts'), ondelete='CASCADE'),
    sa.ForeignKeyConstraint(['topic_id'], ['topics.id'], name=op.f('fk_post_topics_topic_id_topics'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('post_id', 'topic_id', name=op.f('pk_post_topics'))
    )
    with op.batch_alter_table('post_topics', schema=None) as batch_op:
        batch_op.create_index('ix_post_topics_topic_post', ['topic_id', 'post_id'], unique=False)



def downgrade():
    with op.batch_alter_table('post_topics', schema=None) as batch_op:
        batch_op.drop_index('ix_post_topics_topic_post')

    op.drop_table('post_topics')
    op.drop_table('site_state')
    with op.batch_alter_table('posts', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_posts_primary_topic_id'))
        batch_op.drop_index('ix_posts_pick')
        batch_op.drop_index('ix_posts_listing')
        batch_op.drop_index('ix_posts_featured')
        batch_op.drop_index(batch_op.f('ix_posts_author_id'))

    op.drop_table('posts')
    op.drop_table('topics')
    op.drop_table('authors')
