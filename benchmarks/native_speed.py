"""Native engine speed: the greedy mirror, 2 players, games per CPU-second.

    python benchmarks/native_speed.py [--games 100000] [--python-games 4000] [--repeats 7]

One run, interleaved rounds, medians (time.process_time for the engines in this process;
the C loop reports its own clock()):

* native, chunk path: ``harness.tourney.chunks.play_native`` on a ChunkSpec (deal seeds derived,
  every column and the standings counters filled, as a worker stores them);
* native, same games as play_game: ``harness.native.play_games`` with seeds 0..N-1;
* Python engine, chunk path: ``harness.tourney.chunks.play_chunk`` on the same spec
  (its rows are checked to be the native rows);
* the minimal C loop (benchmarks/c_loop.c, compiled here with ``cc -O2`` into a
  temporary directory): ``same-dice`` plays play_game's games (its checksum is checked
  against the Python engine's), ``rules-only`` the same rules with a cheap generator.

Expected: at least 250,000 games per CPU-second through the chunk path, and
within 3x of the minimal C loop. Exits 1 when the native engine is not built, the C loop
cannot be compiled, or a check fails.

``--designs N``: also N games a round of a 4-player greedy table through the chunk path in
each seating design (cyclic: 4 orders a deal, balanced: 12, permutations: 24), to show
that a game costs the same whichever design (a deal costs its number of orders).

``--optimal N``: also ``optimal`` against ``simple`` (2 players, official), Python engine
against native on the same N games per round (rows checked equal), after both have
played --warm games (their solved-turn caches warm, as in a long run).
"""

from __future__ import annotations

import argparse
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # idle BLAS threads count as CPU time

from harness import native  # noqa: E402
from harness.game.dice import SeededDice  # noqa: E402
from harness.game.engine import Game  # noqa: E402
from harness.plugins import resolve  # noqa: E402
from harness.rules import Rules  # noqa: E402
from harness.tourney import chunks  # noqa: E402
from harness.tourney.plan import ChunkSpec, EntrantRef  # noqa: E402


def fail(message: str) -> None:
    print(f"native_speed: {message}", file=sys.stderr)
    sys.exit(1)


def spec_for(deals: int, first: int = 0, players: int = 2, seating: str = "cyclic") -> ChunkSpec:
    spec = resolve("greedy")
    ref = EntrantRef(spec.label, spec.ref, spec.params, spec.identity()["code"])
    return ChunkSpec(
        "bench", "tbl", (ref,) * players, Rules(players=players), "independent", 1, first,
        first + deals, 1000, seating=seating,
    )  # fmt: skip


def checksum(turns, scores0, scores1) -> int:
    """c_loop.c's checksum of a sequence of games."""
    c = 0
    for t, a, b in zip(turns, scores0, scores1, strict=True):
        c = (c * 1000003 + t * 4096 + a * 64 + b) % 2**64
    return c


def build_c_loop(where: Path) -> Path:
    cc = os.environ.get("CC") or shutil.which("cc") or shutil.which("gcc")
    if cc is None:
        fail("no C compiler (cc) to build benchmarks/c_loop.c")
    exe = where / "c_loop"
    done = subprocess.run(
        [cc, "-O2", "-o", str(exe), str(ROOT / "benchmarks" / "c_loop.c")],
        capture_output=True,
        text=True,
    )
    if done.returncode != 0:
        fail(f"cc -O2 benchmarks/c_loop.c failed: {done.stderr.strip()}")
    return exe


def run_c_loop(exe: Path, mode: str, games: int, first: int = 0) -> tuple[float, int]:
    out = subprocess.run([str(exe), mode, str(games), str(first)], capture_output=True, text=True)
    if out.returncode != 0:
        fail(f"c_loop {mode} failed: {out.stderr.strip()}")
    _, played, cpu, check = out.stdout.split()
    return int(played) / float(cpu), int(check)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=100_000, help="native games per round")
    parser.add_argument("--python-games", type=int, default=4_000, help="Python games per round")
    parser.add_argument("--repeats", type=int, default=7, help="rounds; medians are shown")
    parser.add_argument("--designs", type=int, default=0, help="4-player games per design")
    parser.add_argument("--optimal", type=int, default=0, help="optimal v simple games")
    parser.add_argument("--warm", type=int, default=1500, help="optimal warm-up games")
    args = parser.parse_args()
    if not native.available():
        fail("the native engine is not built (pip install -e . with a C compiler)")
    print(f"{platform.python_implementation()} {platform.python_version()}, {platform.machine()}")

    with tempfile.TemporaryDirectory() as tmp:
        exe = build_c_loop(Path(tmp))
        # Checks first: the C loop plays play_game's games; both engines store the same rows.
        greedy = resolve("greedy")
        games = [
            Game([greedy.create(), greedy.create()], Rules(players=2), SeededDice(s), seed=s).play()
            for s in range(300)
        ]
        expected = checksum(
            [g.turns for g in games], [g.scores[0] for g in games], [g.scores[1] for g in games]
        )
        if run_c_loop(exe, "same-dice", 300)[1] != expected:
            fail("c_loop same-dice does not play the Python engine's games")
        small = spec_for(500)
        a, b = chunks.play_chunk(small), chunks.play_native(small)
        if (a.games, a.seats, a.stats) != (b.games, b.seats, b.stats):
            fail("the native chunk differs from the Python engine's")

        rates: dict[str, list[float]] = {k: [] for k in
                                         ("chunk", "games", "python", "same", "rules")}  # fmt: skip
        for r in range(args.repeats):
            deals = args.games // 2
            spec = spec_for(deals, first=r * deals)
            start = time.process_time()
            result = chunks.play_native(spec)
            rates["chunk"].append(result.rows / (time.process_time() - start))
            start = time.process_time()
            native.play_games("official", ["greedy", "greedy"], range(args.games))
            rates["games"].append(args.games / (time.process_time() - start))
            py_spec = spec_for(args.python_games // 2, first=r * deals)
            start = time.process_time()
            chunks.play_chunk(py_spec)
            rates["python"].append(py_spec.games / (time.process_time() - start))
            rates["same"].append(run_c_loop(exe, "same-dice", args.games // 2)[0])
            rates["rules"].append(run_c_loop(exe, "rules-only", args.games)[0])

    med = {k: statistics.median(v) for k, v in rates.items()}
    rows = [
        ("native, chunk path (play_chunk)", "chunk"),
        ("native, play_game's games (play_games)", "games"),
        ("Python engine, chunk path", "python"),
        ("minimal C loop, same dice (c_loop same-dice)", "same"),
        ("minimal C loop, rules only (c_loop rules-only)", "rules"),
    ]
    print(f"greedy mirror, 2 players, official rules; medians of {args.repeats} rounds")
    for label, key in rows:
        print(f"  {label:48s} {med[key]:>11,.0f} games/CPU-s")
    print(f"  native chunk path / Python chunk path       {med['chunk'] / med['python']:>8.1f}x")
    print(f"  C loop same dice / native chunk path        {med['same'] / med['chunk']:>8.2f}x")
    print(f"  C loop rules only / native chunk path       {med['rules'] / med['chunk']:>8.2f}x")
    target = med["chunk"] >= 250_000 and med["rules"] / med["chunk"] <= 3
    print(f"  targets (>= 250,000; within 3x of the C loop): {'met' if target else 'NOT met'}")
    if args.designs:
        design_rounds(args.designs, args.repeats)
    if args.optimal:
        optimal_rounds(args.optimal, args.warm, args.repeats)


def design_rounds(games: int, repeats: int) -> None:
    """A 4-player greedy table in each seating design, the chunk path, interleaved."""
    from harness.game.seating import SEATINGS

    rates: dict[str, list[float]] = {mode: [] for mode in SEATINGS}
    for r in range(repeats):
        for mode in SEATINGS:
            probe = spec_for(1, players=4, seating=mode)
            deals = max(1, games // len(probe.orders))
            spec = spec_for(deals, first=r * deals, players=4, seating=mode)
            start = time.process_time()
            result = chunks.play_native(spec)
            rates[mode].append(result.rows / (time.process_time() - start))
    print(f"greedy x4, 4 players, chunk path; medians of {repeats} x ~{games:,} games")
    for mode, values in rates.items():
        orders = len(spec_for(1, players=4, seating=mode).orders)
        rate = statistics.median(values)
        print(f"  {mode:13s} ({orders:2d} orders a deal) {rate:>11,.0f} games/CPU-s")


def optimal_rounds(games: int, warm: int, repeats: int) -> None:
    """optimal v simple: Python engine and native on the same games, both caches warm."""
    rules = Rules(players=2)
    specs = [resolve("optimal"), resolve("simple")]

    def python(seeds: range) -> list:
        return [
            Game([sp.create() for sp in specs], rules, SeededDice(k), seed=k).play() for k in seeds
        ]

    python(range(warm))
    native.play_games(rules, ["optimal", "simple"], range(warm))
    py_rates, nat_rates = [], []
    for r in range(repeats):
        seeds = range(warm + r * games, warm + (r + 1) * games)
        start = time.process_time()
        expected = python(seeds)
        py_rates.append(games / (time.process_time() - start))
        start = time.process_time()
        got = native.play_games(rules, ["optimal", "simple"], seeds)
        nat_rates.append(games / (time.process_time() - start))
        for k, g in enumerate(expected):
            mine = ([got.seats[i]["worms"][k] for i in range(2)], got.games["turns"][k])
            if mine != (g.scores, g.turns):
                fail(
                    f"optimal v simple, seed {seeds[k]}: native {mine}, "
                    f"Python {(g.scores, g.turns)}"
                )
    py, nat = statistics.median(py_rates), statistics.median(nat_rates)
    print(f"optimal v simple, 2 players; {warm} warm-up games, medians of {repeats} x {games}")
    print(f"  Python engine {py:>11,.0f} games/CPU-s")
    print(f"  native        {nat:>11,.0f} games/CPU-s   {nat / py:.1f}x (target 10x)")


if __name__ == "__main__":
    main()
