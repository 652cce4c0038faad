"""A plugin's code identity does not depend on what else its process imported (issue 30,
item 1).

A package gains an attribute for each of its submodules that anything imports (``import
harness.commands.strategies`` sets ``harness.commands.strategies``). The digest once followed those
attributes, so a plugin reaching ``harness.plugins`` had one digest in the ``harness``
command (which imports every command) and another in a worker (which does not): every
chunk of ``examples/rl/gauntlet.yaml`` failed with "its code changed since the run was
planned". Here every plugin under ``examples/`` is hashed in fresh processes that import
in different orders, and played by the command over 0, 1 and 2 workers and on Dask; the
documented gauntlet runs as docs/rl.md writes it.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from helpers import HANG_GUARD

pytestmark = pytest.mark.interpreter

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"

# Every strategy class of every example plugin file, as a reference; the template is
# the trainer's (its weights are a placeholder until train.py fills them in), so it is
# hashed but not played.
EXAMPLE_REFS = [
    "examples/my_bot.py:WormHunter",
    "examples/rl/agent.py:TrainedAgent",
    "examples/rl/agent_template.py:TrainedAgent",
]
PLAYABLE = [ref for ref in EXAMPLE_REFS if "template" not in ref]

# What a process may have imported before it hashes a plugin: nothing; the command line
# (every command); the rooms a coach, an environment or a report pulls in; everything.
PRELUDES = {
    "nothing": "",
    "the command line": "import harness.cli",
    "coach, env, report": "import harness.coach, harness.env.gym, harness.env.aec, harness.report",
    "every module": textwrap.dedent(
        """
        import importlib, pkgutil, harness
        for info in pkgutil.walk_packages(harness.__path__, "harness."):
            if "._native_core" in info.name:
                continue
            try:
                importlib.import_module(info.name)
            except ImportError:  # an extra that is not installed
                pass
        """
    ),
}

DIGESTS = """
import json
from harness.plugins import code_digest, resolve
refs = {refs!r}
print(json.dumps({{ref: code_digest(resolve(ref).cls) for ref in refs}}))
"""


def digests_after(prelude: str) -> dict[str, str]:
    source = prelude + "\n" + DIGESTS.format(refs=EXAMPLE_REFS)
    done = subprocess.run(
        [sys.executable, "-"],
        input=source,
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=HANG_GUARD,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_the_examples_list_is_every_plugin_under_examples():
    files = {
        str(path.relative_to(ROOT))
        for path in EXAMPLES.rglob("*.py")
        if "(Strategy)" in path.read_text() or "(PolicyStrategy)" in path.read_text()
    }
    assert files == {ref.split(":")[0] for ref in EXAMPLE_REFS}


def test_an_example_plugin_has_one_digest_whatever_its_process_imported_first():
    seen = {name: digests_after(prelude) for name, prelude in PRELUDES.items()}
    first = seen["nothing"]
    assert len(set(first.values())) == len(EXAMPLE_REFS)  # three classes, three identities
    for name, digests in seen.items():
        assert digests == first, f"after importing {name}"


def test_a_submodule_imported_elsewhere_is_not_part_of_a_package_users_identity(tmp_path):
    """The same rule for a user's own package: ``mybots.extra``, imported by nobody the
    plugin uses, does not enter the plugin's digest when another import loads it; a
    submodule the package imports itself does, and editing it changes the digest."""
    package = tmp_path / "mybots"
    package.mkdir()
    (package / "__init__.py").write_text("from . import shared\n")
    (package / "shared.py").write_text("TARGET = 25\n")
    (package / "extra.py").write_text("UNRELATED = 1\n")
    (tmp_path / "bot.py").write_text(
        textwrap.dedent(
            """
            import mybots
            from harness.strategy import Strategy


            class Bot(Strategy):
                name = "bot"

                def pick(self, view):
                    return max(view.choices)

                def stop(self, view):
                    return view.total >= mybots.shared.TARGET
            """
        )
    )
    source = textwrap.dedent(
        """
        import json, sys
        sys.path.insert(0, {where!r})
        if {extra!r}:
            import mybots.extra
        from harness.plugins import code_digest, resolve
        print(json.dumps([code_digest(resolve({ref!r}).cls)]))
        """
    )

    def digest(extra: bool) -> str:
        done = subprocess.run(
            [sys.executable, "-"],
            input=source.format(where=str(tmp_path), extra=extra, ref=f"{tmp_path}/bot.py:Bot"),
            capture_output=True,
            text=True,
            timeout=HANG_GUARD,
        )
        assert done.returncode == 0, done.stderr
        return json.loads(done.stdout.strip().splitlines()[-1])[0]

    before = digest(False)
    assert digest(True) == before
    (package / "shared.py").write_text("TARGET = 27\n")
    assert digest(False) != before  # what the package imports is part of the identity


def harness_command(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "harness", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=HANG_GUARD,
    )


# In this process, in worker processes (one or two differ only in count: two also let a
# chunk land while the other plays), on Dask workers.
@pytest.mark.parametrize("where", ["--workers=0", "--workers=2", "--backend=dask"])
@pytest.mark.once
def test_every_example_plugin_plays_a_tournament_from_the_command(tmp_path, where):
    if where == "--backend=dask":
        pytest.importorskip("distributed")
    config = tmp_path / "examples.yaml"
    entrants = [
        {"strategy": f"{ROOT}/{ref}", "name": f"example-{number}"}
        for number, ref in enumerate(PLAYABLE)
    ]
    entrants += ["greedy", "optimal"]
    config.write_text(
        json.dumps({"name": "examples", "entrants": entrants, "deals": 6, "chunk": 3, "seed": 5})
    )
    workers = ["--workers=2"] if where == "--backend=dask" else []
    done = harness_command(
        "tourney",
        str(config),
        where,
        *workers,
        "--out",
        str(tmp_path / "results"),
        "--json",
        "--no-report",  # the plugins' games are the point; a report reads stored rows
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    summary = json.loads(done.stdout)
    assert summary["games"] == 6 * 2 * 6  # 6 pairings of 4 entrants, each deal in both orders
    assert not summary.get("missing")


@pytest.mark.once
def test_the_documented_gauntlet_runs(tmp_path):
    """docs/rl.md's command, as written there: the trained agent against the built-ins
    (on 25 of its 500 deals: the config, the agent and its field are what is checked; the
    games of a deal are the same whatever the run's length)."""
    done = harness_command(
        "tourney",
        "examples/rl/gauntlet.yaml",
        "--deals",
        "25",
        "--out",
        str(tmp_path),
        "--json",
        "--no-report",  # the games and the summary are checked; a report reads stored rows
        cwd=ROOT,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    summary = json.loads(done.stdout)
    assert summary["games"] == 4 * 25 * 2
