"""Tournament configs: every mistake is one line naming the key (and the YAML line).

Also the plan built from a config: tables by entrant identity (not list position),
seat rotations, chunks of whole deals.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from harness.errors import ConfigError
from harness.tourney import plan
from harness.tourney.config import load_config

ROOT = Path(__file__).resolve().parents[2]


def write(tmp_path: Path, text: str, name: str = "t.yaml") -> Path:
    path = tmp_path / name
    path.write_text(textwrap.dedent(text).lstrip())
    return path


def error_of(tmp_path: Path, text: str) -> str:
    path = write(tmp_path, text)
    with pytest.raises(ConfigError) as info:
        load_config(path)
    message = str(info.value)
    assert "\n" not in message, "a config error is one line"
    return message


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # unknown key, with a suggestion and its line
        (
            "entrants: [greedy, random]\ngmaes: 10\n",
            ["t.yaml:2:", "'gmaes'", "did you mean 'deals'"],
        ),
        # wrong types
        ("entrants: [greedy, random]\ngames: lots\n", ["t.yaml:2:", "games:", "whole number"]),
        ("entrants: [greedy, random]\ngames: 0\n", ["t.yaml:2:", "games: 0", "at least 1"]),
        ("entrants: [greedy, random]\nseed: 1.5\n", ["t.yaml:2:", "seed:"]),
        ("entrants: [greedy, random]\nplayers: true\n", ["t.yaml:2:", "players:"]),
        ("entrants: greedy\n", ["entrants:"]),
        (
            "entrants: [greedy, random]\ndice: loaded\n",
            ["t.yaml:2:", "dice: 'loaded'", "duplicate"],
        ),
        ("entrants: [greedy, random]\nformat: swiss\n", ["t.yaml:2:", "format:", "gauntlet"]),
        ("entrants: [greedy, random]\nname: a/b\n", ["t.yaml:2:", "name:"]),
        # players out of range (R3)
        ("players: 8\nentrants: [greedy, random]\n", ["t.yaml:1:", "players: 8", "2 to 7", "R3"]),
        ("players: 1\nentrants: [greedy, random]\n", ["t.yaml:1:", "players: 1"]),
        # a bad strategy reference, on its own line
        (
            "entrants:\n  - greedy\n  - gredy\n",
            ["t.yaml:3:", "entrants[1]", "did you mean 'greedy'"],
        ),
        (
            "entrants:\n  - greedy\n  - strategy: threshold\n    params: {target: 99}\n",
            ["t.yaml:3:", "entrants[1]", "target"],
        ),
        (
            "entrants:\n  - greedy\n  - strategy: threshold\n    params: {tarjet: 28}\n",
            ["t.yaml:3:", "unknown parameter 'tarjet'"],
        ),
        (
            "entrants:\n  - greedy\n  - strategy: threshold\n    colour: red\n",
            ["t.yaml:4:", "unknown key 'colour'"],
        ),
        ("entrants:\n  - greedy\n  - nowhere.py:Bot\n", ["t.yaml:3:", "not found"]),
        # too few entrants for the format
        ("players: 3\nentrants: [greedy, random]\n", ["entrants: 2", "at least 3"]),
        ("format: gauntlet\nchallenger: greedy\nplayers: 3\nentrants: [random]\n", ["at least 2"]),
        ("format: gauntlet\nentrants: [greedy, random]\n", ["challenger: missing"]),
        ("challenger: greedy\nentrants: [greedy, random]\n", ["t.yaml:1:", "only a gauntlet"]),
        # the same entrant twice (its display name twice); two entrants with one name
        ("entrants: [greedy, random, greedy]\n", ["t.yaml:1:", "named 'greedy'"]),
        ("entrants:\n  - greedy\n  - strategy: random\n    name: greedy\n", ["named 'greedy'"]),
        # rules: a bad preset, a bad variant value on its line, a player count twice
        ("rules: fancy\nentrants: [greedy, random]\n", ["t.yaml:1:", "unknown preset 'fancy'"]),
        (
            "rules:\n  bust_flip: sideways\nentrants: [greedy, random]\n",
            ["t.yaml:2:", "rules.bust_flip", "highest"],
        ),
        ("rules:\n  players: 3\nentrants: [greedy, random]\n", ["t.yaml:2:", "rules.players"]),
        # YAML itself
        ("entrants: [greedy, random\n", ["not valid YAML"]),
        ("games: 1\ngames: 2\nentrants: [greedy, random]\n", ["t.yaml:2:", "duplicate key"]),
        ("", ["empty"]),
        ("- greedy\n", ["mapping"]),
    ],
)
def test_config_errors_are_one_line_naming_key_and_line(tmp_path, text, expected):
    message = error_of(tmp_path, text)
    for part in expected:
        assert part in message, f"{part!r} not in {message!r}"


def test_missing_config_file_is_one_line(tmp_path):
    with pytest.raises(ConfigError, match="no such config file"):
        load_config(tmp_path / "nope.yaml")


def test_cli_reports_config_error_without_traceback(tmp_path, cli):
    path = write(tmp_path, "entrants: [greedy, random]\nplayers: 9\n")
    result = cli("tourney", str(path), "--out", str(tmp_path / "out"))
    assert result.exit_code == 2  # bad input
    assert "t.yaml:2: players: 9" in result.output
    assert "Traceback" not in result.output
    assert not (tmp_path / "out").exists(), "nothing is written for a bad config"


def test_shipped_configs_load_and_round_robin_has_every_builtin():
    from harness.plugins import builtin_strategies

    rr = load_config(ROOT / "harness" / "configs" / "round_robin.yaml")
    assert rr.players == 2 and rr.format == "round_robin"
    refs = {e.spec.ref for e in rr.entrants if not e.spec.params}
    assert set(builtin_strategies()) <= refs
    four = load_config(ROOT / "harness" / "configs" / "four_player.yaml")
    assert four.players == 4
    gauntlet = load_config(ROOT / "harness" / "configs" / "gauntlet.yaml")
    assert gauntlet.format == "gauntlet" and gauntlet.challenger is not None
    assert gauntlet.challenger.key not in {e.key for e in gauntlet.entrants}


def test_defaults_and_long_entrant_form(tmp_path):
    path = write(
        tmp_path,
        """
        entrants:
          - greedy
          - strategy: threshold
            name: cautious
            params: {target: 24}
        """,
        name="my cfg.yaml",
    )
    config = load_config(path)
    assert config.name == "my-cfg"
    assert (config.players, config.format, config.dice, config.seed) == (
        2,
        "round_robin",
        "duplicate",
        0,
    )
    cautious = config.entrants[1]
    assert cautious.name == "cautious" and cautious.params == {"target": 24}
    # inline and mapping parameters are the same entrant (same seeding key)
    inline = load_config({"entrants": ["greedy", "threshold(target=24)"]}).entrants[1]
    assert inline.key == cautious.key


def test_file_plugin_is_found_beside_the_config(tmp_path):
    (tmp_path / "bots").mkdir()
    (tmp_path / "bots" / "mine.py").write_text(
        "from harness.strategy import Strategy\n"
        "class Mine(Strategy):\n"
        "    name = 'mine'\n"
        "    def pick(self, view): return max(view.choices)\n"
        "    def stop(self, view): return True\n"
    )
    path = write(tmp_path, "entrants: [greedy, bots/mine.py:Mine]\n")
    config = load_config(path)
    mine = config.entrants[1]
    assert mine.key == "bots/mine.py:Mine"  # seeding identity: as written, not where
    assert mine.load == f"{(tmp_path / 'bots' / 'mine.py').resolve()}:Mine"


# -- the plan ---------------------------------------------------------------------------
def test_tables_do_not_depend_on_entrant_order_and_adding_one_keeps_them():
    three = load_config({"entrants": ["greedy", "random", "threshold"], "deals": 5, "seed": 3})
    shuffled = load_config({"entrants": ["threshold", "greedy", "random"], "deals": 5, "seed": 3})
    four = load_config(
        {"entrants": ["random", "worm-first", "greedy", "threshold"], "deals": 5, "seed": 3}
    )
    keys3 = {s.key for s in plan.chunks(three)}
    assert keys3 == {s.key for s in plan.chunks(shuffled)}
    assert keys3 < {s.key for s in plan.chunks(four)}
    assert len(plan.tables(four)) == 6


def test_gauntlet_tables_all_hold_the_challenger():
    config = load_config(
        {
            "format": "gauntlet",
            "players": 3,
            "challenger": "threshold(target=28)",
            "entrants": ["greedy", "random", "worm-first", "threshold"],
        }
    )
    tables = plan.tables(config)
    assert len(tables) == 6  # C(4, 2) pairs from the field
    assert all("threshold(target=28)" in t.names for t in tables)


def test_chunks_hold_whole_deals_and_cover_every_deal_once():
    config = load_config({"entrants": ["greedy", "random", "threshold"], "deals": 25, "chunk": 10})
    specs = list(plan.chunks(config))
    assert len(specs) == 3 * 3
    for table in plan.tables(config):
        ranges = sorted((s.first, s.stop) for s in specs if s.table == table.id)
        assert ranges == [(0, 10), (10, 20), (20, 25)]
    assert len({s.key for s in specs}) == len(specs)


def test_seed_changes_every_chunk_key_and_worker_count_changes_none():
    base = load_config({"entrants": ["greedy", "random"], "deals": 5})
    keys = [s.key for s in plan.chunks(base)]
    assert keys == [s.key for s in plan.chunks(base.override(workers=7))]
    assert set(keys).isdisjoint(s.key for s in plan.chunks(base.override(seed=1)))
    assert plan.run_key(base) == plan.run_key(base.override(workers=7))


# -- issue 11, item 6: small things a user notices ---------------------------------------------
def test_plural_says_one_thing_in_the_singular():
    from harness.errors import plural

    assert plural(1, "chunk") == "1 chunk"
    assert plural(0, "chunk") == "0 chunks"
    assert plural(1200, "game") == "1,200 games"
    assert plural(1, "worm") == "1 worm" and plural(2, "worm") == "2 worms"
    assert plural(2, "match", "matches") == "2 matches"


def test_a_finished_run_folder_keeps_no_lock_and_no_tmp_and_resumes(tmp_path):
    from harness.tourney.runner import run_tournament

    config = {"name": "tidy", "entrants": ["greedy", "random"], "deals": 3, "workers": 0}
    first = run_tournament(config, out=tmp_path)
    assert first.status == "complete"
    left = sorted(p.name for p in first.run_dir.iterdir())
    assert ".lock" not in left and ".tmp" not in left, left
    again = run_tournament(config, out=tmp_path)  # resumes: nothing to play
    assert again.run_dir == first.run_dir and again.played == 0 and again.stored == 6
    assert not (first.run_dir / ".lock").exists() and not (first.run_dir / ".tmp").exists()


def test_the_run_lock_still_excludes_a_second_process(tmp_path):
    from harness.tourney.storage import RunFolder, StorageError

    one, two = RunFolder(tmp_path / "r"), RunFolder(tmp_path / "r")
    one.create()
    with pytest.raises(StorageError, match="another harness tourney is running this run"):
        two.create()
    one.close()
    assert not (tmp_path / "r" / ".lock").exists()
    two.create()  # free again once the first has closed (and removed .lock)
    three = RunFolder(tmp_path / "r")
    with pytest.raises(StorageError, match="another harness tourney"):
        three.create()
    two.close()


def test_a_stray_tmp_file_keeps_tmp_for_the_next_load(tmp_path):
    from harness.tourney.storage import RunFolder

    folder = RunFolder(tmp_path / "r")
    folder.create()
    (folder.tmp_dir / "part.parquet.123").write_bytes(b"half")  # a kill mid-write
    folder.close()
    assert (folder.tmp_dir / "part.parquet.123").exists()  # load() clears it on resume


def test_a_file_strategy_is_shown_by_its_own_name_attribute_never_a_builtins(tmp_path):
    """Issue 11 item 6: standings show `careful`, not `bots.py:Careful`; an inherited
    name, or a copy of a built-in's file, must not pass for the built-in."""
    bots = tmp_path / "bots.py"
    bots.write_text(
        "from harness.strategy import Strategy\n"
        "from harness.strategies.greedy import Greedy\n\n"
        "class Careful(Strategy):\n    name = 'careful'\n"
        "    def pick(self, view):\n        return max(view.choices)\n"
        "    def stop(self, view):\n        return True\n\n"
        "class Child(Greedy):\n    pass\n\n"
        "class Copy(Greedy):\n    name = 'greedy'\n\n"
        "class Blank(Careful):\n    name = '  '\n"
    )
    entrants = [f"{bots}:{c}" for c in ("Careful", "Child", "Copy", "Blank")]
    names = [e.name for e in load_config({"entrants": ["greedy", *entrants]}).entrants]
    assert names == ["greedy", "careful", f"{bots}:Child", f"{bots}:Copy", f"{bots}:Blank"]
