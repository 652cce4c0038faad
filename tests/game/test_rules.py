"""The rules object and the components: R1 (tiles), R2 (dice), R3 (players), variants."""

from __future__ import annotations

import dataclasses

import pytest
from helpers import WORMS

from harness.errors import RulesError
from harness.rules import FACE_POINTS, TILES, WORM, Rules, worms


def test_r1_sixteen_tiles_21_to_36_with_40_worms():
    assert list(TILES) == list(range(21, 37))
    assert {t: worms(t) for t in TILES} == WORMS
    assert sum(worms(t) for t in TILES) == 40


@pytest.mark.parametrize("tile", [0, 20, 37, 40])
def test_r1_no_such_tile(tile):
    with pytest.raises(ValueError, match="R1"):
        worms(tile)


def test_r2_worm_is_face_6_and_counts_5_points():
    assert WORM == 6
    assert FACE_POINTS[1:] == (1, 2, 3, 4, 5, 5)


def test_official_rules_are_the_defaults():
    rules = Rules()
    assert rules.to_dict() == {
        "players": 2,
        "bust_flip": "highest",
        "flip_without_tile": False,
        "lower_tile": "highest",
        "returned_tile": "keep",
    }
    assert Rules.preset("official") == rules


@pytest.mark.parametrize(
    "name, overrides",
    [
        ("official", {}),
        ("piko-blog", {"bust_flip": "lowest", "flip_without_tile": True}),
        ("french", {"lower_tile": "any"}),
        ("short", {"returned_tile": "flip"}),
    ],
)
def test_presets_match_rules_md(name, overrides):
    rules = Rules.preset(name, players=4)
    assert rules == Rules(players=4, **overrides)
    assert rules.preset_name == name
    assert rules.describe() == f"{name}, 4 players"


def test_rules_are_immutable_and_hashable():
    rules = Rules.preset("french", 3)
    with pytest.raises(dataclasses.FrozenInstanceError):
        rules.lower_tile = "highest"  # type: ignore[misc]
    assert hash(rules) == hash(Rules(players=3, lower_tile="any"))
    assert len({rules, Rules(players=3, lower_tile="any"), Rules(players=3)}) == 2


@pytest.mark.parametrize("players", range(2, 8))
@pytest.mark.parametrize("preset", ["official", "piko-blog", "french", "short"])
def test_rules_round_trip_through_a_dict(preset, players):
    rules = Rules.preset(preset, players)
    assert Rules.from_dict(rules.to_dict()) == rules
    assert Rules.from_dict({"preset": preset, "players": players}) == rules


def test_missing_keys_are_official_and_a_preset_can_be_overridden():
    assert Rules.from_dict({}) == Rules()
    mixed = Rules.from_dict({"preset": "piko-blog", "bust_flip": "none", "players": 5})
    assert mixed == Rules(players=5, bust_flip="none", flip_without_tile=True)
    assert mixed.preset_name is None
    assert mixed.describe() == "bust_flip='none', flip_without_tile=true, 5 players"


@pytest.mark.parametrize("players", [0, 1, 8, "3", 2.0, True])
def test_r3_two_to_seven_players(players):
    with pytest.raises(RulesError, match=r"2 to 7 \(R3\)"):
        Rules(players=players)


@pytest.mark.parametrize(
    "data, message",
    [
        ({"bust_flip": "random"}, "rules.bust_flip: 'random' is not one of 'highest', 'lowest'"),
        ({"flip_without_tile": "yes"}, "rules.flip_without_tile: 'yes' is not one of false, true"),
        ({"flip_without_tile": 1}, "rules.flip_without_tile: 1 is not one of"),
        ({"lower_tile": "lowest"}, "rules.lower_tile"),
        ({"returned_tile": True}, "rules.returned_tile: true"),
        ({"bustflip": "none"}, "unknown key 'bustflip'; keys are"),
        ({"preset": "german"}, "rules.preset: unknown preset 'german'; presets are official"),
        ([1, 2], "expected a mapping"),
    ],
)
def test_bad_rules_are_one_clear_line(data, message):
    with pytest.raises(RulesError) as info:
        Rules.from_dict(data)
    assert message in str(info.value)
    assert "\n" not in str(info.value)


def test_coerce_accepts_rules_presets_and_mappings():
    assert Rules.coerce(None, players=3) == Rules(players=3)
    assert Rules.coerce("short", players=4) == Rules.preset("short", 4)
    assert Rules.coerce({"lower_tile": "any"}, players=5) == Rules(players=5, lower_tile="any")
    assert Rules.coerce(Rules(players=6)) == Rules(players=6)


def test_coerce_rejects_a_player_count_given_two_different_ways():
    with pytest.raises(RulesError, match=r"rules.players is 3 but 2 strategies were given \(R3\)"):
        Rules.coerce(Rules(players=3), players=2)
    with pytest.raises(RulesError, match="R3"):
        Rules.coerce({"players": 4}, players=2)


def test_unknown_preset_names_the_presets():
    with pytest.raises(RulesError, match="presets are official, piko-blog, french, short"):
        Rules.preset("house")
