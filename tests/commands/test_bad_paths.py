"""Exit statuses of bad paths (issue 24, item 7): bad input is exit 2, nothing written.

``--address notaurl`` wrote a run folder and exited 1, and so did four other bad-path
options: a path through a file, or a record in a folder that does not exist. Each is now
one line, exit 2, before anything is planned or written: every command, in a real
``harness`` process. So is an output folder that cannot be made at all (``--out
/proc/nope`` of ``tourney`` and ``coach`` exited 1: issue 30, item 4.7).
"""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def two_runs(tmp_path_factory) -> tuple[Path, Path]:
    from harness.tourney import run_tournament

    root = tmp_path_factory.mktemp("runs")
    made = []
    for seed in (1, 2):
        config = {"name": "r", "entrants": ["greedy", "random"], "deals": 2, "seed": seed}
        made.append(run_tournament(config, out=root / str(seed), workers=0).run_dir)
    return made[0], made[1]


def tree(path: Path) -> set[str]:
    return {str(p.relative_to(path)) for p in path.rglob("*")}


CASES = {
    "address-no-port": (["tourney", "{config}", "--out", "{tmp}/out", "--address", "notaurl"],
                        "--address notaurl: missing port number"),
    "address-empty": (["tourney", "{config}", "--out", "{tmp}/out", "--address", "tcp://"],
                      "--address tcp://: missing port number"),
    "address-scheme": (["tourney", "{config}", "--out", "{tmp}/out", "--address", "foo://h:1"],
                       "unknown address scheme 'foo'"),
    "tourney-out": (["tourney", "{config}", "--out", "{tmp}/afile/sub"],
                    "afile is a file, not a folder"),
    "play-record-through-a-file": (["play", "greedy", "greedy", "--record", "{tmp}/afile/x.json"],
                                   "afile is a file, not a folder"),
    "play-record-no-folder": (["play", "greedy", "greedy", "--record", "{tmp}/none/x.json"],
                              "there is no folder"),
    "compare-out": (["compare", "{a}", "{b}", "--out", "{tmp}/afile/sub"],
                    "--out {tmp}/afile/sub: {tmp}/afile is a file, not a folder"),
    "init": (["init", "{tmp}/afile/sub"], "afile is a file, not a folder"),
    # Issue 30, item 4.7: a folder that cannot be made (no file in its way) was exit 1.
    "tourney-out-impossible": (["tourney", "{config}", "--out", "/proc/nope"],
                               "--out /proc/nope: cannot write there"),
    "coach-out-impossible": (["coach", "greedy", "--deals", "2", "--out", "/proc/x"],
                             "--out /proc/x: cannot write there"),
    "coach-out-through-a-file": (["coach", "greedy", "--deals", "2", "--out", "{tmp}/afile/x"],
                                 "afile is a file, not a folder"),
    "diff-out-impossible": (["coach", "diff", "greedy", "simple", "--deals", "2", "--out",
                             "/proc/x/y"], "--out /proc/x/y: cannot write there"),
    "compare-out-impossible": (["compare", "{a}", "{b}", "--out", "/proc/nope"],
                               "--out /proc/nope: cannot write there"),
}  # fmt: skip


@pytest.mark.parametrize("case", sorted(CASES))
def test_a_bad_path_is_one_line_exit_2_and_nothing_written(
    case, tmp_path, harness_process, two_runs
):
    args, says = CASES[case]
    config = tmp_path / "c.yaml"
    config.write_text("name: c\nentrants: [greedy, random]\ndeals: 2\n")
    (tmp_path / "afile").write_text("a file\n")
    fill = {"config": str(config), "tmp": str(tmp_path), "a": str(two_runs[0]),
            "b": str(two_runs[1])}  # fmt: skip
    before = tree(tmp_path), tree(two_runs[0]), tree(two_runs[1])
    done = harness_process(*(a.format(**fill) for a in args))
    assert done.returncode == 2, (done.returncode, done.stderr)
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error: "), done.stderr
    assert says.format(**fill) in lines[0]
    assert (tree(tmp_path), tree(two_runs[0]), tree(two_runs[1])) == before
