"""The native engine tier: built-in tables played in C, bit-identical to the Python engine.

The C extension ``harness._native_core`` (harness/native/c/core.c, built by setup.py when
a C compiler is there) plays whole batches of games: the engine (R1-R11 and every
variant), the dice (the same draws as :mod:`harness.game.dice`: same seed, same dice) and
the built-in strategies that have a native version (:data:`NATIVE_STRATEGIES`). This
module is its only door: it decides which seats can play natively, turns rules and
seats into the plain values the C code takes, and hands back the columns a chunk
stores (the same arrays and typecodes as :func:`harness.tourney.chunks.play_chunk`).
It is a peer of the Python engine (:mod:`harness.game.engine`) and imports nothing of the
tourney room: playing a ChunkSpec natively is the tourney's
(:func:`harness.tourney.chunks.play_native`).

This module is the room's face only: the names below are those of its modules,

* :mod:`~harness.native.extension`: the extension loaded (or absent), :func:`available`,
  :func:`refusal`, :class:`NotNative`;
* :mod:`~harness.native.kinds`: which seats play natively (:func:`native_seat`,
  :func:`supports`, :data:`NATIVE_STRATEGIES`);
* :mod:`~harness.native.sources`: whether the Python the C code mirrors is still the
  Python here (:func:`source_digest`);
* :mod:`~harness.native.columns`: values as the C code takes them (columns, rules,
  designs, :class:`NativeResult`): the one table of the layouts C shares with Python;
* :mod:`~harness.native.batch`: the batches (:func:`play_deals`, :func:`play_games`,
  :func:`column_counts`, :func:`check_table`, :func:`seat_host`);
* :mod:`~harness.native.seats`: the Python seats of a native table;
* :mod:`~harness.native.evaluators`: the win-probability evaluator handed to the C engine
  for native ``win-optimal`` seats (installed by every batch that seats one).

A table is played in the seat orders of a seating design
(:mod:`harness.game.seating`): order k puts table entrant ``orders[k][i]`` in seat i,
and the stored ``seating`` column holds k. The C code takes the design as bytes and
checks it again (every order a permutation, 1 to 127 orders): a bad design is a
ValueError, never a seat read out of bounds.

The Python engine stays the reference. A seat plays natively only when its class is
exactly the built-in class and the built-in's source is the source the C code was
transcribed from (:data:`_SOURCES`); anything else (a plugin, a subclass, an edited
built-in, a parameter that is not a plain number) is :class:`NotNative` on its own. Such
a seat can still sit at a native table as a *Python seat*: given a
:class:`~harness.native.seats.SeatHost` (``host=``), the C code plays the game and the
built-ins and calls back into the host for that seat's decisions, with the Python
engine's containment (:mod:`harness.native.seats`). Without the extension,
:func:`available` is False and nothing here plays.
"""

from __future__ import annotations

from harness.game.dice import DICE_MODES as DICE_MODES  # the native engine plays every mode
from harness.native import batch, extension
from harness.native.batch import (
    check_table,
    column_counts,
    play_deals,
    play_games,
    seat_host,
)
from harness.native.columns import ACCOUNT_COLUMNS, NativeResult
from harness.native.columns import GAME_COLUMNS as GAME_COLUMNS
from harness.native.columns import MAX_ORDERS as MAX_ORDERS
from harness.native.columns import SEAT_COLUMNS as SEAT_COLUMNS
from harness.native.columns import SEATING as SEATING
from harness.native.columns import orders_c as orders_c
from harness.native.columns import rules_c as rules_c
from harness.native.extension import NotNative, available
from harness.native.extension import refusal as refusal
from harness.native.kinds import NATIVE_STRATEGIES, NativeSeat, native_seat, supports
from harness.native.sources import source_digest as source_digest

# What the vector environment (harness/env/vector.py) reads by these names: the extension
# its slots step through, and the deal seeds' prefix.
_core = extension.core
_prefix = batch.prefix_c

__all__ = [
    "ACCOUNT_COLUMNS",
    "NATIVE_STRATEGIES",
    "NativeResult",
    "NativeSeat",
    "NotNative",
    "available",
    "check_table",
    "column_counts",
    "native_seat",
    "play_deals",
    "play_games",
    "seat_host",
    "supports",
]
