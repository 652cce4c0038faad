"""Train a Pickomino agent on the vector environment: evolution strategies, numpy only.

The policy is linear: one score per action, ``observation @ W + b``, the best legal
action taken (harness.env.encoding: 205 inputs, 24 actions). It is trained by OpenAI-style
evolution strategies with antithetic pairs: each generation perturbs the weights
``+-sigma * noise`` for every member of the population, plays every member on the same
deals (duplicate dice: the same deal seeds, the same seats, so members differ by their
play, not their luck), and moves the weights towards the perturbations that scored
better (ranks, not raw scores). No gradients, no deep-learning library; the games are
played by ``harness.env.vector.VectorEnv`` in C.

    python examples/rl/train.py                       # the documented run (a few minutes)
    python examples/rl/train.py --generations 2 --population 4 --deals 4 --out /tmp/a.py

It writes ``agent_trained.py`` in the current folder (``--out`` another file): a harness
strategy with the weights in its own source (so a tournament's code identity covers
them), which enters a tournament by reference (``agent_trained.py:TrainedAgent``). A file
that exists is never overwritten without ``--force``: the agent shipped with the example,
``examples/rl/agent.py``, which ``examples/rl/gauntlet.yaml`` judges, stays as it is
unless asked (``--out examples/rl/agent.py --force``):

    harness tourney examples/rl/gauntlet.yaml
"""

from __future__ import annotations

import argparse
import base64
import textwrap
import time
from pathlib import Path

import numpy as np

from harness.env.encoding import ACTIONS, OBS_SIZE
from harness.env.vector import VectorEnv

HERE = Path(__file__).parent


def scores(weights: np.ndarray, obs: np.ndarray, members: int) -> np.ndarray:
    """Action scores of every slot; slot i is played by member i // (slots / members)."""
    per = obs.shape[0] // members
    w, b = weights[:, :-1].reshape(members, OBS_SIZE, ACTIONS), weights[:, -1]
    out = np.einsum("mso,moa->msa", obs.reshape(members, per, OBS_SIZE), w)
    return (out + b.reshape(members, 1, ACTIONS)).reshape(-1, ACTIONS)


def best_legal(values: np.ndarray, mask: np.ndarray) -> np.ndarray:
    return np.argmax(np.where(mask == 1, values, -np.inf), axis=1)


def evaluate(env: VectorEnv, weights: np.ndarray, seed: int, deals: int) -> np.ndarray:
    """The first episode's return of every member on episodes 0..deals-1 (mean)."""
    members = weights.shape[0]
    starts = np.tile(np.arange(deals, dtype=np.int64), members)
    obs, _ = env.reset(seed=seed, starts=starts, stride=1 << 30)
    returns = np.zeros(env.num_envs)
    open_ = np.ones(env.num_envs, bool)
    while open_.any():
        acts = best_legal(scores(weights, obs["observation"], members), obs["action_mask"])
        obs, rewards, term, trunc, _ = env.step(acts)
        returns += np.where(open_, rewards, 0.0)
        open_ &= ~(term | trunc)
    return returns.reshape(members, deals).mean(axis=1)


def centred_ranks(x: np.ndarray) -> np.ndarray:
    ranks = np.empty(len(x))
    ranks[np.argsort(x)] = np.arange(len(x))
    return ranks / (len(x) - 1) - 0.5


def write_agent(theta: np.ndarray, path: Path, note: str) -> None:
    blob = base64.b64encode(theta.astype("<f4").tobytes()).decode()
    lines = [blob[i : i + 96] for i in range(0, len(blob), 96)]
    weights = "\n".join(f'    "{line}"' for line in lines)
    template = (HERE / "agent_template.py").read_text()
    note = textwrap.fill(note, 88, subsequent_indent="")
    path.write_text(template.replace("NOTE", note).replace('"WEIGHTS"', f"(\n{weights}\n)"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--opponents", default="greedy", help="comma-separated built-ins")
    parser.add_argument("--rules", default="official")
    parser.add_argument("--reward", default="margin", choices=["margin", "win", "swing"])
    parser.add_argument("--generations", type=int, default=60)
    parser.add_argument("--population", type=int, default=16, help="antithetic pairs")
    parser.add_argument("--deals", type=int, default=48, help="episodes per member")
    parser.add_argument("--sigma", type=float, default=0.05)
    parser.add_argument("--lr", type=float, default=0.03)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--out", type=Path, default=Path("agent_trained.py"), help="the agent file to write"
    )
    parser.add_argument("--force", action="store_true", help="overwrite --out if it exists")
    args = parser.parse_args()
    if args.out.exists() and not args.force:  # said before minutes of training, not after
        parser.exit(2, f"{args.out} exists: give another --out, or --force to overwrite it\n")

    opponents = args.opponents.split(",")
    rng = np.random.default_rng(args.seed)
    dim = (OBS_SIZE + 1) * ACTIONS
    theta = np.zeros(dim)
    members = 2 * args.population
    env = VectorEnv(members * args.deals, opponents, args.rules, reward=args.reward)
    start = time.process_time()
    for gen in range(args.generations):
        noise = rng.standard_normal((args.population, dim))
        pop = np.concatenate([theta + args.sigma * noise, theta - args.sigma * noise])
        fitness = evaluate(env, pop.reshape(members, OBS_SIZE + 1, ACTIONS), 1000 + gen, args.deals)
        ranked = centred_ranks(fitness)
        step = (ranked[: args.population] - ranked[args.population :]) @ noise
        theta += args.lr / (args.population * args.sigma) * step
        if gen % 10 == 0 or gen == args.generations - 1:
            print(
                f"generation {gen:4d}: mean {args.reward} {fitness.mean():+.3f} "
                f"(best {fitness.max():+.3f}), {time.process_time() - start:.0f} CPU-s",
                flush=True,
            )
    note = (
        f"{args.generations} generations x {members} members x {args.deals} deals against "
        f"{args.opponents} ({args.rules}, reward {args.reward}, seed {args.seed})"
    )
    write_agent(theta, args.out, note)
    print(f"wrote {args.out} ({note})")


if __name__ == "__main__":
    main()
