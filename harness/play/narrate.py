"""A game told turn by turn for a person to read (``harness play``)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from harness.game.dice import Roll
from harness.game.engine import GameObserver, GameResult
from harness.game.rules import face_name, worms
from harness.game.strategy import Claim

_BUSTS = {
    "no-new-face": "no new face in the roll (R5)",
    "no-worm": "all dice set aside without a worm (R8)",
    "no-tile": "all dice set aside, no tile to claim (R8)",
}


def _faces(faces: Any) -> str:
    return " ".join(face_name(f) for f in faces)


def _tile(tile: int) -> str:
    n = worms(tile)
    return f"{tile} ({n} worm{'s' if n > 1 else ''})"


class Narrator(GameObserver):
    """Writes each event as a line through ``write`` (print by default)."""

    def __init__(self, names: list[str], write: Callable[[str], Any] = print) -> None:
        self.names = names
        self.write = write
        self._left = 8  # dice left after the last keep: 0 means the stop was forced (R6)

    def _who(self, seat: int) -> str:
        return f"seat {seat} ({self.names[seat]})"

    def turn_started(self, turn: int, seat: int) -> None:
        self._left = 8
        self.write(f"Turn {turn}: {self._who(seat)}")

    def kept(self, seat: int, roll: Roll, face: int, count: int, total: int, left: int) -> None:
        self._left = left
        self.write(
            f"  rolls {_faces(roll.faces):<15}  sets aside {count} x {face_name(face)}"
            f"  total {total:>2}, {left} {'die' if left == 1 else 'dice'} left"
        )

    def claimed(self, seat: int, claim: Claim, total: int) -> None:
        stop = f"stops at {total}" if self._left else f"must stop at {total} (all dice set aside)"
        if claim.victim is None:
            self.write(f"  {stop}: takes {_tile(claim.tile)} from the grill")
        else:
            self.write(f"  {stop}: steals {_tile(claim.tile)} from {self._who(claim.victim)}")

    def busted(
        self,
        seat: int,
        reason: str,
        total: int,
        returned: int | None,
        turned: int | None,
        roll: Roll | None,
    ) -> None:
        if roll is not None:
            self.write(f"  rolls {_faces(roll.faces):<15}  no new face")
        what = [f"  BUST: {_BUSTS[reason]}"]
        what.append(f"returns {returned} to the grill" if returned else "no tile to return")
        if turned:
            what.append(f"turns {turned} face down")
        elif returned:
            what.append("nothing turned")
        self.write("; ".join(what))


def summary_lines(result: GameResult, *, spaced: bool = True) -> list[str]:
    """The end of a game: scores, stacks and the winner; ``spaced``: after an empty line
    (it follows a narration)."""
    lines = [""] if spaced else []
    if result.error is not None:
        lines.append(f"FORFEIT: {result.error}")
    elif result.capped:
        lines.append(f"UNFINISHED: stopped by the turn cap after {result.turns} turns")
    elif not result.over:
        lines.append(f"Not over after {result.turns} turns.")
    else:
        lines.append(f"Game over after {result.turns} turns.")
    width = max(len(n) for n in result.names)
    for seat, name in enumerate(result.names):
        stack = " ".join(str(t) for t in result.stacks[seat]) or "-"
        lines.append(
            f"  #{result.ranks[seat]}  seat {seat}  {name:<{width}}  "
            f"{result.scores[seat]:>2} {'worm ' if result.scores[seat] == 1 else 'worms'}"
            f"  stack: {stack}"
        )
    if result.winner is not None:
        lines.append(f"Winner: seat {result.winner} ({result.names[result.winner]})")
    elif result.over:
        lines.append("No winner: a shared result (R11)")
    return lines
