"""Search for bots: the seat's view from its requests, determinizers, PIMC and IS-MCTS.

A search bot plays games forward on the pure rules engines (``referee.games``,
the one part of the referee bots may import). It never reads what the referee
did not send: :class:`Memory` keeps, per game, the events of every request
the seat received, and :func:`view_of` turns a request into the engine-level
view a determinizer takes (the observation dict as the engine made it, and
those events). The wire drops nothing a determinizer needs: the observation
message holds every field of the engine's dict, and the events carry their
data (numbers come back as floats from ``Struct``; they are made ints again).

The searches (Long et al. 2010; Cowling, Powley and Whitehouse 2012):

- :func:`pimc`: for each legal action, the mean outcome over sampled states
  of a playout after it, every action scored on the same samples;
- :func:`ismcts`: single-observer IS-MCTS, one tree over the seat's
  information sets keyed by action codes, a fresh determinization each
  iteration, UCB over the children available in it.

Outcomes are each seat's rank share (1 for first, 0 for last, ties split),
so multi-player tables need no special case. Playouts may stop after a number
of decisions (``depth``) and score the position reached the same way, which
is what makes thousands of iterations a second possible in Python.
"""

from __future__ import annotations

import argparse
import math
import random
import threading
import time
from dataclasses import dataclass
from typing import Any, Callable, Sequence

from google.protobuf import json_format

from bots import flohcati_heuristic
from bots.animal_circus_heuristic import AnimalCircusHeuristicBot
from bots.flea_greedy import FleaGreedyBot
from bots.flohcati_heuristic import FlohcatiHeuristicBot
from bots.sdk import Bot, rng_for, serve
from referee.games.base import Action, Event, State
from referee.games.determinize import Sampler, determinize, sampler_for
from referee.games.flea_circus import PLAYS, SAUCER_VALUES

__all__ = ["Budget", "Evaluation", "Memory", "Policy", "determinize", "evaluation_named",
           "ismcts", "pimc", "policy_named", "sampler_for", "view_of"]

Policy = Callable[[State, list[Action], random.Random], int]
#: What each seat's position is worth when a playout is cut: the scores, or more.
Evaluation = Callable[[State], Sequence[float]]


# -- the seat's view, from its requests -----------------------------------------------------
def _ints(value: Any) -> Any:
    """``Struct`` numbers are floats: whole ones become ints again, in nested data too."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, dict):
        return {key: _ints(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_ints(item) for item in value]
    return value


def game_of(request: Any) -> str:
    """The game a request is for, from its observation's ``oneof``."""
    return request.observation.WhichOneof("game").replace("_", "-")


def observation_dict(request: Any) -> dict[str, Any]:
    """The observation as the engine's dict shape (every field, defaults included)."""
    message = getattr(request.observation, request.observation.WhichOneof("game"))
    return json_format.MessageToDict(message, preserving_proto_field_name=True,
                                     always_print_fields_with_no_presence=True)


def event_of(message: Any) -> Event:
    data = _ints(json_format.MessageToDict(message.data)) if message.HasField("data") else {}
    return Event(message.kind, message.text, message.seat, data)


class Memory:
    """The events each game's requests brought, so far; one per bot, thread-safe.

    A request carries only the events since the seat's previous request; the
    determinizers want them all from the start. Sequence numbers skip any
    event seen before (a request asked again).
    """

    def __init__(self) -> None:
        self._games: dict[str, tuple[list[Event], list[int]]] = {}
        self._lock = threading.Lock()

    def events(self, request: Any) -> list[Event]:
        """Every event of the request's game so far, this request's included."""
        with self._lock:
            key = f"{request.game_id}/{request.seat}"  # an in-process bot may hold two seats
            events, last = self._games.setdefault(key, ([], [-1]))
            for message in request.events:
                if message.sequence > last[0]:
                    events.append(event_of(message))
                    last[0] = message.sequence
            return list(events)

    def forget(self, game_id: str) -> None:
        with self._lock:
            for key in [key for key in self._games if key.rsplit("/", 1)[0] == game_id]:
                del self._games[key]


def view_of(request: Any, memory: Memory) -> tuple[str, dict[str, Any], list[Event]]:
    """The game, the observation dict and all events seen: a determinizer's input."""
    return game_of(request), observation_dict(request), memory.events(request)


# -- budgets, outcomes, playouts -------------------------------------------------------------
@dataclass(frozen=True)
class Budget:
    """How long a search may run: ``iterations`` and/or ``ms`` (0: no limit), whichever ends first.

    Only an iteration budget is deterministic: a time budget depends on the machine.
    """

    iterations: int = 0
    ms: float = 0.0

    def __post_init__(self) -> None:
        if self.iterations <= 0 and self.ms <= 0:
            raise ValueError("a budget needs iterations or ms")

    def clock(self) -> Callable[[int], bool]:
        """A test ``done(iterations so far)``; the clock is read every 8 iterations."""
        deadline = time.perf_counter() + self.ms / 1000 if self.ms > 0 else math.inf
        limit = self.iterations if self.iterations > 0 else math.inf

        def done(count: int) -> bool:
            return count >= limit or (count % 8 == 0 and time.perf_counter() >= deadline)
        return done


def rank_shares(scores: Sequence[float]) -> list[float]:
    """Each seat's share of the seats it beats, ties counting half: 1 first, 0 last."""
    others = len(scores) - 1
    return [(sum(own > other for other in scores)
             + 0.5 * (sum(own == other for other in scores) - 1)) / others for own in scores]


def random_policy(state: State, actions: list[Action], rng: random.Random) -> int:
    """A uniformly random action; ``random()`` scaled, as ``randrange`` costs three times more."""
    return int(rng.random() * len(actions))


def flea_greedy_policy(state: Any, actions: list[Action], rng: random.Random) -> int:
    """Amazing Flea Circus: the play taking the most loot now (stealing first), else random.

    A cheap engine-level cousin of ``bots.flea_greedy`` for playouts: it reads
    the determinized state, which in a playout is the world being imagined.
    """
    if state.choosing_target:
        return max(range(len(actions)), key=lambda i: state.loot[actions[i].payload["target"]])
    best, best_value = int(rng.random() * len(actions)), -1.0
    for index, action in enumerate(actions):
        card, count = PLAYS[action.code]
        value = 0.0
        if card in SAUCER_VALUES:
            value = _saucer_gain(state, card)
        elif card == "numbers":
            value = min(count, state.earth) - 0.5
        elif card == "recruitment":
            value = sum(1 for pile in state.piles if pile and pile[-1] == "recruitment") + 1
        elif card == "counterattack":
            value = 1.5 * min(2, max(state.loot))
        if value > best_value:
            best, best_value = index, value
    return best


def _saucer_gain(state: Any, kind: str) -> float:
    seat, players = state.player, state.num_players
    for step in range(1, players):
        other = (seat + step) % players
        pile = state.piles[other]
        if pile and pile[-1] == kind:
            return 1.5 * min(SAUCER_VALUES[kind], state.loot[other])
    return min(SAUCER_VALUES[kind], state.earth)


POLICIES: dict[str, Policy] = {"random": random_policy}
#: Each game's engine-level playout policy: the greedy Flea Circus rules, and the Flohcati
#: heuristic bot's own rules read from the engine state (``bots.flohcati_heuristic``).
HEURISTICS: dict[str, Policy] = {"flea-circus": flea_greedy_policy,
                                 "flohcati": flohcati_heuristic.engine_policy}


def policy_named(name: str, game: str) -> Policy:
    """A playout policy: ``random``, or ``heuristic`` (the game's own where there is one)."""
    if name == "heuristic":
        return HEURISTICS.get(game, random_policy)
    return POLICIES[name]


def points(state: State) -> Sequence[float]:
    """The scores as they stand: a cut playout's default evaluation."""
    return state.scores()


#: Each game's heuristic evaluation of a cut playout's position, where it has one: Flohcati's
#: adds to the points what the heuristic bot reckons pairs, trios and the Gala's way are worth.
EVALUATIONS: dict[str, Evaluation] = {"flohcati": flohcati_heuristic.engine_values}


def evaluation_named(name: str, game: str) -> Evaluation:
    """A cut playout's evaluation: ``points``, or ``heuristic`` (the game's own where there is one)."""
    return EVALUATIONS.get(game, points) if name == "heuristic" else points


def soft_rank_shares(scores: Sequence[float], spread: float) -> list[float]:
    """Each seat's expected share of the seats it will beat, if leads still move.

    A lead of ``d`` points over a seat counts as beating it with chance
    ``1 / (1 + exp(-d / spread))``: one point ahead is not a sure win when the
    game goes on. A playout cut before the end scores its position this way,
    so that a move gaining two points is told from one gaining none even when
    neither changes the order. ``spread`` 0: the exact rank shares.
    """
    if spread <= 0:
        return rank_shares(scores)
    others = len(scores) - 1
    return [(sum(1 / (1 + math.exp((other - own) / spread)) for other in scores) - 0.5) / others
            for own in scores]


def playout(state: State, rng: random.Random, policy: Policy, depth: int,
            spread: float = 0.0, evaluate: Evaluation = points) -> list[float]:
    """Play on for at most ``depth`` decisions (0: to the end); each seat's rank share.

    A playout cut by ``depth`` scores its position by :func:`soft_rank_shares`
    with ``spread`` of what ``evaluate`` makes of it; an ended game by the
    exact rank shares of its scores.
    """
    steps, limit = 0, depth if depth > 0 else math.inf
    while steps < limit and not state.end_reason:  # is_terminal(), without a call a step
        actions = state.legal_actions()
        state.apply(policy(state, actions, rng), actions)
        steps += 1
    return rank_shares(state.scores()) if state.end_reason \
        else soft_rank_shares(evaluate(state), spread)


# -- perfect-information Monte Carlo -------------------------------------------------------------
def pimc(sampler: Sampler, codes: list[str], budget: Budget, rng: random.Random,
         policy: Policy = random_policy, depth: int = 0, spread: float = 0.0,
         hint: int = -1, bias: float = 0.0, sweep: bool = True,
         evaluate: Evaluation = points, widen: float = 0.0,
         guide: float = 0.0) -> tuple[int, dict[str, Any]]:
    """The index into ``codes`` (the request's legal actions) with the best mean outcome.

    Each sample is dealt once per action from the same seed, so every action is
    judged on the same worlds; the budget counts playouts. ``hint``, ``bias``,
    ``sweep``, ``widen`` and ``guide`` are IS-MCTS's (PIMC always sweeps, weighs every action alike
    and has no tree), taken so both searches are called alike.
    """
    totals = [0.0] * len(codes)
    done, playouts, samples = budget.clock(), 0, 0
    while not done(playouts):
        seed = rng.getrandbits(64)
        for index in range(len(codes)):
            state = sampler.sample(random.Random(seed))
            state.apply(index)
            totals[index] += playout(state, rng, policy, depth, spread, evaluate)[sampler.seat]
            playouts += 1
        samples += 1
    best = max(range(len(codes)), key=lambda i: totals[i])
    return best, {"samples": samples, "playouts": playouts,
                  "means": [total / max(samples, 1) for total in totals]}


# -- information-set Monte Carlo tree search ----------------------------------------------------
class Node:
    """One information-set node: statistics of the move leading here, for the seat that made it."""

    __slots__ = ("seat", "visits", "total", "available", "children")

    def __init__(self, seat: int) -> None:
        self.seat = seat
        self.visits = 0
        self.total = 0.0
        self.available = 0
        self.children: dict[str, Node] = {}


def _select(node: Node, codes: list[str], c: float, hinted: str | None = None,
            bias: float = 0.0) -> int:
    """UCB over the children available here (Cowling et al.'s subset-armed bandit).

    The ``hinted`` child gets ``bias / (visits + 1)`` more: progressive bias
    (Chaslot et al. 2008), a prior that fades as the child's own visits grow.
    """
    best, best_value, children, sqrt, log = 0, -math.inf, node.children, math.sqrt, math.log
    for index, code in enumerate(codes):
        child = children[code]
        child.available += 1
        visits = child.visits
        value = child.total / visits + c * sqrt(log(child.available) / visits)
        if code == hinted:
            value += bias / (visits + 1)
        if value > best_value:
            best, best_value = index, value
    return best


def ismcts(sampler: Sampler, codes: list[str], budget: Budget, rng: random.Random,
           policy: Policy = random_policy, depth: int = 0, spread: float = 0.0,
           hint: int = -1, bias: float = 0.0, sweep: bool = False,
           c: float = 0.7, evaluate: Evaluation = points,
           widen: float = 0.0, guide: float = 0.0) -> tuple[int, dict[str, Any]]:
    """The index into ``codes`` whose root child was visited most (with ``sweep``: scored best).

    ``hint``, an index into ``codes`` (-1: none), is the move a heuristic
    prefers: the root expands it first and, with ``bias``, favours it in UCB
    until its own visits outweigh the prior.

    With ``sweep`` the root is not a bandit: each determinization is played
    once after every root move (the same deal for each, as PIMC does), and the
    tree below each move is IS-MCTS as usual. Comparing the moves on the same
    deals removes the deals' luck from their difference, which in a game as
    noisy as Flea Circus at four is most of it; the move with the best mean wins.

    ``widen`` > 0 is progressive widening (Coulom 2007; Chaslot et al. 2008): a
    node visited ``n`` times has at most ``1 + widen * sqrt(n)`` children, the
    playout policy's move first. Without it a node tries every move once before
    it repeats any, so a tree of a few visits a node plays its moves nearly at
    random where the playouts would have played the policy; with it, a thinly
    visited tree plays the policy, and leaves it where the visits say so.

    ``guide`` > 0 is progressive bias at every node (but a hinted root) towards the
    playout policy's move *in the iteration's determinization*: a node is keyed
    by action codes, shared by every deal, so without it a seat in the tree plays
    one code for all the hands it might hold (single-observer IS-MCTS's known
    weakness), where a playout plays the policy on the hand it holds.
    """
    hinted = codes[hint] if hint >= 0 and not sweep else None
    root = Node(sampler.seat)
    done, iterations = budget.clock(), 0
    while not done(iterations):
        if not sweep:
            _iterate(root, [root], sampler.sample(rng), rng, policy, depth, spread, c, hinted,
                     bias, evaluate, widen, guide)
            iterations += 1
            continue
        seed = rng.getrandbits(64)
        for index, code in enumerate(codes):
            state = sampler.sample(random.Random(seed))
            state.apply(index)
            child = root.children.setdefault(code, Node(sampler.seat))
            _iterate(child, [child], state, rng, policy, depth, spread, c, None, 0.0, evaluate,
                     widen, guide)
            iterations += 1
    visits = [root.children[code].visits if code in root.children else 0 for code in codes]
    if sweep:
        means = [root.children[code].total / max(root.children[code].visits, 1)
                 for code in codes]
        return max(range(len(codes)), key=lambda i: means[i]), \
            {"iterations": iterations, "visits": visits, "means": means}
    best = max(range(len(codes)), key=lambda i: visits[i])
    return best, {"iterations": iterations, "visits": visits}


def _iterate(node: Node, path: list[Node], state: State, rng: random.Random, policy: Policy,
             depth: int, spread: float, c: float, hinted: str | None, bias: float,
             evaluate: Evaluation = points, widen: float = 0.0, guide: float = 0.0) -> None:
    """One IS-MCTS iteration from ``node`` in ``state``: descend, expand, play out, back up.

    ``path`` holds the nodes already on the way (their statistics are backed
    up too); ``hinted`` and ``bias`` apply at ``node`` only, ``guide`` wherever
    they do not, ``widen`` everywhere (see :func:`ismcts`).
    """
    top = node
    while not state.end_reason:  # is_terminal(), without a call a step
        actions = state.legal_actions()
        moves = [action.code for action in actions]
        untried = [i for i, code in enumerate(moves) if code not in node.children]
        # The playout policy's move in this determinization: the prior but at a hinted root.
        hinted_here = node is top and hinted is not None
        guess = moves[policy(state, actions, rng)] if guide > 0 and not hinted_here else None
        if untried and (widen <= 0 or len(untried) == len(moves)
                        or (guess is not None and guess not in node.children)
                        or len(node.children) < 1 + widen * math.sqrt(node.visits)):
            # The playout policy's move first: at small budgets most nodes are
            # visited once or twice, and the policy's guess beats a random one.
            index = moves.index(guess) if guess is not None else policy(state, actions, rng)
            if node is top and hinted is not None and hinted not in node.children:
                index = moves.index(hinted)
            if moves[index] in node.children:
                index = untried[rng.randrange(len(untried))]
            for code in moves:
                if code in node.children:
                    node.children[code].available += 1
            child = node.children[moves[index]] = Node(state.current_seat())
            child.available = 1
            state.apply(index, actions)
            path.append(child)
            break
        tried = [i for i, code in enumerate(moves) if code in node.children] if untried \
            else range(len(moves))
        prior, weight = (hinted, bias) if hinted_here else (guess, guide)
        index = tried[_select(node, [moves[i] for i in tried], c, prior, weight)]
        node = node.children[moves[index]]
        state.apply(index, actions)
        path.append(node)
    outcome = playout(state, rng, policy, depth, spread, evaluate)
    for visited in path:
        visited.visits += 1
        visited.total += outcome[visited.seat]


# -- search bots ---------------------------------------------------------------------------------
#: Budgets and playouts of the search bots unless their command line says otherwise.
DEFAULTS: dict[str, Any] = {"iterations": 1000, "ms": 400.0, "policy": "random", "depth": 12,
                            "spread": 0.0, "bias": 0.0, "sweep": False, "value": "points",
                            "widen": 0.0, "guide": 0.0}
#: Each game's hand-written bot, whose move is IS-MCTS's root hint when ``bias`` is set.
HINTS: dict[str, type[Bot]] = {"flea-circus": FleaGreedyBot, "flohcati": FlohcatiHeuristicBot,
                               "animal-circus": AnimalCircusHeuristicBot}


class SearchBot(Bot):
    """A bot deciding by a search over determinizations of its view.

    Seeded by :func:`bots.sdk.rng_for`: with an iteration budget only, the same
    request gets the same answer. A request with a single legal action is
    answered at once. Subclasses name themselves and their ``search``.
    """

    search: Callable[..., tuple[int, dict[str, Any]]] = staticmethod(ismcts)

    def __init__(self, iterations: int = DEFAULTS["iterations"], ms: float = DEFAULTS["ms"],
                 policy: str = DEFAULTS["policy"], depth: int = DEFAULTS["depth"],
                 spread: float = DEFAULTS["spread"], bias: float = DEFAULTS["bias"],
                 sweep: bool = DEFAULTS["sweep"], value: str = DEFAULTS["value"],
                 widen: float = DEFAULTS["widen"], guide: float = DEFAULTS["guide"]) -> None:
        self.budget, self.policy, self.depth = Budget(iterations, ms), policy, depth
        self.spread, self.bias, self.sweep, self.value = spread, bias, sweep, value
        self.widen, self.guide = widen, guide
        self.memory = Memory()

    @classmethod
    def from_options(cls, known: argparse.Namespace) -> SearchBot:
        """The bot an :func:`options` command line asks for."""
        return cls(known.iterations, known.ms, known.policy, known.depth, known.spread,
                   known.bias, known.sweep, known.value, known.widen, known.guide)

    def decide(self, request: Any) -> int:
        return self.choose(request, rng_for(request))

    def end_game(self, request: Any) -> None:
        self.memory.forget(request.game_id)

    def choose(self, request: Any, rng: random.Random) -> int:
        game, observation, events = view_of(request, self.memory)
        if len(request.legal_actions) == 1:
            return 0
        sampler = sampler_for(game, observation, events)
        codes = [action.code for action in request.legal_actions]
        hint = HINTS[game]().decide(request) if self.bias > 0 else -1
        index, _ = self.search(sampler, codes, self.budget, rng, policy_named(self.policy, game),
                               self.depth, self.spread, hint, self.bias, self.sweep,
                               evaluate=evaluation_named(self.value, game), widen=self.widen,
                               guide=self.guide)
        return index


def options(description: str) -> argparse.ArgumentParser:
    """The search options every search bot takes, besides ``serve()``'s own."""
    parser = argparse.ArgumentParser(description=description, add_help=False)
    parser.add_argument("--iterations", type=int, default=DEFAULTS["iterations"],
                        help="iterations (playouts) per decision; 0: no limit")
    parser.add_argument("--ms", type=float, default=DEFAULTS["ms"],
                        help="milliseconds per decision at most; 0: no limit")
    parser.add_argument("--policy", choices=("random", "heuristic"), default=DEFAULTS["policy"])
    parser.add_argument("--depth", type=int, default=DEFAULTS["depth"],
                        help="playout decisions before scoring the position; 0: to the end")
    parser.add_argument("--spread", type=float, default=DEFAULTS["spread"],
                        help="score points that make a lead at a cut playout's end uncertain "
                             "(soft rank shares); 0: exact ranks")
    parser.add_argument("--bias", type=float, default=DEFAULTS["bias"],
                        help="IS-MCTS: progressive bias towards the game's heuristic bot's "
                             "move at the root; 0: none")
    parser.add_argument("--sweep", action="store_true",
                        help="IS-MCTS: play every root move on each determinization (shared "
                             "deals, as PIMC) and pick the best mean, the tree below as usual")
    parser.add_argument("--value", choices=("points", "heuristic"), default=DEFAULTS["value"],
                        help="what a cut playout's position is worth to each seat: its points, "
                             "or the game's heuristic valuation where it has one (Flohcati: "
                             "points plus pairs, trios and the Gala's way in hand)")
    parser.add_argument("--widen", type=float, default=DEFAULTS["widen"],
                        help="IS-MCTS: progressive widening, a node visited n times has at "
                             "most 1 + W*sqrt(n) children, the playout policy's move first; "
                             "0: every move tried once before any is repeated")
    parser.add_argument("--guide", type=float, default=DEFAULTS["guide"],
                        help="IS-MCTS: progressive bias at every node (but a root hinted by "
                             "--bias) towards the playout policy's move on the iteration's "
                             "sampled deal; 0: none")
    return parser


def run(bot_class: type[SearchBot], description: str, argv: list[str] | None = None) -> None:
    """Parse the search options, then serve the bot (``serve()`` takes the rest)."""
    known, rest = options(description).parse_known_args(argv)
    serve(bot_class.from_options(known), rest)
