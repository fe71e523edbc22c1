"""The user's Ctrl-C (a real SIGINT) told apart from a KeyboardInterrupt code raises."""

from __future__ import annotations

import signal
import threading
from types import FrameType

import pytest

from agentmetrology.audit.user_interrupt import noting_interrupts, user_interrupted


def test_a_sigint_is_noted_and_ends_the_block_even_when_swallowed() -> None:
    seen = []
    with pytest.raises(KeyboardInterrupt), noting_interrupts():
        try:
            signal.raise_signal(signal.SIGINT)  # as a Ctrl-C does
        except KeyboardInterrupt:  # what a scorer catching everything does
            seen.append(user_interrupted())
    assert seen == [True]
    assert not user_interrupted()  # forgotten once the block is over
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler  # restored


def test_another_error_made_of_a_sigint_is_the_interrupt() -> None:
    with pytest.raises(KeyboardInterrupt), noting_interrupts():
        try:
            signal.raise_signal(signal.SIGINT)
        except KeyboardInterrupt:
            raise RuntimeError("the run was cancelled") from None


def test_a_keyboard_interrupt_raised_by_code_is_not_noted() -> None:
    seen = []
    with noting_interrupts():
        try:
            raise KeyboardInterrupt("raised by a scorer")
        except KeyboardInterrupt:
            seen.append(user_interrupted())
    assert seen == [False]  # and the block ended normally


def test_a_handler_of_the_program_is_left_alone() -> None:
    got: list[int] = []

    def mine(signum: int, frame: FrameType | None) -> None:
        got.append(signum)

    previous = signal.signal(signal.SIGINT, mine)
    try:
        with noting_interrupts():
            signal.raise_signal(signal.SIGINT)
            assert not user_interrupted()
        assert got == [signal.SIGINT] and signal.getsignal(signal.SIGINT) is mine
    finally:
        signal.signal(signal.SIGINT, previous)


def test_off_the_main_thread_nothing_is_installed() -> None:
    seen = []

    def run() -> None:
        with noting_interrupts():
            seen.append(signal.getsignal(signal.SIGINT))

    th = threading.Thread(target=run)
    th.start()
    th.join()
    assert seen == [signal.default_int_handler]
