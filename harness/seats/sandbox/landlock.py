"""Landlock (Linux 5.13+): what an isolated seat may write, signal and reach.

Landlock is the kernel's sandbox for unprivileged processes: a process restricts itself,
for good, and everything it starts inherits the restriction. It gives the seat what
seccomp cannot (a filter sees numbers, not paths or processes):

* **No other process**: a Landlock-restricted process cannot ptrace, or open the
  ``/proc/<pid>/mem`` of, any process outside its domain, whatever its uid or
  capabilities (ABI 1): harness's processes and the user's others are out of its reach.
* **Writes only in its own folder**: writing, creating, removing or truncating a file is
  refused everywhere but beneath the seat's scratch folder (its ``TMPDIR``) and
  ``/dev/null`` (ABI 1-3; reading is not restricted: a plugin imports its modules).
* **No TCP**, bind or connect (ABI 4), and no signals to, or abstract Unix sockets of,
  processes outside (ABI 6), where the kernel has them.

Each right is asked for only as far as the kernel's Landlock version knows it (the
version is read first), so an older kernel still gets what it can give.
"""

from __future__ import annotations

import ctypes
import os

from harness.seats.sandbox.syscalls import syscall

# linux/landlock.h
CREATE_RULESET_VERSION = 1
RULE_PATH_BENEATH = 1
FS_WRITE_FILE = 1 << 1
FS_REMOVE_DIR = 1 << 4
FS_REMOVE_FILE = 1 << 5
FS_MAKE_CHAR = 1 << 6
FS_MAKE_DIR = 1 << 7
FS_MAKE_REG = 1 << 8
FS_MAKE_SOCK = 1 << 9
FS_MAKE_FIFO = 1 << 10
FS_MAKE_BLOCK = 1 << 11
FS_MAKE_SYM = 1 << 12
FS_REFER = 1 << 13  # ABI 2
FS_TRUNCATE = 1 << 14  # ABI 3
NET_BIND_TCP = 1 << 0  # ABI 4
NET_CONNECT_TCP = 1 << 1
SCOPE_ABSTRACT_UNIX_SOCKET = 1 << 0  # ABI 6
SCOPE_SIGNAL = 1 << 1
SCOPED_ABI = 6  # the first Landlock ABI with scoping (Linux 6.12)

_WRITES_V1 = (
    FS_WRITE_FILE
    | FS_REMOVE_DIR
    | FS_REMOVE_FILE
    | FS_MAKE_CHAR
    | FS_MAKE_DIR
    | FS_MAKE_REG
    | FS_MAKE_SOCK
    | FS_MAKE_FIFO
    | FS_MAKE_BLOCK
    | FS_MAKE_SYM
)


class _RulesetAttr(ctypes.Structure):
    _fields_ = [
        ("handled_access_fs", ctypes.c_uint64),
        ("handled_access_net", ctypes.c_uint64),
        ("scoped", ctypes.c_uint64),
    ]


class _PathBeneath(ctypes.Structure):
    _pack_ = 1
    _fields_ = [("allowed_access", ctypes.c_uint64), ("parent_fd", ctypes.c_int32)]


def version() -> int:
    """The kernel's Landlock ABI version; OSError when it has none (or it is disabled)."""
    return syscall("landlock_create_ruleset", None, ctypes.c_size_t(0), CREATE_RULESET_VERSION)


def restrict(writable: str) -> int:
    """Restrict this thread (and what it starts) for good; returns the ABI version used.

    Call it before any other thread starts: a thread that exists already keeps its
    freedom.
    """
    abi = version()
    writes = _WRITES_V1
    if abi >= 2:
        writes |= FS_REFER
    if abi >= 3:
        writes |= FS_TRUNCATE
    attr = _RulesetAttr(writes, 0, 0)
    size = 8
    if abi >= 4:
        attr.handled_access_net = NET_BIND_TCP | NET_CONNECT_TCP
        size = 16
    if abi >= SCOPED_ABI:
        attr.scoped = SCOPE_ABSTRACT_UNIX_SOCKET | SCOPE_SIGNAL
        size = 24
    ruleset = syscall("landlock_create_ruleset", ctypes.byref(attr), ctypes.c_size_t(size), 0)
    try:
        # /dev/null takes only the file rights (it is no folder); the scratch folder all.
        for path, rights in (
            (writable, writes),
            ("/dev/null", FS_WRITE_FILE | (writes & FS_TRUNCATE)),
        ):
            fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
            try:
                rule = _PathBeneath(rights, fd)
                syscall(
                    "landlock_add_rule",
                    ctypes.c_int(ruleset),
                    ctypes.c_int(RULE_PATH_BENEATH),
                    ctypes.byref(rule),
                    0,
                )
            finally:
                os.close(fd)
        syscall("landlock_restrict_self", ctypes.c_int(ruleset), 0)
    finally:
        os.close(ruleset)
    return abi
