"""The arena: a season as a web service over the tournament machinery.

Entrants submit bot folders, each version is stored by its code's fingerprint and gated
by check-bot in the sandbox, a ladder plays the versions that pass, and pages show the
board, each entrant's own versions and games, and the organiser's queue. The web service
(Starlette, Jinja2, uvicorn: the ``arena`` extra) is imported only by :mod:`arena.app`
and :mod:`arena.serve`, argon2 only by :mod:`arena.store`; the command line's client
(:mod:`arena.client`) needs none of them, so a bot author's install submits without the
extra. The ladder itself is :mod:`arena.ladder`, reached through :mod:`arena.playing`.
"""
