"""The collector is paused inside the block and restored to what it was after it."""

from __future__ import annotations

import gc

import pytest

from agentmetrology.runtime.gc_pause import gc_paused


def test_paused_inside_and_enabled_after_even_on_error() -> None:
    assert gc.isenabled()
    with gc_paused():
        assert not gc.isenabled()
    assert gc.isenabled()
    with pytest.raises(ValueError), gc_paused():
        raise ValueError("boom")
    assert gc.isenabled()


def test_a_caller_who_disabled_the_collector_keeps_it_disabled() -> None:
    gc.disable()
    try:
        with gc_paused():
            with gc_paused():
                assert not gc.isenabled()
            assert not gc.isenabled()  # the inner block does not re-enable it
        assert not gc.isenabled()
    finally:
        gc.enable()
