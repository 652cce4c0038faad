"""A strategy reference's and its parameters' bounds, and values shown at bounded cost.

References and parameters are plain, bounded values before any plugin code sees them
(:func:`check_params`, :func:`check_param_value`: the ``MAX_*`` constants keep every
parameter storable as JSON in run.json and every label short), and every value put in a
message goes through :func:`shown`, a repr() that stays short whatever it is given (it
lives beside :func:`harness.errors.safe_text`, on the ground floor, so that any room may
name a value in a message; this module re-exports it). Re-exported by
:mod:`harness.plugins`.
"""

from __future__ import annotations

import math
from typing import Any

from harness.errors import SHOWN_LIMIT as SHOWN_LIMIT  # re-exported: harness.plugins names it
from harness.errors import PluginError, shown, type_name

# -- bounds -----------------------------------------------------------------------------
MAX_REFERENCE_CHARS = 1000  # a strategy reference with its inline parameters


MAX_PARAMS = 50  # parameters of one strategy


MAX_PARAM_INT = 2**53  # |int| parameters: exact in JSON (run.json) and as a float


MAX_PARAM_FLOAT = 1e15  # |float| parameters, and finite


MAX_PARAM_CHARS = 200  # a string parameter (or a parameter's name)


MAX_PARAM_ITEMS = 1000  # values in one parameter, counting every nested list or mapping item


MAX_PARAM_DEPTH = 4  # nesting of lists and mappings in one parameter


def check_params(ref: str, params: dict[str, Any]) -> None:
    """Every parameter a plain, bounded value; PluginError (one line) otherwise.

    Plain: None, true/false, a number, a string, a list or a mapping of them (what YAML
    and ``name(key=value)`` give). Bounded: see the ``MAX_PARAM_*`` constants; they keep
    every parameter storable as JSON in run.json and every label short.
    """
    if len(params) > MAX_PARAMS:
        raise PluginError(f"strategy {ref}: {len(params):,} parameters; at most {MAX_PARAMS}")
    for key, value in params.items():
        if not isinstance(key, str) or not key.isidentifier() or len(key) > MAX_PARAM_CHARS:
            raise PluginError(f"strategy {ref}: {shown(key)} is not a parameter name")
        problem = check_param_value(value)
        if problem:
            raise PluginError(f"strategy {ref}: parameter {key}: {problem}")


def check_param_value(value: Any) -> str | None:
    """What is wrong with one parameter value (see :func:`check_params`), or None."""
    budget = [MAX_PARAM_ITEMS]

    def problem(item: Any, depth: int) -> str | None:
        budget[0] -= 1
        if budget[0] < 0:
            return f"more than {MAX_PARAM_ITEMS:,} values in one parameter"
        if item is None or type(item) is bool:
            return None
        if type(item) is int:
            if abs(item) > MAX_PARAM_INT:
                return f"{shown(item, 40)} is out of range (at most 2**53 = {MAX_PARAM_INT:,})"
            return None
        if type(item) is float:
            if not math.isfinite(item) or abs(item) > MAX_PARAM_FLOAT:
                return f"{shown(item)} is out of range (a finite number up to {MAX_PARAM_FLOAT:g})"
            return None
        if type(item) is str:
            if len(item) > MAX_PARAM_CHARS:
                return f"a string of {len(item):,} characters; at most {MAX_PARAM_CHARS}"
            return None
        if isinstance(item, (list, tuple, dict)):
            if depth >= MAX_PARAM_DEPTH:
                return f"nested more than {MAX_PARAM_DEPTH} deep"
            if isinstance(item, dict):
                for k, v in dict.items(item):
                    if type(k) is not str:
                        return f"a mapping key {shown(k, 40)}; keys are strings"
                    found = problem(k, depth + 1) or problem(v, depth + 1)
                    if found:
                        return found
                return None
            for v in list.__iter__(item) if isinstance(item, list) else tuple.__iter__(item):
                found = problem(v, depth + 1)
                if found:
                    return found
            return None
        return (
            f"a {type_name(item)} is not a plain value "
            "(number, string, true/false, null, list, mapping)"
        )

    return problem(value, 0)
