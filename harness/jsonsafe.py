"""Plain JSON values from the numbers harness computes: one cleaning rule for every
``--json`` output and every JSON file (report.json, compare.json, sprt's summary, the
turn analysis); and the one way harness reads back a JSON file of its own that anyone
may have edited (:func:`loads_bounded`: never a RecursionError, whatever the nesting).

Ground floor: it imports nothing of harness, and not numpy either (a numpy scalar can
only exist once numpy is loaded, so it is looked up then), so the engine's rooms and
``harness --help`` pay nothing for it.
"""

from __future__ import annotations

import json
import math
import sys
from fractions import Fraction
from typing import Any

MAX_DEPTH = 64
"""How deep a JSON file of harness's own may nest (run.json and report.json: about 6)."""


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


class TooDeep(ValueError):
    """A JSON document nested deeper than harness's files ever are."""


def loads_bounded(text: str | bytes, max_depth: int = MAX_DEPTH) -> Any:
    """``json.loads``, but a document nested more than ``max_depth`` deep is
    :class:`TooDeep` (a ValueError, one line), never a RecursionError, here or in the
    code that walks the result later."""
    try:
        data = json.loads(text)
    except RecursionError:
        raise TooDeep(f"JSON nested more than {max_depth} deep") from None
    stack = [(data, 1)]
    while stack:  # no recursion: a walk as deep as the document is what is refused
        value, depth = stack.pop()
        if isinstance(value, (dict, list)):
            if depth > max_depth:
                raise TooDeep(f"JSON nested more than {max_depth} deep")
            items = value.values() if isinstance(value, dict) else value
            stack.extend((item, depth + 1) for item in items)
    return data
