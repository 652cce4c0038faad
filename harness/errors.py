"""The errors harness raises for things users get wrong.

Every one carries a message that is one clear line, fit to print as it is; the CLI
turns them into click errors (no traceback).
"""

from __future__ import annotations


class HarnessError(Exception):
    """Base of every user-facing error: its str() is one line saying what and where."""


class RulesError(HarnessError, ValueError):
    """A rule set that RULES.md does not allow."""


class PluginError(HarnessError):
    """A strategy reference that cannot be resolved, loaded or built."""


class RecordError(HarnessError):
    """A game record that is malformed, or that breaks the rules when replayed."""


class ConfigError(HarnessError):
    """A tournament config that is invalid."""


class GameError(HarnessError):
    """Something went wrong inside a game, attributed to a seat and its strategy.

    ``turn`` is the 1-based number of the game's turn, ``seat`` the seat whose turn it
    was, ``strategy`` its display name.
    """

    def __init__(self, turn: int, seat: int, strategy: str, detail: str) -> None:
        self.turn = turn
        self.seat = seat
        self.strategy = strategy
        self.detail = detail
        super().__init__(f"turn {turn}, seat {seat} ({strategy}) {detail}")


class IllegalMove(GameError):
    """A strategy returned a decision the rules forbid; ``rule`` is the rule id broken."""

    def __init__(self, turn: int, seat: int, strategy: str, detail: str, rule: str) -> None:
        self.rule = rule
        super().__init__(turn, seat, strategy, f"{detail} ({rule})")


class StrategyFailed(GameError):
    """A strategy raised an exception; the original is ``__cause__``."""

    def __init__(self, turn: int, seat: int, strategy: str, method: str, exc: BaseException):
        self.method = method
        text = str(exc).splitlines()[0] if str(exc) else ""
        detail = f"raised {type(exc).__name__} in {method}()" + (f": {text}" if text else "")
        super().__init__(turn, seat, strategy, detail)


class IntegrityError(HarnessError):
    """The game state broke an invariant (tile conservation, scores): a cheat or a bug."""
