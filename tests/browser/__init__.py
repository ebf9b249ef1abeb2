"""End-to-end tests in a real Chromium against the app served by gunicorn."""
