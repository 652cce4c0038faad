"""``harness compare`` says the same about every difference in every output (issue 30, item 5).

The terminal, ``--json``, compare.md and compare.html carry one verdict per tested
difference (raw, luck-adjusted, head to head): ``*`` significant after Holm's adjustment,
``°`` a 95% interval that excludes 0 without it, nothing otherwise; the luck-adjusted
differences and the share of the pairs they adjust are in every output; a config folder's
runs are each compared with the run before. Real runs on the Python engine (a few hundred
games each, about a second); ``luck: auto`` keeps the account only at the tables with
``optimal``, so the adjusted figures rest on part of the games.
"""

from __future__ import annotations

import html
import json
import re
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

import harness.stats
from harness.cli import main
from harness.report import cached_summary
from harness.report.comparisons.compare import compare
from harness.report.pages.render import pct
from harness.tourney import run_tournament

WIDE = {"COLUMNS": "250"}  # every column on the terminal: nothing folded or left out
MEASURES = {"win_share": "Win share", "worms": "Mean worms"}


def _config(target: int) -> dict:
    mine = {"strategy": "threshold", "name": "mine", "params": {"target": target}}
    return {
        "name": "agree",
        "entrants": [mine, "greedy", "optimal"],
        "deals": 30,
        "seed": 5,
        "luck": "auto",
        "engine": "python",
        "workers": 0,
    }


@pytest.fixture(scope="module")
def history(tmp_path_factory) -> tuple[Path, list[Path]]:
    """Three runs of one config, "mine" edited before each (target 24, 29, 26)."""
    out = tmp_path_factory.mktemp("agree")
    made = []
    for target in (24, 29, 26):
        made.append(run_tournament(_config(target), out=out).run_dir)
        time.sleep(0.01)  # distinct run.json times: the newest is the last played
    return out / "agree", made


def _compare(*args: str, env: dict | None = None) -> tuple[str, str, str, dict]:
    """The terminal's text, compare.md, compare.html and compare.json (what --json
    prints) of one comparison; the last argument is its --out folder."""
    out = Path(args[-1])
    text = CliRunner().invoke(main, ["compare", *args], env=env or WIDE)
    assert text.exit_code == 0, text.output
    md = (out / "compare.md").read_text(encoding="utf-8")
    page = (out / "compare.html").read_text(encoding="utf-8")
    return text.output, md, page, json.loads((out / "compare.json").read_text())


@pytest.fixture(scope="module")
def newest(history, tmp_path_factory) -> tuple[str, str, str, dict]:
    """The config folder compared as a user first does: its newest run against the one
    before, on a wide terminal."""
    folder, _ = history
    return _compare(str(folder), "--out", str(tmp_path_factory.mktemp("newest")))


def mark_of(cell: str) -> str:
    """The mark a shown difference carries: ``*``, ``°`` or ``""``."""
    cell = cell.strip().replace("\\*", "*")
    return cell[-1] if cell.endswith((" *", " °")) else ""


def expected(cell: dict | None) -> str:
    """The mark the comparison's verdict asks for."""
    return {"significant": "*", "interval only": "°"}.get((cell or {}).get("verdict"), "")


def terminal_rows(text: str, heading: str) -> list[list[str]]:
    """The rows of the terminal table under ``heading`` (cells split at 2+ spaces)."""
    lines = text.split(heading, 1)[1].splitlines()[1:]
    rows = []
    for line in lines[2:]:  # header, rule
        if not line.startswith("  ") or line.startswith("  -"):
            break
        rows.append(re.split(r"\s{2,}", line.strip()))
    return rows


def md_rows(md: str, heading: str) -> list[list[str]]:
    section = md.split(f"## {heading}", 1)[1].split("\n## ")[0]
    lines = [x for x in section.splitlines() if x.startswith("| ")]
    return [[c.strip() for c in x.strip().strip("|").split("|")] for x in lines[1:]]


def html_rows(page: str, heading: str) -> list[list[str]]:
    section = page.split(f"<h2>{html.escape(heading)}", 1)[1].split("<h2>")[0]
    body = section.split("<tbody>", 1)[1].split("</tbody>")[0]
    return [
        [html.unescape(c).strip() for c in re.findall(r"<td[^>]*>(.*?)</td>", row)]
        for row in re.findall(r"<tr>(.*?)</tr>", body)
    ]


def _by_key(rows: list[list[str]]) -> dict[tuple[str, str], list[str]]:
    return {(r[0], r[1]): r for r in rows}


@pytest.mark.parametrize("key", list(MEASURES))
def test_every_output_carries_the_same_verdicts_and_luck_adjusted_differences(newest, key):
    text, md, page, data = newest
    heading = f"{MEASURES[key]}: "
    outputs = [
        _by_key(terminal_rows(text, heading)),
        _by_key(md_rows(md, heading)),
        _by_key(html_rows(page, heading)),
    ]
    checked = 0
    for s in data["strategies"]:
        for d in s["diffs"]:
            row_key = (s["strategy"], f"{d['run']} − {d['base']}")
            rows = [o[row_key] for o in outputs]
            # raw difference: cell 2; luck-adjusted: cell 4; adj. on: cell 6
            assert {mark_of(r[2]) for r in rows} == {expected(d[key])}, rows
            luck = d[key].get("luck_adjusted")
            assert luck, "the runs kept the account at optimal's tables"
            assert {mark_of(r[4]) for r in rows} == {expected(luck)}, rows
            assert {r[6] for r in rows} == {pct(luck["accounted"], 0)}, rows
            checked += 1
    assert checked == len(data["strategies"])


def test_a_difference_whose_interval_excludes_zero_is_marked_everywhere(
    history, tmp_path, monkeypatch
):
    """Holm made very strict: no difference is significant after it, so every one whose
    95% interval excludes 0 must carry the ° mark, in every output and in the focus's
    head-to-head table too; a difference whose interval holds 0 carries none."""
    monkeypatch.setattr(harness.stats, "holm", lambda ps: [min(1.0, p * 1e9) for p in ps])
    _, made = history
    args = (str(made[0]), str(made[1]), "--focus", "mine", "--out", str(tmp_path / "c"))
    text, md, page, data = _compare(*args)
    marked = 0
    for key, measure in MEASURES.items():
        shown = [_by_key(f(x, f"{measure}: ")) for f, x in ((terminal_rows, text), (md_rows, md))]
        shown.append(_by_key(html_rows(page, f"{measure}: ")))
        for s in data["strategies"]:
            d = s["diffs"][0]
            cells = [o[(s["strategy"], "B − A")][2] for o in shown]
            cell = d[key]
            if d["identical"] or cell.get("low") is None:
                continue
            excludes = cell["low"] > 0 or cell["high"] < 0
            assert {mark_of(c) for c in cells} == ({"°"} if excludes else {""}), cells
            marked += excludes
    pairs = [p for p in data["head_to_head"] if "mine" in (p["a"], p["b"])]
    focus = _by_key(terminal_rows(text, "mine's head to head"))
    for p in pairs:
        d = p["diffs"][0]
        other = p["b"] if p["a"] == "mine" else p["a"]
        if d["identical"]:
            continue
        excludes = d["low"] > 0 or d["high"] < 0
        assert mark_of(focus[(other, "B − A")][4]) == ("°" if excludes else "")
        marked += excludes
    assert marked, "the edit changed something clearly"
    legend = text.split("° after a difference", 1)[1]
    assert "not once the tests of its family are allowed for" in legend


def test_the_legend_says_what_the_mark_means_in_each_column(newest):
    text, md, _, data = newest
    for shown in (text, md):
        flat = " ".join(shown.split()).replace("\\*", "*")
        assert f"among the {data['tests']} tests of win share, mean worms and head to head" in flat
        assert f"in the luck-adjusted columns among the {data['luck_tests']}" in flat


def test_compare_html_names_the_pairs_not_the_runs_letters(newest):
    _, _, page, _ = newest
    assert "A ahead of B" not in page
    rows = html_rows(page, "Shared head to head")
    assert {r[0] for r in rows} >= {"mine ahead of greedy", "mine ahead of optimal"}


def test_a_config_folders_runs_are_each_compared_with_the_one_before(history, tmp_path):
    folder, made = history
    _, _, _, data = _compare(str(folder), "--last", "3", "--out", str(tmp_path / "c"))
    assert [r["run_id"] for r in data["runs"]] == [p.name for p in made]
    assert data["against"] == "previous"
    mine = next(s for s in data["strategies"] if s["strategy"] == "mine")
    assert [(d["run"], d["base"]) for d in mine["diffs"]] == [("B", "A"), ("C", "B")]
    # the newest against the previous is what a comparison of those two alone says
    alone = compare([cached_summary(made[1]), cached_summary(made[2])])
    last = next(s for s in alone["strategies"] if s["strategy"] == "mine")["diffs"][0]
    assert mine["diffs"][1]["win_share"]["diff"] == pytest.approx(last["win_share"]["diff"])
    assert mine["diffs"][1]["win_share"]["low"] == pytest.approx(last["win_share"]["low"])
    # and each against the first on request
    first = compare([cached_summary(p) for p in made], against="first")
    mine = next(s for s in first["strategies"] if s["strategy"] == "mine")
    assert [(d["run"], d["base"]) for d in mine["diffs"]] == [("B", "A"), ("C", "A")]


def test_runs_named_one_by_one_are_each_compared_with_the_first(history, tmp_path):
    _, made = history
    args = [str(p) for p in made] + ["--out", str(tmp_path / "c")]
    text, _, _, data = _compare(*args)
    assert data["against"] == "first"
    assert "Each run is compared with run A." in text
