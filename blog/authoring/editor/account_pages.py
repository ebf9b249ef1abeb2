"""Accounts, for admins: invite someone with a one-time link, change a role, disable or enable
an account, and make a one-time link to reset its password. The links are shown once, to
copy and pass on: the site sends no mail."""

from __future__ import annotations

import sqlalchemy as sa
from flask import abort, current_app, flash, redirect, render_template, url_for
from flask.wrappers import Response
from flask_login import current_user
from werkzeug.wrappers import Response as BaseResponse

from blog.authoring import account_links
from blog.authoring.account_forms import ROLE_CHOICES, ROLE_LABELS, InviteForm, RoleForm
from blog.authoring.editor import bp
from blog.authoring.forms import ConfirmForm
from blog.extensions import db
from blog.models import ROLES, Editor, utcnow

STALE_FORM = "This page's security token is no longer valid. Reload it."


def _accounts_page(
    *,
    status: int = 200,
    made: str = "",
    made_for: str = "",
    problem: str = "",
    invite: InviteForm | None = None,
) -> Response:
    """Every account with its role and state and the forms that change them; the pending
    invitations; and `made`, a new link's address, shown this once (`made_for` says what it
    is)."""
    accounts = db.session.scalars(sa.select(Editor).order_by(Editor.email)).all()
    page = render_template(
        "editor/accounts.html",
        accounts=accounts,
        invites=account_links.pending_invites(),
        now=utcnow(),
        made=made,
        made_for=made_for,
        problem=problem,
        invite=invite or InviteForm(formdata=None),
        role_choices=ROLE_CHOICES,
        role_labels=ROLE_LABELS,
        form=ConfirmForm(),
        invite_hours=int(account_links.INVITE_LIFETIME.total_seconds() // 3600),
        reset_hours=int(account_links.RESET_LIFETIME.total_seconds() // 3600),
    )
    return current_app.make_response((page, status))


def _account_or_404(editor_id: int) -> Editor:
    """The account named in the address."""
    editor = db.session.get(Editor, editor_id)
    if editor is None:
        abort(404, description="There is no such account.")
    return editor


def _confirmed(form_class: type = ConfirmForm) -> object:
    """The posted form, or 400 when its CSRF token is missing or stale."""
    form = form_class()
    if not form.validate_on_submit():
        abort(400, description=STALE_FORM)
    return form


@bp.get("/accounts")
def accounts() -> Response:
    """Every account, the pending invitations, and the form that invites someone."""
    return _accounts_page()


@bp.post("/accounts/invite")
def invite() -> Response:
    """Make a one-time invitation (72 hours) for an address and a role; show its link once."""
    form = _confirmed(InviteForm)
    assert isinstance(form, InviteForm)
    try:
        email = account_links.checked_email(form.email.data or "")
        role = form.role.data or ""
        if role not in ROLES:
            raise account_links.Refused(422, "Choose a role: writer, editor or admin.")
        token = account_links.make_invite(email, role, current_user.name)
        db.session.commit()
    except account_links.Refused as refused:
        db.session.rollback()
        return _accounts_page(status=refused.status, problem=refused.message, invite=form)
    link = url_for("account.welcome", token=token, _external=True)
    return _accounts_page(
        status=201, made=link, made_for=f"Invitation for {email} to join as {ROLE_LABELS[role]}"
    )


@bp.post("/accounts/invites/<id:link_id>/revoke")
def revoke_invite(link_id: int) -> BaseResponse:
    """Take back an invitation that has not been used."""
    _confirmed()
    if not account_links.revoke_invite(link_id):
        abort(404, description="There is no such unused invitation: it was used or revoked.")
    db.session.commit()
    flash("Revoked the invitation: its link opens nothing now.")
    return redirect(url_for("editor.accounts"), 303)


def _change(editor_id: int, said: str, **change: object) -> BaseResponse:
    """Apply a change of role or state, keeping an active admin, then show the accounts."""
    editor = _account_or_404(editor_id)
    try:
        account_links.change(editor, acting_id=current_user.id, **change)  # type: ignore[arg-type]
        db.session.commit()
    except account_links.Refused as refused:
        db.session.rollback()
        return _accounts_page(status=refused.status, problem=refused.message)
    flash(said.format(name=editor.name, email=editor.email))
    return redirect(url_for("editor.accounts"), 303)


@bp.post("/accounts/<id:editor_id>/role")
def set_role(editor_id: int) -> BaseResponse:
    """Give an account another role (never the last active admin's away)."""
    form = _confirmed(RoleForm)
    assert isinstance(form, RoleForm)
    role = form.role.data or ""
    if role not in ROLES:
        _account_or_404(editor_id)
        return _accounts_page(status=422, problem="Choose a role: writer, editor or admin.")
    return _change(editor_id, f"{{name}} is now {ROLE_LABELS[role].lower()}.", role=role)


@bp.post("/accounts/<id:editor_id>/disable")
def disable_account(editor_id: int) -> BaseResponse:
    """Stop an account: it cannot log in, and its open sessions end at once."""
    _confirmed()
    return _change(editor_id, "Disabled {email}: its sessions have ended.", active=False)


@bp.post("/accounts/<id:editor_id>/enable")
def enable_account(editor_id: int) -> BaseResponse:
    """Let a disabled account log in again."""
    _confirmed()
    return _change(editor_id, "Enabled {email}.", active=True)


@bp.post("/accounts/<id:editor_id>/reset")
def reset_link(editor_id: int) -> Response:
    """Make a one-time link (24 hours) that sets a new password for the account, in place
    of any unused one; show it once."""
    _confirmed()
    editor = _account_or_404(editor_id)
    if not editor.active:
        return _accounts_page(
            status=409, problem=f"{editor.email} is disabled: enable it before resetting it."
        )
    token = account_links.make_reset(editor, current_user.name)
    db.session.commit()
    link = url_for("account.reset", token=token, _external=True)
    return _accounts_page(status=201, made=link, made_for=f"Password reset for {editor.email}")
