"""harness.sprt as a room: its face, the arrows in and out of it, the config checker's
public face it resolves strategies with, and a tally that is the running test's."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from test_stats_package import imported_modules  # one reader of import lines

import harness
import harness.sprt
from harness.errors import ConfigError
from harness.sprt.experiment import ChunkScores, Tally, make_setup, run_sprt
from harness.stats import sprt_llr
from harness.tourney.config import load_config, resolve_entrant

pytestmark = pytest.mark.interpreter

ROOT = Path(harness.__file__).parent


def test_imported_modules_sees_late_imports(tmp_path):
    probe = tmp_path / "probe.py"
    probe.write_text("def f():\n    import harness.commands.sprt\n", encoding="utf-8")
    assert "harness.commands.sprt" in imported_modules(probe)


@pytest.mark.parametrize(
    "path",
    sorted((ROOT / "tourney").rglob("*.py")),  # its packages too (backends/, config/)
    ids=lambda p: str(p.relative_to(ROOT / "tourney")),
)
def test_tourney_never_imports_sprt(path):
    assert not [m for m in imported_modules(path) if m.startswith("harness.sprt")]


@pytest.mark.parametrize("path", sorted((ROOT / "sprt").glob("*.py")), ids=lambda p: p.name)
def test_sprt_never_imports_the_cli_group_or_the_report(path):
    for name in imported_modules(path):
        assert name != "harness.cli" and not name.startswith("harness.report"), name


def test_the_command_module_loads_neither_the_experiment_nor_scipy():
    code = (
        "import json, sys, harness.commands.sprt\n"
        "print(json.dumps(sorted(m for m in sys.modules if m.startswith(('harness', 'scipy',"
        " 'numpy')))))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    loaded = json.loads(out.stdout)
    assert "harness.commands.sprt" in loaded
    for heavy in ("harness.cli", "harness.sprt.experiment", "harness.stats", "scipy", "numpy"):
        assert heavy not in loaded


def test_the_face_gives_the_experiment():
    assert harness.sprt.make_setup is make_setup and harness.sprt.run_sprt is run_sprt
    assert harness.sprt.Tally is Tally
    for name in harness.sprt.__all__:
        assert getattr(harness.sprt, name) is not None
    with pytest.raises(AttributeError, match="no attribute 'chunk_scores'"):
        harness.sprt.chunk_scores  # noqa: B018 - not on the face: from .experiment


# -- the config checker's public face ----------------------------------------------------------
def test_resolve_entrant_is_a_config_entrant():
    config = load_config({"entrants": ["threshold(target=28)", "greedy"]})
    entrant = resolve_entrant("threshold(target=28)", "A")
    assert entrant == config.entrants[0]


@pytest.mark.parametrize(
    "ref, what, message",
    [
        ("gredy", "A", "A: unknown strategy 'gredy'; did you mean 'greedy'?"),
        ("threshold(tar=3)", "B", "B: strategy threshold: unknown parameter 'tar'"),
        ("nothere.py:Bot", "filler", "filler: "),
    ],
)
def test_resolve_entrant_mistakes_are_one_line_named_after_the_argument(ref, what, message):
    with pytest.raises(ConfigError) as caught:
        resolve_entrant(ref, what)
    text = str(caught.value)
    assert text.startswith(message) and "\n" not in text
    assert not text.startswith(f"{what}: {what}:")  # no source before the argument's name


def test_resolve_entrant_finds_a_file_beside_base_first(tmp_path, monkeypatch):
    (tmp_path / "here").mkdir()
    (tmp_path / "here" / "bot.py").write_text(
        "from harness.strategies.greedy import Greedy\n\n\nclass Bot(Greedy):\n    name = 'bot'\n",
        encoding="utf-8",
    )
    monkeypatch.chdir(tmp_path)
    with pytest.raises(ConfigError, match="^B: "):
        resolve_entrant("bot.py:Bot", "B")  # not in the cwd
    entrant = resolve_entrant("bot.py:Bot", "B", base=tmp_path / "here")
    assert entrant.load == f"{(tmp_path / 'here' / 'bot.py').resolve()}:Bot"


# -- the tally is the running test ------------------------------------------------------------
def parts(setup, points: list[int]) -> list[ChunkScores]:
    """One check's chunks (2 players: one seat order) with these half-points per deal."""
    assert len(setup.orders) == 1
    return [ChunkScores(points, [False] * len(points))]


@pytest.mark.parametrize(
    "points, status",
    [
        ([4] * 150, "H1"),  # A ahead in every game: the LLR crosses at the limit's check
        ([3, 1] * 75, "inconclusive"),  # no verdict by the limit
    ],
)
def test_tally_status_is_the_tests_until_the_limit(points, status):
    setup = make_setup("greedy", "simple", max_games=300)  # 3 checks of 50 deals
    tally = Tally(setup)
    assert tally.llr == 0.0 and tally.status == "continue"
    for check in range(3):
        assert tally.status == tally.sprt.status == "continue"
        tally.apply(parts(setup, points[50 * check : 50 * (check + 1)]))
    assert tally.deals == setup.max_deals
    assert tally.status == status
    assert tally.sprt.status == ("H1" if status == "H1" else "continue")
    assert (
        tally.llr
        == tally.sprt.llr
        == pytest.approx(sprt_llr(tally.sprt.counts, setup.elo0, setup.elo1))
    )


def test_tally_summary_carries_the_tests_own_numbers():
    setup = make_setup("greedy", "simple", max_games=400)
    tally = Tally(setup)
    tally.apply(parts(setup, [4, 2, 3, 1, 0] * 10))
    tally.capped = 7  # as if 7 more deals had been left out
    summary, test = tally.summary(), tally.sprt.summary()
    for key in ("llr", "lower", "upper", "elo", "elo_low", "elo_high", "counts"):
        assert summary[key] == test[key], key
    assert summary["verdict"] == test["status"] == "continue"
    assert summary["blocks_counted"] == test["deals"] == 50  # the JSON keeps "blocks"
    assert summary["blocks"] == 50 and summary["games"] == 100 and summary["blocks_capped"] == 7
    assert list(summary)[:4] == ["verdict", "llr", "lower", "upper"]  # the JSON's order
