"""CPU per game of native `win-optimal` beside native `optimal`, in one run.

    python benchmarks/win_optimal_speed.py [--players 2] [--deals 300] [--repeats 5]
        [--opponent simple] [--hidden 64,64] [--normal | --model FILE] [--portable] [--warm 200]

Each repeat plays --deals fresh deals (every seat order of the cyclic design,
independent dice; deals of their own each repeat) natively twice through
harness.native.play_deals: `win-optimal` against --opponent in the other seats, then
`optimal` against the same, and shows the medians of CPU seconds per game
(time.process_time) and their ratio (issue 32's target: win-optimal at most 3x
optimal). Both first play --warm deals of their own (the caches warm, as in a long run;
the first repeat of a fresh worker is colder).

The evaluator is the shipped model for the player count when there is one
(harness/winprob/models); otherwise a random integer network of the --hidden widths
(ReLU, as a trained model's layers would be) is put in its place, the evaluator's test
hook (its shipped_model looked up at call time); --normal: the normal approximation
instead (the evaluator's fallback where no model is shipped); --model FILE: that model
file (one ``python -m harness.training --out FILE`` wrote). --portable: both as on
a processor without AVX2 (the network's rows one product at a time, the turn programme
in SSE2's two lanes).
"""

from __future__ import annotations

import argparse
import importlib
import os
import platform
import statistics
import time

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import numpy as np  # noqa: E402

from harness import native  # noqa: E402
from harness.game.seating import design  # noqa: E402
from harness.native import evaluators  # noqa: E402
from harness.rules import Rules  # noqa: E402
from harness.winprob import Model, evaluator, feature_count, shipped_model  # noqa: E402
from harness.winprob.model import Layer, load  # noqa: E402

# the module (harness.winprob's `evaluator` is the function of that name)
winprob_evaluator = importlib.import_module("harness.winprob.evaluator")


def random_model(players: int, hidden: tuple[int, ...], seed: int = 1) -> Model:
    """A random integer network of these hidden widths (weights of int32 size)."""
    rng = np.random.default_rng(seed)
    sizes = [feature_count(players), *hidden, players]
    layers = tuple(
        Layer(
            rng.integers(-3000, 3000, size=(sizes[i + 1], sizes[i]), dtype=np.int64),
            rng.integers(-5000, 5000, size=sizes[i + 1], dtype=np.int64),
            8,
        )
        for i in range(len(sizes) - 1)
    )
    return Model.from_bytes(Model(players, layers, 10).to_bytes())


def use_model(players: int, model: Model | None) -> None:
    """The evaluator's model for ``players`` seats (None: the normal approximation)."""

    def lookup(p: int, preset: str = "official") -> Model | None:
        return model if (p, preset) == (players, "official") else None

    winprob_evaluator.shipped_model = lookup
    evaluator.cache_clear()
    evaluators.forget()


def play(
    players: int, seat: str, opponent: str, seed: int, first: int, deals: int
) -> tuple[float, int]:
    """CPU seconds and games of ``seat`` against ``opponent`` in the other seats."""
    entrants = [seat] + [opponent] * (players - 1)
    start = time.process_time()
    res = native.play_deals(
        Rules(players=players),
        entrants,
        seed,
        first,
        first + deals,
        orders=design(players, "cyclic"),
        dice="independent",
    )
    return time.process_time() - start, res.rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--deals", type=int, default=300)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--opponent", default="simple")
    parser.add_argument("--hidden", default="64,64")
    parser.add_argument("--normal", action="store_true")
    parser.add_argument("--portable", action="store_true")
    parser.add_argument("--model", help="a model file to use (python -m harness.training's)")
    parser.add_argument("--warm", type=int, default=200)
    parser.add_argument("--seed", type=int, default=20261206)
    args = parser.parse_args()
    players = args.players
    shipped = shipped_model(players)
    if args.normal:
        use_model(players, None)
        what = "the normal approximation (no model)"
    elif args.model:
        given = load(args.model)
        use_model(players, given)
        what = f"{args.model}, sha256 {given.sha256[:12]}, layers " + ", ".join(
            "x".join(map(str, layer.weights.shape)) for layer in given.layers
        )
    elif shipped is not None:
        what = f"the shipped model, sha256 {shipped.sha256[:12]}"
    else:
        hidden = tuple(int(h) for h in args.hidden.split(",") if h)
        use_model(players, random_model(players, hidden))
        what = f"a random model, hidden widths {hidden} (none shipped for {players} players)"
    if args.portable:  # a processor without AVX2: SSE2's two lanes in the turn programme
        native._core.set_portable(True)  # (every x86-64 has them), the network's rows plain
        native._core.dp_lanes(2)
    print(f"{platform.processor() or platform.machine()}, Python {platform.python_version()}")
    print(f"{players} players, {args.deals} deals x {players} seat orders, vs {args.opponent}")
    print(f"evaluator: {what}")
    per: dict[str, list[float]] = {"win-optimal": [], "optimal": []}
    for name in per:
        play(players, name, args.opponent, args.seed, 0, args.warm)
    for r in range(args.repeats):
        first = args.warm + r * args.deals
        for name in per:
            cpu, games = play(players, name, args.opponent, args.seed, first, args.deals)
            per[name].append(cpu / games)
        print(
            f"  repeat {r + 1}: win-optimal {per['win-optimal'][-1] * 1e3:.3f} ms/game,"
            f" optimal {per['optimal'][-1] * 1e3:.3f} ms/game"
        )
    hits, misses = native._core.wp_plan_stats()
    median = {name: statistics.median(v) for name, v in per.items()}
    print(f"median CPU per game: win-optimal {median['win-optimal'] * 1e3:.3f} ms,")
    print(f"                     optimal     {median['optimal'] * 1e3:.3f} ms")
    print(f"ratio win-optimal / optimal: {median['win-optimal'] / median['optimal']:.2f}x")
    print(f"win-optimal plan cache: {hits} boards found, {misses} evaluated")


if __name__ == "__main__":
    main()
