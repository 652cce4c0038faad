"""The win-probability evaluator handed to the C engine, for native ``win-optimal`` seats.

The C engine (native/c/winprob.inc.c) evaluates positions as :mod:`harness.winprob` does,
bit for bit, with the model the Python evaluator uses: :func:`install` hands it
``evaluator(rules).model`` (the shipped model that judges the rules: their preset's own
where one is shipped, else the official rules' of the player count; checked against its
sha256 when it was loaded; or a test's) as its file's bytes, in the slot of the rules'
preset, or None where no model is shipped: then the C engine uses the same normal
approximation (with the C library's ``erf``, which is what ``math.erf`` calls, and
``sum()``'s own summation: compensated from Python 3.12). Installed once per process,
player count and slot (and again only when the model Python would use changes: a test
that installs its own); every process that plays a batch installs it on its own when it
prepares the batch (:func:`harness.native.batch`), so worker processes need nothing
more. A slot per preset keeps two presets' tables from sharing a model, or swapping it
under a batch another thread plays. harness.winprob (and numpy with it) is imported
only when a table seats win-optimal: importing the native engine loads neither.
"""

from __future__ import annotations

import hashlib

from harness.game.rules import Rules
from harness.native.columns import evaluator_slot
from harness.native.extension import NotNative, loaded
from harness.native.kinds import KINDS

# (players, slot) -> the model installed in C (None: the normal approximation)
_INSTALLED: dict[tuple[int, int], object] = {}
_NONE = object()  # nothing installed yet (None is the normal approximation)
WIN_OPTIMAL = KINDS["win-optimal"][0]
# Whether sum() of floats is compensated here (Python 3.12+ uses Neumaier's algorithm):
# the normal approximation's normalising sum is sum(raw), and C must add as it does.
NEUMAIER = sum([1.0, 1e100, 1.0, -1e100]) == 2.0


def install(rules: Rules) -> None:
    """Make the C engine's evaluator for ``rules`` (their player count, in their preset's
    slot: columns.evaluator_slot) the one Python's evaluator uses for them: the preset's
    own model where one is shipped, else the official rules' of the player count.
    A model whose bytes are not its checked sha256 is a :class:`ModelError` in one line;
    one the C engine cannot hold is NotNative (the seat then plays in Python)."""
    from harness.winprob import ModelError, evaluator  # numpy: only when win-optimal sits

    players, slot = rules.players, evaluator_slot(rules)
    model = evaluator(rules).model
    if _INSTALLED.get((players, slot), _NONE) is model:  # held: its id stays its own
        return
    data = None
    if model is not None:
        data = model.to_bytes()
        if model.sha256 and hashlib.sha256(data).hexdigest() != model.sha256:
            raise ModelError(
                f"the {players}-player model: its bytes are not those its sha256 "
                f"{model.sha256[:12]}... was checked for; reinstall harness or retrain it"
            )
    try:
        loaded().wp_install(players, data, NEUMAIER, slot)
    except ValueError as exc:
        raise NotNative(f"win-optimal: {exc}") from None
    _INSTALLED[players, slot] = model


def forget() -> None:
    """Install again at the next batch (tests that swap the evaluator's model)."""
    _INSTALLED.clear()


def prepare(rules: Rules, seats: tuple) -> None:
    """:func:`install` when a table's seats (as the C engine takes them: kind first)
    hold a win-optimal seat."""
    if any(seat[0] == WIN_OPTIMAL for seat in seats):
        install(rules)
