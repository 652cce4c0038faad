"""The shipped models' recipes and ``python -m harness.training.reproduce``: every shipped
file has a chain whose last step records its SHA256SUMS line, every step's arguments are
its command's, the chains' recorded CPU is within the issue's two hours; a tiny chain run
by the command reproduces itself in a fresh folder, keeps a step already made, and a
step that gives another file is said in one line, exit 1."""

from __future__ import annotations

import hashlib

import pytest

from harness.training import __main__ as train_command
from harness.training import calibrate, recipes, reproduce
from harness.training.recipes import CALIBRATE, RECIPES, TRAIN, Recipe, Step
from harness.winprob.model import shipped_sums

PARSERS = {TRAIN: train_command._parser, CALIBRATE: calibrate._parser}


def test_every_shipped_model_has_a_recipe_ending_in_its_sha256():
    sums = shipped_sums()
    assert sorted(r.name for r in RECIPES) == sorted(sums)
    for r in RECIPES:
        assert sums[r.name].startswith(r.steps[-1].sha256), r.name
        assert len(r.steps[-1].sha256) >= 12
        assert r.steps[0].module == TRAIN  # a chain starts from nothing
        assert all("{prev}" in " ".join(s.args) for s in r.steps[1:]), r.name


def test_every_step_is_its_commands_own_arguments():
    for r in RECIPES:
        prev = None
        for k, step in enumerate(r.steps, 1):
            out = f"{r.name}.step{k}.bin"
            args = PARSERS[step.module]().parse_args(step.argv(prev, out))
            assert str(args.out) == out
            assert args.rules == ("piko-blog" if "piko-blog" in r.name else "official")
            assert f"-{args.players}p" in r.name
            prev = out


def test_the_recorded_training_is_within_two_cpu_hours():
    # the issue's budget for all training; the figures are the commands' own
    assert sum(r.cpu for r in RECIPES) <= 2 * 3600


def test_a_name_is_a_file_or_its_stem_and_a_wrong_one_is_one_line(capsys):
    assert recipes.recipe("winprob-2p") is recipes.recipe("winprob-2p.bin")
    with pytest.raises(SystemExit) as stop:
        reproduce.main(["winprob-9p"])
    assert stop.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "winprob-9p" in err[0] and "winprob-2p.bin" in err[0]


TINY_TRAIN = "--players 2 --seed 5 --positions 200 --sweeps 1 --hidden 8 --epochs 2"
TINY_TRAIN += " --sweep-epochs 1"
TINY_CALIBRATE = "--players 2 --model {prev} --seed 5 --positions 150"


def _tiny(first: str = "", second: str = "") -> Recipe:
    return Recipe(
        "winprob-2p.bin",
        (
            Step(TRAIN, tuple(TINY_TRAIN.split()), first, 1.0),
            Step(CALIBRATE, tuple(TINY_CALIBRATE.split()), second, 1.0),
        ),
    )


def _sha(path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _made_once(tmp_path):
    """The tiny chain's steps made in ``tmp_path/first`` with nothing recorded: the
    folder and the two files' sha256."""
    made = tmp_path / "first"
    made.mkdir()
    for k, step in enumerate(_tiny().steps, 1):
        prev = made / f"winprob-2p.step{k - 1}.bin" if k > 1 else None
        reproduce.run_step(step, prev, made / f"winprob-2p.step{k}.bin")
    sha1, sha2 = (_sha(made / f"winprob-2p.step{k}.bin") for k in (1, 2))
    return made, sha1, sha2


def test_a_tiny_chain_reproduces_keeps_what_is_made_and_says_a_difference(
    tmp_path, monkeypatch, capsys
):
    # the first run makes the files (nothing recorded for the steps; the end is checked
    # against what SHA256SUMS would say: here, the first run's own end)
    made, sha1, sha2 = _made_once(tmp_path)
    monkeypatch.setattr(reproduce, "shipped_sums", lambda: {"winprob-2p.bin": sha2})
    recorded = _tiny(sha1[:12], sha2[:12])

    again = tmp_path / "again"
    again.mkdir()
    assert reproduce.reproduce(recorded, again)  # a fresh folder: the same bytes
    assert _sha(again / "winprob-2p.bin") == sha2
    assert f"sha256 {sha1}" in (again / "winprob-2p.step1.log").read_text()  # its output
    out = capsys.readouterr().out
    assert "reproduced byte for byte" in out and "matches" in out

    # run again in the same folder: both steps kept, no process started
    monkeypatch.setattr(reproduce.subprocess, "run", lambda *a, **k: pytest.fail("ran"))
    assert reproduce.reproduce(recorded, again)
    assert capsys.readouterr().out.count("kept from before") == 2
    monkeypatch.undo()

    # a step whose file differs from the recorded one ends the chain in one line: step 1
    # is made again (its file does not match), and step 2 is never started
    monkeypatch.setattr(reproduce, "shipped_sums", lambda: {"winprob-2p.bin": sha2})
    started = []
    real_run = reproduce.subprocess.run

    def counted(argv, **kwargs):
        started.append(argv[2])
        return real_run(argv, **kwargs)

    monkeypatch.setattr(reproduce.subprocess, "run", counted)
    wrong = _tiny("0" * 12, sha2[:12])
    assert not reproduce.reproduce(wrong, again)
    assert started == [TRAIN]
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1
    assert f"step 1 gave sha256 {sha1[:12]}, the recipe records 000000000000" in err[0]


def test_a_step_that_fails_is_one_line_with_its_log(tmp_path, monkeypatch, capsys):
    bad = Recipe("winprob-2p.bin", (Step(TRAIN, ("--players", "9"), "", 1.0),))
    monkeypatch.setattr(reproduce, "recipe", lambda name: bad)
    assert reproduce.main(["winprob-2p", "--dir", str(tmp_path)]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "status 2" in err[0] and ".log" in err[0]


def test_a_run_says_the_library_versions_its_fits_ran_on(tmp_path, monkeypatch, capsys):
    import numpy as np
    import scipy

    monkeypatch.setattr(reproduce, "reproduce", lambda r, folder, *rest: True)
    assert reproduce.main(["winprob-4p", "--dir", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert f"numpy {np.__version__}, scipy {scipy.__version__}" in out


def test_ctrl_c_is_one_line_exit_130_and_says_the_steps_are_kept(tmp_path, monkeypatch, capsys):
    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(reproduce, "run_step", interrupted)
    assert reproduce.main(["winprob-2p", "--dir", str(tmp_path)]) == 130
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "interrupted" in err[0] and str(tmp_path) in err[0]


def test_a_made_model_that_differs_says_whether_only_the_knots_moved(tmp_path):
    """A last step whose bytes differ is compared with the shipped file: the same
    network with knots a little apart (a float fit's last digits), or another network."""
    import dataclasses

    from harness.winprob.model import MODELS, load

    shipped = MODELS / "winprob-4p.bin"
    model = load(shipped)
    assert model.knots  # the 4-player model carries a chance map
    nudged = list(model.knots)
    nudged[3] += 2e-6
    near = tmp_path / "near.bin"
    near.write_bytes(dataclasses.replace(model, knots=tuple(nudged)).to_bytes())
    said = reproduce.how_it_differs(near, shipped)
    assert "the same network" in said and "2.0e-06" in said
    layer = model.layers[0]
    weights = layer.weights.copy()
    weights[0, 0] += 1
    changed = dataclasses.replace(layer, weights=weights)
    other = tmp_path / "other.bin"
    other.write_bytes(dataclasses.replace(model, layers=(changed, *model.layers[1:])).to_bytes())
    assert "network's integers differ" in reproduce.how_it_differs(other, shipped)


def test_json_is_one_document_on_stdout_with_each_step_and_the_difference(
    tmp_path, monkeypatch, capsys
):
    """``--json``: progress on stderr, one document on stdout: the libraries, each model's
    steps (sha256, recorded, matched, ran) and, where it did not reproduce, why."""
    import json

    made, sha1, sha2 = _made_once(tmp_path)
    monkeypatch.setattr(reproduce, "recipe", lambda name: _tiny(sha1[:12], sha2[:12]))
    monkeypatch.setattr(reproduce, "shipped_sums", lambda: {"winprob-2p.bin": "f" * 64})
    assert reproduce.main(["winprob-2p", "--dir", str(made), "--json"]) == 1
    captured = capsys.readouterr()
    doc = json.loads(captured.out)
    assert "step 1/2" in captured.err and doc["reproduced"] is False
    (model,) = doc["models"]
    assert [s["matches"] for s in model["steps"]] == [True, False]
    assert [s["ran"] for s in model["steps"]] == [False, False]  # both kept from before
    assert model["steps"][1]["sha256"] == sha2 and model["reproduced"] is False
    assert model["difference"]  # said, not left empty
