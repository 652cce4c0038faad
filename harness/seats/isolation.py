"""One seat's strategy in a process of its own (``isolation: process``).

This room holds both ends of the pipe between the engine and an isolated seat:

* the parent side, :class:`SeatProcess`: starts the child, asks it one question at a
  time with a deadline, reads its answer as plain data, kills it;
* the child side, :func:`child_main`: builds the strategy from its reference (or from a
  pickled instance), rebuilds the seat's view from snapshots and answers.

Why it is built this way:

* The child is a fresh interpreter (``python -c``, started by exec), never a fork of the
  engine process: a fork would copy the Game, the dice and their seeded state into
  plugin reach. It gets no file descriptor but its end of the socket, its own session
  (the user's Ctrl-C is the parent's to handle) and stdin from /dev/null; its stdout and
  stderr go to the parent's stderr, each line prefixed with the seat and strategy, so
  a plugin's print() never reaches harness's stdout (``--json`` stays parseable).
* Parent -> child messages are pickles (the parent is trusted); child -> parent
  messages are JSON and never unpickled, because unpickling data from untrusted code
  runs code. The parent accepts only the shapes of the protocol, and the engine then
  checks the answer's legality as for any strategy.
* The parent reads with a deadline and a size bound, so a child that hangs (in Python
  or in C code), floods, dies or speaks garbage costs only its seat's game.
* The child ends when the parent does: its socket closes (end of file), it polls its
  parent id, and on Linux it asks for SIGKILL on the parent's death.
* The child is a sandbox (:mod:`harness.seats.sandbox`): before it reads its recipe, and so
  before any plugin code, it confines itself (resource limits, namespaces, no
  capabilities, Landlock, a seccomp filter) while it has one thread; it may write only
  in a scratch folder of its own (its ``TMPDIR``, removed with it). It tells the parent
  in its first message which protections this system could not give. The parent, the
  engine process, makes itself unreadable to other processes first
  (:func:`harness.seats.sandbox.protect_engine`).

How the parent reads a reply (and the exceptions it raises) is :mod:`.replies`' (its
names re-exported here).
"""

from __future__ import annotations

import contextlib
import json
import os
import pickle
import select
import shutil
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import threading
import time
import traceback
import weakref
from collections.abc import Callable
from typing import Any

from harness.errors import MESSAGE_LIMIT, PluginError, safe_repr, safe_text, type_name
from harness.seats import sandbox
from harness.seats.replies import (  # re-exported: the seat process's face
    TRACEBACK_LIMIT,
    Refused,
    RemoteError,
    SeatDied,
    SeatProtocolError,
    SeatTimeout,
    decode,
)

MAX_REPLY = 64 * 1024
"""The largest message (bytes) a child may send; a longer one is a protocol error."""

STARTUP_TIMEOUT = 60.0
"""Seconds a child may take to start and build its strategy (imports can be slow)."""

READER_DRAIN = 5.0
"""Seconds an ended child's output reader may take to hand over what is left in its pipe
(under load the reader can lag the game: without the wait, the last lines and the note
that output was capped were lost when the command ended)."""

_HEADER = struct.Struct("!I")
_CHUNK = 16384  # bytes per read: every usual message in one


# -- the parent side -------------------------------------------------------------------------
def _child_stdio() -> int:
    """Where a child's output goes: the parent's stderr, or nowhere if that is closed."""
    try:
        os.fstat(2)
    except OSError:
        return subprocess.DEVNULL
    return 2


# Thread pools of numeric libraries (OpenBLAS, OpenMP, MKL): one thread in a seat, unless
# the user set them. A seat is one player; a pool per seat would only crowd the machine
# (and each thread's reservations count against the seat's address space).
_THREAD_VARIABLES = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")


def _child_environment(scratch: str) -> dict[str, str]:
    env = dict(os.environ)
    for name in _THREAD_VARIABLES:
        env.setdefault(name, "1")
    env["TMPDIR"] = scratch  # tempfile and friends write where the seat may write
    return env


class SeatProcess:
    """A child process running one seat's strategy, asked one question at a time.

    ``recipe`` says how to build the strategy there: ``{"ref": (load, params)}`` or
    ``{"instance": pickled bytes, "modules": [plugin files to load first]}``; ``label``
    names the strategy in messages and in the prefix of the child's output;
    ``cpu_seconds`` is the CPU budget of each process it starts (RLIMIT_CPU; None: no
    limit). ``missing`` lists the sandbox's protections the child could not apply;
    ``sandboxed=False`` starts it without the sandbox (a seat moved out of the engine
    process only so that its time limits hold, or so that its death is its own).
    ``output``: each line the child writes (its stdout and stderr, C code's too) is
    handed to it, read by a thread of its own (:class:`harness.seats.output.PluginOutput`
    escapes, caps and labels them); without it they go to this process's stderr.
    """

    def __init__(
        self,
        recipe: dict[str, Any],
        label: str,
        cpu_seconds: int | None = None,
        *,
        sandboxed: bool = True,
        output: Callable[[str], None] | None = None,
    ) -> None:
        self.recipe = recipe
        self.label = label
        self.cpu_seconds = cpu_seconds if sandboxed else None
        self.sandboxed = sandboxed
        self.output = output
        self._reader: threading.Thread | None = None  # the thread reading its output
        self.missing: list[str] = []
        self.scratch: str | None = None  # the one folder its process may write in
        self._proc: subprocess.Popen[bytes] | None = None
        self._sock: socket.socket | None = None
        self._buf = bytearray()
        self._seq = 0
        self._ready = False
        self._finalizer: weakref.finalize | None = None
        self._pollers: dict[int, Any] = {}

    # -- life cycle --------------------------------------------------------------------
    def start(self) -> None:
        """Launch the child and send it the recipe; :meth:`wait_ready` waits for it."""
        self.kill()
        if self.sandboxed:
            sandbox.protect_engine()  # before any seat exists: no seat reads this memory
        try:
            scratch = tempfile.mkdtemp(prefix="harness-seat-")
        except OSError as exc:
            raise PluginError(
                f"strategy {self.label}: cannot make its scratch folder: {exc.strerror or exc}"
            ) from None
        self.scratch = scratch
        parent_end, child_end = socket.socketpair()
        main = threading.current_thread() is threading.main_thread()
        code = (
            "import sys, json; sys.path[:] = json.loads(sys.argv[1]); "
            "from harness.seats.isolation import child_main; child_main()"
        )
        args = [
            sys.executable,
            *subprocess._args_from_interpreter_flags(),  # type: ignore[attr-defined]
            "-c",
            code,
            json.dumps([p for p in sys.path if isinstance(p, str)]),  # imports as here
            str(child_end.fileno()),
            str(os.getpid()),
            "1" if main else "0",
            scratch,
            str(self.cpu_seconds or 0),
            "1" if self.sandboxed else "0",
        ]
        out, reader = _child_stdio(), None
        if self.output is not None:
            reader, out = os.pipe()
        try:
            self._proc = subprocess.Popen(
                args,
                pass_fds=(child_end.fileno(),),
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=out,
                start_new_session=True,
                close_fds=True,
                env=_child_environment(scratch),
            )
        except OSError as exc:
            parent_end.close()
            shutil.rmtree(scratch, ignore_errors=True)
            raise PluginError(
                f"strategy {self.label}: cannot start its process: {exc.strerror or exc}"
            ) from None
        finally:
            child_end.close()
            if reader is not None:
                os.close(out)  # the child's copy is the only write end now
                self._reader = _read_lines(reader, self.output)
        parent_end.setblocking(False)
        self._pollers = {}
        for events in (select.POLLIN, select.POLLOUT):
            self._pollers[events] = poller = select.poll()
            poller.register(parent_end, events)
        self._sock = parent_end
        self._buf = bytearray()
        self._seq = 0
        self._ready = False
        # Killed with its parent object or at interpreter exit, whatever happens.
        self._finalizer = weakref.finalize(self, _reap, self._proc, parent_end, scratch)
        payload = {**self.recipe, "label": self.label}
        with contextlib.suppress(SeatDied):  # wait_ready reports how it died
            self._send(pickle.dumps(payload, protocol=pickle.HIGHEST_PROTOCOL), None)

    def wait_ready(self, timeout: float = STARTUP_TIMEOUT) -> None:
        """Wait until the child has built its strategy; PluginError if it cannot."""
        if self._ready:
            return
        deadline = time.monotonic() + timeout
        try:
            body = self._read(deadline)
            message = json.loads(body)
        except SeatTimeout:
            self.kill()
            raise PluginError(
                f"strategy {self.label}: its process did not start within {timeout:g} s"
            ) from None
        except SeatDied as died:
            self.kill()
            raise PluginError(
                f"strategy {self.label}: its process died while loading it ({died})"
            ) from None
        except (SeatProtocolError, ValueError, RecursionError):
            self.kill()
            raise PluginError(
                f"strategy {self.label}: its process sent an unreadable message at start"
            ) from None
        if type(message) is list and len(message) == 2 and message[0] == "ready":
            missing = message[1]
            if type(missing) is list:
                self.missing = [safe_text(m, 200) for m in missing[:20]]
            self._ready = True
            return
        self.kill()
        if type(message) is list and len(message) == 2 and message[0] == "fail":
            raise PluginError(safe_text(message[1]))
        raise PluginError(f"strategy {self.label}: its process sent an unreadable message")

    @property
    def alive(self) -> bool:
        proc = self._proc
        return proc is not None and self._sock is not None and _ended(proc) is None

    @property
    def pid(self) -> int | None:
        return self._proc.pid if self._proc is not None else None

    def kill(self) -> None:
        """End the child now, and whatever it started (SIGKILL to its process group)."""
        if self._finalizer is not None:
            self._finalizer()  # kills, reaps and closes the socket, once
            self._finalizer = None
        reader, self._reader = self._reader, None
        if reader is not None and reader is not threading.current_thread():
            # what the child wrote before it ended is handed over (its group is killed:
            # every write end is closed, the reader is at the end of what is left;
            # bounded, for a grandchild that left the group with one)
            reader.join(READER_DRAIN)
        self._proc = None
        self._sock = None
        self._ready = False

    close = kill  # nothing in the child needs a goodbye: its output is written per line

    def death(self) -> str:
        """How the child ended, for a message: "exit code 3", "killed by SIGSEGV"."""
        proc = self._proc
        if proc is None:
            return "it is not running"
        deadline = time.monotonic() + 1.0
        while True:
            how = _ended(proc)
            if how is not None:
                return how
            if time.monotonic() > deadline:
                return "it stopped answering"
            time.sleep(0.01)

    def cpu_used(self) -> float | None:
        """CPU seconds its running process has used (Linux; None where unknown)."""
        proc = self._proc
        return None if proc is None else sandbox.cpu_used(proc.pid)

    # -- asking --------------------------------------------------------------------------
    def ask(self, message: tuple[Any, ...], timeout: float | None) -> Any:
        """Send a question and return the answer (decoded); a plugin's exception raises.

        SeatTimeout past ``timeout`` seconds, SeatDied if the child is gone,
        SeatProtocolError for anything that is not a reply (the caller kills the child).
        """
        if self._sock is None:
            raise SeatDied(self.death() if self._proc is not None else "it is not running")
        deadline = None if timeout is None else time.monotonic() + timeout
        self._seq = seq = self._seq + 1
        try:
            self._send(pickle.dumps((seq, *message), protocol=pickle.HIGHEST_PROTOCOL), deadline)
            body = self._read(deadline)
        except (SeatTimeout, SeatDied, SeatProtocolError):
            raise
        except BaseException:
            # The user's Ctrl-C (say) mid-question: the answer would come out of turn, so
            # this child is done; the seat's next game starts a fresh one.
            self.kill()
            raise
        status, value = decode(body, seq)
        if status == "err":
            raise value
        return value

    # The socket is non-blocking and waited on with poll(): a deadline costs no extra
    # system calls (socket timeouts would switch modes and poll on every call).
    def _wait(self, events: int, deadline: float | None) -> None:
        if deadline is None:
            wait = -1
        else:
            left = deadline - time.monotonic()
            if left <= 0:
                raise SeatTimeout
            wait = max(int(left * 1000) + 1, 1)
        poller = self._pollers[events]
        if not poller.poll(wait):
            raise SeatTimeout

    def _send(self, body: bytes, deadline: float | None) -> None:
        sock = self._sock
        if sock is None:
            raise SeatDied("it is not running")
        data = memoryview(_HEADER.pack(len(body)) + body)
        try:
            while data:
                try:
                    data = data[sock.send(data) :]
                except BlockingIOError:
                    self._wait(select.POLLOUT, deadline)
        except OSError:
            raise SeatDied(self.death()) from None

    def _read(self, deadline: float | None) -> bytes:
        sock, buf = self._sock, self._buf
        if sock is None:
            raise SeatDied("it is not running")
        while True:
            if len(buf) >= 4:
                (size,) = _HEADER.unpack_from(buf)
                if size > MAX_REPLY:
                    raise SeatProtocolError(f"a message of {size} bytes")
                if len(buf) >= 4 + size:
                    body = bytes(buf[4 : 4 + size])
                    del buf[: 4 + size]
                    return body
            # Wait first: the answer is hardly ever there already, and a failed read
            # costs a system call and an exception.
            self._wait(select.POLLIN, deadline)
            try:
                chunk = sock.recv(_CHUNK)
            except BlockingIOError:
                continue
            except OSError:
                chunk = b""
            if not chunk:
                raise SeatDied(self.death())
            buf += chunk


def _ended(proc: subprocess.Popen[bytes]) -> str | None:
    """How ``proc`` ended ("exit code 3", "killed by SIGKILL"), or None while it runs.

    Read without reaping it (WNOWAIT): until :func:`_reap`, its pid, which is also its
    process group id, cannot be given to another process.
    """
    if proc.returncode is not None:
        return _how(os.CLD_EXITED if proc.returncode >= 0 else os.CLD_KILLED, proc.returncode)
    try:
        info = os.waitid(os.P_PID, proc.pid, os.WEXITED | os.WNOHANG | os.WNOWAIT)
    except ChildProcessError:
        return "it ended"
    if info is None:
        return None
    return _how(info.si_code, info.si_status)


def _how(code: int, status: int) -> str:
    if code == os.CLD_EXITED:
        return f"exit code {status}"
    number = abs(status)
    try:
        return f"killed by {signal.Signals(number).name}"
    except ValueError:
        return f"killed by signal {number}"


def _reap(proc: subprocess.Popen[bytes], sock: socket.socket, scratch: str) -> None:
    sock.close()
    if proc.returncode is None:  # not reaped: the group id is still this child's
        with contextlib.suppress(OSError):
            os.killpg(proc.pid, signal.SIGKILL)  # with anything the plugin started
        with contextlib.suppress(OSError):
            proc.kill()
    with contextlib.suppress(subprocess.TimeoutExpired):  # SIGKILL: it ends
        proc.wait(5.0)
    shutil.rmtree(scratch, ignore_errors=True)


def _read_lines(fd: int, output: Callable[[str], None]) -> threading.Thread:
    """A thread that hands every line read from ``fd`` to ``output``, until end of file
    (the child and whatever it started have closed it), each at most a few message
    lengths (the rest of an unending line is dropped). Returned started, to be joined
    once the child is gone (:meth:`SeatProcess.kill`)."""

    def read() -> None:
        pending = b""
        with open(fd, "rb", buffering=0) as pipe:
            while True:
                data = pipe.read(65536)
                if not data:
                    break
                *lines, pending = (pending + data).split(b"\n")
                pending = pending[: MESSAGE_LIMIT * 4]
                for line in lines:
                    with contextlib.suppress(Exception):
                        output(line.decode("utf-8", "replace"))
        if pending:
            with contextlib.suppress(Exception):
                output(pending.decode("utf-8", "replace"))

    thread = threading.Thread(target=read, name="harness-seat-output", daemon=True)
    thread.start()
    return thread


def close_processes(processes: list[SeatProcess]) -> None:
    """End several children."""
    for p in processes:
        p.kill()


# -- the child side ----------------------------------------------------------------------------
def _send_json(sock: socket.socket, message: Any) -> None:
    body = json.dumps(message, separators=(",", ":")).encode()
    sock.sendall(_HEADER.pack(len(body)) + body)


def _send_ok(sock: socket.socket, seq: int, value: Any) -> None:
    """The usual reply (an int, a bool, None) without the json module's overhead."""
    kind = type(value)
    if kind is bool or value is None:
        body = b'[%d,"ok",%s]' % (seq, b"true" if value else b"false" if kind is bool else b"null")
    elif kind is int and -(10**15) < value < 10**15:
        body = b'[%d,"ok",%d]' % (seq, value)
    else:
        body = json.dumps([seq, "ok", value], separators=(",", ":")).encode()
    sock.sendall(_HEADER.pack(len(body)) + body)


class _Reader:
    """Length-prefixed pickles from the parent, read a buffer at a time (blocking)."""

    def __init__(self, sock: socket.socket) -> None:
        self.sock = sock
        self.buf = bytearray()

    def message(self) -> Any:
        buf = self.buf
        while True:
            if len(buf) >= 4:
                (size,) = _HEADER.unpack_from(buf)
                if len(buf) >= 4 + size:
                    body = bytes(buf[4 : 4 + size])
                    del buf[: 4 + size]
                    return pickle.loads(body)
            chunk = self.sock.recv(_CHUNK)
            if not chunk:
                raise EOFError
            buf += chunk


class _Prefixed:
    """A text stream writing whole lines to fd 2, each prefixed, each bounded."""

    def __init__(self, prefix: str) -> None:
        self.prefix = prefix
        self._pending = ""
        self.encoding = "utf-8"
        self.errors = "backslashreplace"

    def write(self, text: Any) -> int:
        if type(text) is not str:
            text = safe_text(text)
        lines = (self._pending + text).split("\n")
        self._pending = lines.pop()[: MESSAGE_LIMIT * 4]
        for line in lines:
            self._emit(line)
        return len(text)

    def _emit(self, line: str) -> None:
        if len(line) > MESSAGE_LIMIT:
            line = f"{line[:MESSAGE_LIMIT]}... ({len(line) - MESSAGE_LIMIT} more characters)"
        with contextlib.suppress(OSError):
            os.write(2, f"{self.prefix}{line}\n".encode("utf-8", "backslashreplace"))

    def flush(self) -> None:
        if self._pending:
            line, self._pending = self._pending, ""
            self._emit(line)

    def isatty(self) -> bool:
        return False

    def fileno(self) -> int:
        return 2

    def writable(self) -> bool:
        return True


def _watch_parent(ppid: int, from_main_thread: bool) -> None:
    """Exit when the parent does, even while the plugin is busy."""
    if from_main_thread and sys.platform.startswith("linux"):
        # PR_SET_PDEATHSIG fires when the creating *thread* ends, so only when that
        # thread was the parent's main thread (whose end is the process's end).
        try:
            import ctypes

            ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL, 0, 0, 0)
        except (OSError, AttributeError):
            pass
    if os.getppid() != ppid:  # the parent died before we could ask
        os._exit(0)

    def poll() -> None:
        while True:
            time.sleep(0.5)
            if os.getppid() != ppid:
                os._exit(0)

    threading.Thread(target=poll, name="harness-parent-watch", daemon=True).start()


_SENDABLE = 10**1000  # ints beyond are sent by size only (JSON caps digits at 4300)


def _int_data(plain: int, value: Any) -> Any:
    if not -_SENDABLE < plain < _SENDABLE:
        return {"big": plain.bit_length(), "neg": plain < 0}
    return plain if type(value) is int else {"int": plain, "repr": safe_repr(value)}


def _scalar_data(value: Any) -> Any:
    """One value of an answer as protocol data (see the table at the top)."""
    from harness.game.engine import plain_int  # the engine's own reading, for the same verdicts

    kind = type(value)
    if kind is int:
        return _int_data(value, value)
    if value is None or kind is bool or kind is float:
        return value
    plain = plain_int(value)
    if plain is None:
        return {"refused": safe_repr(value)}
    return _int_data(plain, value)


def _answer_data(op: str, answer: Any) -> Any:
    """What a strategy returned, as protocol data; reading it may raise (a plugin's
    ``__index__``, say), which the caller sends as "bad"."""
    kind = type(answer)
    if kind is int and -_SENDABLE < answer < _SENDABLE and op != "claim":
        return answer  # the usual pick
    if kind is bool and op == "stop":
        return answer  # the usual stop
    from harness.game.view import Claim

    if op == "stop":
        numpy = sys.modules.get("numpy")
        if numpy is not None and type(answer) is numpy.bool_:
            return answer.item() is True
    if op == "claim" and issubclass(type(answer), tuple):
        # tuple's own methods: a subclass may lie in __len__ or __getitem__.
        if tuple.__len__(answer) != 2:
            return {"refused": safe_repr(answer)}
        pair = [_scalar_data(tuple.__getitem__(answer, i)) for i in (0, 1)]
        if (
            type(answer) is Claim
            and type(pair[0]) is int
            and (pair[1] is None or type(pair[1]) is int)
        ):
            return pair
        return {"pair": pair, "repr": safe_repr(answer)}
    return _scalar_data(answer)


def _traceback_text(exc: BaseException) -> str:
    try:
        text = "".join(traceback.format_exception(exc))
    except BaseException:
        return f"{type_name(exc)} (no traceback: formatting it failed)"
    return text[-TRACEBACK_LIMIT:]


def _builder(recipe: dict[str, Any]) -> Callable[[], Any]:
    """The factory of fresh strategy instances described by the recipe."""
    from harness import plugins

    if "ref" in recipe:
        load, params = recipe["ref"]
        spec = plugins.resolve(load, dict(params) or None)
        return spec.create
    for path in recipe.get("modules", ()):
        plugins._load_file(path, path)  # the same module name as in the parent
    blob = recipe["instance"]
    return lambda: pickle.loads(blob)


def child_main() -> None:
    """The child process: ``python -c ... PATH FD PPID MAIN SCRATCH CPU SANDBOXED`` (see
    SeatProcess.start)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the user's Ctrl-C is the parent's
    fd, ppid, from_main = int(sys.argv[2]), int(sys.argv[3]), sys.argv[4] == "1"
    scratch, cpu, sandboxed = sys.argv[5], int(sys.argv[6]) or None, sys.argv[7] == "1"
    sys.argv = ["harness-seat"]
    # First, while this process has one thread and no plugin code has run: the sandbox.
    missing = sandbox.confine_seat(scratch, cpu) if sandboxed else []
    _watch_parent(ppid, from_main)
    sock = socket.socket(fileno=fd)
    sock.setblocking(True)
    reader = _Reader(sock)
    try:
        recipe = reader.message()
    except (EOFError, OSError):
        os._exit(0)
    label = recipe.get("label", "strategy")
    out = _Prefixed(f"[{label}] ")
    os.dup2(2, 1)  # output from C code too goes to stderr, never to harness's stdout
    sys.stdout = sys.stderr = out  # type: ignore[assignment]
    try:
        _serve(sock, reader, recipe, label, out, missing)
    except (EOFError, OSError):
        pass
    finally:
        out.flush()
    os._exit(0)


def _serve(
    sock: socket.socket,
    reader: _Reader,
    recipe: dict[str, Any],
    label: str,
    out: _Prefixed,
    missing: list[str],
) -> None:
    from harness.errors import HarnessError
    from harness.game.board import GRILL_CLAIMS, STEAL_CLAIMS, Claim
    from harness.game.view import View

    try:
        factory = _builder(recipe)
        instance = factory()
    except BaseException as exc:
        if isinstance(exc, HarnessError):
            text = safe_text(exc)
        else:
            text = (
                f"strategy {label}: building it in its process failed: "
                f"{type_name(exc)}: {safe_text(exc, 500)}"
            )
        _send_json(sock, ["fail", text])
        return
    _send_json(sock, ["ready", missing])
    fresh = False  # the first game uses the instance built at start
    view: View | None = None
    while True:
        seq, op, *args = reader.message()
        if op == "close":
            return
        try:
            if op == "new_game":
                seat, rules = args
                if fresh:
                    instance = factory()  # every game starts from the same state
                fresh = True
                view = None
                out.prefix = f"[seat {seat} {label}] "
                instance.new_game(seat, rules)
                value: Any = None
            else:
                data = args[0]
                if view is None:
                    view = View.from_snapshot(data)
                else:
                    view.update(data)
                if op == "pick":
                    answer = instance.pick(view)
                elif op == "stop":
                    answer = instance.stop(view)
                else:
                    choices = tuple(
                        GRILL_CLAIMS[t] if v is None else STEAL_CLAIMS.get((t, v), Claim(t, v))
                        for t, v in args[1]
                    )
                    answer = instance.claim(view, choices)
                try:
                    value = _answer_data(op, answer)
                except BaseException as exc:  # the answer raised when read: "bad"
                    value = {"bad": [type_name(exc), safe_text(exc), _traceback_text(exc)]}
        except BaseException as exc:  # everything a plugin throws is its seat's forfeit
            _send_json(sock, [seq, "err", type_name(exc), safe_text(exc), _traceback_text(exc)])
        else:
            _send_ok(sock, seq, value)


__all__ = [
    "MAX_REPLY",
    "TRACEBACK_LIMIT",
    "Refused",
    "RemoteError",
    "SeatDied",
    "SeatProcess",
    "SeatProtocolError",
    "SeatTimeout",
    "child_main",
    "close_processes",
]
