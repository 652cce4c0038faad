"""How each shipped model was made: its commands in order, as data.

A shipped model is a chain of the training's two commands (``python -m
harness.training``, then ``python -m harness.training.calibrate``), each step starting
from the one before's file (``{prev}`` in its arguments). Each step records the sha256
its output had when the model was first made (the first 12 hex digits, as
docs/winprob.md gives them) and the CPU seconds it took; the last step's output is the
file shipped, whose whole sha256 is in ``harness/winprob/models/SHA256SUMS``.
``python -m harness.training.reproduce`` runs them (docs/winprob.md, Training). Made
again on 2026-12-07, every step gave its recorded bytes but the chance maps' (``--map
knots``): the same network, knots within 1.8e-6 of the files shipped then (L-BFGS-B's
endpoint, which moves between versions of scipy and numpy). The knots are polished to
the fit's optimum and rounded since (``calibrate.polish_knots``): the four chance maps'
last steps record the files made so on 2026-12-08; each of the six chains then made its
file byte for byte from nothing on an older numpy and scipy too (2.1.3 and 1.14.1, or
2.2.6 and 1.15.3: docs/winprob.md). Each step's CPU is still the first making's.
"""

from __future__ import annotations

from dataclasses import dataclass

TRAIN = "harness.training"
CALIBRATE = "harness.training.calibrate"


@dataclass(frozen=True)
class Step:
    """One command of a chain: ``python -m <module> <args>`` with ``--out`` added."""

    module: str  # TRAIN or CALIBRATE
    args: tuple[str, ...]  # "{prev}": the step before's output
    sha256: str  # the output's sha256 when first made (a prefix of 12 hex digits)
    cpu: float  # its CPU seconds then (the command's own figure)

    def argv(self, prev: str | None, out: str) -> list[str]:
        if prev is None and any("{prev}" in a for a in self.args):
            raise ValueError("the first step of a chain has no file before it")
        return [a.replace("{prev}", prev or "") for a in self.args] + ["--out", out]


@dataclass(frozen=True)
class Recipe:
    """A shipped model (its file name) and the chain that made it."""

    name: str
    steps: tuple[Step, ...]

    @property
    def cpu(self) -> float:
        return sum(s.cpu for s in self.steps)


def _train(args: str, sha256: str, cpu: float) -> Step:
    return Step(TRAIN, tuple(args.split()), sha256, cpu)


def _calibrate(args: str, sha256: str, cpu: float) -> Step:
    return Step(CALIBRATE, tuple(args.split()), sha256, cpu)


_P3 = "--players 3 --seed 1 --positions 40000 --pool strong --decay 0.75"
_P4 = "--players 4 --seed 1 --positions 30000 --pool strong --decay 0.75"
_MORE = "--init {prev} --epochs 0"

RECIPES: tuple[Recipe, ...] = (
    Recipe(
        "winprob-2p.bin",
        (
            _train("--players 2 --seed 1 --positions 80000 --sweeps 8", "0d5569b5e033", 803),
            _train(
                f"--players 2 --seed 1 --positions 80000 --sweeps 8 {_MORE}", "a2116e11df4a", 813
            ),
            _calibrate(
                "--players 2 --model {prev} --seed 1 --positions 100000", "f147f442c709", 19.4
            ),
        ),
    ),
    Recipe(
        "winprob-3p.bin",
        (
            _train(f"{_P3} --sweeps 3", "0fca248ef811", 376),
            _train(f"{_P3} --sweeps 5 {_MORE}", "258f1424ee60", 407),
            _train(f"{_P3} --sweeps 5 {_MORE}", "d6e848dab37a", 393),
            _calibrate(
                "--players 3 --model {prev} --seed 1 --positions 100000", "02047fe71a68", 30.2
            ),
            _calibrate(
                "--players 3 --model {prev} --seed 1 --positions 1200000 --map knots",
                "aefaf674c9db",
                382,
            ),
        ),
    ),
    Recipe(
        "winprob-4p.bin",
        (
            _train(f"{_P4} --sweeps 2", "9d3f5b819940", 239),
            _train(f"{_P4} --sweeps 4 {_MORE}", "afb307f36e5d", 267),
            _train(f"{_P4} --sweeps 4 {_MORE}", "85a0bbf0ac4a", 269),
            _train(f"{_P4} --sweeps 6 {_MORE}", "279cbebb9668", 373),
            _calibrate(
                "--players 4 --model {prev} --seed 1 --positions 100000", "077a00d44c91", 29.9
            ),
            _calibrate(
                "--players 4 --model {prev} --seed 1 --positions 1200000 --map knots",
                "e8d7bbc8a987",
                410,
            ),
        ),
    ),
    Recipe(
        "winprob-2p-piko-blog.bin",
        (
            _train(
                "--players 2 --rules piko-blog --seed 1 --positions 80000 --sweeps 8",
                "deae9b141e46",
                441,
            ),
            _calibrate(
                "--players 2 --rules piko-blog --model {prev} --seed 1 --positions 100000",
                "ed1db9c631de",  # first recorded when made again (its network is the shipped one's)
                25,
            ),
            _calibrate(
                "--players 2 --rules piko-blog --model {prev} --seed 1"
                " --positions 100000 --map knots",
                "11cd76fef3c5",
                24,
            ),
        ),
    ),
    Recipe(
        "winprob-3p-piko-blog.bin",
        (
            _train(
                "--players 3 --rules piko-blog --seed 1 --positions 40000 --sweeps 12"
                " --pool strong",
                "0394572ff401",
                1066,
            ),
            _calibrate(
                "--players 3 --rules piko-blog --model {prev} --seed 1 --positions 100000",
                "bab00081dd41",  # first recorded when made again (its network is the shipped one's)
                34,
            ),
            _calibrate(
                "--players 3 --rules piko-blog --model {prev} --seed 1"
                " --positions 100000 --map knots",
                "461214e9f97e",
                34,
            ),
        ),
    ),
    Recipe(
        "winprob-4p-piko-blog.bin",
        (
            _train(
                "--players 4 --rules piko-blog --seed 1 --positions 30000 --sweeps 8 --pool strong",
                "703b4ffc94b7",
                524,
            ),
            _calibrate(
                "--players 4 --rules piko-blog --model {prev} --seed 1 --positions 100000",
                "65c591d16c43",
                31,
            ),
        ),
    ),
)


def recipe(name: str) -> Recipe:
    """The recipe of a shipped file, by its name (``winprob-2p.bin``) or its stem."""
    for r in RECIPES:
        if name in (r.name, r.name.removesuffix(".bin")):
            return r
    known = ", ".join(r.name for r in RECIPES)
    raise KeyError(f"{name!r}: no shipped model of that name (the shipped ones: {known})")
