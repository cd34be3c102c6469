"""The arena's web routes (Starlette): thin, each a call to :mod:`arena.views` or
:class:`arena.service.Arena` and a page, a redirect or JSON.

A browser signs in with the entrant's token once and then holds a session cookie of its
own (:meth:`arena.store.ArenaStore.open_session`, ended by signing out); pages carry a
CSRF token in every form; the API (``/api/...``, for ``circus-referee submit`` and curl) takes the
token in an ``Authorization: Bearer`` header only, so no other site's page can use a
browser's cookie on it.
"""

from __future__ import annotations

import contextlib
import inspect
import json
import re
import threading
from datetime import timedelta
from typing import Any, AsyncIterator, Awaitable, Callable
from urllib.parse import quote, unquote

import jinja2
from markupsafe import Markup
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.datastructures import MutableHeaders, UploadFile
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import (
    HTMLResponse,
    JSONResponse,
    PlainTextResponse,
    RedirectResponse,
    Response,
    StreamingResponse,
)
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.templating import Jinja2Templates
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from arena import views
from arena.cache import PerChange
from arena.ladder_settings import deadline_of
from arena.security import (
    CSRF_COOKIE,
    CSRF_FIELD,
    SESSION_COOKIE,
    SESSION_LASTING,
    RateLimit,
    client_of,
    csrf_ok,
    csrf_token,
    new_nonce,
)
from arena.service import HOUR_S, Arena
from arena.store import Entrant, Invite
from arena.unrated import UnratedLimit, UnratedRefused
from arena.uploads import LimitReached, UploadRefused
from arena.webhooks import WebhookRefused, target
from pages.report import SCRIPT_SOURCES
from tournaments.config import ConfigError

#: What every response says to the browser: no framing (clickjacking), no guessing of types,
#: no referrer beyond the service; the arena's own pages load nothing from elsewhere and
#: run no inline script (:data:`PAGE_POLICY`, and a replay page's :data:`REPLAY_POLICY`).
HEADERS = {"X-Frame-Options": "DENY", "X-Content-Type-Options": "nosniff",
           "Referrer-Policy": "same-origin"}
PAGE_POLICY = "default-src 'self'; frame-ancestors 'none'; form-action 'self'"
#: A replay page's: the same, but for the viewer's inline styles; no inline script runs,
#: whatever a game's text holds.
REPLAY_POLICY = PAGE_POLICY + "; style-src 'self' 'unsafe-inline'"
#: The finals' report's: a replay page's, and the report's own inline scripts by their hashes.
REPORT_POLICY = REPLAY_POLICY + "; script-src 'self' " + " ".join(SCRIPT_SOURCES)
#: What the entrant's page says once, after an upload; cut to its first characters, so
#: that, percent-encoded, it fits in a cookie (a browser drops one over 4096 bytes).
MESSAGE_COOKIE = "arena_message"
MESSAGE_CHARS = 300
#: Sign-in attempts per address in the window of the uploads' limit.
SIGNINS_PER_HOUR = 60
#: What a form's upload may add to the archive's own size (its fields and boundaries).
FORM_OVERHEAD = 64 * 1024
Handler = Callable[[Request], Awaitable[Response]]
OwnHandler = Callable[[Request, Entrant], Any]
#: The most an API request for a test match may say.
API_BODY_BYTES = 4096
#: Packs an entrant may have made in the window of the uploads' limit (each replays games).
PACKS_PER_HOUR = 10
#: What the organiser may do to a version, and to the ladder.
ACTIONS = {"disqualify": True, "reinstate": False}
LADDER_ACTIONS = {"pause": True, "resume": False}


def make_app(arena: Arena) -> Starlette:
    """The arena's ASGI app; the gate queue and the ladder run while it serves."""
    templates = Jinja2Templates(env=jinja2.Environment(
        loader=jinja2.PackageLoader("pages", "templates"), autoescape=True))
    signins = RateLimit(SIGNINS_PER_HOUR, HOUR_S)
    packs = RateLimit(PACKS_PER_HOUR, HOUR_S)
    # One pack is made at a time: the others are asked to come back.
    packing = threading.Lock()

    def page(request: Request, name: str, context: dict[str, Any], status: int = 200,
             headers: dict[str, str] | None = None) -> Response:
        """A page, its forms' CSRF token made for this browser's cookie (set if new)."""
        nonce = request.cookies.get(CSRF_COOKIE) or new_nonce()
        viewer = signed_in(request)
        response = templates.TemplateResponse(
            request, f"arena/{name}", {**context, "viewer": viewer, "arena": arena.config,
                                       "csrf": csrf_token(arena.csrf_secret, nonce)},
            status_code=status,
            headers={"Content-Security-Policy": PAGE_POLICY, **(headers or {})})
        if CSRF_COOKIE not in request.cookies:
            _cookie(request, response, CSRF_COOKIE, nonce)
        return response

    def signed_in(request: Request) -> Entrant | None:
        session = request.cookies.get(SESSION_COOKIE)
        return arena.store.session_holder(session) if session else None

    def sign_in(request: Request, response: Response, name: str) -> None:
        """Give the browser a new session of ``name``'s."""
        session = arena.store.open_session(name, SESSION_LASTING)
        _cookie(request, response, SESSION_COOKIE, session,
                int(SESSION_LASTING.total_seconds()))

    def bearer(request: Request) -> Entrant | None:
        scheme, _, token = request.headers.get("authorization", "").partition(" ")
        return arena.holders.holder(token.strip()) if scheme.lower() == "bearer" else None

    async def form(request: Request) -> dict[str, str | bytes] | None:
        """The form's fields if its CSRF token holds, else None; a form longer than an
        upload's limit is refused before it is read (HTTP 413). A file's field holds its
        bytes: the spooled file behind it is closed before the form is handed on."""
        if _too_long(request, arena.config.limits.upload_bytes + FORM_OVERHEAD):
            raise HTTPException(413, "the form is too long, or does not say its length")
        async with request.form(max_files=1, max_fields=10) as fields:
            given = fields.get(CSRF_FIELD)
            if not csrf_ok(arena.csrf_secret, request.cookies.get(CSRF_COOKIE),
                           given if isinstance(given, str) else None):
                return None
            return {key: await value.read() if isinstance(value, UploadFile) else value
                    for key, value in fields.multi_items()}

    def replay_page(found: str) -> Response:
        return HTMLResponse(found, headers={"Content-Security-Policy": REPLAY_POLICY})

    def not_found(request: Request) -> Response:
        return page(request, "missing.html", {}, status=404)

    # -- public ------------------------------------------------------------------

    # The same for every visitor: made once per change of the board, not per request.
    shown_board = PerChange(
        lambda: Markup(templates.get_template("arena/board-part.html").render(
            views.board(arena))),
        lambda: arena.events.published("board"))

    def board(request: Request) -> Response:
        return page(request, "board.html", {"board": shown_board.get()})

    def board_part(request: Request) -> Response:
        return HTMLResponse(shown_board.get(), headers={"Content-Security-Policy": PAGE_POLICY})

    def bot(request: Request) -> Response:
        found = views.bot_page(arena, request.path_params["version"])
        return page(request, "bot.html", found) if found else not_found(request)

    def replay(request: Request) -> Response:
        found = views.public_replay(arena, request.path_params["game"], signed_in(request))
        return replay_page(found) if found is not None else not_found(request)

    async def events(request: Request) -> Response:
        listener = arena.events.listen(_client(request), arena.config.streams_per_address)
        if listener is None:
            return PlainTextResponse("too many open event streams from this address", 429)
        return StreamingResponse(arena.events.stream(listener), media_type="text/event-stream",
                                 headers={"Cache-Control": "no-store"})

    def signin_page(request: Request) -> Response:
        return page(request, "signin.html", {"problem": ""})

    async def signin(request: Request) -> Response:
        address = _client(request)
        if not signins.allow(address):
            return page(request, "signin.html", {"problem": "too many attempts: try later"}, 429)
        fields = await form(request)
        if fields is None:
            return page(request, "signin.html", {"problem": "the form expired: try again"}, 403)
        holder = await run_in_threadpool(arena.holders.holder, str(fields.get("token", "")))
        if holder is None:
            return page(request, "signin.html", {"problem": "unknown token"}, 403)
        response = RedirectResponse("/organiser" if holder.role == "organiser" else "/me",
                                    status_code=303)
        await run_in_threadpool(sign_in, request, response, holder.name)
        return response

    async def signout(request: Request) -> Response:
        """End the browser's session: its cookie, copied or not, signs nobody in again."""
        if await form(request) is None:
            return Response("the form expired", 403)
        session = request.cookies.get(SESSION_COOKIE)
        if session:
            await run_in_threadpool(arena.store.close_session, session)
        response = RedirectResponse("/", status_code=303)
        response.delete_cookie(SESSION_COOKIE)
        return response

    # -- an entrant's own ---------------------------------------------------------

    def own(handler: OwnHandler) -> Handler:
        """A page of the signed-in entrant's; others go to the sign-in page."""
        async def route(request: Request) -> Response:
            entrant = await run_in_threadpool(signed_in, request)
            if entrant is None:
                return RedirectResponse("/signin", status_code=303)
            return await _call(handler, request, entrant)
        return route

    def me(request: Request, entrant: Entrant) -> Response:
        response = page(request, "me.html", {"versions": views.my_versions(arena, entrant),
                                             "games": views.my_games(arena, entrant),
                                             "meetings": views.head_to_head(arena, entrant),
                                             "webhook": arena.store.webhook(entrant.name),
                                             "message": unquote(
                                                 request.cookies.get(MESSAGE_COOKIE, "")),
                                             **views.my_unrated(arena, entrant)})
        response.delete_cookie(MESSAGE_COOKIE)
        return response

    def me_part(request: Request, entrant: Entrant) -> Response:
        return page(request, "versions-part.html",
                    {"versions": views.my_versions(arena, entrant)})

    def version(request: Request, entrant: Entrant) -> Response:
        found = views.version_page(arena, entrant, request.path_params["version"])
        return page(request, "version.html", found) if found else not_found(request)

    def pack(request: Request, entrant: Entrant) -> Response:
        version_id = request.path_params["version"]
        if views.own_version(arena, entrant, version_id) is None:
            return not_found(request)
        if not packs.allow(entrant.name) or not packing.acquire(blocking=False):
            return PlainTextResponse("a pack is being made, or you made many this hour: "
                                     "try again later", 429)
        try:
            data = views.version_pack(arena, entrant, version_id)
        finally:
            packing.release()
        if data is None:
            return not_found(request)
        return Response(data, media_type="application/zip", headers={
            "Content-Disposition": f'attachment; filename="{version_id}-pack.zip"',
            "Cache-Control": "no-store"})

    def my_replay(request: Request, entrant: Entrant) -> Response:
        found = views.own_replay(arena, entrant, request.path_params["game"])
        return replay_page(found) if found is not None else not_found(request)

    def my_log(request: Request, entrant: Entrant) -> Response:
        found = views.own_game_log(arena, entrant, request.path_params["game"])
        return PlainTextResponse(found) if found is not None else not_found(request)

    async def upload(request: Request, entrant: Entrant) -> Response:
        if _too_long(request, arena.config.limits.upload_bytes + FORM_OVERHEAD):
            return _back(f"the upload is over {arena.config.limits.upload_bytes} bytes")
        fields = await form(request)
        if fields is None:
            return Response("the form expired: reload the page", 403)
        archive = fields.get("archive")
        if not isinstance(archive, bytes):
            return _back("choose a .zip or .tar.gz of your bot's folder")
        try:
            accepted = await run_in_threadpool(arena.submit, entrant, archive)
        except UploadRefused as error:
            return _back(f"not stored: {error}")
        return _back(f"stored as {accepted.version.id}" if accepted.new else
                     f"the same code as {accepted.version.id}: nothing new stored")

    async def set_webhook(request: Request, entrant: Entrant) -> Response:
        """The entrant's webhook, checked now as it will be each time it is sent to (its
        host may resolve elsewhere by then); an empty URL removes it."""
        fields = await form(request)
        if fields is None:
            return Response("the form expired: reload the page", 403)
        url = str(fields.get("url", "")).strip()
        if url:
            try:
                await run_in_threadpool(target, url, arena.config.webhook_hosts,
                                        arena.webhooks.resolver)
            except WebhookRefused as error:
                return _back(f"webhook not set: {error}")
        await run_in_threadpool(arena.store.set_webhook, entrant.name, url,
                                str(request.base_url))
        return _back(f"webhook set: {url}" if url else "webhook removed")

    # -- test matches -----------------------------------------------------------------

    def my_test_matches(request: Request, entrant: Entrant) -> Response:
        return page(request, "test-matches-part.html", views.my_unrated(arena, entrant))

    async def ask_test_match(request: Request, entrant: Entrant) -> Response:
        fields = await form(request)
        if fields is None:
            return Response("the form expired: reload the page", 403)
        opponents = [name for name in re.split(r"[\s,]+", str(fields.get("opponents", "")))
                     if name]
        try:
            match = await run_in_threadpool(arena.request_unrated, entrant,
                                            str(fields.get("version", "")), opponents)
        except UnratedRefused as error:
            return _back(f"no test match: {error}")
        return _back(f"test match {match.tournament} queued")

    async def api_ask_test_match(request: Request) -> Response:
        entrant = await run_in_threadpool(bearer, request)
        if entrant is None:
            return JSONResponse({"error": "unknown token"}, 401)
        if _too_long(request, API_BODY_BYTES):
            return JSONResponse({"error": f"the body is over {API_BODY_BYTES} bytes"}, 413)
        asked = _test_match_asked(await request.body())
        if asked is None:
            return JSONResponse({"error": 'the body must be JSON: {"version": NAME, '
                                 '"opponents": [NAME, ...]}'}, 400)
        try:
            match = await run_in_threadpool(arena.request_unrated, entrant, *asked)
        except UnratedLimit as error:
            return JSONResponse({"error": str(error)}, 429)
        except UnratedRefused as error:
            return JSONResponse({"error": str(error)}, 400)
        return JSONResponse({"match": match.tournament, "state": match.state,
                             "page": str(request.url_for("me"))}, 201)

    async def api_test_matches(request: Request) -> Response:
        entrant = await run_in_threadpool(bearer, request)
        if entrant is None:
            return JSONResponse({"error": "unknown token"}, 401)
        found = await run_in_threadpool(views.my_unrated, arena, entrant)
        return JSONResponse([views.unrated_json(match) for match in found["test_matches"]])

    # -- invites ----------------------------------------------------------------------

    async def add_invite(request: Request, entrant: Entrant) -> Response:
        """A new invite's link, shown on this page once (its code kept only hashed)."""
        fields = await form(request)
        if fields is None:
            return Response("the form expired: reload the page", 403)
        try:
            per_day = _per_day(str(fields.get("per_day", "")))
        except ConfigError as error:
            return page(request, "organiser.html",
                        {**views.organiser_page(arena), "problem": str(error)}, 400)
        code = await run_in_threadpool(arena.store.add_invite, per_day,
                                       timedelta(hours=arena.config.invite_hours))
        return page(request, "organiser.html", {
            **views.organiser_page(arena), "invite": str(request.url_for("invite", code=code))},
            headers={"Cache-Control": "no-store"})

    async def open_invite(request: Request) -> Invite | Response:
        """The request's invite if it may still make an entrant, else a page saying why
        not in one line; attempts are limited per address as signing in is."""
        code = request.path_params["code"]
        address = _client(request)
        if not signins.allow(address):
            return page(request, "invite.html", {"problem": "too many attempts: try later"},
                        429)
        found = await run_in_threadpool(arena.store.invite, code)
        problem = "no such invite" if found is None else found.problem()
        if found is None or problem:
            return page(request, "invite.html", {"problem": problem},
                        404 if found is None else 410)
        return found

    async def invite(request: Request) -> Response:
        found = await open_invite(request)
        if isinstance(found, Response):
            return found
        return page(request, "invite.html", {"code": request.path_params["code"]})

    async def join(request: Request) -> Response:
        """The invitee's entrant, its token shown this once, and the invitee signed in."""
        fields = await form(request)
        if fields is None:
            return page(request, "invite.html", {"problem": "the form expired: try again"}, 403)
        found = await open_invite(request)
        if isinstance(found, Response):
            return found
        name = str(fields.get("name", "")).strip()
        try:
            token = await run_in_threadpool(arena.store.join, found, name)
        except ConfigError as error:
            return page(request, "invite.html", {"code": request.path_params["code"],
                                                 "problem": str(error)}, 400)
        response = page(request, "invite.html", {"joined": name, "token": token},
                        headers={"Cache-Control": "no-store"})
        await run_in_threadpool(sign_in, request, response, name)
        return response

    # -- the API --------------------------------------------------------------------

    async def api_submit(request: Request) -> Response:
        entrant = await run_in_threadpool(bearer, request)
        if entrant is None:
            return JSONResponse({"error": "unknown token"}, 401)
        if _too_long(request, arena.config.limits.upload_bytes):
            return JSONResponse({"error": f"the archive is over "
                                 f"{arena.config.limits.upload_bytes} bytes"}, 413)
        data = await request.body()
        try:
            accepted = await run_in_threadpool(arena.submit, entrant, data)
        except LimitReached as error:
            return JSONResponse({"error": str(error)}, 429)
        except UploadRefused as error:
            return JSONResponse({"error": str(error)}, 400)
        found = accepted.version
        return JSONResponse({"version": found.id, "new": accepted.new, "state": found.state,
                             "page": str(request.url_for("version", version=found.id))},
                            201 if accepted.new else 200)

    async def api_versions(request: Request) -> Response:
        entrant = await run_in_threadpool(bearer, request)
        if entrant is None:
            return JSONResponse({"error": "unknown token"}, 401)
        return JSONResponse([{"version": row["version"].id, "state": row["version"].state,
                              "reason": row["gate"].reason if row["gate"] else ""}
                             for row in views.my_versions(arena, entrant)])

    # -- the organiser's -----------------------------------------------------------

    def organiser_only(handler: OwnHandler) -> Handler:
        """A page of the organiser's; to an entrant, as if there were none."""
        async def checked(request: Request, entrant: Entrant) -> Response:
            if entrant.role != "organiser":
                return not_found(request)
            return await _call(handler, request, entrant)
        return own(checked)

    def organiser(request: Request, entrant: Entrant) -> Response:
        return page(request, "organiser.html", views.organiser_page(arena))

    def grades(request: Request, entrant: Entrant) -> Response:
        sheet = arena.ladder.grades_csv()
        if sheet is None:
            return not_found(request)
        name = f"{arena.config.ladder_prefix}grades.csv"
        return Response(sheet, media_type="text/csv",
                        headers={"Content-Disposition": f'attachment; filename="{name}"'})

    def likeness(request: Request, entrant: Entrant) -> Response:
        found = views.likeness_page(arena, request.path_params["version"],
                                    request.path_params["other"])
        return page(request, "likeness.html", found) if found else not_found(request)

    async def disqualify(request: Request, entrant: Entrant) -> Response:
        if await form(request) is None:
            return Response("the form expired: reload the page", 403)
        found = arena.store.version(request.path_params["version"])
        action = request.path_params["action"]
        if found is None or action not in ACTIONS:
            return not_found(request)
        arena.store.disqualify(found.id, ACTIONS[action])
        arena.events.publish("board")
        return RedirectResponse("/organiser", status_code=303)

    async def add_entrant(request: Request, entrant: Entrant) -> Response:
        """A new entrant's token, shown on this page once (kept only hashed)."""
        fields = await form(request)
        if fields is None:
            return Response("the form expired: reload the page", 403)
        name = str(fields.get("name", "")).strip()
        try:
            token = await run_in_threadpool(arena.store.add_entrant, name, "entrant",
                                            _per_day(str(fields.get("per_day", ""))))
        except ConfigError as error:
            return page(request, "organiser.html",
                        {**views.organiser_page(arena), "problem": str(error)}, 400)
        return page(request, "organiser.html", {**views.organiser_page(arena),
                                                "added": name, "token": token},
                    headers={"Cache-Control": "no-store"})

    async def ladder_action(request: Request, entrant: Entrant) -> Response:
        if await form(request) is None:
            return Response("the form expired: reload the page", 403)
        action = request.path_params["action"]
        if action not in LADDER_ACTIONS:
            return not_found(request)
        await run_in_threadpool(arena.ladder.pause, LADDER_ACTIONS[action])
        return RedirectResponse("/organiser", status_code=303)

    async def set_deadline(request: Request, entrant: Entrant) -> Response:
        """The deadline the organiser gives (ISO 8601 with its zone; empty: the config's)."""
        fields = await form(request)
        if fields is None:
            return Response("the form expired: reload the page", 403)
        try:
            when = deadline_of(str(fields.get("deadline", "")))
        except ConfigError as error:
            return page(request, "organiser.html",
                        {**views.organiser_page(arena), "problem": str(error)}, 400)
        await run_in_threadpool(arena.ladder.set_deadline, when)
        arena.events.publish("board")   # the board says the deadline
        return RedirectResponse("/organiser", status_code=303)

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        arena.start()
        try:
            yield
        finally:
            await run_in_threadpool(arena.stop)

    app = Starlette(routes=[
        Route("/", board, name="board"),
        Route("/board", board_part),
        Route("/bots/{version}", bot, name="bot"),
        Route("/games/{game:int}", replay, name="replay"),
        Route("/events", events),
        Route("/signin", signin_page),
        Route("/signin", signin, methods=["POST"]),
        Route("/signout", signout, methods=["POST"]),
        Route("/me", own(me), name="me"),
        Route("/me/versions", own(me_part)),
        Route("/me/versions/{version}", own(version), name="version"),
        Route("/me/versions/{version}/pack.zip", own(pack)),
        Route("/me/games/{game:int}", own(my_replay), name="my_replay"),
        Route("/me/games/{game:int}/log", own(my_log)),
        Route("/me/upload", own(upload), methods=["POST"]),
        Route("/me/webhook", own(set_webhook), methods=["POST"]),
        Route("/me/test-matches", own(my_test_matches)),
        Route("/me/test-matches", own(ask_test_match), methods=["POST"]),
        Route("/api/versions", api_submit, methods=["POST"]),
        Route("/api/versions", api_versions),
        Route("/api/test-matches", api_ask_test_match, methods=["POST"]),
        Route("/api/test-matches", api_test_matches),
        Route("/invite/{code}", invite, name="invite"),
        Route("/invite/{code}", join, methods=["POST"]),
        Route("/organiser", organiser_only(organiser), name="organiser"),
        Route("/organiser/versions/{version}/{action}", organiser_only(disqualify),
              methods=["POST"]),
        Route("/organiser/ladder/{action}", organiser_only(ladder_action), methods=["POST"]),
        Route("/organiser/deadline", organiser_only(set_deadline), methods=["POST"]),
        Route("/organiser/alike/{version}/{other}", organiser_only(likeness)),
        Route("/organiser/grades.csv", organiser_only(grades)),
        Route("/organiser/entrants", organiser_only(add_entrant), methods=["POST"]),
        Route("/organiser/invites", organiser_only(add_invite), methods=["POST"]),
        Mount("/static", StaticFiles(packages=[("pages", "static")]), name="static"),
        # The finals' public report, once published (docs/arena.md, "Deadline and finals").
        Mount("/report", ReportFiles(directory=arena.config.report_dir, html=True),
              name="report"),
    ], lifespan=lifespan)
    app.add_middleware(SecurityHeaders)
    return app


class ReportFiles(StaticFiles):
    """The finals' report folder, every file under :data:`REPORT_POLICY`."""

    async def get_response(self, path: str, scope: Scope) -> Response:
        response = await super().get_response(path, scope)
        response.headers["Content-Security-Policy"] = REPORT_POLICY
        return response


class SecurityHeaders:
    """:data:`HEADERS` on every response."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        async def with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = MutableHeaders(scope=message)
                for name, value in HEADERS.items():
                    headers.setdefault(name, value)
            await send(message)
        await self.app(scope, receive, with_headers)


def _cookie(request: Request, response: Response, name: str, value: str,
            max_age: int | None = None) -> None:
    response.set_cookie(name, value, max_age=max_age, httponly=True, samesite="strict",
                        secure=request.url.scheme == "https")


def _client(request: Request) -> str:
    """Who the per-address limits count the request's client as."""
    return client_of(request.client.host if request.client else "")


def _too_long(request: Request, limit: int) -> bool:
    """Whether the request says it is longer than ``limit`` (or says nothing: an upload
    must say its length, which the server holds it to)."""
    length = request.headers.get("content-length", "")
    return not length.isdigit() or int(length) > limit


async def _call(handler: OwnHandler, request: Request, entrant: Entrant) -> Response:
    """A handler's response: awaited if it is a coroutine, else run off the event loop
    (it reads the store)."""
    if inspect.iscoroutinefunction(handler):
        response: Response = await handler(request, entrant)
    else:
        response = await run_in_threadpool(handler, request, entrant)
    return response


def _per_day(field: str) -> int | None:
    """The versions a day an organiser's form gives an entrant (empty: the arena's)."""
    given = field.strip()
    if not given:
        return None
    if not (re.fullmatch("[0-9]{1,5}", given) and int(given) >= 1):
        raise ConfigError(f"versions a day must be a whole number from 1 to 99999, "
                          f"not {given[:20]!r}")
    return int(given)


def _test_match_asked(body: bytes) -> tuple[str, list[str]] | None:
    """The version and the opponents of an API request for a test match, if its body is
    ``{"version": NAME, "opponents": [NAME, ...]}``."""
    try:
        asked = json.loads(body)
    except ValueError:
        return None
    if not isinstance(asked, dict):
        return None
    version, opponents = asked.get("version"), asked.get("opponents")
    if not isinstance(version, str) or not isinstance(opponents, list) or \
            not all(isinstance(name, str) for name in opponents):
        return None
    return version, opponents


def _back(message: str) -> Response:
    """Back to the entrant's page, which says ``message`` once (kept in a cookie of the
    service's: no link can make the page say anything). A header is Latin-1: the message,
    whatever it quotes, is percent-encoded."""
    if len(message) > MESSAGE_CHARS:
        message = message[:MESSAGE_CHARS - 1] + "\u2026"
    response = RedirectResponse("/me", status_code=303)
    response.set_cookie(MESSAGE_COOKIE, quote(message), httponly=True, samesite="strict")
    return response
