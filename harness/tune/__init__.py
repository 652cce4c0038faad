"""The tuner (``harness tune``): SPSA on paired, duplicate-dice, luck-adjusted games of a
bot against a field, within its parameters' declared bounds; resumable; confirmed on
unseen deals (docs/tune.md).

The rooms::

    spsa    the method: gains, perturbations, the step, the averaged answer (pure)
    setup   what is asked, checked (make_setup): every mistake one line, exit 2
    games   a point's games on the tourney's chunks and backends, summed per deal
    run     the iterations in their run folder, the resume, the confirmation (run_tune)
    chart   each parameter's path (path.png)

The ``harness tune`` command is :mod:`harness.commands.tune`.

From Python (e.g. a notebook)::

    from harness.tune import tune
    result = tune("threshold", ["target=21..40"], ["greedy"], budget=20000)
    result.values, result.confirmation["verdict"]
"""

from typing import Any

_EXPORTS = {
    "Gains": "spsa",
    "Param": "setup",
    "TuneError": "setup",
    "TuneSetup": "setup",
    "make_setup": "setup",
    "State": "run",
    "TuneResult": "run",
    "games_per_iteration": "run",
    "iterations_of": "run",
    "run_tune": "run",
}


def tune(bot: str, params: list[str], against: list[str], **options: Any) -> Any:
    """Tune from Python: ``tune("threshold", ["target=21..40"], ["greedy"], budget=20000,
    out="results")``: :func:`make_setup`'s and :func:`run_tune`'s keywords alike; the
    :class:`TuneResult`."""
    from harness.tune.run import run_tune
    from harness.tune.setup import make_setup

    run_keys = {"out", "workers", "backend", "fresh", "on_iteration", "chart"}
    run_options = {k: v for k, v in options.items() if k in run_keys}
    setup_options = {k: v for k, v in options.items() if k not in run_keys}
    return run_tune(make_setup(bot, params, against, **setup_options), **run_options)


def __getattr__(name: str) -> Any:
    # Lazy: the package's face costs nothing until a name of it is used.
    if name in _EXPORTS:
        import importlib

        return getattr(importlib.import_module(f"harness.tune.{_EXPORTS[name]}"), name)
    raise AttributeError(f"module 'harness.tune' has no attribute {name!r}")


__all__ = [*_EXPORTS, "tune"]
