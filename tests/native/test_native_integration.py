"""The native engine inside the commands (issue 12): ``engine: auto | python | native``.

Whichever engine plays, a run stores the same games (the Parquet frames are equal), the
same standings, and the same chunk and run keys: resume and content-keyed reuse work
across engines, and run.json says which engine played. ``native`` refuses what it
cannot play in one line (exit 2) before anything is played; ``auto`` plays such tables
on the Python engine. ``harness sprt`` and ``harness play`` give the same results with
each engine.

Skipped when the extension is not built, except the fallback tests (which make it
absent); with HARNESS_REQUIRE_NATIVE=1 (CI) a missing extension fails instead.
"""

from __future__ import annotations

import json
import os
import shutil
from dataclasses import asdict, replace
from pathlib import Path

import pandas as pd
import pytest

from harness import native
from harness.errors import ConfigError, HarnessError
from harness.game.dice import DuplicateDice
from harness.game.seating import design
from harness.play import play_game
from harness.sprt import make_setup, run_sprt
from harness.tourney import chunks, load_config, plan, run_tournament

pytestmark = [pytest.mark.engine, pytest.mark.interpreter]

ROOT = Path(__file__).resolve().parents[2]
needs_native = pytest.mark.skipif(not native.available(), reason="native engine not built")
SMALL = {
    "name": "eng",
    "entrants": ["greedy", "random", "threshold", "tactician"],
    "deals": 14,
    "chunk": 5,
    "seed": 11,
}


def games_of(run_dir: Path) -> pd.DataFrame:
    df = pd.read_parquet(run_dir / "games")
    return df.sort_values(["table", "deal", "seating"]).reset_index(drop=True)


def run_json(run) -> dict:
    return json.loads((run.run_dir / "run.json").read_text())


def no_python_engine(monkeypatch) -> None:
    """Make the Python engine's chunk loop fail: a run that still works played natively."""

    def refuse(*args, **kwargs):
        raise AssertionError("the Python engine played a game")

    monkeypatch.setattr(chunks, "_play_one", refuse)


def plugin_file(tmp_path: Path) -> Path:
    """Greedy's code as a file plugin: a strategy that cannot play natively."""
    path = tmp_path / "mybot.py"
    shutil.copy(ROOT / "harness" / "strategies" / "greedy.py", path)
    return path


def test_native_is_built_when_required():
    if os.environ.get("HARNESS_REQUIRE_NATIVE", "").strip() not in ("", "0"):
        assert native.available(), "HARNESS_REQUIRE_NATIVE is set but the extension is absent"


# -- the same games, whichever engine ------------------------------------------------------
@needs_native
def test_python_native_and_auto_store_identical_games(tmp_path, monkeypatch):
    py = run_tournament({**SMALL, "engine": "python"}, workers=0, out=tmp_path / "py")
    auto = run_tournament(SMALL, workers=1, out=tmp_path / "auto")  # the worker protocol
    with monkeypatch.context() as m:
        no_python_engine(m)
        nat = run_tournament(SMALL, workers=0, out=tmp_path / "nat", engine="native")
    assert py.status == auto.status == nat.status == "complete"
    frame = games_of(py.run_dir)
    assert len(frame) == 6 * 14 * 2
    pd.testing.assert_frame_equal(frame, games_of(auto.run_dir))
    pd.testing.assert_frame_equal(frame, games_of(nat.run_dir))
    assert py.counts == auto.counts == nat.counts
    summary = (py.run_dir / "summary.csv").read_text()
    assert summary == (nat.run_dir / "summary.csv").read_text()
    chunks_planned = 6 * 3
    assert py.engine_used == {"native": 0, "python": chunks_planned}
    assert auto.engine_used == nat.engine_used == {"native": chunks_planned, "python": 0}
    meta = run_json(nat)
    assert meta["engine_choice"] == "native"
    assert meta["engine_used"] == {"native": chunks_planned, "python": 0}
    assert {t["engine"] for t in meta["tables"]} == {"native"}
    assert {t["engine"] for t in run_json(py)["tables"]} == {"python"}
    # The same run and chunk keys: the engine is not part of what a chunk's rows are.
    assert meta["key"] == run_json(py)["key"]
    manifest = [(nat.run_dir / "manifest.jsonl"), (py.run_dir / "manifest.jsonl")]
    keys = [
        sorted(json.loads(line)["key"] for line in m.read_text().splitlines()) for m in manifest
    ]
    assert keys[0] == keys[1]


@needs_native
@pytest.mark.parametrize(
    ("seating", "players"), [("cyclic", 3), ("balanced", 4), ("permutations", 3)]
)
def test_every_seating_stores_identical_games_on_both_engines(tmp_path, seating, players):
    # seat i of order k holds entrant design[k][i]: both engines, row for row, resumed
    # chunks aside (test_a_run_begun_in_python_is_finished_natively)
    config = {**SMALL, "players": players, "seating": seating, "deals": 3, "chunk": 2}
    py = run_tournament({**config, "engine": "python"}, workers=0, out=tmp_path / "py")
    nat = run_tournament(config, workers=0, out=tmp_path / "nat", engine="native")
    frame = games_of(py.run_dir)
    orders = len(design(players, seating))  # 3, 12 and 6 seat orders a deal
    tables = 4 if players == 3 else 1  # of the 4 entrants
    assert len(frame) == tables * 3 * orders
    assert sorted(frame["seating"].unique()) == list(range(orders))
    pd.testing.assert_frame_equal(frame, games_of(nat.run_dir))
    assert py.counts == nat.counts
    assert nat.engine_used["python"] == 0


def test_keys_do_not_depend_on_the_engine():
    configs = [load_config({**SMALL, "engine": e}) for e in ("auto", "python", "native")]
    assert len({plan.run_key(c) for c in configs}) == 1
    assert len({tuple(s.key for s in plan.chunks(c)) for c in configs[:2]}) == 1


def test_the_engine_digest_covers_the_native_source(monkeypatch):
    before = plan.engine_digest()
    real = Path.read_bytes

    def edited(self):
        data = real(self)
        return data + b"/* edited */" if self.name == "core.c" else data

    plan.engine_digest.cache_clear()
    monkeypatch.setattr(Path, "read_bytes", edited)
    try:
        assert plan.engine_digest() != before
    finally:
        monkeypatch.undo()
        plan.engine_digest.cache_clear()
    assert plan.engine_digest() == before


@needs_native
def test_a_run_begun_in_python_is_finished_natively(tmp_path, monkeypatch):
    whole = run_tournament({**SMALL, "engine": "python"}, workers=0, out=tmp_path / "ref")
    first = run_tournament({**SMALL, "engine": "python"}, workers=0, out=tmp_path / "run")
    # Forget half of the stored chunks, as if the run had been stopped.
    manifest = first.run_dir / "manifest.jsonl"
    lines = manifest.read_text().splitlines()
    kept, dropped = lines[::2], lines[1::2]
    for line in dropped:
        (first.run_dir / "games" / json.loads(line)["file"]).unlink()
    manifest.write_text("".join(line + "\n" for line in kept))
    with monkeypatch.context() as m:
        no_python_engine(m)
        rest = run_tournament(SMALL, workers=0, out=tmp_path / "run", engine="native")
    assert rest.run_dir == first.run_dir and rest.status == "complete"
    assert rest.resumed == sum(json.loads(line)["games"] for line in kept)
    assert rest.engine_used == {"native": len(dropped), "python": 0}
    assert run_json(rest)["engine_used"] == {"native": len(dropped), "python": len(lines)}
    pd.testing.assert_frame_equal(games_of(whole.run_dir), games_of(rest.run_dir))
    assert whole.counts == rest.counts


@needs_native
def test_chunks_are_reused_across_engines(tmp_path, monkeypatch):
    ref = run_tournament({**SMALL, "deals": 15}, workers=0, out=tmp_path / "ref", engine="python")
    # Played by a worker process: a chunk played in this process (with whatever user
    # classes other tests loaded) would not be reused, whichever engine.
    run_tournament({**SMALL, "deals": 10}, workers=1, out=tmp_path / "runs", engine="python")
    with monkeypatch.context() as m:
        no_python_engine(m)
        more = run_tournament({**SMALL, "deals": 15}, workers=0, out=tmp_path / "runs")
    assert more.reused == 6 * 10 * 2  # the first two chunks of every table
    assert more.engine_used == {"native": 6, "python": 0}
    pd.testing.assert_frame_equal(games_of(ref.run_dir), games_of(more.run_dir))


# -- what native cannot play ----------------------------------------------------------------
def _plugin_config(tmp_path: Path, engine: str | None = None) -> Path:
    plugin_file(tmp_path)
    text = (
        "name: mixed\nplayers: 2\ndeals: 6\nchunk: 3\nseed: 3\n"
        "entrants: [greedy, threshold, 'mybot.py:Greedy']\n"
    )
    if engine is not None:
        text += f"engine: {engine}\n"
    path = tmp_path / "mixed.yaml"
    path.write_text(text)
    return path


@pytest.mark.once
def test_native_with_a_file_plugin_plays_and_limits_are_one_line(tmp_path, harness_process):
    config = _plugin_config(tmp_path)
    out = tmp_path / "out"
    if native.available():  # a plugin plays as a Python seat at a native table (H1)
        done = harness_process(
            "tourney", str(config), "--engine", "native", "--out", str(out), "--no-report"
        )
        assert done.returncode == 0, done.stderr
        limited = tmp_path / "limited.yaml"
        limited.write_text(config.read_text() + "move_time: 5\n")
        config, out = limited, tmp_path / "out-limited"
    done = harness_process("tourney", str(config), "--engine", "native", "--out", str(out))
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in done.stderr
    if native.available():
        assert "time limits" in lines[0]
    else:
        assert "not built" in lines[0]
    assert not out.exists()  # nothing planned into a folder, nothing played


def test_engine_key_is_checked_with_its_line(tmp_path):
    config = _plugin_config(tmp_path, engine="fast")
    with pytest.raises(ConfigError, match=r"mixed\.yaml:7: engine: 'fast' is not one of"):
        load_config(config)
    with pytest.raises(ConfigError, match="--engine: 'fast'"):
        load_config(_plugin_config(tmp_path)).override(engine="fast")
    assert load_config(_plugin_config(tmp_path)).engine == "auto"


@needs_native
@pytest.mark.once
def test_auto_plays_plugin_tables_natively_too(tmp_path):
    # A plugin plays as a Python seat at a native table (H1): every table goes native.
    config = _plugin_config(tmp_path)
    auto = run_tournament(config, workers=0, out=tmp_path / "auto")
    py = run_tournament(config, workers=0, out=tmp_path / "py", engine="python")
    pd.testing.assert_frame_equal(games_of(py.run_dir), games_of(auto.run_dir))
    assert auto.counts == py.counts
    assert auto.engine_used == {"native": 6, "python": 0}
    meta = run_json(auto)
    by_table = {tuple(sorted(t["entrants"])): t["engine"] for t in meta["tables"]}
    assert by_table == {
        ("greedy", "threshold"): "native",
        ("greedy", "mybot.py:Greedy"): "native",
        ("mybot.py:Greedy", "threshold"): "native",
    }
    assert meta["summary"]["engine_used"] == {"native": 6, "python": 0}
    limited = run_tournament(config, workers=0, out=tmp_path / "lim", move_time=5.0)
    assert limited.engine_used == {"native": 0, "python": 6}  # seat limits: Python


# -- sprt and play -----------------------------------------------------------------------------
@needs_native
def test_sprt_native_equals_python(monkeypatch):
    results = {}
    for engine in ("python", "native"):
        with monkeypatch.context() as m:
            if engine == "native":
                no_python_engine(m)
            setup = make_setup("tactician", "greedy", players=3, max_games=600, engine=engine)
            results[engine] = run_sprt(setup, workers=0).summary()
    py, nat = results["python"], results["native"]
    assert (py["engine"], py["engine_plays"]) == ("python", "python")
    assert (nat["engine"], nat["engine_plays"]) == ("native", "native")
    for key in ("engine", "engine_plays", "wall_seconds", "games_per_second"):
        py.pop(key), nat.pop(key)
    assert py == nat


@pytest.mark.once
def test_sprt_native_plays_a_plugin_or_refuses_in_one_line(tmp_path, harness_process):
    bot = plugin_file(tmp_path)
    done = harness_process("sprt", f"{bot}:Greedy", "greedy", "--engine", "native")
    if native.available():  # a plugin plays as a Python seat at a native table (H1)
        assert done.returncode == 0, done.stderr
        py = harness_process("sprt", f"{bot}:Greedy", "greedy", "--engine", "python")

        def verdict(out: str) -> list[str]:  # the test's lines, not its timing
            return [line for line in out.splitlines() if "LLR" in line]

        assert verdict(done.stdout) == verdict(py.stdout) != []
        return
    assert done.returncode == 2
    assert len(done.stderr.strip().splitlines()) == 1 and "Traceback" not in done.stderr


def assert_play_alike(cli, monkeypatch, args):
    """`harness play ARGS` prints the same on the Python engine, the native one and auto,
    and native and auto never touch the Python engine's game loop."""
    py = cli(*args, "--engine", "python")
    from harness.game import engine as engine_module

    with monkeypatch.context() as m:
        m.setattr(engine_module.Game, "play", lambda self: pytest.fail("Python engine used"))
        nat = cli(*args, "--engine", "native")
        auto = cli(*args)
    assert py.exit_code == nat.exit_code == auto.exit_code == 0
    assert py.output == nat.output == auto.output


@needs_native
@pytest.mark.parametrize("dice", ["independent", "duplicate"])
def test_play_native_equals_python(cli, monkeypatch, dice):
    args = ["play", "simple", "tactician", "random", "--seed", "21", "--dice", dice, "--json"]
    assert_play_alike(cli, monkeypatch, args)
    for seed in range(40):
        seats = ["greedy", "worm-first", "env-heuristic"]
        a = play_game(seats, seed=seed)
        b = play_game(seats, seed=seed, engine="native")
        assert asdict(a) == asdict(b)


@needs_native
def test_play_native_refuses_what_it_cannot_do(cli, tmp_path):
    bot = plugin_file(tmp_path)
    cases = [
        ["greedy", "simple", "--seed", "1"],  # narrated
        ["greedy", "simple", "--seed", "1", "-q", "--record", str(tmp_path / "r.json")],
        ["greedy", "simple", "--seed", "1", "-q", "--move-time", "1"],
    ]
    for args in cases:
        done = cli("play", *args, "--engine", "native")
        assert done.exit_code == 2, args
        assert done.output.count("\n") == 1 and "--engine native" in done.output
    auto = cli(
        "play", f"{bot}:Greedy", "simple", "--seed", "1", "-q", "--record", str(tmp_path / "a.json")
    )
    assert auto.exit_code == 0  # auto: the Python engine, silently
    with pytest.raises(HarnessError, match="game record"):
        play_game(["greedy", "simple"], seed=1, record=True, engine="native")


@needs_native
def test_play_with_a_plugin_seat_is_native_and_the_same_game(cli, tmp_path, monkeypatch):
    bot = plugin_file(tmp_path)
    hostile = ROOT / "tests" / "fixtures" / "hostile"
    args = ["play", f"{bot}:Greedy", "tactician", "random", "--seed", "5", "--json"]
    assert_play_alike(cli, monkeypatch, args)
    for dice in (None, "duplicate"):
        for seed in range(60):
            seats = [f"{bot}:Greedy", "random", "simple"][: 2 + seed % 2]
            kept = DuplicateDice(seed) if dice else None
            a = play_game(seats, seed=seed, dice=kept)
            b = play_game(seats, seed=seed, dice=kept, engine="native")
            assert asdict(a) == asdict(b), (dice, seed)
    # A seat that forfeits: the game is played again on the Python engine, whose error
    # it returns (forfeit=True) or raises (forfeit=False), as with engine="python".
    liar = f"{hostile / 'engine_liars.py'}:Answers(method='pick', answer=9)"
    a = play_game([liar, "greedy"], seed=3, forfeit=True)
    b = play_game([liar, "greedy"], seed=3, forfeit=True, engine="native")
    assert a.error is not None and type(a.error) is type(b.error) and str(a.error) == str(b.error)
    assert {**asdict(a), "error": None} == {**asdict(b), "error": None}
    with pytest.raises(HarnessError):
        play_game([liar, "greedy"], seed=3, engine="native")


# -- the fallback: no extension ------------------------------------------------------------------
def test_without_the_extension_auto_plays_python(tmp_path, monkeypatch, cli):
    monkeypatch.setattr(native.extension, "core", None)
    run = run_tournament({**SMALL, "deals": 4}, workers=0, out=tmp_path / "a")
    assert run.status == "complete"
    assert run.engine_used == {"native": 0, "python": 6}
    assert {t["engine"] for t in run_json(run)["tables"]} == {"python"}
    with pytest.raises(ConfigError, match="engine: native, but table .* not built"):
        run_tournament({**SMALL, "deals": 4}, workers=0, out=tmp_path / "b", engine="native")
    assert not (tmp_path / "b").exists()
    with pytest.raises(HarnessError, match="not built"):
        make_setup("greedy", "simple", engine="native")
    with pytest.raises(HarnessError, match="not built"):
        play_game(["greedy", "simple"], seed=1, engine="native")
    assert play_game(["greedy", "simple"], seed=1, engine="auto").turns > 0
    done = cli("play", "greedy", "simple", "--seed", "1", "--json", "--engine", "native")
    assert done.exit_code == 2 and "not built" in done.output


def test_a_chunk_planned_native_that_cannot_play_fails_or_falls_back(monkeypatch):
    config = load_config({**SMALL, "deals": 2})
    spec = next(plan.chunks(config))
    monkeypatch.setattr(native.extension, "core", None)
    auto = chunks.play_chunk(replace(spec, engine="auto"))
    assert auto.engine == "python" and auto.rows == spec.games
    with pytest.raises(HarnessError, match="the native engine cannot play it"):
        chunks.play_chunk(replace(spec, engine="native"))


def test_a_wrong_number_of_names_is_refused_by_every_engine():
    for engine in ("python", "auto"):
        with pytest.raises(HarnessError, match="^1 names for 2 seats$"):
            play_game(["greedy", "greedy"], seed=1, names=["a"], engine=engine)
