"""harness compare: what runs share, what differs, and which differences are significant."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner
from run_builders import play_run, row, write_run

from harness.cli import main
from harness.report import cached_summary, summarise_run, write_report
from harness.report.api import summary_digest
from harness.report.comparisons.compare import compare
from harness.rules import Rules


def lopsided(folder, a_wins: int, deals: int = 200, **kw):
    """A run of a vs b where a wins ``a_wins`` games of every 4 (two deals)."""
    rows = []
    for d in range(deals):
        for r in range(2):
            seats = ["a", "b"] if r == 0 else ["b", "a"]
            a_won = (2 * d + r) % 4 < a_wins
            worms = [6, 2] if (seats[0] == "a") == a_won else [2, 6]
            rows.append(row("t", d, r, seats, worms))
    return write_run(folder, rows, **kw)


def test_a_real_difference_is_significant_and_no_difference_is_not(tmp_path):
    base = summarise_run(lopsided(tmp_path / "a", 3))
    better = summarise_run(lopsided(tmp_path / "b", 1))
    same = summarise_run(lopsided(tmp_path / "c", 3))
    result = compare([base, better, same])
    assert result["shared"] == ["a", "b"] and result["baseline"] == "A"
    row_a = next(s for s in result["strategies"] if s["strategy"] == "a")
    vs_b, vs_c = row_a["diffs"]
    assert vs_b["win_share"]["diff"] == pytest.approx(0.25 - 0.75)
    assert vs_b["win_share"]["significant"] is True
    assert vs_c["win_share"]["diff"] == 0 and vs_c["win_share"]["significant"] is False
    assert result["differences"] == []
    assert vs_b["paired"] and vs_b["shared_deals"] == 200 and not vs_b["identical"]
    assert vs_c["identical"] and vs_c["win_share"]["p_holm"] is None  # equal rows: no test
    # strategies x measures of run B + B's head-to-head pair; C's games are identical, its
    # pair too (paired like the strategies' rows, issue 19): exactly 0, not tested
    assert result["tests"] == 2 * 2 + 1
    pair_c = result["head_to_head"][0]["diffs"][1]
    assert pair_c["identical"] and pair_c["paired"] and pair_c["p_holm"] is None


def test_runs_with_different_rules_and_entrants_compare_on_what_they_share(tmp_path):
    first = play_run(tmp_path / "x" / "1", ["greedy", "random", "worm-first"], deals=4)
    second = play_run(
        tmp_path / "x" / "2",
        ["greedy", "random", "threshold(target=28)"],
        deals=4,
        seed=5,
        rules=Rules(players=2, lower_tile="any"),
    )
    result = compare([summarise_run(first), summarise_run(second)])
    assert result["shared"] == [
        n for n in ("greedy", "random", "worm-first") if n in result["shared"]
    ]
    assert set(result["shared"]) == {"greedy", "random"}
    assert set(result["not_shared"]) == {"worm-first", "threshold(target=28)"}
    text = " | ".join(result["differences"])
    assert "rule lower_tile differs (A: highest, B: any)" in text
    assert "entrant worm-first is not in run B" in text
    assert "entrant threshold(target=28) is not in run A" in text
    assert [p["a"] for p in result["head_to_head"]] and all(
        {p["a"], p["b"]} <= {"greedy", "random"} for p in result["head_to_head"]
    )


def test_changed_code_is_reported(tmp_path):
    one = lopsided(tmp_path / "1", 2, deals=5)
    two = lopsided(tmp_path / "2", 2, deals=5)
    config = json.loads((two / "run.json").read_text())
    config["entrants"][0]["code"] = "changed"
    (two / "run.json").write_text(json.dumps(config))
    result = compare([summarise_run(one), summarise_run(two)])
    assert "entrant a: code digest differs (A: x, B: changed)" in result["differences"]


def test_cached_summary_is_used_only_while_current(tmp_path):
    run = lopsided(tmp_path / "r", 2, deals=5)
    write_report(run, plots=False)
    data = json.loads((run / "report.json").read_text())
    data["games"]["stored"] = -1  # a marker: the cache is what came back
    data["digest"] = summary_digest(data)  # sealed again, as if written so
    (run / "report.json").write_text(json.dumps(data))
    assert cached_summary(run)["games"]["stored"] == -1
    lopsided(tmp_path / "r", 2, deals=6)  # new games: the cache is stale
    assert cached_summary(run)["games"]["stored"] == 12


def test_a_damaged_or_edited_report_json_is_never_served(tmp_path):
    """report.json is a cache of numbers that compare serves without the games: one bit
    flipped in a win share, an edit, a missing digest or junk in it gives the numbers
    computed from the games, never the cache's."""
    run = lopsided(tmp_path / "r", 2, deals=5)
    truth = write_report(run, plots=False).summary
    assert cached_summary(run) == json.loads(json.dumps(truth))  # whole: served as is
    path = run / "report.json"
    good = path.read_bytes()
    share = json.dumps(truth["standings"][0]["win_share"]).encode()
    at = good.index(share)
    flipped = bytearray(good)
    flipped[at + len(share) - 1] ^= 0x01  # the last digit: still a number, still JSON
    data = json.loads(bytes(flipped))
    assert data["standings"][0]["win_share"] != truth["standings"][0]["win_share"]
    marked = json.loads(good)
    marked["games"]["stored"] = -1  # a marker: seen only if the cache came back
    edited = dict(marked, digest=json.loads(good)["digest"])  # the old digest
    unsealed = {k: v for k, v in marked.items() if k != "digest"}
    forged = dict(marked, digest="0" * 64)
    resealed = dict(marked, digest=summary_digest(marked))  # the control: served
    for damage in (bytes(flipped), *(json.dumps(d).encode() for d in (edited, unsealed, forged)),
                   b"[1, 2]", good[: len(good) // 2]):  # fmt: skip
        path.write_bytes(damage)
        got = cached_summary(run)
        assert got["standings"] == truth["standings"], damage[:80]
        assert got["games"]["stored"] == truth["games"]["stored"] and "digest" not in got
    path.write_text(json.dumps(resealed))
    assert cached_summary(run)["games"]["stored"] == -1
    path.write_bytes(good)
    assert cached_summary(run)["standings"] == truth["standings"]


def test_compare_command(tmp_path):
    a = lopsided(tmp_path / "cfg" / "a", 3)
    b = lopsided(tmp_path / "cfg" / "b", 1)
    out = tmp_path / "cmp"
    result = CliRunner().invoke(main, ["compare", str(a), str(b), "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert "What differs: nothing" in result.output and " *" in result.output
    for name in ("compare.md", "compare.html", "compare.json", "compare.png", "compare_diffs.png"):
        assert (out / name).stat().st_size > 0
    md = (out / "compare.md").read_text()
    assert "Shared strategies" in md and "nan" not in md.lower()
    result = CliRunner().invoke(main, ["compare", str(a), str(b), "--json", "--out", str(out)])
    assert json.loads(result.output)["shared"] == ["a", "b"]


def test_compare_command_mistakes(tmp_path):
    a = lopsided(tmp_path / "a", 3, deals=3)
    result = CliRunner().invoke(main, ["compare", str(a)])
    assert result.exit_code == 2 and "give two runs to compare" in result.output
    result = CliRunner().invoke(main, ["compare", str(a), str(a)])
    assert result.exit_code == 2 and "the same run is given twice" in result.output
    result = CliRunner().invoke(main, ["compare", str(a), str(tmp_path / "missing")])
    assert result.exit_code == 2 and "no such folder" in result.output
    assert "Traceback" not in result.output


def test_runs_sharing_nothing(tmp_path):
    one = write_run(tmp_path / "1", [row("t", 0, r, ["a", "b"], [3, 1]) for r in range(2)])
    two = write_run(tmp_path / "2", [row("t", 0, r, ["c", "d"], [3, 1]) for r in range(2)])
    result = compare([summarise_run(one), summarise_run(two)])
    assert result["shared"] == [] and result["strategies"] == []
    out = tmp_path / "cmp"
    cli = CliRunner().invoke(main, ["compare", str(one), str(two), "--out", str(out)])
    assert cli.exit_code == 0 and "share no strategy" in cli.output
