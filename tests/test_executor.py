"""The local executor: every game played once, only a few taken on at a time."""

from __future__ import annotations

from tournaments.executor import ThreadExecutor


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
