"""A seat for a person: play the bots at the terminal or in a notebook, with exact hints.

:class:`~harness.people.seat.Person` is a strategy whose decisions a person types (the
name ``you`` on the command line: ``harness play you greedy optimal``);
:mod:`~harness.people.console` draws the table in 80 columns and reads answers;
:mod:`~harness.people.table` plays a person's game, records it and sums it up. The values
behind ``--hints`` and ``--tutor`` are :mod:`harness.analysis.hints`'s. docs/coach.md
shows how, from the command line and from Python.
"""

from __future__ import annotations

from harness.people.seat import SEAT_NAME, Person

__all__ = ["SEAT_NAME", "Person"]
