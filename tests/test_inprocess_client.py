"""The in-process bot client: answers, deadlines, a bot's own errors, closing."""

from __future__ import annotations

import threading
import time
from typing import Callable

import pytest

from circus.v1 import bot_pb2
from referee import clients, wire
from referee.clients import BotFault, InProcessClient
from referee.games import GAMES
from referee.match import FaultPolicy, Match
from referee.settings import DEFAULT_FAULTS, TimeConfig


class Bot:
    def __init__(self) -> None:
        self.release = threading.Event()
        self.hanging = threading.Semaphore(0)  # one count per call that has begun to hang
        self.hung = 0   # calls that hung and have since been released
        self.calls = 0
        self.decided = 0
        self.threads: set[threading.Thread] = set()   # the workers that called decide

    def hello(self, request):
        return bot_pb2.HelloResponse(name="t")

    def start_game(self, request):
        self.calls += 1

    def decide(self, request):
        self.decided += 1
        self.threads.add(threading.current_thread())
        if request.game_id == "hang":
            self.hanging.release()
            self.release.wait(60)
            self.hung += 1
        if request.game_id == "raise":
            raise RuntimeError("boom")
        if request.game_id == "exit":
            raise SystemExit(3)
        if request.game_id == "bad":
            return "x"
        return len(request.legal_actions) - 1

    def end_game(self, request):
        pass


def request(game_id: str, actions: int = 3) -> bot_pb2.DecisionRequest:
    return bot_pb2.DecisionRequest(game_id=game_id, decision_id=7,
                                   legal_actions=[bot_pb2.LegalAction()] * actions)


def test_answers_faults_and_deadlines():
    bot = Bot()
    client = InProcessClient(bot)
    assert client.decide(request("ok"), 5) == bot_pb2.Decision(decision_id=7, action_index=2)
    assert client.hello(bot_pb2.HelloRequest(), 5).name == "t"
    with pytest.raises(BotFault) as raised:
        client.decide(request("raise"), 5)
    assert raised.value.fault_class == "error" and "RuntimeError: boom" in raised.value.detail
    with pytest.raises(BotFault) as raised:
        client.decide(request("bad"), 5)
    assert raised.value.fault_class == "illegal"
    with pytest.raises(SystemExit):
        client.decide(request("exit"), 5)
    with pytest.raises(BotFault) as raised:
        client.decide(request("hang"), 0.2)
    # At its deadline, not at the bot's answer: the call still hangs in the bot.
    assert raised.value.fault_class == "timeout" and bot.hung == 0
    # The hung call keeps its thread; others go on.
    for _ in range(100):
        client.start_game(bot_pb2.StartGameRequest(), 5)
    assert bot.calls == 100
    bot.release.set()
    client.close()


def hang_every_worker(bot: Bot, call: Callable[[], object]) -> list[threading.Thread]:
    """``MAX_CALLS`` threads making ``call``, once each hangs in the bot (however slow the
    machine)."""
    threads = [threading.Thread(target=call) for _ in range(InProcessClient.MAX_CALLS)]
    for thread in threads:
        thread.start()
    for _ in threads:
        assert bot.hanging.acquire(timeout=30)
    return threads


def park_a_worker() -> None:
    """A client's worker left idle by its close, waiting for the next job."""
    closed = InProcessClient(Bot())
    assert closed.decide(request("ok"), 5).action_index == 2
    closed.close()
    deadline = time.monotonic() + 30
    while not clients._parked:   # however slow the machine
        assert time.monotonic() < deadline
        time.sleep(0.001)


def test_at_most_four_calls_at_once_and_more_time_out_waiting_and_are_never_made():
    """A call given up before a worker took it is never made: the bot is not asked stale
    decisions once its workers are free."""
    bot = Bot()
    client = InProcessClient(bot)
    faults = []

    def hang() -> None:
        try:
            client.decide(request("hang"), 60)   # released long before, at any speed
        except BotFault as fault:
            faults.append(fault)

    threads = hang_every_worker(bot, hang)
    for _ in range(30):
        with pytest.raises(BotFault) as raised:
            client.decide(request("ok"), 0.01)
        assert raised.value.fault_class == "timeout"
    bot.release.set()
    for thread in threads:
        thread.join()
    assert not faults  # released within their deadline
    assert client.decide(request("ok"), 5).action_index == 2
    assert bot.decided == InProcessClient.MAX_CALLS + 1
    client.close()


def test_concurrent_calls_from_many_threads_all_get_their_own_answer():
    client = InProcessClient(Bot())
    answers = []

    def play(actions: int) -> None:
        for _ in range(200):
            answers.append((actions, client.decide(request("ok", actions), 5).action_index))

    threads = [threading.Thread(target=play, args=(n,)) for n in range(1, 7)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(answers) == 1200 and all(index == actions - 1 for actions, index in answers)
    client.close()


def test_the_sdks_do_nothing_calls_are_skipped_and_a_bots_own_are_made():
    from bots.random_bot import RandomBot

    class Counting(RandomBot):
        started = 0

        def start_game(self, request):
            self.started += 1

    plain, counting = InProcessClient(RandomBot()), InProcessClient(Counting())
    plain.close()  # any call handed to a thread now fails
    for client in (plain, counting):
        client.start_game(bot_pb2.StartGameRequest(), 5)
        client.end_game(bot_pb2.EndGameRequest(), 5)
    assert counting.bot.started == 1
    counting.close()


def test_a_closed_client_hands_no_more_calls_and_its_workers_end(monkeypatch):
    """Its idle workers end once no new client came for them (PARKED_S)."""
    monkeypatch.setattr(clients, "PARKED_S", 0.05)
    bot = Bot()
    client = InProcessClient(bot)
    for actions in (1, 2, 3):
        assert client.decide(request("ok", actions), 5).action_index == actions - 1
    workers = list(bot.threads)
    assert client.workers == 1 and workers and all(thread.daemon for thread in workers)
    assert all(thread.name == "inproc-bot" for thread in workers)
    client.close()
    with pytest.raises(BotFault) as raised:
        client.decide(request("ok"), 5)
    assert raised.value.fault_class == "error"
    for thread in workers:
        thread.join(30)
    assert not any(thread.is_alive() for thread in workers)


def test_a_closed_client_s_worker_serves_the_next_client_without_a_new_thread():
    """A ladder's match makes a client per bot and seat rotation: each would otherwise
    pay a thread's start, and wait for it."""
    bot = Bot()
    park_a_worker()
    before = set(threading.enumerate())
    client = InProcessClient(bot)
    assert client.decide(request("ok"), 5).action_index == 2
    assert bot.threads and bot.threads <= before
    client.close()


def test_a_call_given_up_on_never_answers_a_later_one():
    """A hung call's late answer goes nowhere: the calls after it, on the same thread,
    get their own answers, before and after the hung one returns."""
    bot = Bot()
    client = InProcessClient(bot)
    with pytest.raises(BotFault) as raised:
        client.decide(request("hang"), 0.05)
    assert raised.value.fault_class == "timeout"
    assert client.decide(request("ok", 5), 5).action_index == 4
    bot.release.set()
    deadline = time.monotonic() + 30
    while bot.hung == 0:   # the hung call has returned, however slow the machine
        assert time.monotonic() < deadline
        time.sleep(0.001)
    for actions in range(1, 30):
        assert client.decide(request("ok", actions), 5).action_index == actions - 1
    client.close()


class PlainRecorder:
    """Takes plain requests; records each with the message the referee would have sent."""

    plain_requests = True

    def __init__(self) -> None:
        self.seen: list[tuple[clients.PlainRequest, bot_pb2.DecisionRequest]] = []
        self.stale: list[clients.PlainRequest] = []

    def hello(self, request):
        return bot_pb2.HelloResponse(name="plain")

    def start_game(self, request):
        pass

    def decide(self, request):
        # The message from the same moment, as the match would have built it.
        message = wire.decision_request(request._state, request.game_id, request.decision_id,
                                        request._events_from, bot_pb2.Clock(
                                            move_ms=request.clock.move_ms,
                                            bank_ms=request.clock.bank_ms))
        assert (request.observation, request.events) is not None   # read during the call
        self.seen.append((request, message))
        self.stale.append(clients.PlainRequest(clients.DecisionView(
            request._state, request.game_id, request.decision_id, request._events_from,
            0, 0, request.legal_actions, [], [])))
        return 0

    def end_game(self, request):
        pass


def played(bot_class, game: str = "flea-circus") -> Match:
    match = Match(GAMES[game], GAMES[game].default_variant, ("a", "b"), seed=5, game_id="p/0",
                  clients=[InProcessClient(bot_class()) for _ in range(2)],
                  time_config=TimeConfig(), policy=FaultPolicy(dict(DEFAULT_FAULTS)))
    match.play()
    return match


def test_a_bot_that_asks_for_plain_requests_gets_the_messages_values():
    for game in GAMES:
        match = played(PlainRecorder, game)
        for seat in match.seats:
            assert seat.client is not None and seat.client.bot.seen, game
            for plain, message in seat.client.bot.seen:
                field = wire.oneof_field(game)
                assert (plain.game_id, plain.decision_id, plain.seat, plain.kind, plain.prompt) == (
                    message.game_id, message.decision_id, message.seat, message.kind,
                    message.prompt)
                assert tuple(plain.clock) == (message.clock.move_ms, message.clock.bank_ms)
                assert bot_pb2.Observation(**{field: plain.observation}) == message.observation
                assert [(action.code, action.label) for action in plain.legal_actions] == [
                    (action.code, action.label) for action in message.legal_actions]
                assert [wire.event_message(game, sequence, event)
                        for sequence, event in plain.events] == list(message.events)


def test_a_plain_request_read_after_its_call_is_stale():
    match = played(PlainRecorder)
    bot = match.seats[0].client.bot
    assert bot.stale and bot.stale[0].game_id == "p/0"   # the ids stay
    with pytest.raises(clients.StaleRequest):
        bot.stale[0].observation
    with pytest.raises(clients.StaleRequest):
        bot.stale[0].events


def test_the_random_bot_plays_the_same_with_plain_requests_as_with_messages():
    from bots.random_bot import RandomBot

    class MessageRandomBot(RandomBot):
        plain_requests = False

    assert played(RandomBot).state.history == played(MessageRandomBot).state.history


def test_a_subclass_that_overrides_decide_gets_messages_unless_it_asks_again():
    from bots.random_bot import RandomBot

    class Reads(RandomBot):
        def decide(self, request):
            return super().decide(request)

    class ReadsPlain(Reads):
        plain_requests = True

        def decide(self, request):
            return 0

    class Inherits(RandomBot):
        name = "inherits"

    assert [clients.takes_plain_requests(bot) for bot in (RandomBot, Reads, ReadsPlain,
                                                           Inherits, Bot)] == [
        True, False, True, True, False]


class Recorder:
    """Plays the first legal action, noting the thread of each decision; ``hang_at``: the
    decision (counted from 1) at which it waits for ``release`` first."""

    plain_requests = True

    def __init__(self, hang_at: int = 0) -> None:
        self.hang_at, self.calls = hang_at, 0
        self.threads: list[threading.Thread] = []
        self.release, self.returned = threading.Event(), threading.Event()

    def hello(self, request):
        return bot_pb2.HelloResponse(name="recorder")

    def start_game(self, request):
        pass

    def decide(self, request):
        self.calls += 1
        self.threads.append(threading.current_thread())
        if self.calls == self.hang_at:
            self.release.wait(60)
            self.returned.set()
        return 0

    def end_game(self, request):
        pass


def match_of(bots, time_config: TimeConfig = TimeConfig()) -> Match:
    return Match(GAMES["flea-circus"], GAMES["flea-circus"].default_variant, ("a", "b"),
                 seed=5, game_id="p/0", clients=[InProcessClient(bot) for bot in bots],
                 time_config=time_config, policy=FaultPolicy(dict(DEFAULT_FAULTS)))


def test_a_game_s_in_process_decisions_are_made_on_one_thread_of_their_own():
    """Both bots are called on the game's decisions' thread: no hand-off to a thread of
    each bot's a decision (two thread switches), and none on the thread that plays it."""
    bots = [Recorder(), Recorder()]
    match_of(bots).play()
    threads = {thread for bot in bots for thread in bot.threads}
    assert len(threads) == 1 and threading.current_thread() not in threads


def test_a_bot_hung_past_its_deadline_times_out_and_the_game_goes_on_without_it(monkeypatch):
    """Its decision is charged, faulted and substituted at the deadline, as a client's call
    that timed out; while it hangs, the bot's calls go to its own workers (a bot that keeps
    hanging holds no more threads than they); its late return changes nothing."""
    monkeypatch.setattr(clients, "PARKED_S", 0.05)
    hung, other = Recorder(hang_at=3), Recorder()
    match = match_of([hung, other], TimeConfig(move_ms=200, bank_ms=0, grace_ms=10))
    result = match.play()
    assert [(fault.seat, fault.fault_class) for fault in result.faults
            if fault.detail == "no answer within 0.210s"] == [(0, "timeout")]
    assert len(result.times) == len(result.actions) == len(match.state.history)
    assert hung.threads[3:] and set(hung.threads[3:]).isdisjoint(other.threads)
    assert match.seats[0].client.running_late == 1
    hung.release.set()
    assert hung.returned.wait(30)
    hung.threads[2].join(30)   # its worker leaves the game, then ends (PARKED_S)
    assert not hung.threads[2].is_alive()
    assert len(result.times) == len(result.actions) and not match.seats[0].gone
    assert match.seats[0].client.running_late == 0


def test_idle_workers_end_when_told_and_the_next_job_starts_a_thread():
    """A profiler follows the threads it starts: after ``end_idle_workers`` no worker
    started before it runs the next client's calls."""
    park_a_worker()
    before = set(threading.enumerate())
    clients.end_idle_workers()
    bot = Bot()
    client = InProcessClient(bot)
    assert client.decide(request("ok"), 5).action_index == 2
    assert bot.threads and not bot.threads & before
    client.close()
