"""The evaluator's inputs: a position as a vector of small integers.

Seats are taken in turn order from the seat to move (k = 0 is the mover), so one model
serves every seat. Per seat, :data:`PER_SEAT` integers: worms (R11), the lead over the
best other seat, the top tile's worms and number (stealable, R7), the worms of the tile
below it (the next top after a steal or a bust), the highest tile (R11's tie-break) and
the stack's height. Then the grill: one bit per tile 21-36 face up, the count of
face-up tiles and their worms. Tile numbers are given as ``tile - 20`` (0: none).
The C engine computes the same integers (native/c/winprob.inc.c); the order here is the
model files' contract: changing it changes every model.
"""

from __future__ import annotations

from harness.game.board import WORMS
from harness.game.rules import TILES
from harness.winprob.position import Position

PER_SEAT = 7
GRILL_FEATURES = len(TILES) + 2


def feature_count(players: int) -> int:
    """How many integers :func:`features` gives for ``players`` seats."""
    return PER_SEAT * players + GRILL_FEATURES


def features(position: Position) -> list[int]:
    """The position's integers, seats from the one to move (see the module's text)."""
    stacks = position.stacks
    players = len(stacks)
    scores = [sum(WORMS[t] for t in s) for s in stacks]
    out: list[int] = []
    for k in range(players):
        seat = (position.to_move + k) % players
        stack = stacks[seat]
        best_other = max(scores[j] for j in range(players) if j != seat)
        top = stack[-1] if stack else 0
        below = stack[-2] if len(stack) > 1 else 0
        out += (
            scores[seat],
            scores[seat] - best_other,
            WORMS[top],
            top - 20 if top else 0,
            WORMS[below],
            max(stack) - 20 if stack else 0,
            len(stack),
        )
    grill = position.grill
    worms = 0
    count = 0
    for tile in TILES:
        up = grill >> tile & 1
        out.append(up)
        count += up
        worms += WORMS[tile] * up
    out += (count, worms)
    return out
