"""The continuous ladder: one match at a time, chosen, played, stored and rated.

The contract with the service (which owns entrants, versions and pages):

* ``Ladder(db_path, settings)``: ``settings`` is the arena YAML's ``ladder:`` mapping
  (:func:`arena.ladder_settings.ladder_settings` checks it; docs/arena-ladder.md lists
  the keys). The ladder shares the tournaments' SQLite store at ``db_path``.
* ``play_next(entries) -> LadderMatch | None``: ``entries`` are the versions active now
  (:class:`LadderEntry`: a version id, which is the bot's name in every stored game, its
  entrant, and its bots.yaml entry). It plays the next batch (one match, unless the
  ``parallel`` setting says more) and returns its last match, or returns None when
  nothing may be played (paused, frozen by the finals, past the deadline, at the
  games-per-hour cap, or too few versions); ``play_batch`` returns the whole batch.
  Call it again and again from one background thread; it blocks while it plays.
* ``standings()``, ``recent()``, ``verdict()``, ``promotions()``, ``grades_csv()``,
  ``similar()``, ``status()``, ``pause()``, ``resume()``, ``set_deadline()``;
  ``run_finals(entries)`` at the deadline (:mod:`arena.finals`), after which
  ``status().frozen`` is set.

What a match is: a small tournament of ``tournaments/`` (its config built in code, run
by the same runner as ``circus-referee tournament``, stored in the same tables), so
``replay``, ``export`` and ``packs`` work on its games; every deal is played in every
seat rotation. A batch's matches are all chosen from the results stored before it and
kept in one transaction before any is played. What comes next, in order: the matches a
kill left unfinished (resumed: the runner plays only their games not stored); else, for
each match of the batch, a new version's validation against copies of itself; while a
promotion test is open, every ``promotion_every``-th match is one (:mod:`arena.leagues`);
else a ladder match (:mod:`arena.matchmaking`), a version in its placement series first.
Everything random comes from the ladder's seed and the match's
number, and every choice from the stored results, so a store gives the same next match
whoever reads it. The matches are played by :mod:`arena.matches`, and the ratings are
folded from the store (:mod:`arena.ladder_ratings`).
"""

from __future__ import annotations

import random
import re
import shlex
import time
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any, Callable, Iterator, Sequence

from arena import leagues
from arena.finals import FinalStanding, final_standing, finals_data
from arena.ladder_ratings import LadderFold
from arena.ladder_settings import LadderSettings, ladder_settings, match_data
from arena.ladder_store import (
    LadderStore,
    MatchKind,
    MatchPlan,
    MatchStatus,
    StoredMatch,
    StoredVersion,
)
from arena.matchmaking import Candidate, pick_field
from arena.matches import LadderMatch, MatchPlayer, ladder_match
from arena.similarity import Agreements, PairAgreement
from circus_outcomes import GameStatus
from ratings.collusion import CollusionCheck, collusion
from ratings.sprt import DealGame
from ratings.verdict import Verdict
from tournaments.config import ConfigError
from tournaments.runner import TournamentError
from tournaments.store import Store, StoreError

HOUR_S = 3600.0
#: A version id: a bot name with room for the "-copyN" of its validation's copies.
VERSION_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,55}")
VERSION_RULE = "1-56 letters, digits, '.', '_' or '-', starting with a letter or digit"


@dataclass(frozen=True)
class LadderEntry:
    """An active version: its id (a bot name: letters, digits, '.', '_', '-'), its
    entrant, and its bots.yaml entry (the ``name`` in it is replaced by the id)."""

    version_id: str
    entrant: str
    bot: dict[str, Any]


@dataclass(frozen=True)
class Standing:
    version: str
    entrant: str | None      # None: a league's boss
    mu: float
    sigma: float
    games: int
    settled: bool
    league: str | None
    validation: str | None   # None: not validated yet; "passed"; "failed: why"

    @property
    def conservative(self) -> float:
        return self.mu - 3 * self.sigma


@dataclass(frozen=True)
class LadderStatus:
    paused: bool
    frozen: bool
    # The deadline (ISO 8601), if there is one, and whether it has passed.
    deadline: str | None
    past_deadline: bool
    games_last_hour: int
    # When the games-per-hour cap lets the next match start (unix time), if it holds it.
    capped_until: float | None
    matches: int


class Ladder:
    """The ladder over one store: plays its matches and reads its standings. Give each
    thread its own (the playing loop one, the pages another): each folds the store on
    its own, and the store is the truth they share."""

    def __init__(self, db_path: Path, settings: dict[str, Any] | LadderSettings,
                 clock: Callable[[], float] = time.time) -> None:
        self.settings = settings if isinstance(settings, LadderSettings) \
            else ladder_settings(settings)
        self.clock = clock
        self.store = Store(db_path)
        self.records = LadderStore(db_path, clock)
        self.logs = self.settings.logs_dir(db_path)
        self.player = MatchPlayer(self.store, self.records, self.logs)
        # What the store's matches have told so far, carried on as matches finish.
        self.ratings = LadderFold(self.settings)
        self.evidence = leagues.PromotionEvidence()
        self.agreements = Agreements()

    # -- playing -------------------------------------------------------------
    def close(self) -> None:
        self.player.close()
        self.store.close()
        self.records.close()

    def play_next(self, entries: Sequence[LadderEntry]) -> LadderMatch | None:
        """Play the next batch of matches (one, unless ``parallel`` says more) and return
        its last; None if none may start (see the module's docstring)."""
        played = self.play_batch(entries)
        return played[-1] if played else None

    def play_batch(self, entries: Sequence[LadderEntry]) -> list[LadderMatch]:
        """Play the matches a kill left unfinished, else the next ``parallel`` matches,
        all chosen from the results stored before any is played, and played at once."""
        self._check(entries)
        if self._held():
            return []
        with self._locked():
            matches = self.records.unfinished() or self._next(entries)
            return self.player.play(matches) if matches else []

    def _held(self) -> bool:
        """Whether no match may start now: paused, at the cap, past the deadline, or the
        finals begun. Asked before every batch, so the hour's matches are read only under
        a cap: a ladder that never stops finishes tens of thousands an hour."""
        now = self.clock()
        deadline = self.deadline()
        return self.records.flag("paused") is not None \
            or self.records.flag("frozen") is not None \
            or (deadline is not None and now >= deadline.timestamp()) \
            or (self.settings.games_per_hour is not None
                and self._pace(now)[1] is not None) \
            or self._finals() is not None

    def _next(self, entries: Sequence[LadderEntry]) -> list[StoredMatch]:
        """The next batch, kept in the store (in one transaction) before it is played."""
        versions = self.records.register([(entry.version_id, entry.entrant)
                                          for entry in entries])
        # A version's command is looked at until its validation: a refusal is one.
        refused = False
        for entry in entries:
            outside = path_outside(entry.bot) \
                if versions[entry.version_id].validation is None else None
            if outside is not None:
                self.records.refuse(entry.version_id, f"its command names {outside}, outside "
                                                      "its folder (the sandbox would show it)")
                refused = True
        if refused:
            versions = self.records.versions()
        self.ratings.update(self.store, self.records, versions)
        bots = {entry.version_id: entry.bot for entry in entries}
        first = self.records.next_number()
        batch: list[MatchPlan] = []
        for number in range(first, first + self.settings.parallel):
            plan = self._plan(number, bots, versions, batch)
            if plan is None:
                break
            batch.append(plan)
        return self.records.add_matches(batch)

    def _plan(self, number: int, bots: dict[str, dict[str, Any]],
              versions: dict[str, StoredVersion], batch: list[MatchPlan]) -> MatchPlan | None:
        """The match ``number``, after those of its ``batch`` chosen already; None if none
        can be. A version is validated, or tested for promotion, once a batch."""
        busy = {plan.field[0] for plan in batch if plan.kind is not MatchKind.LADDER}
        waiting = [name for name, known in versions.items()
                   if name in bots and known.validation is None and name not in busy]
        if waiting:
            return self._validation_match(number, waiting[0], bots[waiting[0]])
        # The validated versions, in the order they were first seen.
        active = [name for name, known in versions.items() if name in bots and known.validated]
        field = pick_field([Candidate(name, versions[name].entrant, *self.ratings.rating(name),
                                      self.ratings.matches[name]) for name in active],
                           self.settings.players, self._rng(number, "pairing"),
                           self.settings.rating, self.settings.placement_matches,
                           self.settings.settled_sigma, self.settings.unsettled_weight)
        test = leagues.open_test(self.promotions([name for name in active if name not in busy]))
        if test is not None and (field is None or number % self.settings.promotion_every == 0):
            return self._promotion_match(number, test, bots[test.version])
        if field is None:
            return None
        return self._planned(number, MatchKind.LADDER, field, None,
                             [{**bots[version], "name": version} for version in field])

    def _validation_match(self, number: int, version: str, bot: dict[str, Any]) -> MatchPlan:
        """The version in every seat (its copies named VERSION-copyN)."""
        copies = [version, *(f"{version}-copy{seat}"
                             for seat in range(2, self.settings.players + 1))]
        return self._planned(number, MatchKind.VALIDATION, copies, None,
                             [{**bot, "name": name} for name in copies])

    def _promotion_match(self, number: int, test: leagues.PromotionTest, bot: dict[str, Any]
                         ) -> MatchPlan:
        """The version against the boss. The k-th promotion match of every version in a
        league is dealt the same deals, so the versions are tested alike, and their play
        can be compared on those deals (:mod:`arena.similarity`)."""
        league = next(item for item in self.settings.leagues if item.name == test.league)
        earlier = self.records.promotion_matches(test.version, league.name)
        return self._planned(number, MatchKind.PROMOTION,
                             leagues.boss_field(league, test.version, self.settings.players),
                             league.name, [{**bot, "name": test.version},
                                           *leagues.boss_bots(league, self.settings.players)],
                             shared_deals=f"promotion/{league.name}/{earlier}")

    def _planned(self, number: int, kind: MatchKind, field: list[str], league: str | None,
                 bots: list[dict[str, Any]], shared_deals: str | None = None) -> MatchPlan:
        """A match's plan. Its deals come from the ladder's seed, the match's number and
        the store's secret (unless ``match:`` turns secret deals off), or, for deals
        several matches share, from the seed and ``shared_deals`` alone."""
        name = f"{self.settings.name}-m{number:06d}"
        draw = self._rng(number, "deals") if shared_deals is None else \
            random.Random(f"{self.settings.seed}/{shared_deals}")
        # A validation only looks for faults: one deal does.
        deals = 1 if kind is MatchKind.VALIDATION else self.settings.deals
        data = match_data(self.settings, name, bots, draw.getrandbits(62), deals)
        if shared_deals is not None:
            data["secret_deals"] = False
        return MatchPlan(number, name, kind, tuple(field), league, data)

    def _rng(self, number: int, purpose: str) -> random.Random:
        """The match's draw: from the ladder's seed, the match's number and its purpose
        (a string seed is hashed with SHA-512: the same on every machine)."""
        return random.Random(f"{self.settings.seed}/{number}/{purpose}")

    @contextmanager
    def _locked(self) -> Iterator[None]:
        """One ladder at a time on a store (a dead holder's lock is taken over)."""
        name = f"{self.settings.name}.ladder"
        try:
            self.store.lock(name)
        except StoreError as error:
            raise TournamentError(str(error)) from None
        try:
            yield
        finally:
            self.store.unlock(name)

    def _check(self, entries: Sequence[LadderEntry]) -> None:
        """Version ids that can name bots, none twice and none a boss's name."""
        seen = {league.boss_name for league in self.settings.leagues}
        for entry in entries:
            if not VERSION_ID.fullmatch(entry.version_id):
                raise ConfigError(f"version id {entry.version_id!r} is not allowed: use "
                                  f"{VERSION_RULE}")
            if entry.version_id in seen:
                raise ConfigError(f"version id {entry.version_id!r} is given twice or names "
                                  "a boss")
            seen.add(entry.version_id)

    # -- flags -----------------------------------------------------------------
    def pause(self) -> None:
        """Start no match until resumed: a flag in the store, so a restart stays paused."""
        self.records.set_flag("paused", "yes")

    def resume(self) -> None:
        self.records.set_flag("paused", None)

    def set_deadline(self, when: datetime | None) -> None:
        """Move the deadline (None: back to the settings'): a flag in the store, so every
        ladder on it, and a restarted service, keeps it."""
        self.records.set_flag("deadline", None if when is None else when.isoformat())

    def deadline(self) -> datetime | None:
        """The deadline the organiser set last, else the settings'."""
        kept = self.records.flag("deadline")
        return self.settings.deadline if kept is None else datetime.fromisoformat(kept)

    def status(self) -> LadderStatus:
        """What holds the ladder now, if anything, and its pace over the last hour."""
        now = self.clock()
        played, capped_until = self._pace(now)
        deadline = self.deadline()
        return LadderStatus(self.records.flag("paused") is not None,
                            self.records.flag("frozen") is not None,
                            None if deadline is None else deadline.isoformat(),
                            deadline is not None and now >= deadline.timestamp(), played,
                            capped_until, self.records.next_number() - 1)

    def _pace(self, now: float) -> tuple[int, float | None]:
        """The games finished in the hour before ``now``, and when the games-per-hour cap
        lets the next match start (unix time) if it holds it."""
        recent = self.records.finish_times(now - HOUR_S)
        played = sum(games for _, games in recent)
        cap = self.settings.games_per_hour
        if cap is None or played < cap:
            return played, None
        # The moment enough games leave the hour's window.
        left = played
        for finished, games in recent:
            left -= games
            if left < cap:
                return played, finished + HOUR_S
        return played, None

    # -- what the pages show ---------------------------------------------------
    def recent(self, count: int = 20) -> list[LadderMatch]:
        """The last ``count`` matches finished, latest first (their games are the
        tournaments' of the same names)."""
        return [ladder_match(match) for match in self.records.recent(count)]

    def standings(self) -> list[Standing]:
        """Every version seen and every boss that played, best conservative rating first."""
        versions = self.records.versions()
        self.ratings.update(self.store, self.records, versions)
        tests = self.promotions(list(versions))
        bosses = [league.boss_name for league in self.settings.leagues
                  if self.ratings.games(league.boss_name)]
        rows = []
        for name in [*versions, *bosses]:
            mu, sigma = self.ratings.rating(name)
            known = versions.get(name)
            rows.append(Standing(
                name, None if known is None else known.entrant, mu, sigma,
                self.ratings.games(name), sigma <= self.settings.settled_sigma,
                leagues.league_of(tests[name], self.settings)
                if self.settings.leagues and name in tests else None,
                None if known is None else known.validation))
        return sorted(rows, key=lambda row: (-row.conservative, row.version))

    def verdict(self, versions: Sequence[str], confidence: float = 0.95) -> Verdict:
        """The deal sets' verdict on the order of ``versions`` over the rated matches."""
        self.ratings.update(self.store, self.records, self.records.versions())
        return self.ratings.verdict(list(versions), confidence)

    def promotions(self, versions: Sequence[str] | None = None
                   ) -> dict[str, list[leagues.PromotionTest]]:
        """Each version's promotion tests (every version seen when none are named)."""
        names = list(self.records.versions()) if versions is None else versions
        self.evidence.update(self.store, self.records)
        return self.evidence.tests(self.settings, names)

    def grades_csv(self) -> str:
        """The promotion tests as a grade sheet (CSV): a row per version and league."""
        versions = self.records.versions()
        return leagues.grades_csv(self.promotions(list(versions)),
                                  {name: known.entrant for name, known in versions.items()})

    def similar(self) -> list[PairAgreement]:
        """The pairs flagged for playing alike (:mod:`arena.similarity`), most alike
        first."""
        return self._agreements().flagged(self.settings.similar_share,
                                          self.settings.similar_points)

    def _agreements(self) -> Agreements:
        """The agreements over the played matches but the validations (copies)."""
        agreements = self.agreements
        for match in self.records.finished(agreements.last):
            agreements.last = match.number
            if match.kind is not MatchKind.VALIDATION and match.status is MatchStatus.PLAYED:
                agreements.add_match(self.store.games(match.tournament),
                                     keep=match.kind is MatchKind.PROMOTION)
        return agreements

    def collusion(self) -> CollusionCheck:
        """The collusion check (:mod:`ratings.collusion`) over the played matches but the
        validations (copies of one version): each match's deal set is one table."""
        tables: dict[tuple[int, int], int] = {}
        games = []
        for match in self.records.matches():
            if match.kind is MatchKind.VALIDATION or match.status is not MatchStatus.PLAYED:
                continue
            for game in self.store.games(match.tournament):
                table = tables.setdefault((match.number, game.group_index), len(tables))
                games.append(DealGame(table, tuple(game.seats), tuple(game.ranks),
                                      game.status != GameStatus.VOID))
        return collusion(games)

    # -- the finals ------------------------------------------------------------
    def final_entries(self, entries: Sequence[LadderEntry]) -> list[LadderEntry]:
        """Each entrant's final version among ``entries``: the one the ladder saw last
        (the finals' field), in the order the ladder saw them; a version that failed its
        validation plays no finals."""
        known = self.records.versions()
        order = {name: version.registered for name, version in known.items()}
        failed = {name for name, version in known.items()
                  if version.validation is not None and not version.validated}
        entries = [entry for entry in entries if entry.version_id not in failed]

        def seen(entry: LadderEntry) -> int:
            return order.get(entry.version_id, 1 << 62)

        latest: dict[str, LadderEntry] = {}
        for entry in sorted(entries, key=seen):
            latest[entry.entrant] = entry
        return sorted(latest.values(), key=seen)

    def run_finals(self, entries: Sequence[LadderEntry]) -> FinalStanding:
        """Play (or resume) the finals among ``entries`` (each entrant's final version),
        then freeze the ladder; once frozen, the finals' standing again."""
        self._check(entries)
        with self._locked():
            match = self._finals() or self._add_finals(entries)
            if match.finished_at is None:
                played = self.player.settle(match, self.player.run(match, self.store))
                if played.status is MatchStatus.FAILED:
                    raise TournamentError(f"the finals could not be played: {played.note}")
            self.records.set_flag("frozen", match.tournament)
        return final_standing(self.store, match.tournament)

    def _finals(self) -> StoredMatch | None:
        """The finals begun or played (not those that could not start)."""
        return next((match for match in self.records.matches(kind=MatchKind.FINALS)
                     if match.status is not MatchStatus.FAILED), None)

    def _add_finals(self, entries: Sequence[LadderEntry]) -> StoredMatch:
        number = self.records.next_number()
        name = f"{self.settings.name}-finals-{number:06d}"
        bots = [{**entry.bot, "name": entry.version_id} for entry in entries]
        return self.records.add_matches([MatchPlan(
            number, name, MatchKind.FINALS, tuple(entry.version_id for entry in entries), None,
            finals_data(self.settings, name, bots))])[0]


def path_outside(bot: dict[str, Any]) -> Path | None:
    """A path a ``command:`` entry names (a word, or a word's part after ``=``) that exists
    outside its ``dir:``, if any. The sandbox shows a bot the files its command names, so
    an entrant's command must name only its own: not another entrant's code, nor the
    store."""
    command, folder = bot.get("command"), bot.get("dir")
    if not isinstance(command, str) or not isinstance(folder, str):
        return None
    own = Path(folder).resolve()
    try:
        words = shlex.split(command)
    except ValueError:
        return None   # the tournament config refuses it, naming the entry
    for word in words:
        for candidate in {word, word.partition("=")[2]} - {""}:
            path = (own / candidate).resolve()
            if path.exists() and path != own and own not in path.parents:
                return path
    return None
