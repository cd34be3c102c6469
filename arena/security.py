"""What keeps one entrant out of another's pages and the service upright: the forms'
CSRF tokens, per-token rate limits, and the tokens already checked.

A form's CSRF token is an HMAC of a random cookie of the browser's under the service's
secret: a page of another site can neither read the cookie nor make the token
(double submit, signed). Checking a token with argon2 costs tens of milliseconds on
purpose; a token checked once is remembered in memory by its SHA-256, never on disk,
and a token key's checks not remembered are limited (:data:`CHECKS_PER_KEY`).
"""

from __future__ import annotations

import hashlib
import hmac
import ipaddress
import secrets
import threading
import time
from collections import deque
from datetime import timedelta

from arena.store import ArenaStore, Entrant

#: The browser's random cookie behind its forms' tokens, and its signed-in session's.
CSRF_COOKIE = "arena_csrf"
SESSION_COOKIE = "arena_session"
CSRF_FIELD = "csrf"
#: How long a browser stays signed in without signing in again.
SESSION_LASTING = timedelta(days=14)
#: A token key's checks an hour that argon2 makes (each tens of milliseconds and 64 MiB):
#: whoever knows a key, as every entrant knows their own, could otherwise make the service
#: spend them without end by sending it with wrong secrets, on routes no address limits.
#: A right token is checked once, then remembered.
CHECKS_PER_KEY = 10
CHECKS_WINDOW_S = 3600.0


def client_of(host: str) -> str:
    """What the per-address limits count a client by: an IPv4 address (an IPv4-mapped
    IPv6 one too); of an IPv6 address, its /64, which one host is given whole (by
    address, one client could take every one the limits allow each)."""
    try:
        address = ipaddress.ip_address(host)
    except ValueError:   # not an address (a test client's name)
        return host
    if isinstance(address, ipaddress.IPv6Address):
        if address.ipv4_mapped is not None:
            return str(address.ipv4_mapped)
        return str(ipaddress.ip_network((address, 64), strict=False))
    return str(address)


def new_nonce() -> str:
    return secrets.token_urlsafe(24)


def csrf_token(secret: str, nonce: str) -> str:
    return hmac.new(secret.encode(), nonce.encode(), hashlib.sha256).hexdigest()


def csrf_ok(secret: str, nonce: str | None, given: str | None) -> bool:
    """Whether a form's token is the one made for this browser's cookie."""
    if not nonce or not given:
        return False
    return hmac.compare_digest(csrf_token(secret, nonce), given)


class RateLimit:
    """At most ``count`` events per key in any ``window_s`` seconds."""

    def __init__(self, count: int, window_s: float) -> None:
        self.count = count
        self.window_s = window_s
        self.lock = threading.Lock()
        self.times: dict[str, deque[float]] = {}

    def allow(self, key: str) -> bool:
        """Count one event of ``key`` if it is within the limit."""
        moment = time.monotonic()
        with self.lock:
            times = self.times.setdefault(key, deque())
            while times and times[0] <= moment - self.window_s:
                times.popleft()
            if len(times) >= self.count:
                return False
            times.append(moment)
            return True


class Holders:
    """Whose token a request carries, argon2 checked once per token and process, and at
    most :data:`CHECKS_PER_KEY` times an hour per key."""

    def __init__(self, store: ArenaStore) -> None:
        self.store = store
        self.lock = threading.Lock()
        self.known: dict[str, str] = {}
        self.checks = RateLimit(CHECKS_PER_KEY, CHECKS_WINDOW_S)

    def holder(self, token: str | None) -> Entrant | None:
        if not token or len(token) > 200:
            return None
        digest = hashlib.sha256(token.encode()).hexdigest()
        with self.lock:
            name = self.known.get(digest)
        if name is not None:
            return self.store.entrant(name)
        # Only an entrant's key is counted: unknown keys, costing nothing, make no entries.
        found = self.store.holder(token, self.checks.allow)
        if found is not None:
            with self.lock:
                self.known[digest] = found.name
        return found
