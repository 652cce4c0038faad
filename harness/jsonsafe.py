"""Plain JSON values from the numbers harness computes: one cleaning rule for every
``--json`` output and every JSON file (report.json, compare.json, sprt's summary, the
turn analysis).

Ground floor: it imports nothing of harness, and not numpy either (a numpy scalar can
only exist once numpy is loaded, so it is looked up then), so the engine's rooms and
``harness --help`` pay nothing for it.
"""

from __future__ import annotations

import math
import sys
from fractions import Fraction
from typing import Any


def json_safe(value: Any) -> Any:
    """``value`` with every number a plain JSON one, recursively through dicts (values),
    lists and tuples (as lists).

    nan and infinities become None (JSON has neither; ``json.dumps`` would write
    ``NaN``, which strict parsers refuse); -0.0 becomes 0.0 (no ``-0.0`` beside a
    ``0.0`` of the same meaning); a Fraction becomes its float (exact arithmetic keeps
    its digits elsewhere, as a string); numpy scalars become Python numbers. Anything
    else is returned as it is.
    """
    if isinstance(value, float):  # numpy's float64 too: a float subclass
        return float(value) + 0.0 if math.isfinite(value) else None
    if isinstance(value, dict):
        return {k: json_safe(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [json_safe(v) for v in value]
    if isinstance(value, Fraction):
        return float(value)
    numpy = sys.modules.get("numpy")
    if numpy is not None and isinstance(value, numpy.floating | numpy.integer):
        return json_safe(value.item())
    return value
