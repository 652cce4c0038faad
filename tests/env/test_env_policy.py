"""A trained policy is a strategy (issue 22, item 4): harness.env.policy.

* A policy that reads only the observation and the mask and plays greedy's rule gives
  greedy's games exactly: in single games at 2-7 players on every preset (``french``
  asks claims), on both engines (a Python seat at a native table), and in a tournament
  that names it by file reference, whose stored games equal greedy's row for row.
* The observation the policy gets in a tournament is the environments' (the same
  encoding both ways): a recorded policy sees, question by question, what the
  Gymnasium environment showed for the same deal.
* An illegal or malformed answer is the seat's forfeit in one line naming the legal
  actions.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from env_policies import greedy_policy

from harness import play_game
from harness.env.encoding import STOP
from harness.env.policy import PolicyStrategy, as_strategy
from harness.env.single import SingleAgent
from harness.rules import PRESETS
from harness.tourney import run_tournament

pytestmark = pytest.mark.engine

POLICY_FILE = '''
from env_policies import greedy_policy

from harness.env.policy import PolicyStrategy


class GreedyPolicy(PolicyStrategy):
    """greedy's rule, read off the observation."""

    name = "greedy-policy"

    def __init__(self):
        super().__init__(greedy_policy)
'''


@pytest.mark.parametrize("players", range(2, 8))
@pytest.mark.parametrize("engine", ["python", "native"])
def test_a_greedy_policy_plays_greedys_games(players, engine):
    from harness import native

    if engine == "native" and not native.available():
        pytest.skip("the native engine is not built")
    others = ["tactician", "random", "optimal", "simple", "worm-first", "threshold"]
    for seed in range(4):
        rules = list(PRESETS)[(seed + players) % len(PRESETS)]
        seat = seed % players
        field = others[: players - 1]
        mine = [*field[:seat], as_strategy(greedy_policy, "greedy"), *field[seat:]]
        theirs = [*field[:seat], "greedy", *field[seat:]]
        a = play_game(mine, rules, seed=seed, engine=engine)
        b = play_game(theirs, rules, seed=seed, engine=engine)
        assert a.state() == b.state() and a.turns == b.turns, (players, seed, rules)


def test_in_a_tournament_by_file_reference_it_plays_greedys_games(tmp_path, monkeypatch):
    bots = tmp_path / "bots"
    bots.mkdir()
    (bots / "agent.py").write_text(POLICY_FILE)
    tests_dir = __import__("pathlib").Path(__file__).parents[1]
    monkeypatch.syspath_prepend(str(tests_dir))  # env_policies, for the plugin's import
    runs = {}
    for name, entrant in [("policy", "bots/agent.py:GreedyPolicy"), ("greedy", "greedy")]:
        config = {
            "name": name,
            "players": 3,
            "rules": "french",
            "deals": 12,
            "seed": 5,
            "entrants": [{"strategy": entrant, "name": "me"}, "tactician", "random"],
        }
        (tmp_path / f"{name}.yaml").write_text(__import__("json").dumps(config))
        runs[name] = run_tournament(  # luck on at both tables: the accounts compared too
            tmp_path / f"{name}.yaml", out=tmp_path / "results", workers=0, progress=False,
            luck="on",
        )  # fmt: skip
    keys = ["deal", "seating"]
    cols = [c for c in runs["greedy"].games.columns if c.startswith(("seat", "turns"))]
    cols = [c for c in cols if "strategy" not in c and "time" not in c]
    a = runs["policy"].games.sort_values(keys)[keys + cols].reset_index(drop=True)
    b = runs["greedy"].games.sort_values(keys)[keys + cols].reset_index(drop=True)
    assert len(a) == 12 * 6
    pd.testing.assert_frame_equal(a, b)


def test_the_policy_sees_what_the_environment_shows():
    seen_env, seen_game = [], []

    def recorder(into):
        def policy(obs, mask):
            into.append((obs.copy(), mask.copy()))
            return greedy_policy(obs, mask)

        return policy

    agent = SingleAgent(["tactician", "random"], "french", seat=1)
    agent.reset(9, 0)
    env_policy = recorder(seen_env)
    while True:
        obs, mask = agent.observe()
        _, term, trunc, _ = agent.step(env_policy(obs, mask))
        if term or trunc:
            break
    ep = agent.schedule.episode(9, 0)
    from harness.game.dice import DuplicateDice
    from harness.game.engine import Game
    from harness.plugins import resolve
    from harness.rules import Rules

    entrants = [
        as_strategy(recorder(seen_game)),
        resolve("tactician").create(),
        resolve("random").create(),
    ]
    seats = [entrants[e] for e in ep.seats]  # the cyclic order that seats the agent at 1
    assert ep.seats == (2, 0, 1)
    Game(seats, Rules.preset("french", 3), DuplicateDice(ep.deal_seed), seed=ep.game_seed).play()
    assert len(seen_env) == len(seen_game) > 10
    for (o1, m1), (o2, m2) in zip(seen_env, seen_game, strict=True):
        assert np.array_equal(o1, o2) and np.array_equal(m1, m2)


@pytest.mark.parametrize(
    ("answer", "message"),
    [
        (lambda obs, mask: STOP, "answered stop to pick; legal: keep"),
        (lambda obs, mask: 99, "answered action 99 to pick"),
        (lambda obs, mask: 1.5, "answered 1.5 to pick"),
        (lambda obs, mask: None, "answered None to pick"),
    ],
)
def test_an_illegal_answer_is_the_seats_forfeit_in_one_line(answer, message):
    result = play_game([as_strategy(answer, "bad"), "greedy"], seed=1, forfeit=True)
    assert result.forfeit == 0 and result.status == "forfeit"
    text = str(result.error)
    assert message in text and "\n" not in text and "bad" in text


def test_a_subclass_may_override_act():
    class Always(PolicyStrategy):
        name = "always-greedy"

        def act(self, observation, action_mask):
            return greedy_policy(observation, action_mask)

    a = play_game([Always(), "random"], seed=3)
    b = play_game(["greedy", "random"], seed=3)
    assert a.state() == b.state()
    with pytest.raises(Exception, match="give PolicyStrategy a policy"):
        play_game([PolicyStrategy(), "greedy"], seed=1)
