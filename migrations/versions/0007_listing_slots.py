"""Featured post and editor's picks as rows, so the listing reads them with its page

Revision ID: 0007_listing_slots
Revises: 0006_listing_anchors
Create Date: 2026-11-30 03:30:00

"""

import sqlalchemy as sa
from alembic import op

revision = "0007_listing_slots"
down_revision = "0006_listing_anchors"
branch_labels = None
depends_on = None


def upgrade():
    slots = op.create_table(
        "listing_slots",
        sa.Column("slot", sa.Integer(), autoincrement=False, nullable=False),
        sa.Column("post_id", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint("slot", name=op.f("pk_listing_slots")),
    )
    connection = op.get_bind()
    row = connection.execute(sa.text("SELECT featured_id, pick_ids FROM site_state")).first()
    if row is not None:
        featured_id, pick_ids = row
        rows = [{"slot": 0, "post_id": featured_id}] if featured_id is not None else []
        picks = [int(i) for i in (pick_ids or "").split(",") if i]
        rows += [{"slot": n, "post_id": post_id} for n, post_id in enumerate(picks, 1)]
        if rows:
            op.bulk_insert(slots, rows)
    with op.batch_alter_table("site_state", schema=None) as batch_op:
        batch_op.drop_column("pick_ids")
        batch_op.drop_column("featured_id")


def downgrade():
    with op.batch_alter_table("site_state", schema=None) as batch_op:
        batch_op.add_column(sa.Column("featured_id", sa.Integer(), nullable=True))
        batch_op.add_column(
            sa.Column("pick_ids", sa.String(length=200), nullable=False, server_default="")
        )
    connection = op.get_bind()
    found = dict(connection.execute(sa.text("SELECT slot, post_id FROM listing_slots")).all())
    picks = ",".join(str(found[slot]) for slot in sorted(found) if slot > 0)
    connection.execute(
        sa.text("UPDATE site_state SET featured_id = :featured, pick_ids = :picks"),
        {"featured": found.get(0), "picks": picks},
    )
    op.drop_table("listing_slots")
