"""harness: the tournament simulation harness for the dice game Pickomino.

The Python API mirrors the CLI::

    from harness import play_game, Rules
    result = play_game(["greedy", "threshold(target=28)"], rules="official", seed=7)
"""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("pickomino-harness")
except PackageNotFoundError:  # running from a source tree that is not installed
    __version__ = "0.0.0+source"

from harness.engine import Game, GameResult  # noqa: E402
from harness.errors import HarnessError, IllegalMove, StrategyFailed  # noqa: E402
from harness.play import play_game  # noqa: E402
from harness.record import replay  # noqa: E402
from harness.rules import Rules  # noqa: E402
from harness.strategy import Claim, Strategy  # noqa: E402

__all__ = [
    "__version__",
    "Claim",
    "Game",
    "GameResult",
    "HarnessError",
    "IllegalMove",
    "Rules",
    "Strategy",
    "StrategyFailed",
    "play_game",
    "replay",
]
