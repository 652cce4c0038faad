"""``python -m harness.training.reproduce``: make the shipped models again, from nothing,
and check them against ``harness/winprob/models/SHA256SUMS``.

    python -m harness.training.reproduce [NAME ...] [--dir DIR] [--json]

Runs each named model's chain (:mod:`harness.training.recipes`; all six without a name),
step by step, each step a fresh ``python -m`` process of the training's commands with
its progress bar, its file in DIR (``<model>.step<k>.bin``, what it printed beside it in
``<model>.step<k>.log``). After each step the output's sha256 is compared with the one
the step gave when the model was first made: a difference ends that chain there, in one
line (for a last step: whether the network is the shipped one, and how far the chance
map's knots are), and the command exits 1 once the other chains have run. A step whose
output is already in DIR with the recorded sha256 is not run again, so an interrupted
run goes on where it stopped. The last step's output must be the shipped file byte for
byte; it is copied to DIR/<model>. Prints the library versions first, then per step the
sha256, whether it matched, and the CPU seconds against those recorded. All six took
80 CPU-minutes on 2026-12-07 (117 recorded). Since a chance map's knots are polished and
rounded (2026-12-08), every file comes out byte for byte, each made again on numpy 2.4
and scipy 1.17 and on an older pair, 2.1 and 1.14 or 2.2 and 1.15 (docs/winprob.md,
Training).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import resource
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import scipy

from harness.training.args import OneLineParser
from harness.training.recipes import RECIPES, Recipe, Step, recipe
from harness.winprob.model import MODELS, ModelError, load, shipped_sums

PROG = "python -m harness.training.reproduce"


def sha256_of(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def libraries() -> str:
    """The versions of what the steps' float fits run on, for the record of a run."""
    return f"Python {sys.version.split()[0]}, numpy {np.__version__}, scipy {scipy.__version__}"


def _children_cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def _matches(sha: str, recorded: str) -> bool:
    return not recorded or sha.startswith(recorded)


def run_step(step: Step, prev: Path | None, out: Path) -> tuple[str, float, bool]:
    """(sha256 of the output, CPU seconds, whether it ran) for one step, its progress
    bar on stderr and what it prints in ``<out>.log``; a step whose output is already
    there with the recorded sha256 is kept."""
    if step.sha256 and out.exists():
        made = sha256_of(out)
        if _matches(made, step.sha256):
            return made, 0.0, False
    argv = [sys.executable, "-m", step.module, *step.argv(str(prev) if prev else None, str(out))]
    before = _children_cpu()
    log = out.with_suffix(".log")  # what the command printed: its data sha256, losses, fit
    with log.open("w") as printed:
        done = subprocess.run(argv, stdout=printed, check=False)
    if done.returncode != 0:
        raise RuntimeError(
            f"{' '.join(argv[1:])} ended with status {done.returncode} (its output: {log})"
        )
    return sha256_of(out), _children_cpu() - before, True


def how_it_differs(made: Path, shipped: Path) -> str:
    """What differs between a made model and the shipped one, in words: the network's
    integers, or only the chance map's knots (how far)."""
    try:
        a, b = load(made), load(shipped)
    except ModelError as exc:
        return str(exc)
    same_network = (a.players, a.out_shift, len(a.layers)) == (
        b.players,
        b.out_shift,
        len(b.layers),
    ) and all(
        x.shift == y.shift
        and np.array_equal(x.weights, y.weights)
        and np.array_equal(x.biases, y.biases)
        for x, y in zip(a.layers, b.layers, strict=True)
    )
    if not same_network:
        return "its network's integers differ from the shipped file's"
    if len(a.knots) != len(b.knots):
        return "the same network; its chance map has another number of knots"
    gap = max(abs(x - y) for x, y in zip(a.knots, b.knots, strict=True))
    return (
        f"the same network (every integer); the chance map's knots differ by at most"
        f" {gap:.1e} (the fit's optimum moved, or the step's log says its knots were NOT"
        f" polished, so that a library's rounding stayed in them: docs/winprob.md)"
    )


def reproduce(
    r: Recipe,
    folder: Path,
    say: Callable[[str], None] = print,
    report: dict[str, Any] | None = None,
) -> bool:
    """Runs ``r``'s chain in ``folder``; True when the last file is the shipped one.
    ``report``, when given, is filled with what happened (``--json``'s entry of a model)."""
    shipped = shipped_sums()[r.name]
    steps: list[dict[str, Any]] = []
    if report is not None:
        report.update(model=r.name, shipped_sha256=shipped, steps=steps, reproduced=False,
                      difference=None, cpu_seconds=0.0, recorded_cpu_seconds=r.cpu)  # fmt: skip
    prev: Path | None = None
    cpu = 0.0
    for k, step in enumerate(r.steps, 1):
        out = folder / f"{r.name.removesuffix('.bin')}.step{k}.bin"
        recorded = shipped if k == len(r.steps) else step.sha256
        say(f"{r.name} step {k}/{len(r.steps)}: python -m {step.module} "
            f"{' '.join(step.argv(str(prev) if prev else None, str(out)))}")  # fmt: skip
        sha, seconds, ran = run_step(step, prev, out)
        cpu += seconds
        matches = _matches(sha, recorded)
        steps.append({"step": k, "file": str(out), "sha256": sha, "recorded": recorded,
                      "matches": matches, "ran": ran, "cpu_seconds": seconds,
                      "recorded_cpu_seconds": step.cpu})  # fmt: skip
        if report is not None:
            report["cpu_seconds"] = cpu
        spent = f"{seconds:.0f} CPU-s (recorded {step.cpu:.0f})" if ran else "kept from before"
        if not matches:
            why = how_it_differs(out, MODELS / r.name) if k == len(r.steps) else None
            if report is not None:
                report["difference"] = why or f"step {k}'s file is not the recorded one"
            sys.stderr.write(
                f"{PROG}: error: {r.name} step {k} gave sha256 {sha[:12]}, the recipe records"
                f" {recorded[:12]}: the chain does not reproduce from here ({spent})"
                f"{'; ' + why if why else ''}\n"
            )
            return False
        mark = "matches" if recorded else "(none recorded)"
        say(f"  sha256 {sha[:12]} {mark}; {spent}")
        prev = out
    assert prev is not None
    shutil.copyfile(prev, folder / r.name)
    if report is not None:
        report["reproduced"] = True
    say(f"{r.name}: reproduced byte for byte (sha256 {shipped[:12]}, as SHA256SUMS);"
        f" {cpu:.0f} CPU-s (recorded {r.cpu:.0f})")  # fmt: skip
    return True


def _parser() -> argparse.ArgumentParser:
    p = OneLineParser(prog=PROG, description="Make the shipped win-probability models again"
                      " from their recorded commands and check them byte for byte.")  # fmt: skip
    names = ", ".join(r.name for r in RECIPES)
    p.add_argument("names", nargs="*", metavar="NAME", help=f"default: all ({names})")
    p.add_argument("--dir", type=Path, default=Path("reproduced"),
                   help="where the steps' files go (default: ./reproduced)")  # fmt: skip
    p.add_argument("--json", action="store_true",
                   help="one JSON document on stdout at the end (progress on stderr)")  # fmt: skip
    return p


def main(argv: list[str] | None = None) -> int:
    parser = _parser()
    a = parser.parse_args(argv)
    try:
        chosen = [recipe(n) for n in a.names] if a.names else list(RECIPES)
    except KeyError as exc:
        parser.error(str(exc.args[0]))
    try:
        a.dir.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        parser.error(f"--dir {a.dir}: {exc.strerror}")
    say = (lambda text: print(text, file=sys.stderr)) if a.json else print
    total = sum(r.cpu for r in chosen)
    say(f"{len(chosen)} model(s), {sum(len(r.steps) for r in chosen)} steps, about"
        f" {total / 60:.0f} CPU-minutes as recorded; the shipped files: {MODELS}")  # fmt: skip
    say(f"with {libraries()}")
    reports: list[dict[str, Any]] = [{} for _ in chosen]
    try:
        ok = all([reproduce(r, a.dir, say, rep) for r, rep in zip(chosen, reports, strict=True)])
    except (RuntimeError, OSError) as exc:
        sys.stderr.write(f"{PROG}: error: {exc}\n")
        return 1
    except KeyboardInterrupt:  # the step's process had the signal too and has ended
        sys.stderr.write(
            f"{PROG}: interrupted; the steps made are kept in {a.dir}: run it again to go on\n"
        )
        return 130
    if a.json:
        print(json.dumps({"libraries": libraries(), "dir": str(a.dir), "reproduced": ok,
                          "models": reports}, indent=1))  # fmt: skip
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
