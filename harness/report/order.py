"""The one order of strategies in every chart and comparison: the config's.

A ranking moves a strategy between two runs; the config's order does not (an edited bot
keeps its place), so charts meant to be laid side by side, and the rows of a comparison,
follow the config (run.json's ``entrants``). Tables that rank (the standings) keep the
ranking's order.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any


def config_places(entrants: Any) -> dict[str, int]:
    """Each entrant's place in its config (run.json's ``entrants``, in order), by name."""
    out: dict[str, int] = {}
    for e in entrants if isinstance(entrants, list) else []:
        name = e.get("name") if isinstance(e, dict) else None
        if isinstance(name, str) and name not in out:
            out[name] = len(out)
    return out


def config_order(entrants: Any, names: Iterable[str]) -> list[str]:
    """``names`` in the config's order (names it lacks last, by name): the one order of
    every chart and comparison, the same from run to run whatever the ranking does."""
    place = config_places(entrants)
    return sorted(names, key=lambda n: (place.get(n, len(place)), n))
