"""What a fresh strategy instance per game costs, and what a worker's
bookkeeping per game costs (the row written to shared memory, the clock read for the
batches streamed to the parent): games per CPU-second of ``play_chunk``.

Variants, interleaved round by round in one process (so that the machine's load hits
them alike), each over the same chunk:

* ``fresh``: as harness plays: a new instance of each strategy for every game;
* ``reused``: the old way, one instance per strategy for the whole chunk (simulated by
  handing out the same instance every time);
* ``worker``: ``fresh`` plus what a worker process adds per game (a shared-memory
  watch and a sink for streamed rows).

    python benchmarks/workers_fresh_instances.py [--deals 600] [--rounds 7]
"""

from __future__ import annotations

import argparse
import statistics
import time
from multiprocessing import RawArray
from typing import Any

from harness.tourney import chunks, load_config, plan
from harness.tourney.backends.worker import WATCH_SLOTS, Watch


def reused_factory(spec: Any) -> Any:
    instance = spec.cls(**dict(spec.params))
    return lambda: instance


def measure(spec: Any, variant: str) -> float:
    """Games per CPU-second of one play of the chunk."""
    kwargs: dict[str, Any] = {}
    real = chunks._factory
    if variant == "reused":
        chunks._factory = reused_factory
    if variant == "worker":
        kwargs = {"watch": Watch(RawArray("d", WATCH_SLOTS)), "sink": lambda result, stop: None}
    try:
        started = time.process_time()
        result = chunks.play_chunk(spec, **kwargs)
        return result.rows / (time.process_time() - started)
    finally:
        chunks._factory = real


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--deals", type=int, default=600)
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--entrants", default="greedy,threshold")
    args = parser.parse_args()
    config = load_config(
        {"entrants": args.entrants.split(","), "deals": args.deals, "chunk": args.deals}
    )
    spec = next(plan.chunks(config))
    variants = ("fresh", "reused", "worker")
    measure(spec, "fresh")  # warm up: imports, caches
    rates: dict[str, list[float]] = {v: [] for v in variants}
    for round_ in range(args.rounds):
        # Each variant first, second and third equally often: no order effect.
        for k in range(len(variants)):
            variant = variants[(round_ + k) % len(variants)]
            rates[variant].append(measure(spec, variant))
    base = statistics.median(rates["reused"])
    print(f"{spec.describe()}: {spec.games} games, {args.rounds} interleaved rounds")
    for variant in variants:
        rate = statistics.median(rates[variant])
        change = 100 * (rate / base - 1)
        print(f"  {variant:7s} {rate:9,.0f} games/CPU-s  ({change:+.1f}% vs reused)")


if __name__ == "__main__":
    main()
