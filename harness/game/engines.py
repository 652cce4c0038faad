"""Which engine plays a game: the choices every command, config and environment offers.

``auto``: the native engine (:mod:`harness.native`) where it can play (built-ins, no seat
limits), the Python engine (:mod:`harness.game.engine`) elsewhere; ``native``: refuse,
before anything is played, what it cannot play; ``python``: never native. The same games
with each. Owned here, at the bottom, so that the commands, the tourney config, ``play``
and the RL environments read one tuple (and list the choices in one order).
"""

from __future__ import annotations

ENGINES = ("auto", "python", "native")
"""The engine choices, in the order messages and ``--help`` list them."""
