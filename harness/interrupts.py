"""Telling the user's Ctrl-C from a KeyboardInterrupt that a plugin raised.

Python delivers Ctrl-C as a KeyboardInterrupt raised wherever the main thread happens
to be, often inside a plugin's ``pick``; a plugin can also ``raise KeyboardInterrupt``
itself. The first must stop the run (exit 130), the second is that seat's forfeit.
Only the signal handler knows which is which, so:

* :func:`user_interrupts` (the CLI commands and the runner, in the main thread) installs
  a handler that notes that the user pressed Ctrl-C, then raises as usual: for SIGINT,
  and for SIGTERM and SIGHUP, which ask a command to stop just as Ctrl-C does (one rule
  for every such signal: exit 130, resumable); a signal ignored when harness started
  (``nohup``, a background job) stays ignored;
* :func:`plugin_interrupts_only` (worker processes, where SIGINT is ignored and the
  parent handles Ctrl-C) makes every KeyboardInterrupt a plugin's;
* :func:`is_user_interrupt` is what the engine asks of every exception a strategy call
  raised: True means "propagate, the user wants out".

Outside both modes (library use, a notebook) every KeyboardInterrupt counts as the
user's: stopping is the safe default when nobody can tell.
"""

from __future__ import annotations

import contextlib
import signal
import threading
from collections.abc import Iterator
from types import FrameType

_DEFAULT, _USER, _PLUGIN = "default", "user", "plugin"
_mode = _DEFAULT
_pressed = False  # the user pressed Ctrl-C since user_interrupts() began


def interrupt_as_user() -> None:
    """Note that the user asked to stop (Ctrl-C, or SIGTERM treated like it) and raise
    KeyboardInterrupt: for signal handlers of the main thread."""
    global _pressed
    _pressed = True
    raise KeyboardInterrupt


def _on_sigint(signum: int, frame: FrameType | None) -> None:
    interrupt_as_user()


# The signals that ask harness to stop, handled alike (SIGHUP: a closed terminal).
STOP_SIGNALS = tuple(
    getattr(signal, name) for name in ("SIGINT", "SIGTERM", "SIGHUP") if hasattr(signal, name)
)


@contextlib.contextmanager
def user_interrupts() -> Iterator[None]:
    """Within the block, a KeyboardInterrupt is the user's only if Ctrl-C was pressed
    (or SIGTERM or SIGHUP came).

    Installs the handlers (main thread only; elsewhere the mode is left as it is), leaves
    a signal that is ignored as it is, and restores the previous handlers and mode on
    the way out. Nesting is fine.
    """
    global _mode, _pressed
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = {}
    for sig in STOP_SIGNALS:
        if signal.getsignal(sig) is not signal.SIG_IGN:
            previous[sig] = signal.signal(sig, _on_sigint)
    saved = _mode, _pressed
    _mode, _pressed = _USER, False
    try:
        yield
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
        # A Ctrl-C noted inside a nested block is still the user's in the outer one.
        _mode, _pressed = saved[0], saved[1] or _pressed


def plugin_interrupts_only() -> None:
    """For worker processes: ignore SIGINT (the parent handles Ctrl-C); from now on
    every KeyboardInterrupt is a plugin's and becomes its seat's forfeit."""
    global _mode
    _mode = _PLUGIN
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGINT, signal.SIG_IGN)


def user_pressed() -> bool:
    """True once the user pressed Ctrl-C inside :func:`user_interrupts` (even if a plugin
    caught the KeyboardInterrupt and carried on)."""
    return _mode == _USER and _pressed


def is_user_interrupt(exc: BaseException) -> bool:
    """True if ``exc`` (raised by a strategy call) must propagate as the user's Ctrl-C.

    In :func:`user_interrupts` mode: once the user pressed Ctrl-C, every exception counts
    (a plugin may have turned the KeyboardInterrupt into something else); before that,
    none does. In worker processes: never. Otherwise: any KeyboardInterrupt.
    """
    if _mode == _USER:
        return _pressed
    if _mode == _PLUGIN:
        return False
    # type(), not isinstance(): an exception may define a __class__ that raises or lies.
    return issubclass(type(exc), KeyboardInterrupt)


def reraise_if_user(exc: BaseException) -> None:
    """Raise the user's Ctrl-C if ``exc`` is (or hides) it; otherwise return.

    A plugin that caught the user's KeyboardInterrupt and raised something else still
    stops the run, as a KeyboardInterrupt (so the CLI exits 130, one line).
    """
    if is_user_interrupt(exc):
        if issubclass(type(exc), KeyboardInterrupt):
            raise exc
        raise KeyboardInterrupt from exc


def _reset_for_tests() -> None:
    """Back to the default mode (tests switch modes and must not leak them)."""
    global _mode, _pressed
    _mode, _pressed = _DEFAULT, False
