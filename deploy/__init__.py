"""The reference deployment: nginx, gunicorn app servers, PostgreSQL and Redis (stack.py)."""
