"""Editors, images, slug redirects and post revisions

Revision ID: 0002_editors
Revises: ec063a05f388
Create Date: 2026-11-29 20:40:56.547949

"""
from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = '0002_editors'
down_revision = 'ec063a05f388'
branch_labels = None
depends_on = None


def upgrade():
    op.create_table('editors',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('email', sa.String(length=254), nullable=False),
    sa.Column('name', sa.String(length=120), nullable=False),
    sa.Column('password_hash', sa.String(length=255), nullable=False),
    sa.Column('active', sa.Boolean(), nullable=False),
    sa.Column('created_at', sa.DateTime(), nullable=False),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_editors')),
    sa.UniqueConstraint('email', name=op.f('uq_editors_email'))
    )
    op.create_table('images',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('sha256', sa.String(length=64), nullable=False),
    sa.Column('content_type', sa.String(length=32), nullable=False),
    sa.Column('data', sa.LargeBinary(), nullable=False),
    sa.Column('width', sa.Integer(), nullable=False),
    sa.Column('height', sa.Integer(), nullable=False),
    sa.Column('byte_size', sa.Integer(), nullable=False),
    sa.Column('created_at', sa.DateTime(), nullable=False),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_images')),
    sa.UniqueConstraint('sha256', name=op.f('uq_images_sha256'))
    )
    op.create_table('slug_redirects',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('old_slug', sa.String(length=200), nullable=False),
    sa.Column('post_id', sa.Integer(), nullable=False),
    sa.Column('created_at', sa.DateTime(), nullable=False),
    sa.ForeignKeyConstraint(['post_id'], ['posts.id'], name=op.f('fk_slug_redirects_post_id_posts'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_slug_redirects')),
    sa.UniqueConstraint('old_slug', name=op.f('uq_slug_redirects_old_slug'))
    )
    with op.batch_alter_table('slug_redirects', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_slug_redirects_post_id'), ['post_id'], unique=False)

    with op.batch_alter_table('posts', schema=None) as batch_op:
        batch_op.add_column(sa.Column('image_id', sa.Integer(), nullable=True))
        batch_op.add_column(sa.Column('revision', sa.Integer(), server_default='1', nullable=False))
        batch_op.create_index(batch_op.f('ix_posts_image_id'), ['image_id'], unique=False)
        batch_op.create_foreign_key(batch_op.f('fk_posts_image_id_images'), 'images', ['image_id'], ['id'], ondelete='SET NULL')



def downgrade():
    with op.batch_alter_table('posts', schema=None) as batch_op:
        batch_op.drop_constraint(batch_op.f('fk_posts_image_id_images'), type_='foreignkey')
        batch_op.drop_index(batch_op.f('ix_posts_image_id'))
        batch_op.drop_column('revision')
        batch_op.drop_column('image_id')

    with op.batch_alter_table('slug_redirects', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_slug_redirects_post_id'))

    op.drop_table('slug_redirects')
    op.drop_table('images')
    op.drop_table('editors')
