"""harness report: aggregates, summaries, report files and the command, on small runs."""

from __future__ import annotations

import json
import re

import pytest
from click.testing import CliRunner
from run_builders import play_run, row, write_run

from harness import stats
from harness.cli import main
from harness.report import ReportError, summarise_run, write_report
from harness.report.summaries.aggregate import aggregate
from harness.runfolder import games as games_module
from harness.runfolder import reader as reader_module
from harness.runfolder.reader import find_run

PNG = b"\x89PNG\r\n\x1a\n"


def by_name(summary, name):
    return next(r for r in summary["standings"] if r["strategy"] == name)


def no_nan_shown(text: str) -> bool:
    return not re.search(r"\bnan\b|\binf\b|None", text, flags=re.IGNORECASE)


# -- exact numbers on hand-made runs -----------------------------------------------------
def two_player_rows():
    """Table a-b, 3 deals x 2 rotations; deal 2 rotation 1 hit the turn cap."""
    return [
        row("t1", 0, 0, ["a", "b"], [10, 4], busts=[2, 5], steals=[1, 0], stolen=[0, 1]),
        row("t1", 0, 1, ["b", "a"], [3, 8], busts=[4, 1], steals=[0, 2], stolen=[2, 0]),
        row("t1", 1, 0, ["a", "b"], [5, 9], busts=[3, 2]),
        row("t1", 1, 1, ["b", "a"], [6, 7], busts=[1, 1]),
        row("t1", 2, 0, ["a", "b"], [0, 0], ranks=[1, 1], busts=[6, 6]),  # shared
        row("t1", 2, 1, ["b", "a"], [2, 2], status="turn-cap", turns=1000),
    ]


def test_exact_standings_of_a_hand_made_run(tmp_path):
    run = write_run(tmp_path / "r", two_player_rows())
    s = summarise_run(run)
    assert s["games"]["stored"] == 6
    assert s["games"]["scored"] == 5 and s["games"]["turn_cap"] == 1
    assert s["games"]["shared_first"] == 1
    a, b = by_name(s, "a"), by_name(s, "b")
    # a won deal 0 twice, 1 of deal 1, half of the shared game: 3.5 of 5
    assert a["games"] == 5 and a["win_share"] == pytest.approx(3.5 / 5)
    assert b["win_share"] == pytest.approx(1.5 / 5)
    assert a["worms"] == pytest.approx((10 + 8 + 5 + 7 + 0) / 5)
    assert a["mean_rank"] == pytest.approx((1 + 1 + 2 + 1 + 1) / 5)
    assert a["steals"] == pytest.approx(3 / 5) and b["stolen"] == pytest.approx(3 / 5)
    # turns: 40 per game, seat 0 and seat 1 each get 20; busts of a: 2+1+3+1+6 = 13
    assert a["bust_rate"] == pytest.approx(13 / 100)
    assert a["turn_capped"] == 1 and b["turn_capped"] == 1
    assert a["place"] == 1 and b["place"] == 2
    # deals are the units: a's totals per deal are 2, 1, 0.5 of 2, 2, 1 games
    expected = stats.share_interval(stats.Moments.of([2, 1, 0.5], [2, 2, 1]), by_deal=True)
    assert (a["win_low"], a["win_high"]) == pytest.approx(expected)
    cell = next(c for c in s["head_to_head"]["pairs"] if c["a"] == "a")
    assert cell["games"] == 5 and cell["share"] == pytest.approx(3.5 / 5)
    assert s["turn_capped"]["by_table"] == {"t1": {"games": 1, "entrants": ["a", "b"]}}


def test_independent_dice_cluster_by_deal_too(tmp_path):
    """Independent dice of deal d are one stream per seat order, the same at every table:
    the deal is the unit in both modes, so the intervals are those of duplicate dice."""
    dup = summarise_run(write_run(tmp_path / "d", two_player_rows()))
    ind = summarise_run(write_run(tmp_path / "i", two_player_rows(), dice="independent"))
    a, b = by_name(ind, "a"), by_name(dup, "a")
    assert (a["win_low"], a["win_high"]) == pytest.approx((b["win_low"], b["win_high"]))
    assert (a["win_low"], a["win_high"]) != pytest.approx(stats.wilson(3.5, 5))
    assert a["units"] == 3  # deals, not games


def test_three_players_split_shared_wins_and_rate_with_plackett_luce(tmp_path):
    rows = []
    for deal in range(12):
        for rot in range(3):
            seats = [["x", "y", "z"][(i + rot) % 3] for i in range(3)]
            worms = {"x": 9, "y": 5 + deal % 3, "z": 2}
            w = [worms[s] for s in seats]
            if deal == 0:
                w = [7, 7, 1] if seats[2] == "z" else [7, 1, 7] if seats[1] == "z" else [1, 7, 7]
                ranks = [1 if v == 7 else 3 for v in w]
                rows.append(row("t", deal, rot, seats, w, ranks=ranks))
            else:
                rows.append(row("t", deal, rot, seats, w))
    s = summarise_run(write_run(tmp_path / "r", rows, players=3))
    x, y = by_name(s, "x"), by_name(s, "y")
    # deal 0: x and y share first place three times (half each); x wins all others
    assert x["win_share"] == pytest.approx((33 + 1.5) / 36)
    assert y["win_share"] == pytest.approx(1.5 / 36)
    assert s["ratings"]["model"].startswith("Plackett-Luce")
    assert x["elo"] > y["elo"] > by_name(s, "z")["elo"]
    assert [r["strategy"] for r in s["standings"]] == ["x", "y", "z"]
    seats = s["seats"]["overall"]
    assert sum(seat["share"] for seat in seats) == pytest.approx(1.0)


def test_results_do_not_depend_on_parts_or_batches(tmp_path, monkeypatch):
    one = play_run(tmp_path / "one", ["greedy", "random", "worm-first"], deals=6, parts=1)
    many = play_run(tmp_path / "many", ["greedy", "random", "worm-first"], deals=6, parts=5)
    expected = summarise_run(one)
    monkeypatch.setattr(games_module, "BATCH_ROWS", 5)  # deals split across batches
    got = summarise_run(many)
    for key in ("standings", "head_to_head", "seats", "worm_histogram", "games", "ratings"):
        assert _same(got[key], expected[key]), key


def _same(a, b) -> bool:
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, float) and isinstance(b, float):
        return a == pytest.approx(b, rel=1e-9, abs=1e-12)
    return a == b


def test_forfeits_are_scored_and_listed(tmp_path):
    rows = two_player_rows()[:4] + [
        row(
            "t1",
            2,
            0,
            ["a", "b"],
            [3, 6],
            ranks=[1, 2],
            status="forfeit",
            error="turn 3, seat 1 (b) raised ValueError in choose()",
            error_seat=1,
        ),
        row("t1", 2, 1, ["b", "a"], [1, 2]),
    ]
    s = summarise_run(write_run(tmp_path / "r", rows))
    assert s["games"]["forfeit"] == 1 and s["games"]["scored"] == 6
    (group,) = s["forfeits"]
    assert group["strategy"] == "b" and group["count"] == 1
    assert group["example"]["deal"] == 2 and group["example"]["seat"] == 1
    assert any("forfeit" in m for m in s["messages"])


# -- real games: report files -------------------------------------------------------------
@pytest.fixture(scope="module")
def played(tmp_path_factory):
    return play_run(
        tmp_path_factory.mktemp("runs") / "rr" / "run1",
        ["greedy", "random", "threshold(target=28)"],
        deals=10,
    )


def test_write_report_writes_every_file(played):
    report = write_report(played)
    assert report.markdown.read_text().startswith("# Tournament report")
    assert set(report.plots) == {
        "standings",
        "ratings",
        "head_to_head",
        "worms",
        "convergence",
        "seats",
    }
    for path in report.plots.values():
        assert path.parent == played / "plots"
        assert path.read_bytes().startswith(PNG) and path.stat().st_size > 10_000
    html = report.html.read_text()
    assert html.count('src="data:image/png;base64,') == 6
    assert "http://" not in html and "https://" not in html  # opens from disk alone
    md = report.markdown.read_text()
    assert "(plots/standings.png)" in md and "Bradley-Terry" in md
    assert no_nan_shown(md) and no_nan_shown(re.sub(r"base64,[^\"]+", "", html))
    data = json.loads(report.json.read_text())
    assert data["games"]["scored"] == 60
    assert not list(played.rglob(".*.tmp"))


def test_report_is_idempotent(played):
    first = write_report(played)
    before = {p: p.read_bytes() for p in (first.markdown, first.html, first.json)}
    before.update({p: p.read_bytes() for p in first.plots.values()})
    write_report(played)
    assert {p: p.read_bytes() for p in before} == before


def test_stale_plots_are_removed(tmp_path):
    run = play_run(tmp_path / "r", ["greedy", "random"], deals=3)
    (run / "plots").mkdir()
    (run / "plots" / "ratings.png").write_bytes(b"old")
    for part in (run / "games").glob("*.parquet"):
        part.unlink()
    report = write_report(run)
    assert report.plots == {} and not (run / "plots" / "ratings.png").exists()


def test_four_player_run_names_plackett_luce(tmp_path):
    run = play_run(
        tmp_path / "r",
        ["greedy", "random", "worm-first", "threshold(target=28)"],
        players=4,
        deals=3,
    )
    report = write_report(run)
    md = report.markdown.read_text()
    assert "Plackett-Luce on the full finishing orders of 4-player games" in md
    assert no_nan_shown(md)


# -- degenerate runs ---------------------------------------------------------------------
def test_empty_run(tmp_path):
    run = write_run(tmp_path / "r", [], entrants=["a", "b"])
    report = write_report(run)
    assert "no games yet" in report.markdown.read_text()
    assert report.plots == {}
    assert no_nan_shown(report.markdown.read_text())


def test_single_entrant(tmp_path):
    rows = [row("t", d, r, ["solo", "solo"], [d + r, 3]) for d in range(4) for r in range(2)]
    report = write_report(write_run(tmp_path / "r", rows))
    md = report.markdown.read_text()
    assert "Only one strategy (solo)" in md
    assert no_nan_shown(md)


def test_all_draw_table(tmp_path):
    rows = [
        row("t", d, r, [["a", "b"][r], ["b", "a"][r]], [0, 0], ranks=[1, 1])
        for d in range(5)
        for r in range(2)
    ]
    report = write_report(write_run(tmp_path / "r", rows))
    s = report.summary
    assert by_name(s, "a")["win_share"] == 0.5
    assert any("shared first place" in m for m in s["messages"])
    assert s["ratings"]["model"] is None
    assert no_nan_shown(report.markdown.read_text())


def test_only_unfinished_games(tmp_path):
    rows = [row("t", 0, r, ["a", "b"], [1, 1], status="turn-cap") for r in range(2)]
    report = write_report(write_run(tmp_path / "r", rows))
    assert "None of the 2 games finished" in report.markdown.read_text()


def test_tiny_run_warns_about_few_deals(tmp_path):
    rows = two_player_rows()[:2]
    s = write_report(write_run(tmp_path / "r", rows)).summary
    assert any("Few deals" in m for m in s["messages"])
    a = by_name(s, "a")
    assert a["win_low"] is None  # one deal: no interval, shown as a dash


# -- bad input ---------------------------------------------------------------------------
def test_bad_run_folders_fail_in_one_line(tmp_path):
    with pytest.raises(ReportError, match="no such folder"):
        aggregate(tmp_path / "missing")
    (tmp_path / "empty").mkdir()
    with pytest.raises(ReportError, match="not a run folder"):
        aggregate(tmp_path / "empty")
    bad = tmp_path / "bad"
    bad.mkdir()
    (bad / "run.json").write_text("{nope")
    with pytest.raises(ReportError, match=r"run.json: not valid JSON \(line 1"):
        aggregate(bad)
    (bad / "run.json").write_text(json.dumps({"players": 9}))
    with pytest.raises(ReportError, match="'players' must be"):
        aggregate(bad)


def test_corrupt_part_is_named(tmp_path):
    run = write_run(tmp_path / "r", two_player_rows())
    (run / "games" / "part-00009.parquet").write_bytes(b"PAR1 half written")
    with pytest.raises(ReportError, match=r"part-00009.parquet: not a readable Parquet file"):
        aggregate(run)


def test_temporary_files_are_ignored(tmp_path):
    run = write_run(tmp_path / "r", two_player_rows())
    (run / "games" / ".part-00001.parquet.tmp").write_bytes(b"partial")
    (run / "games" / ".part-00002.parquet").write_bytes(b"partial")
    assert aggregate(run).rows == 6


def test_schema_problems_are_named(tmp_path):
    rows = two_player_rows()
    run = write_run(tmp_path / "r", rows)
    df = __import__("pandas").read_parquet(run / "games")
    df.drop(columns=["seat1_rank"]).to_parquet(run / "games" / "part-00000.parquet")
    with pytest.raises(ReportError, match="missing column.*seat1_rank"):
        aggregate(run)
    df.assign(status="won").to_parquet(run / "games" / "part-00000.parquet")
    with pytest.raises(ReportError, match="unknown status 'won'"):
        aggregate(run)
    __import__("pandas").concat([df, df.iloc[:1]]).to_parquet(run / "games" / "part-00000.parquet")
    with pytest.raises(ReportError, match="stored twice"):
        aggregate(run)


def test_config_folder_means_its_newest_run(tmp_path):
    import os

    old = write_run(tmp_path / "cfg" / "old", two_player_rows())
    new = write_run(tmp_path / "cfg" / "new", two_player_rows())
    os.utime(old / "run.json", (1, 1))
    assert find_run(tmp_path / "cfg") == new


# -- the command -------------------------------------------------------------------------
def test_report_command(played):
    result = CliRunner().invoke(main, ["report", str(played)])
    assert result.exit_code == 0, result.output
    assert "Report: " in result.output and "greedy" in result.output
    result = CliRunner().invoke(main, ["report", str(played), "--json", "--no-plots"])
    data = json.loads(result.output)  # the numbers; the call above drew the charts
    assert data["run"]["players"] == 2 and len(data["standings"]) == 3


def test_report_command_errors_are_one_line(tmp_path):
    result = CliRunner().invoke(main, ["report", str(tmp_path / "nope")])
    assert result.exit_code != 0
    assert "Traceback" not in result.output
    run = write_run(tmp_path / "r", two_player_rows())
    (run / "games" / "part-00000.parquet").write_bytes(b"garbage")
    result = CliRunner().invoke(main, ["report", str(run)])
    assert result.exit_code == 2  # a damaged run folder is bad input, like a bad record
    assert (
        result.output.strip().startswith("Error:") and len(result.output.strip().splitlines()) == 1
    )


# -- the runner's manifest ---------------------------------------------------------------
def test_only_parts_in_the_manifest_are_results(tmp_path):
    rows = two_player_rows()[:4]
    run = write_run(tmp_path / "r", rows, parts=2, extra={"status": "running"})
    first, second = sorted((run / "games").glob("*.parquet"))
    entry = {"key": "k", "file": first.name, "bytes": first.stat().st_size}
    torn = json.dumps({"key": "k2", "file": second.name})  # no newline: a kill tore it
    (run / "manifest.jsonl").write_text(json.dumps(entry) + "\n" + torn)
    s = summarise_run(run)
    assert s["games"]["stored"] == 2
    assert any("not in the manifest" in m for m in s["messages"])
    assert any("not complete (status: running)" in m for m in s["messages"])
    entry["bytes"] += 1
    (run / "manifest.jsonl").write_text(json.dumps(entry) + "\n")
    s = summarise_run(run)
    assert s["games"]["stored"] == 0
    assert any("size differs from the manifest" in m for m in s["messages"])


def test_columns_reports_do_not_use_may_be_absent(tmp_path):
    import pandas as pd

    run = write_run(tmp_path / "r", two_player_rows())
    part = run / "games" / "part-00000.parquet"
    pd.read_parquet(part).drop(columns=["game_seed", "winner"]).to_parquet(part)
    assert aggregate(run).rows == 6


# -- reading whole deals of every table (issue 10) -----------------------------------------
THREE = ["greedy", "random", "worm-first"]


def test_batches_hold_whole_deals_of_every_table(tmp_path):
    run = play_run(tmp_path / "r", THREE, deals=9, parts=3)
    assert len(list((run / "games").glob("*-000000003.parquet"))) == 3  # one per table
    info = reader_module.open_run(run)
    seen: set[int] = set()
    cols = games_module.read_columns(2, "main")
    frames = list(games_module.iter_games(info, cols, batch_rows=5))
    assert len(frames) > 3  # several batches per group of parts
    for f in frames:
        sizes = f.groupby("deal").size()
        assert (sizes == 3 * 2).all()  # every table, both seat orders
        assert not seen & set(sizes.index)
        seen |= set(sizes.index)
    assert seen == set(range(9))


def test_a_missing_part_leaves_its_deals_incomplete_not_wrong(tmp_path, monkeypatch):
    run = play_run(tmp_path / "r", THREE, deals=9, parts=3)
    part = sorted((run / "games").glob("*-000000003.parquet"))[0]
    part.unlink()
    import pandas as pd

    rest = pd.concat([pd.read_parquet(p) for p in sorted((run / "games").glob("*.parquet"))])
    whole = write_run(tmp_path / "one", rest.to_dict("records"), entrants=THREE)
    monkeypatch.setattr(games_module, "BATCH_ROWS", 4)
    got, expected = summarise_run(run), summarise_run(whole)
    for key in ("standings", "head_to_head", "seats", "ratings"):
        assert _same(got[key], expected[key]), key
    assert by_name(got, "greedy")["units"] == 9


def test_rows_out_of_deal_order_and_odd_chunks_give_the_same_results(tmp_path, monkeypatch):
    import pandas as pd

    run = play_run(tmp_path / "r", THREE, deals=8, parts=2)
    expected = summarise_run(run)
    rows = pd.read_parquet(run / "games").sample(frac=1.0, random_state=1)  # shuffled
    odd = write_run(tmp_path / "odd", rows.to_dict("records"), parts=7, entrants=THREE)
    monkeypatch.setattr(games_module, "BATCH_ROWS", 3)
    got = summarise_run(odd)
    for key in ("standings", "head_to_head", "seats", "ratings"):
        assert _same(got[key], expected[key]), key


def test_old_parts_with_a_rotation_column_are_read_as_seating(tmp_path):
    import pandas as pd

    run = play_run(tmp_path / "r", THREE, deals=4, parts=1, seating="cyclic")
    expected = summarise_run(run)
    config = json.loads((run / "run.json").read_text())
    del config["seating"], config["design"]  # a run of schema 2: cyclic rotations
    (run / "run.json").write_text(json.dumps(config))
    for part in (run / "games").glob("*.parquet"):
        pd.read_parquet(part).rename(columns={"seating": "rotation"}).to_parquet(part)
    got = summarise_run(run)
    for key in ("standings", "head_to_head", "seats", "ratings", "tables"):
        assert _same(got[key], expected[key]), key


def test_design_from_run_json_orders_the_tables_entrants(tmp_path):
    rows = [row("t", d, k, [["b", "a"], ["a", "b"]][k], [3, 1]) for d in range(3) for k in (0, 1)]
    run = write_run(tmp_path / "r", rows, extra={"design": [[1, 0], [0, 1]]})
    assert aggregate(run).tables == {"t": ["a", "b"]}  # order 0 seats entrant 1 first
    bad = write_run(tmp_path / "bad", rows, extra={"design": [[0, 0], [1, 0]]})
    with pytest.raises(ReportError, match=r"'design' must be a list of seat orders"):
        aggregate(bad)


def test_a_game_stored_twice_in_two_parts_is_found(tmp_path):
    rows = two_player_rows()
    run = write_run(tmp_path / "r", rows + rows[2:3], parts=2)
    with pytest.raises(ReportError, match="stored twice"):
        aggregate(run)


def test_the_standings_harness_tourney_prints_are_the_reports(tmp_path):
    """Item 7: the terminal table shows the report's 95% interval and rating."""
    from harness.tourney.standings import format_table, with_report

    config = tmp_path / "c.yaml"
    config.write_text("name: c\nplayers: 2\ndeals: 30\nseed: 4\nentrants: [greedy, random]\n")
    for extra in ([], ["--no-report"]):
        out = tmp_path / ("o" + "".join(extra))
        result = CliRunner().invoke(
            main, ["tourney", str(config), "--out", str(out), "--workers", "0", *extra]
        )
        assert result.exit_code == 0, result.output
        run = find_run(out / "c")
        summary = summarise_run(run)
        greedy = by_name(summary, "greedy")
        low, high = f"{greedy['win_low'] * 100:.1f}", f"{greedy['win_high'] * 100:.1f}"
        line = next(x for x in result.output.splitlines() if " greedy " in x)
        assert f"{low} to {high}%" in line and f"{greedy['elo']:+.0f}" in line
        assert f"{greedy['elo_low']:+.0f} to {greedy['elo_high']:+.0f}" in line
        assert "95% CI" in result.output and "Elo" in result.output
        assert (run / "report.html").exists() == (not extra)  # --no-report writes nothing
    rows = [
        {
            "rank": 1,
            "strategy": "x",
            "games": 10,
            "win_share": 0.5,
            "mean_worms": 1.0,
            "mean_rank": 1.5,
            "forfeits": 0,
            "capped": 0,
        }
    ]
    assert "95% CI" not in format_table(rows)[0]  # no report figures: no columns for them
    lines = format_table(with_report(rows, {"standings": [{"strategy": "x", "elo": None}]}))
    # An unknown interval: a dash, under the rule every terminal table has (issue 19).
    assert "Elo" not in lines[0] and set(lines[1]) <= {"-", " "} and lines[2].split()[-3] == "—"
    assert with_report(rows, None)[0]["win_low"] is None


def test_write_report_puts_the_report_figures_in_the_runs_standings(played):
    """What --json prints once the command passes the run (see harness/commands/tourney.py):
    ``run.counts`` gets the report's figures in place, written or not."""
    from types import SimpleNamespace

    from harness.commands.tourney import _write_report

    expected = {r["strategy"]: r for r in summarise_run(played)["standings"]}
    for write in (True, False):
        rows = [
            {
                "rank": 1,
                "strategy": name,
                "games": 1,
                "win_share": 0.5,
                "mean_worms": 1.0,
                "mean_rank": 1.5,
                "forfeits": 0,
                "capped": 0,
            }
            for name in expected
        ]
        run = SimpleNamespace(run_dir=played, counts=rows)
        html, summary = _write_report(run, True, write=write)
        assert (html is not None) == write
        assert summary["standings"] == summarise_run(played)["standings"]
        assert run.counts is rows  # the same list: run.summary() hands it out
        for got in rows:
            mine = expected[got["strategy"]]
            for key in ("win_low", "win_high", "elo", "elo_low", "elo_high"):
                assert got[key] == pytest.approx(mine[key]), key
    broken = SimpleNamespace(run_dir=played / "nope", counts=[])
    assert _write_report(broken, True, write=False) == (None, None)  # told, never raised
