"""harness.stats as a room: the ground floor (imports nothing above it), one face for
every public name, and the one running SPRT (status, summary, its LLR kept in step)."""

from __future__ import annotations

import ast
import dataclasses
import inspect
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from harness import stats
from harness.stats import elo, intervals, luck, ratings, sequential, sequential_cs, stagewise

pytestmark = pytest.mark.interpreter

STATS_DIR = Path(stats.__file__).parent
SUBMODULES = (intervals, elo, ratings, sequential, luck, sequential_cs, stagewise)
# What the ground floor may import besides the standard library: numeric libraries, itself,
# and the two harness modules below every room (rules, errors).
ALLOWED = ("numpy", "scipy", "harness.stats", "harness.errors", "harness.rules")


def imported_modules(path: Path) -> set[str]:
    """Every absolute module a file imports, at the top or inside a function."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.add(node.module)
            if node.module == "harness":  # from harness import x: the module harness.x
                found.update(f"harness.{alias.name}" for alias in node.names)
    return found


def test_imported_modules_sees_late_and_from_imports(tmp_path):
    # The checker below must be able to fail: a late import inside a function counts.
    probe = tmp_path / "probe.py"
    probe.write_text("import math\ndef f():\n    from harness import report\n", encoding="utf-8")
    assert {"math", "harness", "harness.report"} <= imported_modules(probe)


@pytest.mark.parametrize("path", sorted(STATS_DIR.glob("*.py")), ids=lambda p: p.name)
def test_the_ground_floor_imports_nothing_above_it(path):
    for name in imported_modules(path):
        top = name.split(".")[0]
        if top in sys.stdlib_module_names or name == "harness":
            continue
        assert name.startswith(ALLOWED), f"{path.name} imports {name}"


def test_importing_stats_loads_no_other_room():
    code = (
        "import json, sys, harness.stats\n"
        "print(json.dumps(sorted(m for m in sys.modules if m.startswith(('harness', 'pandas',"
        " 'scipy')))))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    loaded = json.loads(out.stdout)
    # scipy is slow to import: only on first use of a t quantile or a root finder
    assert loaded and all(m == "harness" or m.startswith("harness.stats") for m in loaded), loaded


def public_names(module) -> list[str]:
    """What a submodule defines for others: its functions, classes and constants."""
    names = []
    for name, value in vars(module).items():
        if name.startswith("_") or isinstance(value, type(stats)):
            continue
        if callable(value):
            if getattr(value, "__module__", None) == module.__name__:
                names.append(name)  # defined here, not imported
        elif name.isupper():
            names.append(name)
    return names


def test_the_face_has_every_public_name_of_every_module():
    assert "Moments" in public_names(intervals) and "NAN" in public_names(intervals)
    assert "dataclass" not in public_names(intervals)  # imported, not its own
    for module in SUBMODULES:
        for name in public_names(module):
            assert getattr(stats, name) is getattr(module, name), f"harness.stats.{name}"
            assert name in stats.__all__, name


def test_the_face_names_only_what_exists():
    assert len(stats.__all__) == len(set(stats.__all__))
    for name in stats.__all__:
        assert any(name in public_names(m) for m in SUBMODULES), name
    assert not hasattr(stats, "block_score")  # dead code, removed
    assert not hasattr(stats.ChoiceData, "merge")


# -- the running test ---------------------------------------------------------------------
def test_llr_follows_counts_changed_in_place():
    test = stats.Sprt(elo0=0, elo1=10)
    assert test.llr == 0.0 and test.status == "continue"
    test.add(0.75, 500)
    first = test.llr
    assert first == pytest.approx(stats.sprt_llr(test.counts, 0, 10))
    test.counts += np.array([0, 400, 0, 0, 0])  # in place, not through add
    assert test.llr == pytest.approx(stats.sprt_llr(test.counts, 0, 10))
    assert test.llr < first


def test_llr_follows_changed_hypotheses():
    test = stats.Sprt(elo0=0, elo1=10)
    test.add(0.75, 300)
    test.add(0.25, 200)
    before = test.llr
    test.elo1 = 40
    assert test.llr == pytest.approx(stats.sprt_llr(test.counts, 0, 40)) != before


@pytest.mark.parametrize(
    "outcomes, status",
    [
        (((0.75, 800), (0.5, 1000), (0.25, 400)), "H1"),
        (((0.0, 100), (0.25, 600), (0.5, 1600), (0.75, 600), (1.0, 100)), "H0"),
        (((0.75, 3), (0.5, 2)), "continue"),
    ],
)
def test_status_is_the_llr_against_the_bounds(outcomes, status):
    test = stats.Sprt()
    for score, n in outcomes:
        test.add(score, n)
    assert test.status == status
    llr = stats.sprt_llr(test.counts, test.elo0, test.elo1)
    lower, upper = stats.sprt_bounds(test.alpha, test.beta)
    assert (llr >= upper, llr <= lower) == (status == "H1", status == "H0")


def test_summary_is_the_test_itself():
    test = stats.Sprt(games_per_deal=4)
    test.add(5 / 8, 30)
    test.add(3 / 8, 10)
    summary = test.summary()
    assert summary["status"] == test.status and summary["llr"] == test.llr
    assert (summary["lower"], summary["upper"]) == stats.sprt_bounds(0.05, 0.05)
    assert summary["deals"] == 40 and summary["games"] == 160
    assert (summary["elo"], summary["elo_low"], summary["elo_high"]) == stats.deal_elo(test.counts)
    assert summary["counts"] == [0, 0, 0, 10, 0, 30, 0, 0, 0]
    assert all(type(c) is int for c in summary["counts"])  # JSON-ready
    json.dumps(summary)


# -- one word: deal -----------------------------------------------------------------------
def test_the_old_names_of_a_deal_are_gone():
    """A deal is called a deal (harness.game.seating): the old names (block, units) are gone."""
    for old in ("block_elo", "block_outcomes"):
        assert not hasattr(stats, old), old
    assert [f.name for f in dataclasses.fields(stats.Sprt)][4] == "games_per_deal"
    with pytest.raises(TypeError):
        stats.Sprt(games_per_block=4)  # type: ignore[call-arg]
    with pytest.raises(TypeError):
        stats.Moments(units=3)  # type: ignore[call-arg]
    assert not hasattr(stats.Sprt(), "blocks") and not hasattr(stats.Moments(), "units")
    m = stats.Moments.of([1, 0, 1], [2, 2, 2])
    with pytest.raises(TypeError):
        stats.share_interval(m, blocks=True)  # type: ignore[call-arg]
    assert stats.share_interval(m, by_deal=True) == stats.share_interval(m, True)
    assert stats.share_se(m, by_deal=False) == stats.share_se(m, False)
    for module in (stats, *SUBMODULES):
        text = inspect.getsource(module).lower()
        assert "block" not in text, module.__name__


def test_a_deal_score_off_the_grid_is_refused_in_deal_words():
    test = stats.Sprt(games_per_deal=3)
    assert stats.deal_outcomes(3).tolist() == [k / 6 for k in range(7)]
    test.add(1 / 6)
    with pytest.raises(ValueError, match="^deal score 0.25 is not a possible outcome$"):
        test.add(0.25)
    with pytest.raises(ValueError, match="one count per deal outcome"):
        stats.sprt_llr([1, 2], 0, 10)
    assert test.deals == 1 and test.games == 3
