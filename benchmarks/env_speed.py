"""Agent steps per CPU-second: harness's environments and pickomino-env's, in one run.

Measured side by side, in interleaved rounds (medians of per-round rates, CPU time):

(a) ``VectorEnv(1024, ["greedy"])`` stepped in C (harness/native/c/vecenv.inc.c), a uniformly
    random legal action per game drawn with numpy from the masks (that draw is counted);
(b) the same with ``engine="python"`` (the fallback where the extension is missing), N = 64;
(c) ``PickominoEnv(["greedy"])`` (Gymnasium, one game, stepped in C) and (d) the same on
    the Python engine, random legal actions;
(e) the peer, ``pickomino-env`` 1.4.1 (``gymnasium.make("Pickomino-v0", number_of_bots=1)``),
    its own heuristic ``Bot`` choosing the agent's actions (it has no action mask, and
    random actions end its episodes at the first illegal one), as benchmarks/peer_speed.py
    plays it. An agent step is one ``step()`` call of an agent decision, in every case.

The peer is not a dependency: set up a throwaway environment with both, then run:

    python3 -m venv /tmp/peer-venv
    /tmp/peer-venv/bin/pip install -e . pickomino-env==1.4.1
    /tmp/peer-venv/bin/python benchmarks/env_speed.py [--rounds 7]

(``--no-peer`` measures ours alone, in any environment with harness.)
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import numpy as np

from harness.env.vector import VectorEnv

sys.path.insert(0, str(Path(__file__).parent))


def vector_rate(env: VectorEnv, rng: np.random.Generator, steps: int) -> float:
    obs, _ = env.reset(seed=int(rng.integers(1 << 40)))
    start = time.process_time()
    for _ in range(steps):
        masks = obs["action_mask"]
        acts = np.argmax(masks * rng.random(masks.shape, dtype=np.float32), axis=1)
        obs, *_ = env.step(acts)
    return steps * env.num_envs / (time.process_time() - start)


def gym_rate(env, rng: np.random.Generator, steps: int) -> float:
    obs, _ = env.reset(seed=int(rng.integers(1 << 40)))
    start = time.process_time()
    for _ in range(steps):
        mask = obs["action_mask"]
        action = int(np.argmax(mask * rng.random(mask.shape, dtype=np.float32)))
        obs, _, term, trunc, _ = env.step(action)
        if term or trunc:
            obs, _ = env.reset()
    return steps / (time.process_time() - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--num-envs", type=int, default=1024)
    parser.add_argument("--no-peer", action="store_true", help="ours alone")
    args = parser.parse_args()
    rng = np.random.default_rng(1)
    sides: dict[str, tuple] = {}
    native = VectorEnv(args.num_envs, ["greedy"])
    assert native.engine == "native", "the native engine is not built here"
    sides[f"vector, C, N={args.num_envs}"] = (lambda: vector_rate(native, rng, 200),)
    fallback = VectorEnv(64, ["greedy"], engine="python")
    sides["vector, Python fallback, N=64"] = (lambda: vector_rate(fallback, rng, 40),)
    try:
        from harness.env.gym import PickominoEnv
    except ImportError:
        print("(gymnasium missing: the Gymnasium env is left out)")
    else:
        gym_c, gym_py = PickominoEnv(["greedy"]), PickominoEnv(["greedy"], engine="python")
        sides["Gymnasium env, C"] = (lambda: gym_rate(gym_c, rng, 20_000),)
        sides["Gymnasium env, Python"] = (lambda: gym_rate(gym_py, rng, 3_000),)
    if not args.no_peer:
        from peer_speed import Tally, load_peer, peer_batch

        env, bot, line = load_peer(direct=False)
        print(line)
        tally = Tally()

        def peer() -> float:
            before = tally.work
            games = 20
            rate = peer_batch(env, bot, games, int(rng.integers(1 << 30)), tally)
            return rate * (tally.work - before) / games  # games/s x steps/game

        sides["peer pickomino-env 1.4.1"] = (peer,)
    rates: dict[str, list[float]] = {name: [] for name in sides}
    for _ in range(args.rounds):
        for name, (run,) in sides.items():
            rates[name].append(run())
    ours = statistics.median(rates[f"vector, C, N={args.num_envs}"])
    print(f"{args.rounds} interleaved rounds; agent steps per CPU-second, median (range):")
    for name, got in rates.items():
        med = statistics.median(got)
        print(
            f"  {name:34s} {med:>13,.0f}  ({min(got):,.0f}-{max(got):,.0f})  "
            f"vector C / this: x{ours / med:,.1f}"
        )


if __name__ == "__main__":
    main()
