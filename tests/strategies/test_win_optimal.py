"""The `win-optimal` strategy on both engines: the same games through harness.play_game,
and native only while the Python it mirrors is the Python here (the strategy, optimal's
programme and the evaluator's modules)."""

from __future__ import annotations

import pytest

from harness import native, play_game
from harness.native import kinds, sources
from harness.native.extension import NotNative
from harness.rules import PRESETS

needs_native = pytest.mark.skipif(not native.available(), reason="native engine not built")


def outcome(result) -> tuple:
    return (result.scores, result.ranks, result.turns, result.busts, result.steals,
            result.stacks, result.grill, result.flipped)  # fmt: skip


@needs_native
@pytest.mark.parametrize("preset", list(PRESETS))
@pytest.mark.parametrize("players", [2, 3, 4])
def test_the_same_game_on_both_engines(preset, players):
    """The evaluator the process has (the shipped model, or the normal approximation
    where none is shipped) on both sides."""
    seats = ["win-optimal", "optimal", "simple", "win-optimal"][:players]
    for seed in (3, 4):
        python = play_game(seats, preset, seed=seed, engine="python")
        played = play_game(seats, preset, seed=seed, engine="native")
        assert python.over and outcome(played) == outcome(python)


@needs_native
def test_win_optimal_is_a_native_kind():
    seat = native.native_seat("win-optimal")
    assert (seat.name, seat.kind, seat.params) == ("win-optimal", kinds.KINDS["win-optimal"][0], ())


@needs_native
@pytest.mark.parametrize("module", kinds.mirrored("win-optimal"))
def test_an_edited_evaluator_or_programme_is_not_native(monkeypatch, module):
    """Each mirrored module's digest guards the native seat: an evaluator edited since
    the C code was written plays in Python, never the old way."""
    monkeypatch.setitem(sources.SOURCES, module, "0" * 64)
    monkeypatch.setattr(sources, "STALE", {})
    monkeypatch.setattr(kinds, "_SEATS", {})
    with pytest.raises(NotNative, match="win-optimal: its source differs"):
        native.native_seat("win-optimal")
