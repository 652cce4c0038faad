"""Plans of many tables and many deals (issue 30, item 4.5).

A one-line 4-player sweep of 64 values is 635,376 tables: planning it took 85-114 s
without a word, and a table of many deals could make tens of thousands of chunks by
default. Now:

* planning says how far it is (a line every two seconds once it takes two);
* the default chunk grows so that a run has at most CHUNK_CAP chunks where its tables
  allow (a chunk is deals of one table: at least one chunk a table);
* the keys planned the fast way are exactly the chunk keys (``plan.chunks``), and a run
  chunked another way stores the same games and the same figures.
"""

from __future__ import annotations

import pandas as pd
import pytest

from harness.tourney import plan, run_tournament
from harness.tourney.config import CHUNK_GAMES, load_config


def sweep(players: int, values: int, deals: int, **extra) -> dict:
    return {
        "name": "sweep",
        "players": players,
        "entrants": [
            {"strategy": "random", "sweep": {"p_stop": [i / 100 for i in range(1, values + 1)]}}
        ],
        "deals": deals,
        "seed": 3,
        **extra,
    }


@pytest.mark.parametrize(
    "extra",
    [
        {},
        {"luck": "on", "dice": "independent"},
        {"move_time": 2, "isolation": "process", "seating": "cyclic"},
        {"format": "gauntlet", "challenger": "greedy", "chunk": 2},
    ],
)
def test_the_plans_keys_are_the_chunk_keys(extra):
    config = load_config(sweep(3, 7, 5, **extra))
    made = plan.Plan(config)
    keys = [key for table in made.tables for key in made.keys[table.id]]
    assert keys == [spec.key for spec in plan.chunks(config)]
    assert list(made.planned) == keys and len(set(keys)) == len(keys)


def test_planning_tells_how_far_it_is():
    calls = []
    config = load_config(sweep(3, 12, 1))  # 220 tables
    plan.Plan(config, progress=lambda done, total, what: calls.append((done, total, what)))
    assert calls[0] == (0, 220, "listed") and calls[-1] == (220, 220, "keyed")
    assert (0, 220, "keyed") in calls


def test_the_teller_is_quiet_for_a_quick_plan_then_speaks_every_two_seconds(monkeypatch):
    from harness.tourney.progress import planning_teller

    clock = iter([0.0, 0.5, 1.0, 2.5, 3.0, 4.6, 5.0])
    monkeypatch.setattr("harness.tourney.progress.time.monotonic", lambda: next(clock))
    lines: list[str] = []
    tell = planning_teller(lines.append)  # starts at 0.0
    for done, what in [(0, "listed"), (1000, "keyed"), (2000, "listed"), (3000, "keyed")]:
        tell(done, 10_000, what)  # at 0.5, 1.0, 2.5, 3.0
    tell(4000, 10_000, "keyed")  # at 4.6
    tell(10_000, 10_000, "keyed")  # at 5.0
    assert lines == [
        "Planning: 2,000 of 10,000 tables listed (20%) ...",
        "Planning: 4,000 of 10,000 tables keyed (40%) ...",
        "Planned 10,000 tables in 5 s.",
    ]
    quiet: list[str] = []
    clock = iter([0.0, 0.1, 0.2])
    tell = planning_teller(quiet.append)
    tell(0, 5, "listed")
    tell(5, 5, "keyed")
    assert quiet == []  # a plan of a fraction of a second says nothing


@pytest.mark.parametrize(
    ("players", "values", "deals"),
    [(2, 64, 100_000), (4, 12, 100_000), (2, 2, 10_000_000), (4, 30, 1)],
)
def test_the_default_chunk_grows_to_keep_at_most_the_cap_or_one_a_table(players, values, deals):
    from harness.tourney.config import CHUNK_CAP

    config = load_config(sweep(players, values, deals))
    tables, chunks = (
        len(plan.tables(config)),
        len(plan.deal_ranges(config)) * len(plan.tables(config)),
    )
    assert chunks <= max(CHUNK_CAP, tables)
    assert config.deals_per_chunk >= -(-CHUNK_GAMES // players)  # never smaller than it was
    given = sweep(players, values, deals, chunk=50_000)
    assert load_config(given).deals_per_chunk == 50_000  # as given


def test_chunking_changes_no_game_and_no_stored_figure(tmp_path):
    """The same seed chunked two ways: the same rows, standings and report figures."""
    from harness.tourney.runner import report_run

    base = sweep(3, 4, 6, luck="on")
    runs = [
        run_tournament(base, workers=0, out=tmp_path / "default"),
        run_tournament({**base, "chunk": 1}, workers=0, out=tmp_path / "one"),
    ]
    assert len(list(runs[1].run_dir.glob("games/*.parquet"))) > len(
        list(runs[0].run_dir.glob("games/*.parquet"))
    )
    frames = [r.games.reset_index(drop=True) for r in runs]
    pd.testing.assert_frame_equal(frames[0], frames[1])
    assert runs[0].counts == runs[1].counts
    figures = [report_run(r, write=False) for r in runs]
    for summary in figures:  # where the files are, when, and how long they took
        for varying in ("run", "timing", "fingerprint"):
            summary.pop(varying)
    # The report adds floats chunk by chunk: another chunking sums in another order, so
    # its figures may differ in the last bits (1e-14 relative here), never beyond.
    assert same_figures(figures[0], figures[1])


def same_figures(a, b) -> bool:
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same_figures(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(same_figures(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, float) and isinstance(b, float):
        return a == pytest.approx(b, rel=1e-9, abs=1e-12, nan_ok=True)
    return a == b


@pytest.mark.engine
def test_a_specs_native_seat_is_worked_out_once_and_refusals_every_time():
    """The plan asks for every entrant of every table: a spec's seat is kept (its class
    and typed parameters decide it), a refusal is never kept."""
    from harness import native
    from harness.plugins import StrategySpec, resolve

    if not native.available():
        pytest.skip("native engine not built")
    spec = resolve("threshold(target=28)")
    first = native.native_seat(spec)
    assert native.native_seat(resolve("threshold(target=28)")) is first  # kept
    assert native.native_seat(resolve("threshold(target=30)")).params == (30.0,)
    bad = StrategySpec(spec.ref, spec.cls, (("target", 99),), spec.origin)
    for _ in range(2):
        with pytest.raises((native.NotNative, ValueError), match="out of bounds"):
            native.native_seat(bad)
