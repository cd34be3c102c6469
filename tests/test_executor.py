"""The executors: every game played once, only a few taken on at a time; a lost cluster."""

from __future__ import annotations

import threading

import pytest

from tournaments.executor import ClusterLost, DaskExecutor, KeptThreads, ThreadExecutor


def test_games_are_taken_as_threads_free_up_and_each_result_comes_once():
    taken: list[int] = []

    def games():
        for index in range(40):
            taken.append(index)
            yield index

    executor = ThreadExecutor(2)
    results, taken_at_first = [], None
    try:
        for item, result in executor.results(lambda index: index * index, games()):
            if taken_at_first is None:
                taken_at_first = len(taken)
            results.append((item, result))
    finally:
        executor.close()
    assert sorted(results) == [(index, index * index) for index in range(40)]
    # A game's future (and its result) lives only while it is in the window: taking every
    # game at once kept all of them, so the referee's memory grew with the tournament.
    assert taken_at_first == executor.window < 40


def test_runs_on_a_kept_pool_share_its_threads_and_leave_it_open():
    """A ladder keeps its matches' threads: each run's executor plays on them, and its
    close drops and waits for its own games only."""
    kept = KeptThreads.made(2)
    threads = set()

    def play(index: int) -> int:
        threads.add(threading.current_thread())
        return index

    try:
        for _ in range(3):
            executor = ThreadExecutor(2, threads=kept.games)
            results = executor.results(play, range(10))
            assert next(results)[1] == 0
            executor.close()   # with games left: those not started are dropped
            assert all(future.done() for future in executor.pending)
        assert len(threads) <= 2 and kept.games.submit(play, 7).result() == 7
    finally:
        kept.close()


def test_a_stop_asked_for_is_heard_while_every_game_is_held():
    """A Ctrl-C whose KeyboardInterrupt a finaliser swallowed is still in ``asked``: the
    wait for results raises it at its next look, though no game ends."""
    asked, held = threading.Event(), threading.Event()
    executor = ThreadExecutor(1, asked)

    def play(index: int) -> int:
        held.wait()   # a bot holding its decision
        return index

    threading.Thread(target=asked.set, daemon=True).start()
    try:
        with pytest.raises(KeyboardInterrupt):
            list(executor.results(play, range(3)))
    finally:
        held.set()
        executor.close()


class _Broken:
    """A Dask future whose result cannot be fetched: its scheduler went away meanwhile."""

    def result(self):
        from distributed.comm import CommClosedError
        raise CommClosedError("in <TCP (closed) ConnectionPool.gather>: ConnectionResetError")


def test_a_scheduler_lost_while_a_result_is_fetched_is_a_lost_cluster():
    """Not a traceback: the runner turns ClusterLost into one line with a resume hint."""
    executor = DaskExecutor(client=None, per_worker=1, prepare=lambda item: item)
    with pytest.raises(ClusterLost, match="the connection to its scheduler broke"):
        executor._result(_Broken())
