"""The env-heuristic strategy: the built-in bot of the Pickomino Gymnasium environment.

A reference baseline (issue 5), so that results compare with those published for the
`pickomino-env` reinforcement-learning environment (github.com/smallgig/Pickomino,
its heuristic ``Bot``: "on or after the third roll, take worms if you can; otherwise
take the die side that contributes the most points; quit as soon as you can take a
tile"). Written here from that description, as issue 5 specifies it:

* from the third roll on (two faces already set aside), keep the worms if none are
  held yet;
* otherwise keep the face with the largest count x value (the worm worth 5); ties go
  to the worm, then to fewer dice (the higher face);
* stop as soon as the total reaches the lowest grill tile with a worm set aside; a
  steal alone (an exact total below the lowest grill tile) does not stop it.
"""

from __future__ import annotations

from harness.strategies._common import most_points
from harness.strategy import WORM, Strategy, View


class EnvHeuristic(Strategy):
    """The Gymnasium environment's bot: worms from the third roll, else the most points;
    stops once the lowest grill tile is reached."""

    name = "env-heuristic"

    def pick(self, view: View) -> int:
        # Two faces set aside means this is the third roll (one keep per roll, R5); a
        # worm already held is never among the choices (R5), so "none held" is implied.
        if WORM in view.choices and len(view.kept_faces) >= 2:
            return WORM
        return most_points(view)  # ties: the worm over the 5, then fewer dice

    def stop(self, view: View) -> bool:
        return view.total >= view.grill[0]
