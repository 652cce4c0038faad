"""The sandbox of an isolated seat (``isolation: process``), and the engine's own shield.

An isolated seat's strategy runs in a process of its own (:mod:`harness.seats.isolation`);
this room makes that process a sandbox before any plugin code runs in it, built from
what the kernel gives an unprivileged process, so that it needs no root, no setuid
helper and no package:

==========================  ==========================================================
resource limits (setrlimit)  address space (:data:`SEAT_MEMORY`), file size
                             (:data:`SEAT_FILE_SIZE`), open files
                             (:data:`SEAT_OPEN_FILES`), CPU seconds (given per seat
                             process: see :func:`cpu_budget`); on every POSIX system
namespaces (unshare)         a user namespace of its own (no capability outside it,
                             root or not) and a network namespace of its own (no
                             network device but a dead loopback), where the kernel
                             permits them
capabilities (capset)        none left, and none that an exec could give back
Landlock (5.13+)             no other process (ptrace, ``/proc/<pid>/mem``, signals),
                             writes only beneath its scratch folder, no TCP
seccomp filter               no ptrace or process_vm_*, no socket, no new process or
                             program, no raising its limits, no namespaces or mounts,
                             no io_uring (:mod:`harness.seats.sandbox.seccomp`)
==========================  ==========================================================

And in the engine process (the one that asks the seats): ``PR_SET_DUMPABLE`` 0
(:func:`protect_engine`), so that no process of the same user, a seat least of all,
may read or write its memory through ``/proc/<pid>/mem`` or ptrace it (root with
``CAP_SYS_PTRACE`` still may: the seats have no capabilities).

Each protection that the system does not have (not Linux, a kernel without Landlock, user
namespaces switched off) is left out and named, in one line per run
(:func:`missing_note`); the others still hold. What none of this promises: the seat
reads what your user may read (files included), uses the CPU and memory its limits
allow, and a kernel bug is a kernel bug. docs: docs/trust.md.
"""

from __future__ import annotations

import contextlib
import functools
import json
import os
import resource
import subprocess
import sys
import tempfile

from harness.seats.sandbox import syscalls
from harness.seats.sandbox.syscalls import LINUX

SEAT_MEMORY = 4 * 2**30
"""Bytes of address space a seat process may map (RLIMIT_AS): a 10 GB allocation fails."""
SEAT_FILE_SIZE = 64 * 2**20
"""The largest file a seat process may write (RLIMIT_FSIZE), bytes."""
SEAT_OPEN_FILES = 256
"""File descriptors a seat process may hold open (RLIMIT_NOFILE)."""
CPU_FLOOR = 600
"""CPU seconds a seat process may use at least (see :func:`cpu_budget`)."""


def cpu_budget(game_time: float) -> int:
    """CPU seconds one seat process may use in its whole life (RLIMIT_CPU).

    A seat process plays many games, so the budget is a lifetime one: four times a
    game's time limit (a game cannot take more than two of them, even with a second
    busy thread) and at least :data:`CPU_FLOOR`; the parent replaces a process that has
    used half of it before its next game (:func:`cpu_used`), so an honest seat never
    meets it, and one that burns CPU between its decisions is ended by the kernel.
    """
    return max(int(4 * game_time) + 1, CPU_FLOOR)


_TICK = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


def cpu_used(pid: int) -> float | None:
    """CPU seconds (user + system) a live process has used, where /proc tells (Linux)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            fields = f.read().rsplit(b")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / _TICK
    except (OSError, IndexError, ValueError):
        return None


# -- the engine's side ---------------------------------------------------------------------
_PROTECTED = False


def protect_engine() -> str | None:
    """Make this process's memory unreadable to other processes of its user (Linux:
    ``PR_SET_DUMPABLE`` 0, which also means no core dump); once. Returns why not, or None.
    """
    global _PROTECTED
    if _PROTECTED:
        return None
    if not LINUX:
        return "not Linux"
    try:
        syscalls.prctl(syscalls.PR_SET_DUMPABLE, 0)
    except OSError as exc:
        return exc.strerror or str(exc)
    _PROTECTED = True
    return None


# -- the seat's side -----------------------------------------------------------------------
def confine_seat(scratch: str, cpu_seconds: int | None) -> list[str]:
    """Confine this process for good: the seat's sandbox (see the module docstring).

    Call it first thing in the seat's process, while it has one thread and before any
    plugin code: what is applied holds for everything the process runs or starts later.
    ``scratch`` is the one folder it may write to. Returns the protections this system
    could not give, one short phrase each ("Landlock (not in this kernel)").
    """
    missing: list[str] = []
    _limits(cpu_seconds, missing)
    if not LINUX:
        missing.append("the Linux sandbox (namespaces, Landlock, seccomp: this is not Linux)")
        return missing
    _namespaces(missing)
    try:
        syscalls.drop_capabilities()
    except OSError as exc:
        missing.append(f"dropping capabilities ({exc.strerror})")
    try:
        syscalls.prctl(syscalls.PR_SET_NO_NEW_PRIVS, 1)
    except OSError as exc:
        missing.append(f"no_new_privs ({exc.strerror})")
    from harness.seats.sandbox import landlock, seccomp

    try:
        abi = landlock.restrict(scratch)
    except OSError as exc:
        why = "not in this kernel" if exc.errno in (38, 95) else exc.strerror
        missing.append(f"Landlock ({why})")
    else:
        if abi < landlock.SCOPED_ABI:  # nothing else keeps a seat's signals in
            missing.append(
                f"Landlock's scoping of signals (this kernel has Landlock {abi}; "
                f"{landlock.SCOPED_ABI} has it)"
            )
    try:
        seccomp.install()
    except OSError as exc:
        missing.append(f"the seccomp filter ({exc.strerror})")
    return missing


def _limits(cpu_seconds: int | None, missing: list[str]) -> None:
    limits = [
        (resource.RLIMIT_AS, SEAT_MEMORY, "address space"),
        (resource.RLIMIT_FSIZE, SEAT_FILE_SIZE, "file size"),
        (resource.RLIMIT_NOFILE, SEAT_OPEN_FILES, "open files"),
    ]
    if cpu_seconds is not None:
        limits.append((resource.RLIMIT_CPU, cpu_seconds, "CPU seconds"))
    for which, wanted, what in limits:
        try:
            hard = resource.getrlimit(which)[1]

            def capped(value: int, hard: int = hard) -> int:
                return value if hard == resource.RLIM_INFINITY else min(value, hard)

            # CPU: SIGXCPU at the soft limit, SIGKILL 5 s later (for a seat that ignores it).
            extra = 5 if which == resource.RLIMIT_CPU else 0
            resource.setrlimit(which, (capped(wanted), capped(wanted + extra)))
        except (OSError, ValueError) as exc:
            missing.append(f"the {what} limit ({exc})")


def _namespaces(missing: list[str]) -> None:
    """A user namespace (the same uid and gid, mapped one to one) and a network namespace,
    where permitted; without a user namespace, root may still make the network one."""
    uid, gid = os.getuid(), os.getgid()
    try:
        syscalls.unshare(syscalls.CLONE_NEWUSER | syscalls.CLONE_NEWNET)
    except OSError as exc:
        missing.append(f"a user namespace (unshare: {exc.strerror})")
        try:
            syscalls.unshare(syscalls.CLONE_NEWNET)
        except OSError as net:
            missing.append(f"a network namespace (unshare: {net.strerror})")
        return
    try:  # the same ids inside as outside: files, getuid() and HOME look as before
        syscalls.write_file("/proc/self/uid_map", f"{uid} {uid} 1")
        syscalls.write_file("/proc/self/setgroups", "deny")
        syscalls.write_file("/proc/self/gid_map", f"{gid} {gid} 1")
    except OSError:
        pass  # unmapped ids read as 65534 inside; nothing else changes


# -- what a run says ---------------------------------------------------------------------------
def missing_note(missing: list[str]) -> str | None:
    """One line for people when protections are missing (None when none is)."""
    if not missing:
        return None
    return (
        "isolated seats run without " + "; ".join(missing) + " on this system; the rest of "
        "their sandbox holds (docs/trust.md)"
    )


@functools.cache
def probe() -> tuple[str, ...]:
    """What :func:`confine_seat` cannot apply on this machine, found by confining a
    throwaway process (about 0.1 s, once per process): what a run says before it plays."""
    with tempfile.TemporaryDirectory(prefix="harness-probe-") as scratch:
        code = (
            "import json, sys; sys.path[:] = json.loads(sys.argv[1]); "
            "from harness.seats.sandbox import confine_seat; "
            "print(json.dumps(confine_seat(sys.argv[2], 60)))"
        )
        path = json.dumps([p for p in sys.path if isinstance(p, str)])
        try:
            done = subprocess.run(
                [sys.executable, "-c", code, path, scratch],
                capture_output=True,
                text=True,
                timeout=60,
            )
            found = json.loads(done.stdout.strip().splitlines()[-1])
        except (OSError, subprocess.SubprocessError, ValueError, IndexError):
            return ("the sandbox (a trial seat process could not report)",)
    with contextlib.suppress(TypeError):
        return tuple(str(m) for m in found)
    return ()


__all__ = [
    "SEAT_FILE_SIZE",
    "SEAT_MEMORY",
    "SEAT_OPEN_FILES",
    "confine_seat",
    "cpu_budget",
    "cpu_used",
    "missing_note",
    "probe",
    "protect_engine",
]
