"""Code identity (harness.plugins.code_digest): what makes stored games reusable.

Two classes in one file must have different digests and an edit must change the digest
of the class edited; a class defined in ``__main__`` (stdin, ``python -c``, a notebook)
is hashed from the code that runs, the same in every process, and one whose code cannot
be read gets a ``volatile:`` digest, random per process, so its games are played again.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from harness.plugins import VOLATILE, code_digest, resolve, volatile_note
from harness.strategies.greedy import Greedy
from harness.strategy import Strategy

pytestmark = pytest.mark.interpreter

TWO_CLASSES = """
from harness.strategy import Strategy

LIMIT = 25


class Careful(Strategy):
    name = "careful"

    def pick(self, view):
        return max(view.choices)

    def stop(self, view):
        return view.total >= LIMIT


class Careful2(Strategy):
    name = "careful2"

    def pick(self, view):
        return min(view.choices)

    def stop(self, view):
        return view.total >= LIMIT + 2
"""

# A strategy in __main__, printed as JSON by a fresh interpreter reading it from stdin.
MAIN = """
import json
from harness.plugins import code_digest, volatile_note
from harness.strategy import Strategy, WORM

TARGET = {target}
FACES = {{1, 2, 3, "w"}}


def helper(view):
    return view.total >= TARGET


class Mine(Strategy):
    name = "mine"
    table = {{"a": 1, "b": (2, 3)}}

    def pick(self, view):
        if WORM in view.choices and not view.has_worm:
            return WORM
        return max(view.choices, key=lambda f: (f in FACES, f))

    def stop(self, view):
        return helper(view)

print(json.dumps([code_digest(Mine), volatile_note(Mine)]))
"""


def run_stdin(source: str, hash_seed: str = "0", *, keep_bytecode: bool = False) -> list:
    env = dict(os.environ, PYTHONHASHSEED=hash_seed)
    if keep_bytecode:  # beside the source, as Python's default is
        for key in ("PYTHONDONTWRITEBYTECODE", "PYTHONPYCACHEPREFIX"):
            env.pop(key, None)
    done = subprocess.run(
        [sys.executable, "-"], input=source, capture_output=True, text=True, env=env, timeout=60
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


# -- classes in files ----------------------------------------------------------------------
def test_two_classes_in_one_file_differ_and_an_edit_changes_the_class_edited(tmp_path):
    path = tmp_path / "bots.py"
    path.write_text(TWO_CLASSES)
    one, two = resolve(f"{path}:Careful"), resolve(f"{path}:Careful2")
    assert one.identity()["code"] != two.identity()["code"]
    assert one.identity()["class"].endswith(":Careful")
    assert two.identity()["class"].endswith(":Careful2")
    path.write_text(
        TWO_CLASSES.replace("return min(view.choices)", "return sorted(view.choices)[0]")
    )
    edited = resolve(f"{path}:Careful2")
    assert edited.identity()["code"] != two.identity()["code"]
    # The whole file is the code of each class in it (a class may use any helper there):
    # the other class's digest changes too, never the other way round.
    assert resolve(f"{path}:Careful").identity()["code"] != one.identity()["code"]
    path.write_text(TWO_CLASSES)
    assert resolve(f"{path}:Careful").identity()["code"] == one.identity()["code"]


def test_a_builtin_digest_is_the_same_in_every_process():
    here = code_digest(Greedy)
    source = (
        "from harness.plugins import code_digest\nfrom harness.strategies.greedy import Greedy\n"
    )
    source += "import json\nprint(json.dumps([code_digest(Greedy)]))\n"
    assert run_stdin(source, "1") == [here] == run_stdin(source, "2")
    assert not here.startswith(VOLATILE) and volatile_note(Greedy) is None


# -- classes in __main__ ---------------------------------------------------------------------
def test_a_main_class_has_one_digest_in_every_process_and_an_edit_changes_it():
    source = MAIN.format(target=25)
    edits = {
        "global": MAIN.format(target=26),  # a global the code uses
        "helper": source.replace(">= TARGET", "> TARGET"),  # a helper function it calls
        "lambda": source.replace("(f in FACES, f)", "(f in FACES, -f)"),  # inside a method
        "attr": source.replace('"b": (2, 3)', '"b": (2, 4)'),  # a class attribute
    }
    moved = "# a comment\n\n\n" + source.replace("    def stop", "\n    def stop")
    jobs = [(source, "1"), (source, "12345"), (moved, "3")] + [(e, "0") for e in edits.values()]
    with ThreadPoolExecutor(3) as pool:  # each waits for its interpreter
        first, again, same_moved, *edited = pool.map(lambda job: run_stdin(*job), jobs)
    assert first == again and first[1] is None  # set constants reorder: no matter
    digest = first[0]
    assert not digest.startswith(VOLATILE) and digest != code_digest(Greedy)
    assert same_moved[0] == digest  # moving code does not change what it does
    for what, found in zip(edits, edited, strict=True):
        assert found[0] != digest, what
    assert len({found[0] for found in edited}) == len(edits)


def test_a_main_class_whose_code_cannot_be_read_is_volatile():
    source = textwrap.dedent(
        """
        import json, random
        from harness.plugins import code_digest, volatile_note
        from harness.strategy import Strategy

        RNG = random.Random(1)

        class Lucky(Strategy):
            name = "lucky"
            def pick(self, view):
                return max(view.choices)
            def stop(self, view):
                return RNG.random() < 0.5

        print(json.dumps([code_digest(Lucky), code_digest(Lucky), volatile_note(Lucky)]))
        """
    )
    one, same, note = run_stdin(source)
    two = run_stdin(source)[0]
    assert one.startswith(VOLATILE) and one == same  # stable while the process lives
    assert two.startswith(VOLATILE) and two != one  # never equal in another process
    assert note.count("\n") == 0 and "Lucky" in note and "never resumed or reused" in note
    assert "Random" in note


def loop_class(items: int) -> type:
    """A ``__main__`` class with a self-referencing attribute and ``items`` more objects."""

    class Loop(Strategy):
        name = "loop"
        cycle: list = []
        big = [[i] for i in range(items)]

        def pick(self, view):
            return self.cycle

        def stop(self, view):
            return self.big

    Loop.cycle.append(Loop.cycle)
    Loop.__module__ = "__main__"
    return Loop


def test_hostile_main_code_ends_in_a_digest_not_a_hang():
    huge = loop_class(30_000)  # more objects than one walk visits
    assert code_digest(huge).startswith(VOLATILE)
    assert "more than" in volatile_note(huge)
    small = loop_class(3)
    digest = code_digest(small)
    assert not digest.startswith(VOLATILE) and digest == code_digest(loop_class(3))
    assert digest != code_digest(loop_class(4))
    deep = loop_class(0)
    nested: tuple = ()
    for _ in range(100_000):  # deeper than any recursion limit
        nested = (nested,)
    deep.cycle = nested
    assert code_digest(deep).startswith(VOLATILE)
    assert "raised RecursionError" in volatile_note(deep)


def test_a_class_of_a_module_that_is_gone_is_hashed_from_its_code():
    class Gone(Strategy):
        name = "gone"

        def pick(self, view):
            return max(view.choices)

        def stop(self, view):
            return True

    Gone.__module__ = "no_such_module_anywhere"
    digest = code_digest(Gone)
    assert digest == code_digest(Gone) and not digest.startswith(VOLATILE)
    Gone.stop = lambda self, view: False  # an edit of the class object itself
    assert code_digest(Gone) != digest


# -- a tourney run twice ---------------------------------------------------------------------
TOURNEY = """
import json, sys
from harness.strategy import Strategy
from harness.tourney import run_tournament

class Mine(Strategy):
    name = "mine"
    def pick(self, view):
        return max(view.choices)
    def stop(self, view):
        return view.total >= {target}

run = run_tournament(
    {{"name": "m", "entrants": ["__main__:Mine", "greedy"], "games": 6, "seed": 3,
     "workers": 0, "engine": "python"}},
    out={out!r},
)
print(json.dumps([run.played, run.resumed, run.reused, run.status]))
"""


@pytest.mark.once
def test_a_main_class_edited_between_runs_is_played_again(tmp_path: Path):
    out = str(tmp_path / "results")
    first = run_stdin(TOURNEY.format(target=25, out=out))
    assert first == [12, 0, 0, "complete"]
    same = run_stdin(TOURNEY.format(target=25, out=out), "7")
    assert same[0] == 0 and same[3] == "complete"  # the same code: nothing to play
    edited = run_stdin(TOURNEY.format(target=27, out=out))
    assert edited[:3] == [12, 0, 0]  # new code: played, neither resumed nor reused


@pytest.mark.once
def test_a_volatile_class_is_never_resumed(tmp_path: Path):
    out = str(tmp_path / "results")
    source = TOURNEY.format(target=25, out=out)
    source = source.replace("class Mine", "import random\nRNG = random.Random(2)\n\nclass Mine")
    source = source.replace(">= 25", ">= 25 or RNG.random() < 0")
    assert run_stdin(source)[0] == 12
    assert run_stdin(source)[:3] == [12, 0, 0]


def test_a_class_of_an_installed_package_is_hashed_from_its_own_module(tmp_path, monkeypatch):
    import importlib.util

    import harness.plugins.digests as identity

    monkeypatch.setattr(identity, "_THIRD_PARTY", (str(tmp_path),))  # as if site-packages
    digests = []
    for version, source in enumerate((TWO_CLASSES, TWO_CLASSES.replace("+ 2", "+ 3"))):
        path = tmp_path / f"v{version}" / "installed_bots.py"
        path.parent.mkdir()
        path.write_text(source)
        spec = importlib.util.spec_from_file_location("installed_bots", path)  # one name
        module = importlib.util.module_from_spec(spec)
        monkeypatch.setitem(sys.modules, spec.name, module)
        spec.loader.exec_module(module)
        digests.append(code_digest(module.Careful2))
    assert digests[0] != digests[1]  # an edited installed strategy is not the same code


# -- the code that runs is the code its digest describes ------------------------------------
PICKS = """
from harness.strategy import Strategy


class Picks(Strategy):
    name = "picks"

    def pick(self, view):
        return max(view.choices)

    def stop(self, view):
        return True
"""

LOAD_AND_SAY = """
import json
from harness.plugins import resolve
spec = resolve({ref!r})
print(json.dumps([spec.identity()["code"], spec.create().pick.__code__.co_names[0]]))
"""


def test_a_kept_pyc_never_runs_in_place_of_an_edited_plugin_file(tmp_path: Path):
    """A same-length edit that keeps the file's modification time (a quick edit within a
    second, ``cp -p``, ``rsync -t``) leaves a kept .pyc looking valid to the import
    system. Each fresh process must still run the bytes it digests, and the plugin's
    folder gets no ``__pycache__``."""
    plugin = tmp_path / "picks.py"
    plugin.write_text(PICKS)

    def load() -> list[str]:
        return run_stdin(LOAD_AND_SAY.format(ref=f"{plugin}:Picks"), keep_bytecode=True)

    before = load()
    assert before[1] == "max"
    kept = plugin.stat()
    plugin.write_text(PICKS.replace("max(view", "min(view"))  # the same length
    os.utime(plugin, ns=(kept.st_atime_ns, kept.st_mtime_ns))
    assert plugin.stat().st_size == kept.st_size
    after = load()
    assert after[0] != before[0], "the edit changes the digest"
    assert after[1] == "min", "the code that runs is the edited code, not a kept .pyc"
    assert not (tmp_path / "__pycache__").exists()


ANNOTATED = b"""
from harness.strategy import Strategy


def limit(total: int) -> bool:
    return total >= 25


KINDS = sorted(type(hint).__name__ for hint in limit.__annotations__.values())


class Annotated(Strategy):
    name = "annotated"

    def pick(self, view):
        return max(view.choices)

    def stop(self, view):
        return limit(view.total)
"""


def test_a_plugin_file_compiles_the_same_here_and_on_a_dask_worker(tmp_path: Path):
    """A shipped file runs under no ``__future__`` flag of the module that executes it:
    its annotations are what they are locally (harness's own modules use ``from
    __future__ import annotations``, and compile() passes a caller's flags on)."""
    from harness.plugins import _load_file
    from harness.tourney.backends.dask_worker import Shipped, install

    path = tmp_path / "annotated.py"
    path.write_bytes(ANNOTATED)
    local = _load_file("annotated.py:Annotated", str(path))
    name = "harness_plugin_shipped_test"
    try:
        install(Shipped(name, str(path), ANNOTATED))
        shipped = sys.modules[name]
    finally:
        sys.modules.pop(name, None)
    assert local.KINDS == ["type", "type"]
    assert shipped.KINDS == local.KINDS
