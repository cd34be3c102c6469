"""A run's rounds: pairing them (a Swiss round from the standings, kept once paired), the
games of each left to play, and folding every game, stored or just played, into the live
ratings and the A/B test."""

from __future__ import annotations

import itertools
from functools import partial
from typing import Callable, Iterator

from circus_outcomes import GameStatus
from ratings.sprt import DealGame
from ratings.trueskill_ratings import Outcome
from referee.match import MatchResult
from tournaments.run.errors import TournamentError
from tournaments.run.live import LiveStandings, Progress
from tournaments.run.state import RunState
from tournaments.schedule import (
    Pairing,
    arrange,
    pairs_of,
    segment_config,
    segment_groups,
    segment_shape,
    swiss_tables,
)
from tournaments.store import GameResult, SwissRound


class Rounds(RunState):
    """Which games each round plays, and what the played ones fold into."""

    def _pairings(self, block: range, live: LiveStandings, skipped: list[str],
                  progress: Progress) -> Callable[[], Iterator[list[Pairing]]] | None:
        """What gives the games of the rounds in ``block``, afresh at each call, a part at
        a time (:func:`arrange`); a Swiss round is paired once (:meth:`_swiss_round`).
        None: a finished Swiss tournament has no round after its last."""
        segment = self.segment
        if self.config.format != "swiss":
            self.absent = skipped
            return partial(arrange, self.config, self.secret, block,
                           partial(segment_groups, self.config, segment), segment)
        pairing = self._swiss_round(block.start, live, skipped, progress)
        if pairing is None:
            return None
        self.absent = pairing.absent
        for name in pairing.byes:
            self.byes[name] = self.byes.get(name, 0) + 1
        self.met.update(pairs_of(pairing.tables))
        tables = pairing.tables
        return partial(arrange, self.config, self.secret, block,
                       lambda _: [[table] for table in tables], segment)

    def _swiss_round(self, number: int, live: LiveStandings, skipped: list[str],
                     progress: Progress) -> SwissRound | None:
        """A Swiss round's pairing: the one kept in the store if the round was paired
        before (a resumed round plays the tables it began with, whatever the standings
        say now), else one made from the standings after every earlier round (all folded
        into ``live``) without the bots that did not start, kept before its first game.

        Its tables' games are all the round has: the games a bot left out would have
        played are taken off the total, and its table-mates' games stand.
        """
        kept = self.store.swiss_round(self.config.name, number) or self._round_from_games(number)
        if kept is not None or self.finished:
            return kept
        assert not live.order, "a Swiss round waits for the rounds before"
        tables, byes = swiss_tables(segment_config(self.config, self.segment), self.secret,
                                    live.conservative(), self._byes_so_far(), self.met, number,
                                    skipped)
        pairing = SwissRound(tables, byes, list(skipped))
        vacant = segment_shape(self.config, self.segment)[1] - len(tables) * self.config.players
        self.store.keep_round(self.config.name, number, pairing, vacant)
        self.total -= vacant
        progress.total = self.total
        return pairing

    def _byes_so_far(self) -> dict[str, int]:
        """Each bot's byes, the rounds a late entrant missed before it entered counted
        as its byes: it is not the first to sit out for having entered late."""
        entered: dict[str, int] = {}
        for segment in self.segments:
            for bot in segment.bots:
                entered.setdefault(bot, segment.rounds.start)
        return {bot: self.byes.get(bot, 0) + entered.get(bot, 0) for bot in entered}

    def _round_from_games(self, number: int) -> SwissRound | None:
        """A round an older referee paired without keeping its pairing, rebuilt from its
        stored games (and kept from now on): each table from any one of its games, the
        seats turned back by the game's rotation; the byes, the bots at none. None if the
        round has no game stored (it is paired afresh); refused if some table has none:
        its bots cannot be known."""
        config, name, segment = self.config, self.config.name, self.segment
        per_round, games = segment_shape(config, segment)
        start = segment.first_index + (number - segment.rounds.start) * games
        tables: dict[int, tuple[str, ...]] = {}
        for game in self.store.results(name, range(start, start + games)):
            offset = game.game_index - start
            position, turn = ((offset % per_round, offset // per_round) if config.duplicate
                              else divmod(offset, config.players))
            tables[position] = tuple(game.seats[-turn:] + game.seats[:-turn])
        if not tables:
            return None
        if len(tables) < per_round:
            raise TournamentError(
                f"Swiss round {number + 1} of {name!r} was begun by an older circus-referee "
                f"that did not keep its pairing, and {per_round - len(tables)} of its tables "
                "have no game stored: finish it with that version, or start over with --fresh")
        seated = {bot for table in tables.values() for bot in table}
        pairing = SwissRound([tables[position] for position in range(per_round)],
                             [bot.name for bot in config.bots if bot.name not in seated], [])
        self.store.keep_round(name, number, pairing, 0)
        return pairing

    def _unplayed(self, part: list[Pairing], done: set[int], skipped: list[str]
                  ) -> list[Pairing]:
        """The games of a part left to play."""
        if self.finished:
            return []
        left_out = {*skipped, *self.segment.excluded}
        return [p for p in part if p.index not in done and not left_out & set(p.seats)]

    def _todo(self, parts: Iterator[list[Pairing]], live: LiveStandings, done: set[int],
              skipped: list[str]) -> Iterator[list[Pairing]]:
        """The games left to play, a part at a time in play order. As each part is
        reached, the live ratings expect its games and fold in those already stored
        (read from the store part by part: a resumed long tournament does not hold
        every stored game)."""
        for part in parts:
            todo = self._unplayed(part, done, skipped)
            live.expect([p.index for p in part if p.index in done] + [p.index for p in todo])
            if any(pairing.index in done for pairing in part):
                stored = {game.game_index: game for game in self.store.results(
                    self.config.name, range(part[0].index, part[-1].index + 1))}
                for pairing in part:
                    if pairing.index in stored:
                        game = stored[pairing.index]
                        self._fold(pairing, game, game.id, live)
            if todo:
                yield todo

    def _epoch_bots(self, parts: Iterator[list[Pairing]], done: set[int],
                    skipped: list[str]) -> Iterator[set[str]]:
        """The bots playing in each epoch with games left, in play order."""
        todo = (games for games in (self._unplayed(part, done, skipped) for part in parts)
                if games)
        for _, epoch in itertools.groupby(todo, key=lambda games: games[0].rotation):
            yield {name for games in epoch for pairing in games for name in pairing.seats}

    def _fold(self, pairing: Pairing, game: GameResult | MatchResult, game_id: int,
              live: LiveStandings) -> None:
        """A game (stored, or just played; ``game_id``: its id in the store) into the
        live ratings and the A/B test, with the seats it was played in: what the
        leaderboard folds later, whatever this run would pair."""
        rated, seats = game.status != GameStatus.VOID, tuple(game.seats)
        live.add(Outcome(pairing.index, seats, tuple(game.ranks), rated, tuple(game.scores),
                         game_id, pairing.group, pairing.round))
        if self.config.format == "ab":
            self.deal_games.append(DealGame(pairing.group, seats, tuple(game.ranks), rated))
