"""Extension objects, created unbound and attached to the app in the factory."""

import sqlalchemy as sa
from flask_limiter import Limiter
from flask_limiter.util import get_remote_address
from flask_login import LoginManager
from flask_migrate import Migrate
from flask_sqlalchemy import SQLAlchemy
from flask_wtf.csrf import CSRFProtect
from htmx_flask import Htmx
from sqlalchemy.orm import DeclarativeBase


class Base(DeclarativeBase):
    """Declarative base with a naming convention so migrations name constraints stably."""

    metadata = sa.MetaData(
        naming_convention={
            "ix": "ix_%(column_0_label)s",
            "uq": "uq_%(table_name)s_%(column_0_name)s",
            "ck": "ck_%(table_name)s_%(constraint_name)s",
            "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
            "pk": "pk_%(table_name)s",
        }
    )


db = SQLAlchemy(model_class=Base)
migrate = Migrate(render_as_batch=True)
htmx = Htmx()
login_manager = LoginManager()
csrf = CSRFProtect()
# Storage, strategy and headers come from the RATELIMIT_* settings in config.py.
limiter = Limiter(key_func=get_remote_address)
