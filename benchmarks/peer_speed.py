"""Peer calibration: games per CPU-second of our engine and of pickomino-env, one interleaved run.

The peer is the public ``pickomino-env`` Gymnasium package (PyPI, version 1.4.1). It is NOT a
dependency of this project: it lives in a separate virtual environment, and this script
installs nothing. Set that environment up once, with the default ``python3`` (3.11):

    python3 -m venv /tmp/peer-venv
    /tmp/peer-venv/bin/pip install pickomino-env==1.4.1
    # or, offline, from a downloaded wheel:
    # /tmp/peer-venv/bin/pip install /tmp/pe/pickomino_env-1.4.1-py3-none-any.whl

Our side needs no install there: the engine, dice, rules and plugin modules use only the
standard library, and PYTHONPATH puts this checkout on the path. (Should a future import of
the ``harness`` package need a runtime dependency, add it with ``/tmp/peer-venv/bin/pip``.)
Run, from the repository root:

    PYTHONPATH=$PWD /tmp/peer-venv/bin/python benchmarks/peer_speed.py [--rounds 20]

(a) ours: ``greedy`` in both seats, one new ``Game(seats, Rules(players=2), SeededDice(seed),
    seed=seed).play()`` per game, as in benchmarks/engine_speed.py.
(b) peer: ``gymnasium.make("Pickomino-v0", number_of_bots=1)`` (``--direct``: the bare
    ``PickominoEnv`` without Gymnasium's wrappers), no rendering. The package has no bot-vs-bot
    loop, so its own heuristic ``Bot.policy`` also plays seat 0, the agent's seat: a fresh
    ``Bot()`` each turn (as the env does for its bots), fed the env's ``info`` after every
    ``step``; the env plays its bot in seat 1 inside ``step``. A game is one episode, from
    ``reset(seed=...)`` to ``terminated``.

Rounds alternate a batch of each side (the side that goes first alternates too); each batch
is sized from a warm-up to take about --batch-seconds of CPU. Printed: the median games per
CPU-second (time.process_time) of each side and the ratio ours/peer, both as the median of
the per-round ratios and as the ratio of the medians. Every game is checked to be complete;
the script exits 1 if one was not.

Caveats of the peer (1.4.1), read from its code: its env bot keeps playing after it busts
on a roll (the loop in ``_play_bot`` stops only on a stop action), so seat 1 plays more turns
and wins about two games in three; when seat 0 takes the last tile, seat 1 still plays one
step; a returned tile that is the highest is flipped at once (our ``short`` preset, not the
official ``keep``); only the first roll follows the reset seed (each turn makes a new
``Dice()`` with an unseeded RNG). Games last about as many turns as ours (~29) and at most
~55 seat-0 steps, so the 200-step TimeLimit never ends one.
"""

from __future__ import annotations

import argparse
import logging
import os
import platform
import statistics
import sys
import time
from dataclasses import dataclass, field
from importlib.metadata import version
from pathlib import Path
from typing import Any

STEP_CAP = 10_000  # seat-0 decisions per peer game before we call it stuck (never reached)


@dataclass
class Tally:
    """What one side's games ended as, over all batches."""

    games: int = 0
    complete: int = 0
    wins: list[int] = field(default_factory=lambda: [0, 0])
    shared: int = 0
    work: int = 0  # ours: turns; peer: seat-0 decisions (env steps)
    most_work: int = 0
    rates: list[float] = field(default_factory=list)


def load_ours() -> dict[str, Any]:
    try:
        import harness  # noqa: F401
    except ImportError:  # not installed in the peer venv and no PYTHONPATH: use this checkout
        sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from harness.game.dice import SeededDice
    from harness.game.engine import Game
    from harness.plugins import resolve
    from harness.rules import Rules

    return {"Game": Game, "SeededDice": SeededDice, "resolve": resolve, "Rules": Rules}


def load_peer(direct: bool) -> tuple[Any, Any, str]:
    """The peer env, its Bot class and a line on versions, logging and rendering."""
    os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")  # pygame's import banner
    try:
        import gymnasium
        import pickomino_env  # noqa: F401  (registers Pickomino-v0)
        from pickomino_env.modules import logging_config
        from pickomino_env.modules.bot import Bot
        from pickomino_env.pickomino import PickominoEnv
    except ImportError as exc:
        sys.exit(
            f"peer_speed: pickomino_env is not importable ({exc}) in {sys.executable}; "
            "create /tmp/peer-venv and run with it as the top of benchmarks/peer_speed.py says"
        )
    # pickomino_env logs every step at DEBUG through loguru when loguru is installed (a file
    # sink in the temp dir); without loguru its log() is a no-op.
    if hasattr(logging_config, "logger"):
        logging_config.logger.remove()
        peer_log = "loguru installed: its DEBUG file sink removed"
    else:
        peer_log = "log() is a no-op (loguru not installed)"
    root = logging.getLevelName(logging.getLogger().getEffectiveLevel())
    gym_level = {10: "DEBUG", 20: "INFO", 30: "WARN", 40: "ERROR"}.get(
        gymnasium.logger.min_level, str(gymnasium.logger.min_level)
    )
    if direct:
        env = PickominoEnv(number_of_bots=1, render_mode=None)
        how = "PickominoEnv(number_of_bots=1, render_mode=None)"
    else:
        env = gymnasium.make("Pickomino-v0", number_of_bots=1)
        how = f"gymnasium.make('Pickomino-v0', number_of_bots=1) = {env}"
    if env.unwrapped.render_mode is not None:
        sys.exit(f"peer_speed: the peer env renders ({env.unwrapped.render_mode!r})")
    line = (
        f"peer: pickomino-env {version('pickomino-env')}, gymnasium {version('gymnasium')}, "
        f"numpy {version('numpy')}; {how}; render_mode=None; {peer_log}; "
        f"stdlib root logger {root}, gymnasium logger {gym_level}"
    )
    return env, Bot, line


def ours_batch(ours: dict[str, Any], games: int, first_seed: int, tally: Tally) -> float:
    Game, SeededDice = ours["Game"], ours["SeededDice"]
    rules = ours["Rules"](players=2)
    spec = ours["resolve"]("greedy")
    seats = [spec.create() for _ in range(2)]
    start = time.process_time()
    for seed in range(first_seed, first_seed + games):
        r = Game(seats, rules, SeededDice(seed), seed=seed).play()
        tally.games += 1
        if r.over and r.error is None and not r.capped and not r.grill:
            tally.complete += 1
        if r.winner is None:
            tally.shared += 1
        else:
            tally.wins[r.winner] += 1
        tally.work += r.turns
        tally.most_work = max(tally.most_work, r.turns)
    return games / (time.process_time() - start)


def peer_batch(env: Any, Bot: Any, games: int, first_seed: int, tally: Tally) -> float:
    start = time.process_time()
    for seed in range(first_seed, first_seed + games):
        _, info = env.reset(seed=seed)
        steps = 0
        while True:
            if not any(info["dice_collected"]):  # a new turn of seat 0
                bot = Bot()
            action = bot.policy(info["dice_rolled"], info["dice_collected"], info["smallest_tile"])
            _, _, terminated, truncated, info = env.step(action)
            steps += 1
            # truncated: an illegal action or gymnasium's 200-step TimeLimit; either way
            # the game is cut short and counted incomplete below.
            if terminated or truncated or steps >= STEP_CAP:
                break
        tally.games += 1
        if terminated and not truncated and not any(info["tiles_table_vec"]):
            tally.complete += 1
        # The winner as the package's renderer declares it: most worms, then highest tile.
        players = env.unwrapped._game.players
        key = [(p.end_score(), p.highest_tile()) for p in players]
        best = max(key)
        if key.count(best) > 1:
            tally.shared += 1
        else:
            tally.wins[key.index(best)] += 1
        tally.work += steps
        tally.most_work = max(tally.most_work, steps)
    return games / (time.process_time() - start)


def summary(name: str, tally: Tally, work: str, extra: str) -> str:
    rates = tally.rates
    med = statistics.median(rates)
    done = "all complete" if tally.complete == tally.games else f"{tally.complete} complete"
    return (
        f"{name}: median {med:,.1f} games/CPU-s = {1e6 / med:,.0f} us/game "
        f"(worst {min(rates):,.1f}, best {max(rates):,.1f}); {tally.games:,} games, {done}; "
        f"wins seat 0/1/shared {tally.wins[0]}/{tally.wins[1]}/{tally.shared}; "
        f"{work} per game mean {tally.work / tally.games:.1f}, max {tally.most_work}{extra}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=20, help="interleaved rounds")
    parser.add_argument("--batch-seconds", type=float, default=0.75, help="CPU-s per batch")
    parser.add_argument("--ours-games", type=int, help="games per batch of ours (else sized)")
    parser.add_argument("--peer-games", type=int, help="games per batch of the peer (else sized)")
    parser.add_argument("--direct", action="store_true", help="bare PickominoEnv, no gym.make")
    args = parser.parse_args()

    ours = load_ours()
    env, Bot, peer_line = load_peer(args.direct)
    print(f"{platform.python_implementation()} {platform.python_version()} ({sys.executable})")
    print(peer_line)

    # Warm-up (not counted) sizes the batches.
    ours_rate = ours_batch(ours, 300, 10**6, Tally())
    peer_rate = peer_batch(env, Bot, 8, 10**6, Tally())
    n_ours = args.ours_games or max(100, int(round(ours_rate * args.batch_seconds, -2)))
    n_peer = args.peer_games or max(5, round(peer_rate * args.batch_seconds))
    print(
        f"{args.rounds} rounds, each one batch of ours ({n_ours:,} games) and one of the peer "
        f"({n_peer:,} games), alternating which goes first"
    )

    mine, peer = Tally(), Tally()
    ratios = []
    for i in range(args.rounds):
        if i % 2 == 0:
            mine.rates.append(ours_batch(ours, n_ours, i * n_ours, mine))
            peer.rates.append(peer_batch(env, Bot, n_peer, i * n_peer, peer))
        else:
            peer.rates.append(peer_batch(env, Bot, n_peer, i * n_peer, peer))
            mine.rates.append(ours_batch(ours, n_ours, i * n_ours, mine))
        ratios.append(mine.rates[-1] / peer.rates[-1])

    print(summary("ours (greedy x2, Rules(players=2))", mine, "turns", ""))
    cap = "" if args.direct else " (gymnasium's TimeLimit: 200)"
    print(summary("peer (heuristic Bot x2)", peer, "seat-0 steps", cap))
    print(
        f"ours/peer: median of per-round ratios {statistics.median(ratios):,.1f}x "
        f"(range {min(ratios):,.1f}-{max(ratios):,.1f}); ratio of medians "
        f"{statistics.median(mine.rates) / statistics.median(peer.rates):,.1f}x"
    )
    if mine.complete != mine.games or peer.complete != peer.games:
        sys.exit("peer_speed: some games did not complete (see above)")


if __name__ == "__main__":
    main()
