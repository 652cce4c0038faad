"""What report.json promises (issue 24, item 6).

Its digest has no key: anyone who can write the folder can edit a number and seal it
again, and ``load_run(...).standings`` and ``harness compare`` serve it. That is said
(README, "Trust"); and ``load_run(path, recount=True)`` and ``harness compare
--recount`` count every number afresh from the verified games, so a person who doubts a
cached number checks it in one command.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from harness.report.api import DIGEST_KEY, summary_digest
from harness.results import load_run
from harness.tourney import run_tournament


@pytest.fixture(scope="module")
def runs(tmp_path_factory) -> tuple[Path, Path]:
    root = tmp_path_factory.mktemp("recount")
    made = []
    for seed in (1, 2):
        config = {"name": f"r{seed}", "entrants": ["greedy", "random"], "deals": 6, "seed": seed}
        made.append(run_tournament(config, out=root, workers=0).run_dir)
    from harness.report import write_report

    for run_dir in made:
        write_report(run_dir, plots=False)
    return made[0], made[1]


def forge(run_dir: Path, where: Path) -> tuple[Path, float]:
    """A copy of the run whose report.json says greedy won 99.9%, sealed again (as anyone
    who can write the folder can do); the copy and the true win share."""
    run_dir = Path(shutil.copytree(run_dir, where / run_dir.parent.name / run_dir.name))
    path = run_dir / "report.json"
    data = json.loads(path.read_text())
    row = next(r for r in data["standings"] if r["strategy"] == "greedy")
    true = row["win_share"]
    row["win_share"] = 0.999
    data[DIGEST_KEY] = summary_digest(data)
    path.write_text(json.dumps(data, indent=1))
    return run_dir, true


def greedy_share(frame) -> float:
    return float(frame.set_index("strategy").loc["greedy", "win_share"])


def test_a_sealed_edit_is_served_from_the_cache_and_recounted_on_request(runs, tmp_path):
    forged, true = forge(runs[0], tmp_path)
    assert greedy_share(load_run(forged).standings) == 0.999  # what the digest cannot tell
    assert greedy_share(load_run(forged, recount=True).standings) == pytest.approx(true)
    assert (
        load_run(forged, recount=True).report["standings"] != load_run(forged).report["standings"]
    )


def test_compare_recount_uses_the_games_not_the_cache(runs, cli, tmp_path):
    forged, true = forge(runs[0], tmp_path)
    other = runs[1]

    def baseline_share(*extra: str) -> float:
        result = cli(
            "compare", str(forged), str(other), "--json", "--out", str(tmp_path / "cmp"), *extra
        )
        assert result.exit_code == 0, result.output
        payload = json.loads(result.output.strip().splitlines()[-1])
        row = next(s for s in payload["strategies"] if s["strategy"] == "greedy")
        return row["runs"][0]["win_share"]

    assert baseline_share() == 0.999
    assert baseline_share("--recount") == pytest.approx(true)
