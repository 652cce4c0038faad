"""The turn written once in C (harness/native/c/turn.inc.c), and both C drivers on it.

* The engine's loop (``play_turn``, through ``play_deals``) and the vector environment's
  agent turn (vecenv.inc.c, one question a call) play the same games: the agent answering
  with greedy's rule through the observation and built-in greedy in the same seat of
  ``play_deals``, on the same deal seeds and seat orders, end every game on the same board
  at the same turn, in every variant and both dice modes.
* Written once: only the board's part (game.inc.c, a game's start) and the turn's
  (turn.inc.c) change the board, and R7's test (a stop may claim) is written in turn.inc.c
  alone; on main the engine and the vector environment each wrote both.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest
from env_policies import greedy_policy

from harness import native
from harness.env.vector import VectorEnv

pytestmark = [pytest.mark.engine, pytest.mark.interpreter]

needs_native = pytest.mark.skipif(not native.available(), reason="native engine not built")
C_DIR = Path(__file__).resolve().parents[2] / "harness" / "native" / "c"


def _agent_game(env: VectorEnv, episode: int) -> tuple:
    """(turn, grill, flipped, stacks) of an episode of the C slot, the agent greedy."""
    obs, _ = env.reset(seed=3, starts=[episode], stride=1)
    while True:
        action = greedy_policy(obs["observation"][0], obs["action_mask"][0])
        obs, _, term, trunc, _ = env.step(np.array([action]))
        if term[0] or trunc[0]:
            break
    board = env.board(0)
    return board.turn, list(board.grill), list(board.flipped), [list(s) for s in board.stacks]


@needs_native
@pytest.mark.parametrize(
    ("opponents", "rules", "dice"),
    [
        (["greedy"], "official", "duplicate"),
        (["tactician", "random"], "french", "independent"),
        (["optimal", "worm-first", "simple"], "piko-blog", "duplicate"),
        (
            ["random", "threshold(target=27)"],
            {"preset": "short", "bust_flip": "none"},
            "independent",
        ),
    ],
)
def test_the_engine_loop_and_the_vector_slot_play_the_same_games(opponents, rules, dice):
    env = VectorEnv(1, opponents, rules, dice=dice, engine="native", autoreset=False)
    orders, deals = env.schedule.orders, 2
    games = [_agent_game(env, e) for e in range(deals * len(orders))]
    entrants = ["greedy", *opponents]  # entrant 0 is the agent's seat in every order
    played = native.play_deals(
        env.rules, entrants, 3, 0, deals, orders=orders, dice=dice, detail=True
    )
    assert played.rows == len(games)
    for e, game in enumerate(games):
        board = played.board(e)
        row = (played.games["turns"][e], board["grill"], board["flipped"], board["stacks"])
        assert game == row, f"episode {e}"


# -- written once ------------------------------------------------------------------------------
BOARD = "grill|flipped|stack|len|top|tops|score|busts|steals|stolen|over|turn|seat|round"
WRITES = re.compile(  # through a Game *g, as every part names it
    rf"(?:\+\+|--)\s*\bg->(?:{BOARD})\b"  # ++g->turn, --g->len[v]
    rf"|\bg->(?:{BOARD})\b(?:\[[^\]]*\])*\s*(?:\+\+|--|[-+^|&]?=(?!=))"  # g->grill ^= t
)


def _writes(text: str) -> list[str]:
    return [line.strip() for line in text.splitlines() if WRITES.search(line)]


def test_only_the_board_and_the_turn_change_the_board():
    assert _writes("g->grill ^= 1ULL << t;\n--g->len[v];\nif (g->over == 1) x = g->turn;\n") == [
        "g->grill ^= 1ULL << t;",
        "--g->len[v];",
    ]  # the pattern itself: writes, not reads
    elsewhere = {
        part.name: found
        for part in sorted(C_DIR.glob("*.c"))
        if part.name not in ("game.inc.c", "turn.inc.c") and (found := _writes(part.read_text()))
    }
    assert elsewhere == {}
    assert _writes((C_DIR / "turn.inc.c").read_text())  # the turn does change it


def test_the_may_claim_test_is_written_once():
    # R7: a stop claims something when the total reaches the lowest grill tile, or a steal
    test = re.compile(r"total\s*>=\s*[\w.>-]*\blow\s*\|\|\s*can_steal\(")
    found = {p.name: len(test.findall(p.read_text())) for p in sorted(C_DIR.glob("*.c"))}
    assert {name: n for name, n in found.items() if n} == {"turn.inc.c": 1}
