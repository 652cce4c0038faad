"""What a strategy sees: the read-only view, at each kind of question (strategy API)."""

from __future__ import annotations

from helpers import VIEW_FIELDS, Scripted, ScriptedDice, rolls_for

from harness import play_game, replay
from harness.game.engine import Game
from harness.rules import Rules
from harness.strategy import Claim, Strategy

W = 6


class Snapshots(Scripted):
    """Scripted answers; every question snapshots the whole public view."""

    name = "snapshots"
    FIELDS = VIEW_FIELDS

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.views: list[tuple[str, dict]] = []

    def snap(self, what: str, view) -> None:
        seen = {f: getattr(view, f) for f in self.FIELDS}
        seen["bust_cost"] = view.bust_cost()
        self.views.append((what, seen))

    def pick(self, view):
        self.snap("pick", view)
        return super().pick(view)

    def stop(self, view):
        self.snap("stop", view)
        return super().stop(view)

    def claim(self, view, choices):
        self.snap("claim", view)
        return super().claim(view, choices)


def three_turns():
    """Seat 0 takes 30; seat 1 busts; seat 0 sets aside 30 again (steal impossible:
    its own tile) and then, rolling on, 34."""
    seat0 = Snapshots(picks=[W, W, 4], stops=[True, False, True])
    dice = [
        rolls_for([(W, 6)]),  # 30 with 2 dice left
        [[1] * 7 + [2], [1]],  # seat 1: no new face
        [[W, W, W, W, W, W, 2, 3], [4, 2]],
    ]
    game = Game([seat0, Scripted(picks=[1])], Rules(), ScriptedDice(dice))
    game.start()
    for _ in dice:
        game.play_turn()
    return seat0, game


def test_view_at_the_first_pick():
    seat0, _ = three_turns()
    what, v = seat0.views[0]
    assert what == "pick"
    assert (v["seat"], v["players"], v["rules"], v["turn"]) == (0, 2, Rules(), 1)
    assert v["rolled"] == (1, 1, W, W, W, W, W, W)
    assert v["counts"][1:] == (2, 0, 0, 0, 0, 6)
    assert v["choices"] == (1, W)
    assert (v["kept"], v["kept_faces"], v["total"], v["dice_left"]) == ((), (), 0, 8)
    assert v["has_worm"] is False
    assert v["grill"] == tuple(range(21, 37)) and v["flipped"] == ()
    assert v["stacks"] == ((), ()) and v["tops"] == (None, None) and v["scores"] == (0, 0)
    assert v["claims"] == () and v["bust_cost"] == 0


def test_view_at_a_stop_shows_the_turn_and_what_a_stop_would_take():
    seat0, _ = three_turns()
    what, v = seat0.views[1]
    assert what == "stop"
    assert v["kept"] == (W,) * 6 and v["kept_faces"] == (W,)
    assert (v["total"], v["dice_left"], v["has_worm"]) == (30, 2, True)
    assert v["claims"] == (Claim(30),)


def test_view_in_a_later_turn_shows_the_board():
    seat0, _ = three_turns()
    later = [v for what, v in seat0.views if v["turn"] == 3]
    assert [what for what, _ in seat0.views if _["turn"] == 3] == ["pick", "stop", "pick", "stop"]
    first = later[0]
    assert first["stacks"] == ((30,), ()) and first["tops"] == (30, None)
    assert first["scores"] == (3, 0) and first["bust_cost"] == 3
    assert first["grill"] == tuple(t for t in range(21, 37) if t != 30)
    assert first["kept"] == () and first["total"] == 0  # a new turn starts clean
    stop = later[1]
    assert stop["claims"] == (Claim(29),)  # 30 is its own: never a steal (R7)
    assert later[3]["total"] == 34 and later[3]["claims"] == (Claim(34),)


def test_the_result_of_those_turns():
    _, game = three_turns()
    assert game.result().stacks == [[30, 34], []]


def test_containers_are_immutable():
    seat0, _ = three_turns()
    for _what, v in seat0.views:
        for field in ("rolled", "counts", "choices", "kept", "kept_faces", "grill", "flipped"):
            assert isinstance(v[field], tuple), field
        assert isinstance(v["stacks"], tuple) and all(isinstance(s, tuple) for s in v["stacks"])
        assert isinstance(v["tops"], tuple) and isinstance(v["scores"], tuple)


def test_view_rng_is_fixed_by_the_seed_and_differs_by_seat():
    class Draws(Strategy):
        name = "draws"

        def __init__(self) -> None:
            self.drawn: list[float] = []

        def pick(self, view):
            self.drawn.append(view.rng.random())
            return max(view.choices)

        def stop(self, view):
            return True

    def draws(seed: int) -> list[list[float]]:
        seats = [Draws(), Draws()]
        play_game(seats, seed=seed, max_turns=6)
        return [s.drawn for s in seats]

    assert draws(5) == draws(5)
    assert draws(5) != draws(6)
    a, b = draws(5)
    assert a[:3] != b[:3]


def test_strategy_randomness_does_not_touch_the_dice():
    """A strategy drawing from its view.rng (or not) sees the same dice."""

    class Hungry(Strategy):
        name = "greedy"

        def __init__(self, draws: int) -> None:
            self.draws = draws

        def pick(self, view):
            for _ in range(self.draws):
                view.rng.random()
            return max(view.choices, key=lambda f: (view.counts[f] * min(f, 5), f))

        def stop(self, view):
            return True

    plain = play_game([Hungry(0), Hungry(0)], seed=9, record=True)
    hungry = play_game([Hungry(50), Hungry(3)], seed=9, record=True)
    assert hungry.record["turns"] == plain.record["turns"]


def test_the_board_in_the_view_is_the_board_of_the_game():
    """At each turn's first pick, the view shows the state the record replays to."""
    seen: list[tuple[int, dict]] = []

    class Look(Strategy):
        name = "look"

        def pick(self, view):
            if not view.kept:
                board = {f: getattr(view, f) for f in ("grill", "flipped", "stacks", "scores")}
                seen.append((view.turn, board))
            return max(view.choices, key=lambda f: (view.counts[f] * min(f, 5), f))

        def stop(self, view):
            return view.rng.random() < 0.7

    result = play_game([Look(), Look(), Look()], seed=2, record=True)
    assert len(seen) == result.turns > 20
    for turn, board in seen:
        # The game so far: its first turns, without the whole game's result (which its
        # first turns do not give: replay holds a stated result to the moves).
        before = {k: v for k, v in result.record.items() if k != "result"}
        before["turns"] = result.record["turns"][: turn - 1]
        state = replay(before).state()
        assert board == {
            "grill": tuple(state["grill"]),
            "flipped": tuple(state["flipped"]),
            "stacks": tuple(map(tuple, state["stacks"])),
            "scores": tuple(state["scores"]),
        }, f"turn {turn}"


def test_the_strategy_page_says_what_a_claim_holds():
    """docs/strategies.md names every public field of a Claim, and says a grill tile's
    victim is None (issue 30, item 5)."""
    import re
    from pathlib import Path

    page = (Path(__file__).resolve().parents[2] / "docs" / "strategies.md").read_text()
    grill, steal = Claim(26), Claim(26, 1)
    assert grill.victim is None and not grill.is_steal and steal.is_steal
    public = {n for n in dir(Claim) if not n.startswith("_") and n not in dir(tuple)}
    assert public == {"tile", "victim", "is_steal", "worms"}
    for name in public:
        assert f"`{name}`" in page or f"`claim.{name}`" in page, name
    assert re.search(r"`victim`[^.]*`None` for a tile from the grill", page.replace("\n", " "))
