"""Speed of the `optimal` strategy: games and turns per CPU-second, and its cache.

    python benchmarks/optimal_speed.py [--games 2000] [--repeats 3] [--opponent simple]
    python benchmarks/optimal_speed.py --chunk 300 [--repeats 5] [--warm 500] [--lanes N]

Plays 2-player duplicate-dice deals (both seat orders), `optimal` against an opponent,
through the real engine, in one process. Shows CPU time (time.process_time) as the
median of repeats, the same for the opponent alone (the engine's own cost), the turns
`optimal` played per CPU-second, how often a turn needed a fresh dynamic programme,
and the cost of one solve. The first repeat starts with cold caches (as a tournament
worker does); later repeats replay the same deals, so they are reported separately
from a run on fresh deals.

``--chunk N``: instead, the chunk path side by side (the headline figure: ``optimal`` against
``simple`` natively at 10x the Python engine, with identical decisions): each repeat plays
the same ChunkSpec of N fresh 2-player deals (both seat orders, independent dice) through
``harness.tourney.chunks.play_chunk`` (the Python engine) and ``play_native`` (there too),
checks that every stored row is the same, and shows medians of games per CPU-second and
their ratio; both engines first play --warm deals (their solved-turn caches warm, as in a
long run), and the native engine's solved-turn cache counters are shown. ``--lanes N``:
also native with at most N lanes in the turn programme (4: AVX2, 2: SSE2 or NEON, 0:
state by state; the default is the widest the processor has), each repeat on deals of
its own, as many, since the first native run's turns are cached.
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import sys
import time

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # idle BLAS threads count as CPU time

from harness.analysis.turn import Payoff, solve_arrays  # noqa: E402
from harness.game.dice import DuplicateDice, derive_seed  # noqa: E402
from harness.game.engine import Game  # noqa: E402
from harness.plugins import resolve  # noqa: E402
from harness.rules import Rules  # noqa: E402


def play(first: str, second: str, deals: int, offset: int) -> tuple[float, int, int]:
    """CPU seconds, games, turns of seat-rotated duplicate deals."""
    a, b = resolve(first).create(), resolve(second).create()
    rules = Rules(players=2)
    turns = games = 0
    start = time.process_time()
    for deal in range(offset, offset + deals):
        dice = DuplicateDice(derive_seed("optimal_speed", deal))
        for seats in ((a, b), (b, a)):
            result = Game(list(seats), rules, dice).play()
            turns += result.turns
            games += 1
    return time.process_time() - start, games, turns


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=2000, help="games per repeat (even)")
    parser.add_argument("--repeats", type=int, default=3, help="repeats on fresh deals")
    parser.add_argument("--opponent", default="simple", help="the other seat")
    parser.add_argument("--strategy", default="optimal", help="the strategy measured")
    parser.add_argument("--chunk", type=int, default=0, help="deals a repeat: chunk path, both")
    parser.add_argument("--warm", type=int, default=500, help="warm-up deals (--chunk)")
    parser.add_argument(
        "--lanes", type=int, help="--chunk: native with at most this many lanes too (0, 2)"
    )
    args = parser.parse_args()
    if args.chunk:
        chunk_rounds(args.strategy, args.opponent, args.chunk, args.warm, args.repeats, args.lanes)
        return
    import harness.strategies.optimal as opt

    print(f"{platform.python_implementation()} {platform.python_version()} ({sys.executable})")
    deals = args.games // 2
    solves = [0]
    real_solve = opt.solve_arrays

    def counting_solve(payoff: Payoff):  # noqa: ANN202
        solves[0] += 1
        return real_solve(payoff)

    opt.solve_arrays = counting_solve
    rates, turn_rates, fresh = [], [], []
    for r in range(args.repeats):
        before = solves[0]
        cpu, games, turns = play(args.strategy, args.opponent, deals, r * deals)
        base_cpu, _, base_turns = play(args.opponent, args.opponent, deals, r * deals)
        # The measured strategy plays about half the turns; the other half cost what a
        # turn of the opponent (engine included) costs when it plays itself.
        own = cpu - base_cpu / base_turns * (turns / 2)
        rates.append(games / cpu)
        turn_rates.append((turns / 2) / max(own, 1e-9))
        fresh.append((solves[0] - before) / (turns / 2))
        label = "cold caches" if r == 0 else "warm caches, fresh deals"
        print(
            f"repeat {r + 1} ({label}): {games / cpu:,.0f} games/CPU-s, "
            f"{turns / cpu:,.0f} turns/CPU-s in all; {args.strategy} alone "
            f"{turn_rates[-1]:,.0f} of its turns/CPU-s (engine included); "
            f"{fresh[-1]:.1%} of its turns solved afresh; "
            f"{args.opponent} vs itself {games / base_cpu:,.0f} games/CPU-s"
        )
    opt.solve_arrays = real_solve
    payoffs = [
        Payoff.from_function(lambda s, k=k: (s // 4 + k) if s >= 21 else None, -k)
        for k in range(20)
    ]
    start = time.process_time()
    for payoff in payoffs:
        solve_arrays(payoff)
    per_solve = (time.process_time() - start) / len(payoffs)
    print(
        f"median {statistics.median(rates):,.0f} games/CPU-s; one solve {per_solve * 1e3:.2f} ms; "
        f"{len(opt._SOLVED)} solved turns cached"
    )


def chunk_spec(first: str, second: str, deals: int, offset: int):  # noqa: ANN201
    """A ChunkSpec of 2-player deals offset.. (both seat orders, independent dice)."""
    from harness.tourney.plan import ChunkSpec, EntrantRef

    refs = []
    for name in (first, second):
        spec = resolve(name)
        refs.append(EntrantRef(spec.label, spec.ref, spec.params, spec.identity()["code"]))
    return ChunkSpec(
        "optimal_speed", "tbl", tuple(refs), Rules(players=2), "independent", 1, offset,
        offset + deals, 1000, seating="cyclic",
    )  # fmt: skip


def chunk_rounds(
    first: str, second: str, deals: int, warm: int, repeats: int, lanes: int | None = None
) -> None:
    """The chunk path, Python engine and native, on the same fresh deals each repeat.

    ``lanes``: also, each repeat, native with at most that many lanes in the turn
    programme, on deals of its own (the first run's solved turns would be cached).
    """
    from harness import native
    from harness.tourney import chunks

    if not native.available():
        sys.exit("optimal_speed: the native engine is not built (pip install -e .)")
    warm_spec = chunk_spec(first, second, warm, 10**6)
    chunks.play_chunk(warm_spec)
    chunks.play_native(warm_spec)
    rates: dict[str, list[float]] = {"Python": [], "native": [], "other": []}
    best = native._core.dp_lanes(4)
    if lanes is not None:
        lanes = native._core.dp_lanes(lanes)
        native._core.set_portable(False)

    def timed(name: str, spec, play):  # noqa: ANN001, ANN202
        start = time.process_time()
        rows = play(spec)
        rates[name].append(spec.games / (time.process_time() - start))
        return rows

    def same(got, expected, r: int) -> None:  # noqa: ANN001
        if (got.games, got.seats, got.stats) != (expected.games, expected.seats, expected.stats):
            sys.exit(f"optimal_speed: repeat {r + 1}: the native rows differ from the Python rows")

    for r in range(repeats):
        spec = chunk_spec(first, second, deals, 2 * r * deals)
        expected = timed("Python", spec, chunks.play_chunk)
        same(timed("native", spec, chunks.play_native), expected, r)
        py, nat = rates["Python"][-1], rates["native"][-1]
        line = f"repeat {r + 1}: Python {py:,.0f}, native {nat:,.0f} games/CPU-s ({nat / py:.1f}x)"
        if lanes is not None:
            other = chunk_spec(first, second, deals, (2 * r + 1) * deals)
            expected = chunks.play_chunk(other)
            native._core.dp_lanes(lanes)
            try:
                same(timed("other", other, chunks.play_native), expected, r)
            finally:
                native._core.set_portable(False)
            line += f", native with {lanes} lanes {rates['other'][-1]:,.0f}"
        print(f"{line}; rows identical")
    py, nat = statistics.median(rates["Python"]), statistics.median(rates["native"])
    hits, misses = native._core.dp_cache_stats()
    print(
        f"{first} v {second}, 2 players, chunk path; {warm} warm-up deals, medians of {repeats} "
        f"x {2 * deals} games:\n  Python engine {py:>9,.0f} games/CPU-s\n  native        "
        f"{nat:>9,.0f} games/CPU-s   {nat / py:.1f}x (target 10x), {best} lanes; native "
        f"solved-turn cache {hits:,} hits, {misses:,} misses"
    )
    if lanes is not None:
        other = statistics.median(rates["other"])
        print(
            f"  {lanes} lanes       {other:>9,.0f} games/CPU-s   {other / py:.1f}x; {best} lanes "
            f"against {lanes}: {nat / other:.2f}x (other deals, as many)"
        )


if __name__ == "__main__":
    main()
