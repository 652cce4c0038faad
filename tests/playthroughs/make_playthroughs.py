"""Regenerate the regression playthroughs (run by hand, never by the test suite).

    python tests/playthroughs/make_playthroughs.py            # only missing ones
    python tests/playthroughs/make_playthroughs.py --force    # rewrite all of them

Each playthrough is a game played by ``harness play ... --record`` at a fixed seed:

* ``NAME.json``: the record exactly as ``harness play --record`` wrote it;
* ``NAME.state.json``: its final state, as ``harness replay NAME.json --json`` prints it;
* ``NAME.log``: the turn-by-turn story of the replayed record (harness.play.narrate).

``tests/game/test_replay.py`` replays every record and compares state and story with these
files, so a change in how the rules are applied shows up as a readable diff. Only
regenerate after checking that the change is intended (and say so in the commit).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent

# name: (strategies, options) -- 2, 3, 4, 5 and 7 players; every preset; a custom mix.
GAMES: dict[str, tuple[list[str], list[str]]] = {
    "official-2p": (["greedy", "threshold(target=28)"], ["--seed", "7"]),
    "piko-blog-4p": (
        ["random", "worm-first", "greedy", "threshold(target=30)"],
        ["--rules", "piko-blog", "--seed", "11"],
    ),
    "french-7p": (
        [
            "greedy",
            "random",
            "worm-first",
            "threshold(target=25)",
            "threshold(target=33)",
            "random(p_stop=0.8)",
            "worm-first(target=28, min_dice=2)",
        ],
        ["--rules", "french", "--seed", "3"],
    ),
    "short-3p": (["threshold(target=27)", "random", "greedy"], ["--rules", "short", "--seed", "5"]),
    "custom-5p": (
        ["random", "greedy", "worm-first", "random(p_stop=0.3)", "threshold(target=26)"],
        ["--set", "bust_flip=lowest", "--set", "returned_tile=flip", "--seed", "21"],
    ),
}


def story(record: dict) -> list[str]:
    from harness.game.record import replay
    from harness.play.narrate import Narrator

    lines: list[str] = []
    replay(record, observer=Narrator(record["seats"], lines.append))
    return lines


def make(name: str, strategies: list[str], options: list[str]) -> None:
    record_path = HERE / f"{name}.json"
    cmd = [sys.executable, "-m", "harness.cli", "play", *strategies, *options, "-q"]
    subprocess.run([*cmd, "--record", str(record_path)], check=True, capture_output=True)
    state = subprocess.run(
        [sys.executable, "-m", "harness.cli", "replay", str(record_path), "--json"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    (HERE / f"{name}.state.json").write_text(json.dumps(json.loads(state), indent=1) + "\n")
    record = json.loads(record_path.read_text())
    (HERE / f"{name}.log").write_text("\n".join(story(record)) + "\n")
    print(f"{name}: {len(record['turns'])} turns, {record['result']}")


def main() -> None:
    force = "--force" in sys.argv[1:]
    for name, (strategies, options) in GAMES.items():
        if force or not (HERE / f"{name}.json").exists():
            make(name, strategies, options)


if __name__ == "__main__":
    main()
