"""harness: the tournament simulation harness for the dice game Pickomino.

The Python API mirrors the CLI::

    from harness import load_run, play_game, Rules, SeatSettings
    result = play_game(["greedy", "threshold(target=28)"], rules="official", seed=7)
    limited = play_game(["greedy", "simple"], seed=7, settings=SeatSettings(move_time=1))
    run = load_run("results/round_robin")   # a run's results: harness.results.Run

Names are imported on first use, so that ``harness --help`` does not pay for the engine.
"""

from __future__ import annotations

import importlib
from importlib.metadata import PackageNotFoundError, version
from typing import TYPE_CHECKING, Any

try:
    __version__ = version("pickomino-harness")
except PackageNotFoundError:  # running from a source tree that is not installed
    __version__ = "0.0.0+source"

_EXPORTS = {
    "Claim": "harness.game.strategy",
    "Game": "harness.game.engine",
    "GameResult": "harness.game.engine",
    "HarnessError": "harness.errors",
    "IllegalMove": "harness.errors",
    "Rules": "harness.game.rules",
    "Run": "harness.results",
    "SeatSettings": "harness.seats.settings",
    "Strategy": "harness.game.strategy",
    "StrategyFailed": "harness.errors",
    "load_run": "harness.results",
    "play_game": "harness.play",
    "replay": "harness.game.record",
}

__all__ = [
    "__version__",
    "Claim",
    "Game",
    "GameResult",
    "HarnessError",
    "IllegalMove",
    "Rules",
    "Run",
    "SeatSettings",
    "Strategy",
    "StrategyFailed",
    "load_run",
    "play_game",
    "replay",
]


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'harness' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


if TYPE_CHECKING:
    from harness.errors import HarnessError, IllegalMove, StrategyFailed
    from harness.game.engine import Game, GameResult
    from harness.game.record import replay
    from harness.game.rules import Rules
    from harness.game.strategy import Claim, Strategy
    from harness.play import play_game
    from harness.results import Run, load_run
    from harness.seats.settings import SeatSettings
