"""The search bots: legal, deterministic per request, passing check-bot, and better than chance."""

from __future__ import annotations

import json
import random
from typing import Callable

import pytest
from click.testing import CliRunner

from bots.ismcts import IsmctsBot
from bots.pimc import PimcBot
from bots.search import (
    Budget,
    Memory,
    Node,
    SearchBot,
    _iterate,
    evaluation_named,
    ismcts,
    options,
    playout,
    points,
    policy_named,
    rank_shares,
    soft_rank_shares,
)
from circus.v1 import bot_pb2
from circus_referee.main import main
from referee import wire
from referee.games import get_game
from referee.games.base import Action
from referee.games.determinize import sampler_for

GAMES = [("flea-circus", "standard"), ("flohcati", "en"), ("flohcati", "es"),
         ("animal-circus", "standard")]


def play(game, variant, players, seated, seed):
    """One game: seat 0 is ``seated`` (a bot, asked over wire requests), the others random."""
    state = get_game(game).new_state(players, variant, seed)
    rng, next_event = random.Random(seed), [0] * players
    while not state.is_terminal():
        seat, actions = state.current_seat(), state.legal_actions()
        if seat == 0:
            request = wire.decision_request(state, f"game-{seed}", len(state.history),
                                            next_event[0], bot_pb2.Clock(move_ms=1000))
            next_event[0] = len(state.events)
            index = seated.decide(request)
            assert 0 <= index < len(actions)
            assert seated.decide(request) == index  # the same request, the same answer
        else:
            index = rng.randrange(len(actions))
        state.apply(index, actions)
    return state


@pytest.mark.parametrize("game, variant", GAMES)
@pytest.mark.parametrize("bot", [IsmctsBot, PimcBot])
def test_search_bots_play_whole_games_legally_and_repeatably(game, variant, bot):
    state = play(game, variant, 3, bot(iterations=10, ms=0), seed=3)
    assert state.is_terminal()


@pytest.mark.parametrize("variant", ["en", "es"])
def test_flohcati_search_with_the_heuristics_playouts_and_valuation_is_legal_and_repeatable(
        variant):
    bot = IsmctsBot(iterations=10, ms=0, policy="heuristic", depth=6, spread=4, bias=2,
                    value="heuristic")
    assert play("flohcati", variant, 3, bot, seed=4).is_terminal()


@pytest.mark.parametrize("game, variant", GAMES)
def test_heuristic_playouts_play_legal_games_and_beat_random_ones(game, variant):
    """The engine-level playout policies end games and, where a game has one, win more."""
    heuristic = policy_named("heuristic", game)
    shares = []
    for seed in range(30 if heuristic is not policy_named("random", game) else 2):
        state = get_game(game).new_state(2, variant, seed)
        rng = random.Random(seed)
        while not state.is_terminal():
            actions = state.legal_actions()
            policy = heuristic if state.current_seat() == seed % 2 else policy_named("random", game)
            index = policy(state, actions, rng)
            assert 0 <= index < len(actions)
            state.apply(index, actions)
        shares.append(rank_shares(state.scores())[seed % 2])
    if heuristic is not policy_named("random", game):
        assert sum(shares) / len(shares) > 0.7


def test_rank_shares_count_beaten_seats_and_split_ties():
    assert rank_shares([5, 3, 3, 1]) == [1.0, 0.5, 0.5, 0.0]


def test_soft_rank_shares_keep_the_order_and_the_total_and_sharpen_to_ranks():
    scores = [5, 3, 3, 1]
    soft = soft_rank_shares(scores, 3.0)
    assert soft[0] > soft[1] == soft[2] > soft[3]
    assert sum(soft) == pytest.approx(sum(rank_shares(scores)))  # each pair shares one win
    assert 0.5 < soft[0] < 1.0  # two points ahead is likely, not sure, to hold
    assert soft_rank_shares(scores, 0.0) == rank_shares(scores)
    assert soft_rank_shares(scores, 0.01) == pytest.approx(rank_shares(scores))


def test_a_cut_playout_scores_soft_ranks_and_an_ended_game_exact_ones():
    state = get_game("flea-circus").new_state(2, None, 5)
    cut = playout(state, random.Random(0), policy_named("random", "flea-circus"), 1, 3.0)
    assert cut == soft_rank_shares(state.scores(), 3.0)
    ended = playout(state, random.Random(0), policy_named("random", "flea-circus"), 0, 3.0)
    assert state.is_terminal() and ended == rank_shares(state.scores())


def test_a_cut_playout_is_scored_by_the_evaluation_asked_for():
    """``heuristic``: the game's own valuation where it has one (Flohcati), else the points."""
    from bots.flohcati_heuristic import engine_values

    assert evaluation_named("heuristic", "flohcati") is engine_values
    assert evaluation_named("points", "flohcati") is points
    assert evaluation_named("heuristic", "animal-circus") is points
    state = get_game("flohcati").new_state(3, "en", 2)
    policy = policy_named("heuristic", "flohcati")
    while not any(len(hand) > 2 for hand in state.hands):  # some hands worth valuing
        state.apply(policy(state, state.legal_actions(), random.Random(0)))
    values = engine_values(state)
    assert values != state.scores()
    cut = playout(state, random.Random(0), policy, 1, 4.0, engine_values)
    assert cut == soft_rank_shares(engine_values(state), 4.0) \
        != soft_rank_shares(state.scores(), 4.0)


def steal_position() -> tuple[list[str], Callable]:
    """Two players, Earth nearly empty: stealing 4 from the rival with the saucer F wins,
    the Earth's 1 does not. The legal moves' codes, and seat 0's sampler."""
    state = get_game("flea-circus").new_state(2, None, 11)
    state.hands[0] = ["F", "numbers", "numbers", "A", "B"]
    state.piles[1] = ["F"]
    state.loot, state.earth = [10, 12], 1
    codes = [action.code for action in state.legal_actions()]
    return codes, sampler_for("flea-circus", state.observation(0), [])


def test_the_hinted_move_is_expanded_first_and_a_strong_bias_keeps_it_chosen():
    """Progressive bias: the heuristic's move wins the visits while the prior outweighs UCB."""
    codes, sampler = steal_position()
    hint = codes.index("play:A")  # a poor move: the saucer F steals 4
    _, info = ismcts(sampler, codes, Budget(iterations=1), random.Random(0), hint=hint)
    assert info["visits"][hint] == 1
    index, info = ismcts(sampler, codes, Budget(iterations=60), random.Random(0),
                         hint=hint, bias=1000.0)
    assert index == hint, info
    index, info = ismcts(sampler, codes, Budget(iterations=300), random.Random(0),
                         hint=hint, bias=1.0)
    assert codes[index] == "play:F", info  # a fading prior: the search overrules it


def test_a_sweeping_root_plays_every_move_on_the_same_deals_and_picks_the_best_mean():
    codes, sampler = steal_position()
    index, info = ismcts(sampler, codes, Budget(iterations=100), random.Random(0), sweep=True)
    assert info["visits"] == [20] * len(codes)  # a sweep is one iteration per root move
    assert codes[index] == "play:F" and info["means"][index] == max(info["means"]), info


def test_progressive_widening_opens_a_node_s_moves_as_its_visits_grow_the_policy_s_first():
    codes, sampler = steal_position()
    greedy = policy_named("heuristic", "flea-circus")
    _, wide = ismcts(sampler, codes, Budget(iterations=16), random.Random(0), greedy)
    _, narrow = ismcts(sampler, codes, Budget(iterations=16), random.Random(0), greedy,
                       widen=0.5)
    assert all(visits > 0 for visits in wide["visits"])  # every move tried at once
    # 16 visits allow 1 + 0.5 * sqrt(n) children: the third opens at the sixth visit.
    assert sum(visits > 0 for visits in narrow["visits"]) == 3, narrow
    assert codes[narrow["visits"].index(max(narrow["visits"]))] == "play:F", narrow


class HandGame:
    """A toy game for the tree: seat 0 passes, then seat 1 wins by naming its own hidden card."""

    def __init__(self, hand: str) -> None:
        self.hand, self.step, self.end_reason, self.named = hand, 0, "", ""

    def legal_actions(self) -> list[Action]:
        return [Action("go", "go")] if self.step == 0 else [Action("a", "a"), Action("b", "b")]

    def current_seat(self) -> int:
        return self.step

    def apply(self, index: int, actions: list[Action] | None = None) -> None:
        if self.step == 1:
            self.named, self.end_reason = self.legal_actions()[index].code, "named"
        self.step += 1

    def scores(self) -> list[int]:
        return [0, 1] if self.named == self.hand else [1, 0]


def names_its_hand(state, actions, rng) -> int:
    return [action.code for action in actions].index(state.hand) if state.step == 1 else 0


@pytest.mark.parametrize("guide, always_right", [(100.0, True), (0.0, False)])
def test_a_guided_tree_plays_the_policy_on_each_deal_s_own_hand(guide, always_right):
    """Nodes are shared by every deal: unguided, seat 1 names one card for both hands it may hold."""
    root, rng = Node(0), random.Random(0)
    for _ in range(200):
        _iterate(root, [root], HandGame(rng.choice("ab")), rng, names_its_hand, 0, 0.0, 0.7,
                 None, 0.0, guide=guide)
    named = root.children["go"].children  # seat 1's moves, their statistics seat 1's
    visits, wins = sum(n.visits for n in named.values()), sum(n.total for n in named.values())
    assert visits == 199  # the first iteration expanded "go" and played out from there
    assert (wins == visits) is always_right, (wins, visits)


def test_the_search_options_reach_the_bot():
    known, rest = options("x").parse_known_args(
        ["--iterations", "7", "--ms", "0", "--policy", "heuristic", "--depth", "3",
         "--spread", "2.5", "--bias", "1", "--sweep", "--value", "heuristic", "--widen", "0.5",
         "--guide", "2", "--address", "a"])
    bot = SearchBot.from_options(known)
    assert (bot.budget, bot.policy, bot.depth, bot.spread, bot.bias, bot.sweep, bot.value,
            bot.widen, bot.guide) == \
        (Budget(7, 0.0), "heuristic", 3, 2.5, 1.0, True, "heuristic", 0.5, 2.0)
    default = SearchBot.from_options(options("x").parse_known_args([])[0])
    assert default.sweep is False and default.value == "points" and default.widen == 0 \
        and default.guide == 0
    assert rest == ["--address", "a"]


def test_the_memory_forgets_a_finished_game():
    memory = Memory()
    state = get_game("flea-circus").new_state(2, None, 1)
    request = wire.decision_request(state, "g", 1, 0, bot_pb2.Clock())
    assert memory.events(request) and memory.events(request) == memory.events(request)
    memory.forget("g")
    assert memory._games == {}


def test_ismcts_takes_the_loot_a_saucer_can_steal():
    """The loot a saucer can steal wins the game; the Earth's last one does not."""
    codes, sampler = steal_position()
    index, info = ismcts(sampler, codes, Budget(iterations=300), random.Random(0))
    assert codes[index] == "play:F", info


@pytest.mark.slow
@pytest.mark.parametrize("command", [
    "python -m bots.ismcts --iterations 1 --ms 0 --address {address}",
    "python -m bots.pimc --iterations 1 --ms 0 --address {address}",
])
def test_search_bots_pass_check_bot(command):
    """Each seat once (check-bot's full rotation of every seat of every count has its own
    test, tests/test_check_bot.py). One iteration a decision: check-bot judges the bot's
    replies and its process, not its search (the tests above)."""
    result = CliRunner().invoke(main, ["check-bot", "--command", command, "--rotation", "once"])
    assert result.exit_code == 0, result.output
    assert "FAIL" not in result.output and "PASS  timing:" in result.output


def test_the_search_bench_reports_every_figure(capsys):
    from bench.search import main as bench
    bench(["--iterations", "20", "--samples", "20", "--repeats", "1", "--depths", "3"])
    out = capsys.readouterr().out
    assert "depth 3:" in out and "wall clock" in out and "of CPU time" in out
    for game in ("flea-circus standard 2p", "flohcati es 4p", "animal-circus standard 4p"):
        assert game in out


@pytest.mark.parametrize("ladder", ["flea-circus", "flohcati", "flohcati-es", "animal-circus"])
def test_the_ladder_bench_plays_each_ladder_as_written_but_without_time_caps(ladder):
    import yaml

    from bench.ladder import FOLDER, ladder_config, uncapped
    from tournaments.config import parse_config

    written = yaml.safe_load((FOLDER / f"baselines-{ladder}.yaml").read_text())
    data = ladder_config(ladder, rounds=2, concurrency=2)
    # The reference bots' skill is static, so the ladder rates it so (tau 0) and its LOS
    # can settle; with TrueSkill's default tau no number of games would.
    assert parse_config(data, folder=FOLDER).rating.tau == 0
    assert data["rounds"] == 2 and data["renew_bots"] is False
    assert [bot["command"] for bot in data["bots"]] == \
        [uncapped(bot["command"]) for bot in written["bots"]]
    for bot in data["bots"]:
        if bot["name"] in ("pimc", "ismcts"):
            assert "--ms 0 " in bot["command"] and "--ms 0 " not in \
                next(b["command"] for b in written["bots"] if b["name"] == bot["name"])


def test_the_ladder_bench_seats_another_table_size_under_its_own_name():
    from bench.ladder import ladder_config

    written = ladder_config("flea-circus", rounds=None, concurrency=1)
    data = ladder_config("flea-circus", rounds=None, concurrency=1, players=4)
    # A store may hold the ladder at both sizes; their ratings must not mix.
    assert data["players"] == 4 and data["name"] == f"{written['name']}-4p"


def test_uncapped_sets_only_the_time_cap_to_none():
    from bench.ladder import uncapped

    assert uncapped("python -m bots.ismcts --iterations 5 --ms 400 --address {address}") == \
        "python -m bots.ismcts --iterations 5 --ms 0 --address {address}"
    assert uncapped("python -m bots.random_bot --address {address}") == \
        "python -m bots.random_bot --address {address}"


def test_the_duel_bench_plays_every_rotation_of_each_deal_and_replays_exactly(tmp_path, capsys):
    from bench.duel import main as duel

    for name in ("a", "b"):   # Flea Circus: the shortest game's deals replay as any game's
        duel(["--game", "flea-circus", "--variant", "standard", "--lineup",
              "search,heuristic,random", "--deals", "2", "--out", str(tmp_path / name), "--",
              "--iterations", "3", "--policy", "heuristic", "--value", "heuristic"])
    rows = (tmp_path / "a").read_text().splitlines()
    assert len(rows) == 6 and rows == (tmp_path / "b").read_text().splitlines()
    out = capsys.readouterr().out
    assert "6 games, 2 deals" in out and "search    rank share" in out
    # Each deal in every rotation; the next deal with the other order (who moves after whom).
    seatings = [json.loads(row)["lineup"] for row in rows]
    after_search = [seating[(seating.index("search") + 1) % 3] for seating in seatings]
    assert after_search == ["heuristic"] * 3 + ["random"] * 3


def test_the_duel_bench_pits_a_search_variant_against_the_ladders_pimc(tmp_path, capsys):
    from bench.duel import ladder_pimc
    from bench.duel import main as duel

    assert ladder_pimc("flea-circus", "standard") == ["--iterations", "400", "--ms", "0",
                                                      "--policy", "heuristic"]
    assert ladder_pimc("flohcati", "es")[:2] == ["--iterations", "150"]
    duel(["--game", "flea-circus", "--variant", "standard", "--lineup", "search,pimc",
          "--rival", "pimc", "--deals", "2", "--out", str(tmp_path / "rows"), "--",
          "--iterations", "20"])
    rows = [json.loads(row) for row in (tmp_path / "rows").read_text().splitlines()]
    assert sorted(tuple(row["lineup"]) for row in rows) == [("pimc", "search")] * 2 + \
        [("search", "pimc")] * 2
    assert "search - pimc per deal" in capsys.readouterr().out
    with pytest.raises(SystemExit):
        duel(["--lineup", "search,gnubg", "--out", str(tmp_path / "none")])
    assert "no bot named gnubg" in capsys.readouterr().err
