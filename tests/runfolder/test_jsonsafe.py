"""harness.jsonsafe.json_safe: the one JSON-cleaning rule (issue 13 item 6).

Every guarantee attacked: nan and infinities wherever they hide (nested, in tuples, as
numpy scalars), -0.0, Fractions, numpy integers; what must pass through untouched; the
input left as it was; and the module on the ground floor (it imports nothing of harness).
"""

from __future__ import annotations

import ast
import json
import math
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

from harness.jsonsafe import json_safe

pytestmark = pytest.mark.interpreter

SOURCE = Path(__file__).resolve().parents[2] / "harness" / "jsonsafe.py"


@pytest.mark.parametrize("bad", [math.nan, math.inf, -math.inf, np.float64("nan"), np.inf])
def test_non_finite_floats_become_null_at_any_depth(bad):
    value = {"a": bad, "b": [1.0, (bad, {"c": bad})], "d": {"e": {"f": [bad]}}}
    cleaned = json_safe(value)
    assert cleaned == {"a": None, "b": [1.0, [None, {"c": None}]], "d": {"e": {"f": [None]}}}
    text = json.dumps(cleaned, allow_nan=False)  # strict JSON: raises on nan or inf
    assert "NaN" not in text and "Infinity" not in text


def test_negative_zero_is_written_as_zero():
    assert json.dumps(json_safe({"x": -0.0, "y": [-0.0]})) == '{"x": 0.0, "y": [0.0]}'
    assert math.copysign(1.0, json_safe(-0.0)) == 1.0
    assert json.dumps(json_safe(np.float64(-0.0))) == "0.0"


def test_fractions_become_floats():
    assert json_safe(Fraction(1, 3)) == 1 / 3
    assert type(json_safe(Fraction(1, 3))) is float
    assert json_safe({"p": [Fraction(1, 2)]}) == {"p": [0.5]}
    assert type(json_safe(Fraction(4, 2))) is float  # a whole Fraction too: a float, not 2


def test_numpy_scalars_become_python_numbers():
    cleaned = json_safe({"i": np.int64(7), "f": np.float32(0.5), "g": [np.float64(2.5)]})
    assert cleaned == {"i": 7, "f": 0.5, "g": [2.5]}
    assert type(cleaned["i"]) is int
    assert type(cleaned["f"]) is float and type(cleaned["g"][0]) is float
    assert json_safe(np.float32("nan")) is None
    json.dumps(cleaned)  # np.int64 alone would make json.dumps raise


def test_the_rest_passes_through_unchanged():
    for value in (0, -3, 2**70, True, False, None, "nan", "", 1.5, 0.0):
        assert json_safe(value) == value
        assert type(json_safe(value)) is type(value)
    assert json_safe({1: "a", "k": True}) == {1: "a", "k": True}  # keys are left as they are


def test_the_input_is_not_changed():
    value = {"a": [math.nan, -0.0], "b": (math.inf,)}
    json_safe(value)
    assert math.isnan(value["a"][0]) and math.copysign(1.0, value["a"][1]) == -1.0
    assert value["b"] == (math.inf,)


def test_same_json_as_the_helpers_it_replaces():
    # The report's nan_to_none and sprt's json_safe wrote this text for these values.
    value = {"elo": math.inf, "low": -math.inf, "mid": math.nan, "n": np.int64(3), "ok": 0.25}
    assert json.dumps(json_safe(value)) == (
        '{"elo": null, "low": null, "mid": null, "n": 3, "ok": 0.25}'
    )


def test_on_the_ground_floor():
    tree = ast.parse(SOURCE.read_text(encoding="utf-8"))
    imported = {
        alias.name if isinstance(node, ast.Import) else node.module
        for node in ast.walk(tree)
        if isinstance(node, ast.Import | ast.ImportFrom)
        for alias in node.names
    }
    assert not any(name.startswith(("harness", "numpy")) for name in imported), imported
