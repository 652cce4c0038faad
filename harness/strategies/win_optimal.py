"""The win-optimal strategy: exact best play of each turn for the chance to win the game.

``optimal`` plays each turn's dynamic programme for the worm swing (and, in its end
game, for a normal approximation of the chance to win). ``win-optimal`` plays the same
programme for every turn of the game, valuing each way the turn can end (each claim,
each steal, the bust with the rules' R9 variant) by the win-probability evaluator of
:mod:`harness.winprob`: its chance to win the game from the position that ending
leaves, exact when the ending ends the game (R10, R11: a tie is a shared first place).
Which face to keep and when to stop are then optimal for that evaluator: the bot is as
good as the evaluator is (docs/winprob.md measures both).

Written against the public strategy API, the pure turn programme and the evaluator only.
"""

from __future__ import annotations

from harness.strategies.optimal import Optimal
from harness.strategy import View
from harness.winprob import Position, ending_chances


class WinOptimal(Optimal):
    """Plays each turn exactly optimally (dynamic programming) for its chance to win the
    game, as the win-probability evaluator values each way the turn can end."""

    name = "win-optimal"
    bounds: dict = {}

    def __init__(self) -> None:
        super().__init__(endgame=0)

    def _plan_key(self, view: View) -> tuple:
        return ("win", view.grill, view.stacks, view.seat, view.rules)

    def _ending_values(self, view: View) -> tuple[dict, float]:
        return ending_chances(Position.of(view.grill, view.stacks, view.seat), view.rules)
