"""Playing single games from Python: ``play_game`` and what it builds on.

from harness import play_game
result = play_game(["greedy", "threshold(target=28)"], rules="official", seed=7)
result.scores, result.ranks, result.winner, result.turns

Time limits and process isolation (:mod:`harness.seats`) apply here too:
``play_game(..., move_time=1, isolation="process")``, or as one value,
``play_game(..., settings=SeatSettings(move_time=1, isolation="process"))``.
:func:`open_seats` builds the seats once (processes started, references checked) for
callers that play several games or must fail before telling anything (``harness play``).

This package's face re-exports what its modules hold: :mod:`.games` (``play_game``,
``play_observed``), :mod:`.building` (the seats of a game), :mod:`.native_game` (one game
on the native engine); :mod:`.narrate` tells a game. ``harness play`` and ``harness replay`` are
:mod:`harness.commands.play`.
"""

from __future__ import annotations

from harness.game.engines import ENGINES  # the engine choices (re-exported: play's face)
from harness.play.building import Seats, build_strategies, open_seats
from harness.play.games import GAME_SETTINGS, play_game, play_observed
from harness.play.native_game import native_problem
from harness.plugins import create
from harness.seats.settings import SeatSettings

__all__ = [
    "ENGINES",
    "GAME_SETTINGS",
    "SeatSettings",
    "Seats",
    "build_strategies",
    "create",
    "native_problem",
    "open_seats",
    "play_game",
    "play_observed",
]
