"""Request checks of the review server: access token, allowed hosts, session cookie, CSRF and Origin.

- Bound to a loopback address, the server answers only requests whose Host is that address (or
  ``localhost``), which defeats DNS rebinding; bound anywhere else it requires the access token on
  every request (``?token=`` once, then a cookie; or ``Authorization: Bearer``).
- Every browser gets a random session cookie (``SameSite=Strict``, ``HttpOnly``); its CSRF token is an
  HMAC of it with a per-process secret. A POST must carry that token in ``X-CSRF-Token`` (set by the
  pages' scripts; a plain cross-site HTML form cannot set a header) and, when the browser sends an
  ``Origin``, come from the server's own origin. A refused request reaches no route, so it writes nothing.
"""

from __future__ import annotations

import hashlib
import hmac
import ipaddress
import secrets

SESSION_COOKIE = "ct_session"
TOKEN_COOKIE = "ct_token"
REVIEWER_COOKIE = "ct_reviewer"
CSRF_HEADER = "x-csrf-token"


def is_loopback(host: str) -> bool:
    """True for 127.0.0.0/8, ::1 and localhost."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def new_token() -> str:
    """A fresh random access token."""
    return secrets.token_urlsafe(24)


def new_session() -> str:
    """A fresh random session id."""
    return secrets.token_urlsafe(24)


def csrf_for(secret: bytes, session: str) -> str:
    """The CSRF token of a session."""
    return hmac.new(secret, session.encode(), hashlib.sha256).hexdigest()


def same(a: str | None, b: str | None) -> bool:
    """Constant-time string comparison (False when either is missing)."""
    return bool(a) and bool(b) and hmac.compare_digest(str(a).encode(), str(b).encode())


def host_of(header: str) -> str:
    """The host part of a Host header (without the port)."""
    h = header.strip().lower()
    if h.startswith("["):
        return h[: h.find("]") + 1] if "]" in h else h
    return h.rsplit(":", 1)[0] if ":" in h else h
