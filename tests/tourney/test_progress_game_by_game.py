"""Slow bots are visible (issue 19, item 5): progress moves game by game on every engine
and backend, and each strategy's decision time is told while its first chunk plays.

A user's bot spending 50 ms a decision showed "0 games/s, ETA ?" for 30 s: the native
engine plays a chunk in one C call, and the bar counted only chunks that had landed.
Here a bot that sleeps in every decision plays chunks long enough to watch, and the
backends are asked, while the chunk is in play, how far it got and how slow it is.
"""

from __future__ import annotations

import io
import math
import random
import re
from pathlib import Path

import pytest

from harness import native
from harness.runfolder import timing
from harness.runfolder.timing import ChunkTimes, bucket, bucket_seconds, quantile
from harness.tourney import plan
from harness.tourney.backends import Done, ProcessBackend, SerialBackend
from harness.tourney.chunks import play_chunk
from harness.tourney.config import load_config
from harness.tourney.runner import run_tournament

pytestmark = [pytest.mark.engine, pytest.mark.interpreter]

SLEEP = 0.004  # seconds in every decision of the slow bot

SLOW = f"""
import time
from harness.strategy import Strategy


class Slow(Strategy):
    name = "slowbot"

    def pick(self, view):
        time.sleep({SLEEP})
        return max(view.choices)

    def stop(self, view):
        time.sleep({SLEEP})
        return view.total >= 24
"""

needs_native = pytest.mark.skipif(not native.available(), reason="no native engine built")


@pytest.fixture
def slow(tmp_path: Path) -> Path:
    path = tmp_path / "slow.py"
    path.write_text(SLOW, encoding="utf-8")
    return path


def _specs(entrants: list, deals: int, engine: str = "auto") -> list:
    config = load_config(
        {"entrants": entrants, "deals": deals, "chunk": deals, "seed": 3, "engine": engine}
    )
    return list(plan.chunks(config))


def _watch(backend, specs, looks: int = 400):
    """Play ``specs``; what in_flight() (and decision_times()) said while they played."""
    seen, times, landed = [], [], []
    for outcome in backend.results(specs):
        if outcome is None:
            seen.append(backend.in_flight())
            times.append(dict(backend.decision_times()))
        else:
            landed.append(outcome)
        if len(seen) > looks:
            break
    return seen, times, landed


@needs_native
@pytest.mark.parametrize("engine", ["auto", "python"])
@pytest.mark.once
def test_a_slow_plugin_moves_the_bar_game_by_game_and_is_named(slow, engine):
    specs = _specs([f"{slow}:Slow", "greedy"], 12, engine)  # one chunk of 24 games
    assert len(specs) == 1
    seen, times, landed = _watch(ProcessBackend(1), specs)
    assert len(landed) == 1 and isinstance(landed[0], Done)
    moving = [n for n in seen if 0 < n < 24]
    assert len(set(moving)) >= 3, seen  # several games counted before the chunk landed
    assert seen == sorted(seen)
    named = [t["slowbot"] for t in times if "slowbot" in t]
    assert named, times  # named while its first (and only) chunk played
    decisions, seconds = named[-1]
    assert SLEEP * 0.9 < seconds / decisions < SLEEP * 5
    assert "greedy" not in {name for t in times for name in t}  # built-ins: not timed
    assert landed[0].result.engine == ("native" if engine == "auto" else "python")


@needs_native
@pytest.mark.once
def test_a_native_chunk_of_built_ins_moves_the_bar_inside_its_one_c_call():
    # optimal plays ~3,000 games per CPU-second natively: 6,000 games take a while.
    specs = _specs(["optimal", "simple"], 3000)
    assert len(specs) == 1 and specs[0].games == 6000
    seen, _, landed = _watch(ProcessBackend(1), specs)
    assert landed and landed[0].result.engine == "native"
    inside = [n for n in seen if 0 < n < 6000]
    assert len(set(inside)) >= 2, seen


def test_serial_play_refreshes_between_games(slow):
    specs = _specs([f"{slow}:Slow", "greedy"], 6, "python")
    backend = SerialBackend()
    told = []
    backend.refresh = lambda: told.append((backend.in_flight(), backend.decision_times()))
    backend.watch.told = -math.inf
    landed = [o for o in backend.results(specs) if o is not None]
    assert landed and landed[0].result.rows == 12
    counts = [n for n, _ in told]
    assert len(set(counts)) >= 3 and counts == sorted(counts), counts
    assert any("slowbot" in t for _, t in told)


@pytest.mark.once
def test_the_terminal_names_the_slow_bot_before_its_first_chunk_lands(slow, tmp_path):
    stream = io.StringIO()
    config = {"entrants": [f"{slow}:Slow", "greedy"], "deals": 10, "chunk": 10, "seed": 1}
    run = run_tournament(config, out=tmp_path, stream=stream, progress=True, workers=1)
    assert run.status == "complete"
    frames = [f for f in stream.getvalue().split("\r") if "games (" in f]
    early = [f for f in frames if "slowest to decide: slowbot" in f and "20/20" not in f]
    assert early, frames
    assert any(re.search(r"\] [1-9]\d*/20 games", f) for f in early)


@pytest.mark.once
def test_the_dask_backend_reports_games_in_play(slow, tmp_path):
    pytest.importorskip("distributed")
    from harness.tourney.backends.dask import DaskBackend

    specs = _specs([f"{slow}:Slow", "greedy"], 12)
    backend = DaskBackend(workers=1, scratch=tmp_path / "dask")
    seen, times, landed = _watch(backend, specs, looks=2000)
    assert landed and isinstance(landed[0], Done)
    assert len({n for n in seen if 0 < n < 24}) >= 2, seen
    assert any("slowbot" in t for t in times)


# -- what is stored and how it is read ----------------------------------------------------------
@pytest.mark.once
def test_timing_never_changes_a_game(slow, monkeypatch):
    for engine in ("python", "auto"):
        spec = _specs([f"{slow}:Slow", "greedy"], 3, engine)[0]
        monkeypatch.setattr(timing, "TIME_EVERY", 1)
        every = play_chunk(spec)
        monkeypatch.setattr(timing, "TIME_EVERY", 0)
        none = play_chunk(spec)
        assert every.games == none.games and every.seats == none.seats
        assert every.times["slowbot"]["games"] == 6 and none.times == {}


def test_one_game_in_sixteen_is_timed_from_the_first(tmp_path):
    bot = tmp_path / "quick.py"
    bot.write_text(SLOW.replace(f"time.sleep({SLEEP})", "pass"), encoding="utf-8")
    spec = _specs([f"{bot}:Slow", "greedy"], 50, "python")[0]
    result = play_chunk(spec)
    assert result.times["slowbot"]["games"] == math.ceil(100 / 16)
    assert set(result.times) == {"slowbot"}


def test_the_histogram_gives_the_99th_percentile_within_its_bound():
    rng = random.Random(5)
    for scale in (2e-7, 3e-5, 4e-3, 0.7):
        values = [rng.lognormvariate(0, 1) * scale for _ in range(20000)]
        times = ChunkTimes(1)
        for v in values:
            ns = int(v * 1e9)
            times.hist[0][bucket(ns)] += 1
            times.ns[0] += ns
        stored = times.to_json(["x"])["x"]
        truth = sorted(values)[int(0.99 * len(values))]
        assert abs(quantile(stored["hist"], 0.99) / truth - 1) < 0.13
        assert stored["seconds"] == pytest.approx(sum(int(v * 1e9) for v in values) / 1e9)
    for ns in (5, 100, 1234, 10**9, 3 * 10**12):
        middle = bucket_seconds(bucket(ns)) * 1e9
        assert abs(middle / ns - 1) < 0.13, ns


def test_damaged_timing_lines_are_left_out_never_trusted():
    good = {"decisions": 2, "seconds": 0.5, "games": 1, "hist": {"110": 2}}
    entries = [
        {"table": "t", "games": 10, "cpu": 1.0, "timing": {"bot": good}},
        {"table": "t", "games": 10, "cpu": 1.0, "timing": {"bot": {**good, "seconds": "x"}}},
        {"table": "t", "games": 10, "cpu": -1, "timing": {"bot": {**good, "hist": {"999": 1}}}},
        {"table": "t", "games": 10, "cpu": 1.0, "timing": ["nonsense"]},
    ]
    (row,) = timing.strategy_times(entries, {"t": ["bot"]}, ["bot"])
    assert row.decisions == 2 and row.mean == 0.25
    assert row.cpu_per_game == pytest.approx(3.0 / 30)


@needs_native
def test_the_native_batch_writes_the_row_it_plays_into_the_buffer():
    from array import array

    from harness.rules import Rules

    told = array("d", [-1.0])
    orders = [(0, 1), (1, 0)]
    played = native.play_deals(
        Rules(players=2), ["greedy", "simple"], 1, 0, 40, orders=orders, progress=told, start=6
    )
    assert played.rows == 74 and told[0] == 79  # the last game's chunk row (6 + 73)
    with pytest.raises(ValueError, match="progress: 8 bytes needed, got 4"):
        native.play_deals(
            Rules(players=2), ["greedy", "simple"], 1, 0, 4, orders=orders, progress=bytearray(4)
        )
    with pytest.raises(BufferError):  # read-only: never written
        native.play_deals(
            Rules(players=2), ["greedy", "simple"], 1, 0, 4, orders=orders, progress=b"12345678"
        )
