"""Response headers that keep readers safe whatever a page contains."""

from __future__ import annotations

from flask import Flask, current_app, request
from flask.wrappers import Response

# No inline script or style anywhere: htmx is configured by a <meta> tag and styled by
# the site's stylesheet, so a payload that slipped into a page still cannot run.
CONTENT_SECURITY_POLICY = "; ".join(
    (
        "default-src 'self'",
        "script-src 'self'",
        "style-src 'self'",
        "img-src 'self'",
        "object-src 'none'",
        "base-uri 'none'",
        "form-action 'self'",
        "frame-ancestors 'none'",
    )
)

# Browser features no page of the blog uses, turned off for every page and anything in it.
PERMISSIONS_POLICY = ", ".join(
    f"{feature}=()"
    for feature in (
        "accelerometer", "browsing-topics", "camera", "display-capture", "geolocation",
        "gyroscope", "magnetometer", "microphone", "midi", "payment", "usb",
    )
)  # fmt: skip

# How long browsers keep to HTTPS after a response over HTTPS (a year), unless HSTS_MAX_AGE
# says otherwise; 0 tells them to forget it.
HSTS_MAX_AGE = 31_536_000


def _secure_headers(response: Response) -> Response:
    """Add the security headers every response carries, and HSTS to answers over HTTPS."""
    headers = response.headers
    headers.setdefault("Content-Security-Policy", CONTENT_SECURITY_POLICY)
    headers.setdefault("X-Content-Type-Options", "nosniff")
    headers.setdefault("Referrer-Policy", "strict-origin-when-cross-origin")
    headers.setdefault("X-Frame-Options", "DENY")
    headers.setdefault("Permissions-Policy", PERMISSIONS_POLICY)
    # Browsers ignore HSTS received over plain HTTP, and a development server has no TLS:
    # only a request that arrived over HTTPS (or through a trusted proxy that says so) gets it.
    if request.is_secure:
        max_age = current_app.config.get("HSTS_MAX_AGE", HSTS_MAX_AGE)
        headers.setdefault("Strict-Transport-Security", f"max-age={int(max_age)}")
    return response


def init_app(app: Flask) -> None:
    """Attach the headers to every response."""
    app.after_request(_secure_headers)
