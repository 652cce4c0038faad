"""SPRT: a second kind of experiment beside tournaments (``harness sprt A B``).

Where a tournament plays a fixed plan, a sequential probability ratio test plays A
against B deal by deal (a deal: one set of duplicate dice in every seat order) until
the test decides: H1, A is at least ``elo1`` stronger, or H0, at most ``elo0``. It plays the
tourney's chunks on the tourney's backends, and its arithmetic is the ground floor's
(:mod:`harness.stats`, :class:`~harness.stats.Sprt`).

The rooms::

    experiment  the setup (make_setup), deals and their scores, the tally applied in
                deal order, the loop over a backend (run_sprt)

The ``harness sprt`` command is :mod:`harness.commands.sprt`.

From Python (e.g. a notebook)::

    from harness.sprt import make_setup, run_sprt
    result = run_sprt(make_setup("tactician", "greedy"), workers=2)
    result.verdict, result.summary()["elo"]
"""

from typing import Any

_EXPORTS = ("SprtError", "SprtResult", "SprtSetup", "Tally", "make_setup", "run_sprt")


def __getattr__(name: str) -> Any:
    # Lazy: `harness --help` imports harness.commands.sprt (so this package), not the experiment.
    if name in _EXPORTS:
        from harness.sprt import experiment

        return getattr(experiment, name)
    raise AttributeError(f"module 'harness.sprt' has no attribute {name!r}")


__all__ = list(_EXPORTS)
