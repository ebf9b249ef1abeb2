"""`flask --app blog editors ...`: creating, listing, disabling and enabling accounts."""

from __future__ import annotations

import pytest
import sqlalchemy as sa
from werkzeug.security import generate_password_hash

from blog import models
from blog.extensions import db
from blog.models import Editor
from tests.authoring.test_auth import CHEAP_METHOD, make_editor

PASSWORD = "a long enough passphrase"


def editors_in(app) -> dict[str, Editor]:
    """Stored accounts by email, detached."""
    with app.app_context():
        found = {e.email: e for e in db.session.scalars(sa.select(Editor))}
        db.session.expunge_all()
    return found


@pytest.fixture
def cheap_hashing(monkeypatch: pytest.MonkeyPatch) -> None:
    """A cheap scrypt, for tests about prompts and messages rather than the stored hash
    (the tests that read the hash use the real one)."""
    monkeypatch.setattr(models, "PASSWORD_METHOD", CHEAP_METHOD)


def test_create_reads_the_password_from_stdin(app, runner):
    """`--password-stdin` takes the first line; the account is active with a scrypt hash."""
    result = runner.invoke(
        args=["editors", "create", "Ada@Example.COM", "--name", "Ada  Example", "--password-stdin"],
        input=PASSWORD + "\n",
    )
    assert result.exit_code == 0, result.output
    assert "Created editor Ada Example <ada@example.com>." in result.output
    editor = editors_in(app)["ada@example.com"]
    assert editor.name == "Ada Example" and editor.active
    assert editor.password_hash.startswith("scrypt:131072:8:1$")
    assert editor.check_password(PASSWORD)
    assert PASSWORD not in result.output


def test_create_prompts_twice_without_echo(app, runner, cheap_hashing):
    """Without the flag the password is asked for, hidden, and confirmed."""
    result = runner.invoke(
        args=["editors", "create", "grace@example.com", "--name", "Grace"],
        input=f"{PASSWORD}\n{PASSWORD}\n",
    )
    assert result.exit_code == 0, result.output
    assert result.output.count("Password") >= 1 and PASSWORD not in result.output
    assert editors_in(app)["grace@example.com"].check_password(PASSWORD)


def test_mismatched_confirmation_is_asked_again(app, runner, cheap_hashing):
    """Two different answers to the prompt create nothing until they agree."""
    result = runner.invoke(
        args=["editors", "create", "grace@example.com", "--name", "Grace"],
        input=f"{PASSWORD}\nsomething else entirely\n",
    )
    assert result.exit_code != 0
    assert editors_in(app) == {}


@pytest.mark.parametrize(
    ("args", "stdin", "message"),
    [
        (["not-an-email", "--name", "X"], PASSWORD, "Invalid value for EMAIL"),
        (["x@example.com", "--name", "   "], PASSWORD, "Invalid value for --name"),
        (["x@example.com", "--name", "X"], "short", "at least 12 characters"),
        (["x@example.com", "--name", "X"], "", "at least 12 characters"),
        (["x@example.com"], PASSWORD, "Missing option '--name'"),
    ],
)
def test_bad_input_is_refused_and_nothing_is_stored(app, runner, args, stdin, message):
    """Every refusal says why, exits non-zero and leaves no account behind."""
    result = runner.invoke(
        args=["editors", "create", *args, "--password-stdin"], input=stdin + "\n"
    )
    assert result.exit_code != 0
    assert message in result.output
    assert editors_in(app) == {}


def test_duplicate_email_is_refused(app, runner):
    """One account per address, whatever its case."""
    make_editor(app, "ada@example.com")
    result = runner.invoke(
        args=["editors", "create", "ADA@example.com", "--name", "Ada", "--password-stdin"],
        input=PASSWORD + "\n",
    )
    assert result.exit_code == 1
    assert "already exists" in result.output
    assert len(editors_in(app)) == 1


def test_list_shows_accounts_and_their_state(app, runner):
    """The list names every account, active or disabled, and never a hash."""
    assert "No editor accounts yet" in runner.invoke(args=["editors", "list"]).output
    make_editor(app, "ada@example.com", name="Ada Example")
    make_editor(app, "bob@example.com", name="Bob", active=False)
    output = runner.invoke(args=["editors", "list"]).output
    lines = output.strip().splitlines()
    assert len(lines) == 2
    assert lines[0].startswith("ada@example.com") and "active" in lines[0]
    assert "Ada Example" in lines[0]
    assert lines[1].startswith("bob@example.com") and "disabled" in lines[1]
    assert "unusable" not in output


def test_disable_and_enable(app, runner):
    """Disabling stops logins; enabling allows them again; unknown addresses are errors."""
    make_editor(app, "ada@example.com")
    result = runner.invoke(args=["editors", "disable", "Ada@example.com"])
    assert result.exit_code == 0 and "Disabled ada@example.com." in result.output
    assert not editors_in(app)["ada@example.com"].active
    result = runner.invoke(args=["editors", "enable", "ada@example.com"])
    assert result.exit_code == 0
    assert editors_in(app)["ada@example.com"].active
    missing = runner.invoke(args=["editors", "disable", "nobody@example.com"])
    assert missing.exit_code == 1
    assert "There is no editor account for nobody@example.com." in missing.output


def stored_hash(app, email: str) -> str:
    """The account's password hash as stored."""
    return editors_in(app)[email].password_hash


def test_set_password_from_stdin(app, runner):
    """The new password works, the old one no longer does, and neither is printed."""
    make_editor(
        app, "ada@example.com", password_hash=generate_password_hash(PASSWORD, CHEAP_METHOD)
    )
    assert editors_in(app)["ada@example.com"].check_password(PASSWORD)  # until it is changed
    result = runner.invoke(
        args=["editors", "set-password", "Ada@Example.com", "--password-stdin"],
        input="another long passphrase\n",
    )
    assert result.exit_code == 0, result.output
    assert result.output.strip() == "Set a new password for ada@example.com."
    editor = editors_in(app)["ada@example.com"]
    assert editor.password_hash.startswith("scrypt:131072:8:1$")
    assert editor.check_password("another long passphrase")
    assert not editor.check_password(PASSWORD)


def test_set_password_prompts_twice(app, runner, cheap_hashing):
    """Without the flag the password is asked for, hidden, then confirmed."""
    make_editor(app, "ada@example.com")
    result = runner.invoke(
        args=["editors", "set-password", "ada@example.com"], input=f"{PASSWORD}\n{PASSWORD}\n"
    )
    assert result.exit_code == 0, result.output
    assert "Repeat for confirmation" in result.output and PASSWORD not in result.output
    assert editors_in(app)["ada@example.com"].check_password(PASSWORD)


@pytest.mark.parametrize(
    ("args", "stdin", "message"),
    [
        (["--password-stdin"], "short", "at least 12 characters"),
        (["--password-stdin"], "", "at least 12 characters"),
        (["--password-stdin"], "x" * 1025, "at most 1024 characters"),
        ([], f"{PASSWORD}\nsomething else entirely\n", "do not match"),
    ],
)
def test_set_password_refusals_keep_the_old_hash(app, runner, args, stdin, message):
    """The rules of `create` apply; a refused password leaves the stored one as it was."""
    make_editor(app, "ada@example.com", password_hash="the old hash")
    result = runner.invoke(
        args=["editors", "set-password", "ada@example.com", *args], input=stdin + "\n"
    )
    assert result.exit_code != 0
    assert message in result.output
    assert stored_hash(app, "ada@example.com") == "the old hash"


def test_set_password_for_an_unknown_address_asks_nothing(app, runner):
    """The address is checked before the prompt, so nobody types a password for nothing."""
    result = runner.invoke(args=["editors", "set-password", "nobody@example.com"], input="")
    assert result.exit_code == 1
    assert result.output == "Error: There is no editor account for nobody@example.com.\n"


def test_rename_tidies_the_name(app, runner):
    """The new name is stored with its spacing tidied, as `create` stores one."""
    make_editor(app, "ada@example.com", name="Ada Example")
    result = runner.invoke(args=["editors", "rename", "ADA@example.com", "--name", " Ada  L. "])
    assert result.exit_code == 0, result.output
    assert result.output.strip() == "Renamed editor Ada L. <ada@example.com>."
    assert editors_in(app)["ada@example.com"].name == "Ada L."


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["ada@example.com", "--name", "   "], "Invalid value for --name"),
        (["ada@example.com", "--name", "x" * 121], "Invalid value for --name"),
        (["ada@example.com"], "Missing option '--name'"),
        (["nobody@example.com", "--name", "X"], "There is no editor account for nobody@"),
    ],
)
def test_rename_refusals_keep_the_name(app, runner, args, message):
    """Every refusal says why, exits non-zero and leaves the stored name alone."""
    make_editor(app, "ada@example.com", name="Ada Example")
    result = runner.invoke(args=["editors", "rename", *args])
    assert result.exit_code != 0
    assert message in result.output
    assert editors_in(app)["ada@example.com"].name == "Ada Example"


@pytest.mark.parametrize("role", ["writer", "editor", "admin"])
def test_create_takes_a_role(app, runner, cheap_hashing, role):
    """`--role` stores the account's role and says it."""
    result = runner.invoke(
        args=[
            "editors",
            "create",
            "w@example.com",
            "--name",
            "W",
            "--role",
            role,
            "--password-stdin",
        ],
        input=PASSWORD + "\n",
    )
    assert result.exit_code == 0, result.output
    assert f"Role: {role}." in result.output
    assert editors_in(app)["w@example.com"].role == role


def test_create_makes_an_admin_unless_told_and_refuses_unknown_roles(app, runner, cheap_hashing):
    """Without `--role` the account is an admin; an unknown role creates nothing."""
    made = runner.invoke(
        args=["editors", "create", "a@example.com", "--name", "A", "--password-stdin"],
        input=PASSWORD + "\n",
    )
    assert made.exit_code == 0 and editors_in(app)["a@example.com"].role == "admin"
    refused = runner.invoke(
        args=["editors", "create", "b@example.com", "--name", "B", "--role", "owner"],
        input=PASSWORD + "\n",
    )
    assert refused.exit_code == 2 and "owner" in refused.output
    assert "b@example.com" not in editors_in(app)


def test_set_role_and_list_show_the_role(app, runner):
    """`set-role EMAIL ROLE` changes it; `list` shows it; an unknown address is an error."""
    make_editor(app, "ada@example.com")
    make_editor(app, "bob@example.com", name="Bob")
    result = runner.invoke(args=["editors", "set-role", "Bob@Example.com", "writer"])
    assert result.exit_code == 0 and "bob@example.com is now writer." in result.output
    assert editors_in(app)["bob@example.com"].role == "writer"
    lines = runner.invoke(args=["editors", "list"]).output.splitlines()
    assert "admin" in lines[0] and "writer" in lines[1]
    assert runner.invoke(args=["editors", "set-role", "bob@example.com", "owner"]).exit_code == 2
    missing = runner.invoke(args=["editors", "set-role", "nobody@example.com", "editor"])
    assert missing.exit_code == 1 and "no editor account" in missing.output


def test_the_command_line_may_leave_no_admin_but_says_so(app, runner):
    """The operator may lock the browser out on purpose: it is done, with a warning."""
    make_editor(app, "ada@example.com")
    result = runner.invoke(args=["editors", "set-role", "ada@example.com", "editor"])
    assert result.exit_code == 0
    assert "no active admin is left" in result.output
    assert editors_in(app)["ada@example.com"].role == "editor"
