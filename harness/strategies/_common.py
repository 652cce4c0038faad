"""Small helpers the built-in strategies share (public API only)."""

from __future__ import annotations

from harness.strategy import FACE_POINTS, View

# (counts, choices) -> the face worth most points. Both tuples come from small
# interned sets (3,002 rolls, 63 choice sets), so the cache stays small, and a lookup
# is several times cheaper than the loop: this runs for every roll of every game.
_MOST_POINTS: dict[tuple[tuple[int, ...], tuple[int, ...]], int] = {}


def most_points(view: View) -> int:
    """The legal face whose dice are worth the most points; ties go to the higher face
    (so to the worm over the 5, and to fewer dice)."""
    key = (view.counts, view.choices)
    face = _MOST_POINTS.get(key)
    if face is None:
        counts, choices = key
        face = _MOST_POINTS[key] = max(choices, key=lambda f: (counts[f] * FACE_POINTS[f], f))
    return face
