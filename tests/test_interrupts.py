"""Ctrl-C as a stop request that nothing can drop (referee/interrupts.py)."""

from __future__ import annotations

import os
import signal
import sys
import threading
import time

import pytest
from click.testing import CliRunner
from conftest import write_config

from circus_referee.main import main
from referee.interrupts import signals_as_stop, until_stopped


class SignalledInAFinaliser:
    """An object whose finaliser receives SIGINT, as a gRPC channel's ``__del__`` run by the
    garbage collector may: Python's own handler would raise KeyboardInterrupt inside the
    finaliser, where it is printed as "Exception ignored" and dropped."""

    def __del__(self) -> None:
        os.kill(os.getpid(), signal.SIGINT)
        time.sleep(0.01)   # the handler runs here, inside the finaliser


def test_the_default_handler_loses_a_ctrl_c_that_lands_in_a_finaliser(monkeypatch):
    """The control: why the stop is an event. With Python's handler the Ctrl-C is raised
    in the finaliser, handed to the hook for unraisable exceptions, and goes no further."""
    dropped = []
    monkeypatch.setattr(sys, "unraisablehook", lambda unraisable: dropped.append(unraisable))
    SignalledInAFinaliser()   # no KeyboardInterrupt reaches this test
    assert [type(unraisable.exc_value) for unraisable in dropped] == [KeyboardInterrupt]


def test_a_ctrl_c_that_lands_in_a_finaliser_still_stops():
    with signals_as_stop() as stop:
        SignalledInAFinaliser()
        assert stop.is_set()


@pytest.mark.parametrize("number", [signal.SIGINT, signal.SIGTERM])
def test_the_signals_set_the_event_and_their_handlers_come_back(number):
    before = signal.getsignal(number)
    with signals_as_stop() as stop:
        os.kill(os.getpid(), number)
        time.sleep(0.01)
        assert stop.is_set()
    assert signal.getsignal(number) is before


def test_a_stop_ends_the_wait_with_keyboard_interrupt_after_the_producer_winds_down():
    stop, started, cleaned = threading.Event(), threading.Event(), []

    def produce():
        try:
            yield "first"
            started.set()
            stop.wait()          # a producer blocked on a bot until the bot is stopped
            time.sleep(0.2)      # its clean-up takes a while
        finally:
            cleaned.append(True)

    seen = []
    threading.Thread(target=lambda: (started.wait(), stop.set()), daemon=True).start()
    with pytest.raises(KeyboardInterrupt):
        for item in until_stopped(produce, stop, wind_down_s=10):
            seen.append(item)
    assert seen == ["first"]
    assert cleaned == [True], "the producer's clean-up ran before the interrupt was raised"


def test_the_producers_items_come_in_order_and_its_error_is_raised_to_the_caller():
    def produce():
        yield from range(3)
        raise ValueError("the producer failed")

    seen = []
    with pytest.raises(ValueError, match="the producer failed"):
        for item in until_stopped(produce, threading.Event(), wind_down_s=1):
            seen.append(item)
    assert seen == [0, 1, 2]


def test_a_producer_that_ends_because_it_was_stopped_still_gives_an_interrupt():
    stop = threading.Event()

    def produce():
        yield "first"
        stop.set()   # e.g. its bot was stopped under a check: it returns at once

    seen = []
    with pytest.raises(KeyboardInterrupt):
        for item in until_stopped(produce, stop, wind_down_s=1):
            seen.append(item)
    assert seen == ["first"]


def test_a_signal_ignored_from_the_start_stays_ignored():
    before = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        with signals_as_stop() as stop:
            assert signal.getsignal(signal.SIGINT) is signal.SIG_IGN
            os.kill(os.getpid(), signal.SIGINT)
            time.sleep(0.01)
            assert not stop.is_set()
        assert signal.getsignal(signal.SIGINT) is signal.SIG_IGN
    finally:
        signal.signal(signal.SIGINT, before)


@pytest.fixture
def ignoring():
    """SIGINT (and what else a test names) ignored, as under nohup; restored after."""
    kept = {number: signal.getsignal(number) for number in (signal.SIGINT, signal.SIGTERM)}

    def ignore(*numbers: int) -> None:
        for number in numbers:
            signal.signal(number, signal.SIG_IGN)

    yield ignore
    for number, handler in kept.items():
        signal.signal(number, handler)


def test_a_run_started_ignoring_ctrl_c_says_so_and_what_stops_it(ignoring, tmp_path):
    config = write_config(tmp_path, "name: t\ngame: flea-circus\nplayers: 2\nrounds: 1\nbots:\n"
                                    "  - {name: a, python: 'bots.random_bot:RandomBot'}\n"
                                    "  - {name: b, python: 'bots.random_bot:RandomBot'}\n")
    run = ["tournament", str(config), "--db", str(tmp_path / "r.sqlite"), "-q"]
    assert "Ctrl-C" not in CliRunner().invoke(main, run).stderr
    ignoring(signal.SIGINT)
    result = CliRunner().invoke(main, [*run, "--fresh"])
    assert result.exit_code == 0, result.output
    assert (f"note: Ctrl-C does nothing here (this process was started ignoring SIGINT, as "
            f"nohup does); `kill {os.getpid()}` (SIGTERM) stops it") in result.stderr
    ignoring(signal.SIGTERM)
    assert f"only `kill -KILL {os.getpid()}` stops it" in CliRunner().invoke(main, run).stderr
