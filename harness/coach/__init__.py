"""See every decision: the coach (a bot's decisions against the exact turn optimum) and
the diff (two bots' decisions on the same deals, where they part and what it is worth).

``harness coach BOT`` and ``harness diff A B`` (:mod:`harness.commands.coach`), and from
Python :func:`coach` and :func:`diff`. The rooms: :mod:`~harness.coach.situations` (error
bands, the situation a person reads), :mod:`~harness.coach.valuing` (a decision valued
exactly from the question a seat was asked), :mod:`~harness.coach.audit` (the coach's
seat and tally), :mod:`~harness.coach.shadow` (the diff's seat: a second bot asked the same
questions, each choice valued under the bots' own play), :mod:`~harness.coach.deals`
(playing a bot's deals, natively where the seats allow, in worker processes),
:mod:`~harness.coach.coaching` and :mod:`~harness.coach.differ` (the results, for programs
and notebooks), :mod:`~harness.coach.render` (terminal, Markdown, HTML). docs/coach.md
says what every number means.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

_EXPORTS = {
    "coach": "harness.coach.coaching",
    "Coaching": "harness.coach.coaching",
    "diff": "harness.coach.differ",
    "Diff": "harness.coach.differ",
}

__all__ = ["Coaching", "Diff", "coach", "diff"]


def __getattr__(name: str) -> Any:
    import importlib

    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'harness.coach' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


if TYPE_CHECKING:
    from harness.coach.coaching import Coaching, coach
    from harness.coach.differ import Diff, diff
