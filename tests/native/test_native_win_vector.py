"""The win account's vector kept by the native engine (account.inc.c: acc_vector_turn, the
others' parts in acc_rolled): WinAccountant's, bit for bit.

Every chunk here is played on both engines with ``luck: win``; ``winvec`` must be the same
bits in every row and seat: 2 to 5 players, presets whose bust, claim and steal rules
differ, a win-optimal seat (whose plan the account shares), duplicate and independent
dice, and a plugin that forfeits in a turn (every seat's part of that turn taken back on
both engines). With the account's roll rule or the claim the play makes at a total
changed in C, these fail.
"""

from __future__ import annotations

import textwrap

import numpy as np
import pytest
from test_native_account import WAYWARD

from harness import native
from harness.tourney import load_config, plan
from harness.tourney.chunks import play_chunk

pytestmark = [
    pytest.mark.engine,
    pytest.mark.skipif(not native.available(), reason="native engine not built"),
]


def _chunks(entrants: list, players: int, engine: str, **extra) -> list:
    config = load_config(
        {
            "name": "vector",
            "players": players,
            "entrants": entrants,
            "deals": extra.pop("deals", 3),
            "seed": 5,
            "luck": "win",
            "engine": engine,
            **extra,
        }
    )
    return [play_chunk(spec) for spec in plan.chunks(config)]


def _same_on_both(entrants: list, players: int, **extra) -> list:
    """Both engines' chunks; every stored win column the same bits. The native chunks."""
    py = _chunks(entrants, players, "python", **extra)
    nat = _chunks(entrants, players, "native", **extra)
    assert {r.engine for r in nat} == {"native"}
    for a, b in zip(py, nat, strict=True):
        for seat in range(players):
            for name in ("winvec", "winluck"):
                assert bytes(a.seats[seat][name]) == bytes(b.seats[seat][name]), (name, seat)
    return nat


@pytest.mark.parametrize(
    ("players", "entrants", "extra"),
    [
        (2, ["greedy", "win-optimal"], {}),
        (3, ["greedy", "simple", "tactician"], {"rules": "piko-blog"}),
        (3, ["worm-first", "optimal", "win-optimal"], {"rules": "french", "dice": "independent"}),
        (4, ["greedy", "worm-first", "random", "optimal"], {"rules": "short"}),
        (4, ["tactician", "win-optimal", "optimal(endgame=0)", "simple"], {}),
        (5, ["greedy", "worm-first", "tactician", "simple", "optimal"], {"deals": 1}),
    ],
)
def test_both_engines_keep_the_same_vector_bit_for_bit(players, entrants, extra):
    nat = _same_on_both(entrants, players, **extra)
    vec = np.array([[v for r in nat for v in r.seats[s]["winvec"]] for s in range(players)])
    assert np.abs(vec).max() > 0.05  # it moves
    assert np.abs(vec.sum(axis=0)).max() < 1e-9  # the seats' parts of each roll sum to 0
    if players == 2:
        assert (vec[0] == -vec[1]).all()  # the other's part is the roller's luck negated


def test_a_forfeit_in_a_turn_takes_back_every_seats_part_on_both_engines(tmp_path):
    path = tmp_path / "wayward.py"
    path.write_text(textwrap.dedent(WAYWARD))
    quitter = {"name": "quitter", "strategy": f"{path}:Wayward(after=9, method='pick')"}
    nat = _same_on_both([quitter, "random", "tactician"], 3, rules="french", deals=4)
    assert any(status == 2 for r in nat for status in r.games["status"])  # forfeits did happen
