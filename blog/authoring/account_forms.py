"""The forms of accounts in the browser: inviting, changing a role, and the pages an
invitation or a password-reset link opens (Flask-WTF, so every POST carries a CSRF token).

They check only their shape; blog/authoring/account_links.py holds the rules.
"""

from __future__ import annotations

from flask_wtf import FlaskForm
from wtforms import EmailField, PasswordField, SelectChoice, SelectField, StringField

from blog.models import ADMIN, EDITOR, ROLES, WRITER

ROLE_LABELS = {WRITER: "Writer", EDITOR: "Editor", ADMIN: "Admin"}
ROLE_CHOICES = [SelectChoice(role, ROLE_LABELS[role]) for role in ROLES]


class InviteForm(FlaskForm):
    """Whom to invite, and as what."""

    email = EmailField("Email")
    role = SelectField("Role", choices=ROLE_CHOICES, default=WRITER, validate_choice=False)


class RoleForm(FlaskForm):
    """An account's new role."""

    role = SelectField("Role", choices=ROLE_CHOICES, validate_choice=False)


class WelcomeForm(FlaskForm):
    """What an invited person chooses: the name others see, and a password."""

    name = StringField("Your name")
    password = PasswordField("Password")
    again = PasswordField("The password again")


class NewPasswordForm(FlaskForm):
    """A new password, typed twice."""

    password = PasswordField("New password")
    again = PasswordField("The new password again")
