"""Time limits and process isolation, as wrappers around each seat's strategy.

The engine asks a strategy through ``new_game``, ``pick``, ``stop`` and ``claim``; this
room puts a wrapper in between when limits are on, and nothing at all when they are
off (:func:`guard` then returns the very list it was given: zero cost).

* ``move_time`` (seconds per call) and ``game_time`` (seconds of one seat's calls in
  one game): each call is timed with the wall clock (``time.perf_counter``); a seat
  over either limit forfeits with :class:`~harness.errors.TimeForfeit` (kind "time").
  In-process, in the main thread, SIGALRM (``setitimer``) interrupts a pure-Python
  loop at the deadline; a loop in C code that ignores signals is left to the watchdog
  of the process that plays (tournament workers), told through :class:`Beacon`.
* ``isolation: process``: each seat's strategy runs in a process of its own
  (:mod:`harness.seats.isolation`), a sandbox (:mod:`harness.seats.sandbox`), and sees a snapshot
  of its view; the parent waits for the answer with the time left as a timeout and
  kills the process on overrun, which handles C loops too. A process that dies is that
  seat's :class:`~harness.errors.SeatCrashed`; a fresh one is started for its next game.
  One process serves a seat for many games, with a fresh strategy instance per game. An
  isolated seat always has a deadline: ``game_time`` is :data:`ISOLATED_GAME_TIME`
  unless given.
* Where nothing outside the playing process watches it (``harness play``, ``workers:
  0``, ``play_game``), a plugin could catch or disarm the SIGALRM timer, or loop in C
  code, and never return: so under time limits a seat whose code is not harness's own
  plays in a process of its own (not a sandbox: only so that its limits hold), when it
  can be sent there (a reference, or an instance that pickles); callers say so
  (:func:`moved_to_processes`). In a tournament worker, the parent's watchdog (a
  :class:`Beacon` that is ``watched``) ends what a timer cannot.

Every call into plugin code counts, ``new_game`` included (in process isolation, that
is where the fresh instance is built).

The values are checked in :mod:`harness.seats.settings`: :class:`SeatLimits` (re-exported
here) and the seat settings as one value, ``SeatSettings`` (the limits, the isolation,
the engine and the luck mode), which every caller holds.

This package's face re-exports what its modules hold: :mod:`.guarding` (:func:`guard`
and what reads the seats it builds), :mod:`.tracing` (:class:`Beacon`, :class:`Traced`),
:mod:`.clock` (a seat's time in a game), :mod:`.timed` (an in-process seat under SIGALRM),
:mod:`.process_seat` (a seat in a process of its own), :mod:`.isolation` (those processes),
:mod:`.replies`, :mod:`.output` (what plugins write, contained), :mod:`.settings` and
:mod:`.sandbox`.
"""

from __future__ import annotations

from harness.seats.guarding import (
    close_all,
    guard,
    in_process,
    moved_to_processes,
    plugin_traceback,
    process_count,
    sandbox_missing,
    unguarded,
)
from harness.seats.process_seat import (
    _ProcessSeat as _ProcessSeat,
)
from harness.seats.settings import (  # re-exported: the limits' values are checked there
    ISOLATED_GAME_TIME,
    ISOLATION_MODES,
    MAX_SECONDS,
    SeatLimits,
)
from harness.seats.tracing import Beacon, Traced

__all__ = [
    "Beacon",
    "Traced",
    "ISOLATED_GAME_TIME",
    "ISOLATION_MODES",
    "MAX_SECONDS",
    "SeatLimits",
    "close_all",
    "guard",
    "in_process",
    "moved_to_processes",
    "plugin_traceback",
    "process_count",
    "sandbox_missing",
    "unguarded",
]
