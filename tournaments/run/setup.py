"""A run's set-up: the stored tournament it resumes (or refuses), its deal secret, its
record, and the identities and code of the bots it stores with every game."""

from __future__ import annotations

import secrets
from typing import Iterable

from tournaments.config import jsonable
from tournaments.run.errors import TournamentError
from tournaments.run.state import RunState
from tournaments.schedule import round_by_round, scheduled
from tournaments.season import describe_changes
from tournaments.worker import epoch_of


class SetUp(RunState):
    """Where a run starts from, and who its bots say they are."""

    def _stored_games(self) -> set[int]:
        """The games already stored (none with --fresh); a changed config is refused."""
        name = self.config.name
        existing = self.store.tournament(name)
        if existing is None or self.fresh:
            self.secret = self._new_secret()
            return set()
        field, other = describe_changes(existing.identity, jsonable(self.config.identity()))
        if other:
            raise TournamentError(
                f"tournament {name!r} already exists in {self.store.path} with a "
                f"different config (changed: {', '.join(field + other)}); "
                f"{', '.join(words.split()[0] for words in other)} cannot change during a "
                "tournament: use --fresh to start over or give it another name")
        if field:
            config = self.config_path or "BOTS_YAML"
            raise TournamentError(
                f"tournament {name!r} already exists in {self.store.path} with a "
                f"different field (changed: {', '.join(field)}): `circus-referee season "
                f"{config}` says what that does to its games, and with --apply does it "
                "(or use --fresh to start over)")
        self.secret = self.store.secret(name) or ""
        self.segments = self.store.segments(name) or self.segments
        # A Swiss round paired without a bot that did not start leaves its games out.
        self.total = existing.total_games
        if self.config.secret_deals and not self.secret:
            # Killed between creating the record and keeping its secret: no game was stored.
            self.secret = self._new_secret()
            self.store.set_secret(name, self.secret)
        # A finished tournament paired round by round ended where its rule stopped it (or
        # played all): nothing more to play. A fixed schedule plays whatever is missing.
        self.finished = existing.finished_at is not None and round_by_round(self.config)
        return self.store.done_indices(name)

    def _left(self, done: set[int]) -> tuple[set[str], int]:
        """The bots with games left to play, and the epoch of the first such game.

        Every bot, from epoch 0, when rounds are paired or may stop as they go (a
        resumed run's cluster workers then start their bots afresh at its first game).
        """
        if self.finished:
            return set(), 0
        if round_by_round(self.config):
            return {bot.name for bot in self.config.bots}, 0
        needed: set[str] = set()
        first: int | None = None
        for segment in self.segments:
            withdrawn = set(segment.excluded)
            for pairing in scheduled(self.config, self.secret, [segment]):   # one at a time:
                if pairing.index not in done and not withdrawn & set(pairing.seats):
                    needed.update(pairing.seats)            # a long schedule is not kept
                    if first is None:
                        first = epoch_of(self.config, pairing)
        return needed, first or 0

    def _record(self) -> str | None:
        """Create the tournament's record and keep its secret, once every bot is up.

        With --fresh the old run is first kept under a new name (returned), so
        that a new run whose bots fail to start loses nothing.
        """
        name = self.config.name
        existing = self.store.tournament(name)
        archived = self.store.archive_tournament(name) if existing and self.fresh else None
        if existing is None or archived is not None:
            self.store.create_tournament(name, *self.config.record(), self.total,
                                         str(self.log_dir), self.secret)
        return archived

    def _make_log_dir(self) -> None:
        """Make the logs folder before the first sandbox is made: a private folder that
        does not exist when a sandbox is made is not hidden in it."""
        try:
            self.log_dir.mkdir(parents=True, exist_ok=True)
        except OSError as error:
            raise TournamentError(f"cannot make the logs folder {self.log_dir}: "
                                  f"{error.strerror or error}") from None

    def _keep_identities(self) -> None:
        """Store each bot's name, version and protocol from its Hello, for the report."""
        self.store.set_identities(self.config.name, self.identities)

    def _new_secret(self) -> str:
        """A new deal secret (none without secret_deals): kept in the store, never sent
        to a bot, so nobody who knows only the config can compute a deal."""
        return secrets.token_hex(32) if self.config.secret_deals else ""

    def _code(self, seats: Iterable[str]) -> list[tuple[str, str | None]]:
        """What code plays at each seat: its fingerprint, and its name and version from
        Hello (None for a bot that has not answered one)."""
        hello = {bot: f"{name} {version}" for bot, (name, version, _) in self.identities.items()}
        return [(self.fingerprints[bot], hello.get(bot)) for bot in seats]

    def _warn_of_changed_code(self) -> None:
        """Say which bots run other code than in their stored games, or call themselves
        otherwise in Hello: a bot swapped under its name is not silently rated as one
        entrant."""
        hello = {bot: hello for bot, (_, hello) in zip(self.fingerprints,
                                                       self._code(self.fingerprints))}
        for bot, codes in self.store.codes(self.config.name).items():
            (digest, said), now = codes[-1], self.fingerprints.get(bot)
            if now is not None and now != digest:
                change = f"runs other code than in its stored games (code {now}, was {digest})"
            elif hello.get(bot) is not None and said is not None and hello[bot] != said:
                change = f"says it is {hello[bot]!r} in Hello, not {said!r} as in its stored games"
            else:
                continue
            print(f"warning: bot {bot!r} {change}; its games from now on are stored as such. "
                  f"To rate it as a new entrant: circus-referee season "
                  f"{self.config_path or 'BOTS_YAML'} --replace {bot}", file=self.out, flush=True)
