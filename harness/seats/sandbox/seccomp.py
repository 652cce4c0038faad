"""A seccomp-BPF filter for an isolated seat, built here from the kernel's own encoding.

Why our own filter and not libseccomp's bindings: the filter is a fixed list of
twenty-odd system calls on two architectures; libseccomp's Python module is not on PyPI
(it comes with the system's package, when at all), and what it would save is the ~40
lines of :func:`program` below. The encoding (``struct sock_filter``, ``seccomp_data``)
is the kernel's stable ABI.

What the filter refuses (the call fails with EPERM; the plugin sees an OSError, or its
library an error, and the game goes on), everything else is allowed:

* reading or writing another process: ``ptrace``, ``process_vm_readv``,
  ``process_vm_writev``, ``pidfd_getfd``, ``kcmp``, ``process_madvise``;
* the network, and any socket: ``socket`` (the seat talks to harness over the socket it
  was given at start, which needs no new one);
* new processes and programs: ``fork``, ``vfork``, ``clone`` unless it makes a thread
  (``CLONE_THREAD``: Python's threads, a BLAS pool), ``execve``, ``execveat``;
  ``clone3`` answers ENOSYS, which makes the C library fall back to ``clone`` for
  threads (its flags are behind a pointer the filter cannot read);
* raising its own limits back: ``setrlimit``, and ``prlimit64`` with new limits
  (reading them stays allowed);
* leaving the sandbox or the machine's business: ``unshare``, ``setns``, ``mount`` and
  the new mount API, ``pivot_root``, ``chroot``, ``io_uring_*`` (its operations escape
  seccomp), ``bpf``, ``perf_event_open``, ``userfaultfd``, keyrings, kernel modules,
  ``kexec``, ``reboot``, ``swapon``/``swapoff``, ``acct``, file handles.

A system call of another ABI (a 32-bit call from a 64-bit process, x86's x32) ends the
process: the filter only knows this architecture's numbers.
"""

from __future__ import annotations

import ctypes
import struct

from harness.seats.sandbox.syscalls import (
    ARCH,
    CLONE_THREAD,
    PR_SET_NO_NEW_PRIVS,
    Arch,
    prctl,
    syscall,
)

DENIED = (
    "ptrace",
    "process_vm_readv",
    "process_vm_writev",
    "pidfd_getfd",
    "kcmp",
    "process_madvise",
    "socket",
    "fork",
    "vfork",
    "execve",
    "execveat",
    "setrlimit",
    "unshare",
    "setns",
    "mount",
    "umount2",
    "open_tree",
    "move_mount",
    "fsopen",
    "fsconfig",
    "fsmount",
    "fspick",
    "pivot_root",
    "chroot",
    "io_uring_setup",
    "io_uring_enter",
    "io_uring_register",
    "bpf",
    "perf_event_open",
    "userfaultfd",
    "add_key",
    "request_key",
    "keyctl",
    "init_module",
    "finit_module",
    "delete_module",
    "kexec_load",
    "kexec_file_load",
    "reboot",
    "swapon",
    "swapoff",
    "acct",
    "name_to_handle_at",
    "open_by_handle_at",
)
"""The system calls refused outright (those the architecture has)."""

# BPF (linux/filter.h, linux/bpf_common.h, linux/seccomp.h)
_LD_W_ABS = 0x20  # BPF_LD | BPF_W | BPF_ABS
_JEQ = 0x15  # BPF_JMP | BPF_JEQ | BPF_K
_JGE = 0x35  # BPF_JMP | BPF_JGE | BPF_K
_JSET = 0x45  # BPF_JMP | BPF_JSET | BPF_K
_RET = 0x06  # BPF_RET | BPF_K
RET_KILL_PROCESS = 0x80000000
RET_ALLOW = 0x7FFF0000
RET_ERRNO = 0x00050000
EPERM, ENOSYS = 1, 38
# struct seccomp_data: int nr; __u32 arch; __u64 instruction_pointer; __u64 args[6]
_NR, _ARCH = 0, 4


def _arg(i: int, high: bool = False) -> int:
    return 16 + 8 * i + (4 if high else 0)  # little-endian: the low word first


Instruction = tuple[int, int, int, int]  # code, jt, jf, k


def program(arch: Arch) -> list[Instruction]:
    """The filter for ``arch``, as (code, jump-if-true, jump-if-false, constant) rows."""

    def ld(offset: int) -> Instruction:
        return (_LD_W_ABS, 0, 0, offset)

    def ret(value: int) -> Instruction:
        return (_RET, 0, 0, value)

    deny = ret(RET_ERRNO | EPERM)
    rows: list[Instruction] = [
        ld(_ARCH),
        (_JEQ, 1, 0, arch.audit),
        ret(RET_KILL_PROCESS),
        ld(_NR),
    ]
    if arch.x32_bit:
        rows += [(_JGE, 0, 1, arch.x32_bit), ret(RET_KILL_PROCESS)]
    for name in DENIED:
        nr = arch.nr(name)
        if nr is not None:
            rows += [(_JEQ, 0, 1, nr), deny]
    clone = arch.nr("clone")
    if clone is not None:  # a thread is fine, a process is not
        rows += [
            (_JEQ, 0, 4, clone),
            ld(_arg(0)),
            (_JSET, 0, 1, CLONE_THREAD),
            ret(RET_ALLOW),
            deny,
        ]
    clone3 = arch.nr("clone3")
    if clone3 is not None:
        rows += [(_JEQ, 0, 1, clone3), ret(RET_ERRNO | ENOSYS)]
    prlimit = arch.nr("prlimit64")
    if prlimit is not None:  # prlimit64(pid, resource, new, old): new must be NULL
        rows += [
            (_JEQ, 0, 6, prlimit),
            ld(_arg(2)),
            (_JEQ, 0, 3, 0),
            ld(_arg(2, high=True)),
            (_JEQ, 0, 1, 0),
            ret(RET_ALLOW),
            deny,
        ]
    rows.append(ret(RET_ALLOW))
    return rows


class _SockFprog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]


SECCOMP_SET_MODE_FILTER = 1
SECCOMP_FILTER_FLAG_TSYNC = 1


def install() -> None:
    """Install the filter on every thread of this process (OSError if it cannot be).

    Sets no_new_privs first (what an unprivileged process needs to install a filter);
    filters survive exec and are inherited by every thread started later.
    """
    if ARCH is None:
        raise OSError(38, "no seccomp filter for this architecture")
    rows = program(ARCH)
    raw = b"".join(struct.pack("=HBBI", *row) for row in rows)
    buffer = ctypes.create_string_buffer(raw, len(raw))
    prog = _SockFprog(len(rows), ctypes.cast(buffer, ctypes.c_void_p))
    prctl(PR_SET_NO_NEW_PRIVS, 1)
    syscall(
        "seccomp",
        ctypes.c_uint(SECCOMP_SET_MODE_FILTER),
        ctypes.c_uint(SECCOMP_FILTER_FLAG_TSYNC),
        ctypes.byref(prog),
    )
