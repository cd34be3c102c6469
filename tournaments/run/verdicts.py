"""Whether a run stops at a round's end: a stop rule's settled order (the deal sets'
verdict, ratings/verdict.py), an A/B test's SPRT."""

from __future__ import annotations

from dataclasses import asdict

from ratings.sprt import SprtResult
from ratings.verdict import stop_reason
from tournaments.config import TournamentConfig, ab_tables_per_deal
from tournaments.run.live import LiveStandings
from tournaments.run.state import RunState
from tournaments.schedule import Segment, segment_shape
from tournaments.standings import ab_test


class Verdicts(RunState):
    """The stop rules, asked after every block of rounds."""

    def _verdict(self, block: range, live: LiveStandings) -> str | None:
        """Why the tournament stops after ``block``, or None to go on (the bots left out
        of its rounds are not placed)."""
        if self.config.format == "ab":
            result = self._sprt()
            return None if result.verdict is None else result.line()
        rule = self.config.stop
        if rule is None:
            return None
        field = [bot.name for bot in self.config.bots]
        names = [bot for bot in field if bot not in self.absent]
        found = live.judge.verdict(names, rule.confidence, field)
        if stop_reason(found, live.games, rule.min_games_per_bot) is not None:
            return None
        left = self.total - games_through(self.config, self.segment, block)
        return (f"settled after round {block.stop}: {found.line()}; {left:,} of the "
                f"{self.total:,} scheduled games were not needed")

    def _sprt(self) -> SprtResult:
        """The A/B test over the deals played so far, decided at its first crossing."""
        config = self.config
        assert config.a is not None and config.b is not None and config.sprt is not None
        per_deal = config.players * ab_tables_per_deal(len(config.bots))
        return ab_test(config.a, config.b, per_deal, asdict(config.sprt), self.deal_games)

    def _live_sprt(self) -> str:
        return self._sprt().line()


def games_through(config: TournamentConfig, segment: Segment, block: range) -> int:
    """The games of every round up to the end of ``block`` (of ``segment``)."""
    return segment.first_index + (block.stop - segment.rounds.start) * segment_shape(
        config, segment)[1]
