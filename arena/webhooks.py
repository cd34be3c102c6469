"""Webhooks: an entrant's URL the service POSTs a small JSON to when one of their
versions' gate ends, or when a version crashes in several games in a row.

The messages wait in a bounded queue and a background thread sends them, each with a
short timeout and a few retries, so neither the gate nor the ladder ever waits on an
entrant's server. The service is not sandboxed, so where a webhook may point is checked
as it is sent (server-side request forgery): the URL's host is resolved and every
address it gives must be public (no loopback, link-local, private, multicast or reserved
address), or the host must be one the organiser allowed (``arena.webhook_hosts``); the
request goes to the address that was checked, and a redirect is not followed.
"""

from __future__ import annotations

import http.client
import ipaddress
import json
import logging
import queue
import re
import socket
from dataclasses import dataclass
from typing import Any, Callable
from urllib.parse import urlsplit

from arena.background import Background
from tournaments.config import ConfigError

LOG = logging.getLogger(__name__)
#: Seconds a webhook's server has to answer, and the pauses before each try again.
TIMEOUT_S = 3.0
BACKOFF_S = (1.0, 4.0, 15.0)
#: Messages waiting to be sent; more are dropped (an entrant's server that is down must
#: not fill the service's memory).
QUEUE = 1000
MAX_URL = 2000
SCHEMES = {"http": 80, "https": 443}
SENDABLE = re.compile("[!-~]+")
Resolver = Callable[[str, int], list[str]]


class WebhookRefused(ConfigError):
    """A webhook URL the service will not send to."""


@dataclass(frozen=True)
class Target:
    """Where a message goes: the URL's parts and the address that was checked."""

    scheme: str
    host: str
    port: int
    path: str
    address: str


def resolve(host: str, port: int) -> list[str]:
    """Every address ``host`` resolves to."""
    return sorted({str(info[4][0]) for info in socket.getaddrinfo(
        host, port, type=socket.SOCK_STREAM)})


def _url_parts(url: str, allowed: tuple[str, ...] | None) -> tuple[str, str, int, str]:
    """The URL's scheme, host, port and path if it may be a webhook's, as far as can be
    told without resolving it; :class:`WebhookRefused` says why not."""
    if len(url) > MAX_URL:
        raise WebhookRefused(f"the URL is longer than {MAX_URL} characters")
    if not SENDABLE.fullmatch(url):   # http.client sends it as it is, in ASCII
        raise WebhookRefused("a webhook URL is printable ASCII with no space: percent-encode "
                             "the rest, and write an international host by its xn-- name")
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError as error:
        raise WebhookRefused(f"not a URL: {error}") from None
    if parts.scheme not in SCHEMES or not parts.hostname:
        raise WebhookRefused("a webhook is an http:// or https:// URL with a host")
    if parts.username or parts.password:
        raise WebhookRefused("a webhook URL holds no user name or password")
    host = parts.hostname
    if allowed is not None and host not in allowed:
        raise WebhookRefused(f"the organiser allows webhooks only to {', '.join(allowed)}")
    path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    return parts.scheme, host, port or SCHEMES[parts.scheme], path


def _check_address(address: str, host: str) -> None:
    found = ipaddress.ip_address(address)
    if not found.is_global or found.is_multicast:
        raise WebhookRefused(f"{host} is at {address}, not a public address")


def target(url: str, allowed: tuple[str, ...] | None, resolver: Resolver = resolve) -> Target:
    """Where a message to ``url`` goes: its host resolved and, unless the organiser
    allowed the host, every address checked public."""
    scheme, host, port, path = _url_parts(url, allowed)
    try:
        addresses = resolver(host, port)
    except (OSError, UnicodeError) as error:   # UnicodeError: a label over 63 characters
        raise WebhookRefused(f"{host} does not resolve: {error}") from None
    if not addresses:
        raise WebhookRefused(f"{host} does not resolve")
    if allowed is None:
        for address in addresses:
            _check_address(address, host)
    return Target(scheme, host, port, path, addresses[0])


def post(where: Target, body: bytes) -> int:
    """POST ``body`` to the checked address (with the URL's host named, and for https its
    certificate checked against it); the answer's status."""
    kind = http.client.HTTPSConnection if where.scheme == "https" else \
        http.client.HTTPConnection
    connection = kind(where.host, where.port, timeout=TIMEOUT_S)
    # Connect to the address checked, not to what the host resolves to a moment later.
    connection._create_connection = (   # type: ignore[attr-defined]
        lambda _address, *rest: socket.create_connection((where.address, where.port), *rest))
    try:
        connection.request("POST", where.path, body, {
            "Content-Type": "application/json", "User-Agent": "circus-referee-arena"})
        return connection.getresponse().status
    finally:
        connection.close()


class Webhooks(Background):
    """The sending thread: :meth:`send` queues a message and returns at once."""

    def __init__(self, allowed: tuple[str, ...] | None, resolver: Resolver = resolve) -> None:
        self.allowed = allowed
        self.resolver = resolver
        self.waiting: queue.Queue[tuple[str, dict[str, Any]]] = queue.Queue(QUEUE)
        super().__init__("arena-webhooks")

    def send(self, url: str, message: dict[str, Any]) -> None:
        try:
            self.waiting.put_nowait((url, message))
        except queue.Full:
            LOG.warning("webhook to %s dropped: %d messages are waiting", url, QUEUE)

    def stop(self) -> None:
        self.stopping.set()
        try:   # wakes the thread if it waits for a message (a full queue: it does not)
            self.waiting.put_nowait(("", {}))
        except queue.Full:
            pass
        self.thread.join()

    def _run(self) -> None:
        while not self.stopping.is_set():
            url, message = self.waiting.get()
            if url:
                self._deliver(url, message)

    def _deliver(self, url: str, message: dict[str, Any]) -> None:
        """Send one message, trying again after each pause of :data:`BACKOFF_S` while
        its server fails or does not answer; then give up."""
        body = json.dumps(message).encode()
        for pause in (0.0, *BACKOFF_S):
            if self.stopping.wait(pause):
                return
            try:
                status = post(target(url, self.allowed, self.resolver), body)
            except WebhookRefused as error:
                LOG.warning("webhook to %s not sent: %s", url, error)
                return
            except (OSError, http.client.HTTPException) as error:
                LOG.info("webhook to %s failed: %s", url, error)
                continue
            if status < 500:
                return
        LOG.warning("webhook to %s: gave up after %d tries", url, 1 + len(BACKOFF_S))
