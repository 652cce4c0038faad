"""The few Linux system calls the sandbox makes, through ctypes (no compiler, no package).

Only what Python's standard library lacks: ``prctl``, ``unshare`` (``os.unshare`` is
Python 3.12+), ``capset``, ``seccomp`` and the Landlock calls, by number where libc has
no wrapper. Every call returns 0 or raises OSError with the errno the kernel gave, so a
caller can say in one line why a protection is missing.

Syscall numbers differ between architectures: :data:`ARCH` holds the table of the
machine this runs on (x86_64 or aarch64, the two the filter knows), or None elsewhere.
The numbers are the kernel's (``asm/unistd_64.h`` and ``asm-generic/unistd.h``).
"""

from __future__ import annotations

import ctypes
import os
import platform
import sys
from dataclasses import dataclass
from typing import Any

LINUX = sys.platform.startswith("linux")

# prctl options (linux/prctl.h)
PR_SET_PDEATHSIG = 1
PR_SET_DUMPABLE = 4
PR_CAPBSET_DROP = 24
PR_SET_NO_NEW_PRIVS = 38
# unshare flags (linux/sched.h)
CLONE_NEWNS = 0x00020000
CLONE_NEWUSER = 0x10000000
CLONE_NEWNET = 0x40000000
CLONE_THREAD = 0x00010000


@dataclass(frozen=True)
class Arch:
    """One architecture's audit number and the syscall numbers the sandbox names."""

    name: str
    audit: int  # AUDIT_ARCH_* (linux/audit.h): what seccomp_data.arch holds
    numbers: dict[str, int]
    x32_bit: int = 0  # x86_64: syscalls with this bit set are the x32 ABI's

    def nr(self, name: str) -> int | None:
        return self.numbers.get(name)


# Shared by both tables: the calls added since 5.1 have one number on every architecture.
_NEW = {
    "io_uring_setup": 425,
    "io_uring_enter": 426,
    "io_uring_register": 427,
    "open_tree": 428,
    "move_mount": 429,
    "fsopen": 430,
    "fsconfig": 431,
    "fsmount": 432,
    "fspick": 433,
    "clone3": 435,
    "pidfd_getfd": 438,
    "process_madvise": 440,
    "landlock_create_ruleset": 444,
    "landlock_add_rule": 445,
    "landlock_restrict_self": 446,
}
X86_64 = Arch(
    "x86_64",
    0xC000003E,
    {
        "socket": 41,
        "clone": 56,
        "fork": 57,
        "vfork": 58,
        "execve": 59,
        "ptrace": 101,
        "capset": 126,
        "pivot_root": 155,
        "setrlimit": 160,
        "chroot": 161,
        "acct": 163,
        "mount": 165,
        "umount2": 166,
        "swapon": 167,
        "swapoff": 168,
        "reboot": 169,
        "init_module": 175,
        "delete_module": 176,
        "kexec_load": 246,
        "add_key": 248,
        "request_key": 249,
        "keyctl": 250,
        "unshare": 272,
        "perf_event_open": 298,
        "prlimit64": 302,
        "name_to_handle_at": 303,
        "open_by_handle_at": 304,
        "setns": 308,
        "process_vm_readv": 310,
        "process_vm_writev": 311,
        "kcmp": 312,
        "finit_module": 313,
        "seccomp": 317,
        "kexec_file_load": 320,
        "bpf": 321,
        "execveat": 322,
        "userfaultfd": 323,
        **_NEW,
    },
    x32_bit=0x40000000,
)
AARCH64 = Arch(
    "aarch64",
    0xC00000B7,
    {
        "umount2": 39,
        "mount": 40,
        "pivot_root": 41,
        "chroot": 51,
        "acct": 89,
        "capset": 91,
        "unshare": 97,
        "kexec_load": 104,
        "init_module": 105,
        "delete_module": 106,
        "ptrace": 117,
        "reboot": 142,
        "setrlimit": 164,
        "socket": 198,
        "add_key": 217,
        "request_key": 218,
        "keyctl": 219,
        "clone": 220,
        "execve": 221,
        "swapon": 224,
        "swapoff": 225,
        "perf_event_open": 241,
        "prlimit64": 261,
        "name_to_handle_at": 264,
        "open_by_handle_at": 265,
        "setns": 268,
        "process_vm_readv": 270,
        "process_vm_writev": 271,
        "kcmp": 272,
        "finit_module": 273,
        "seccomp": 277,
        "bpf": 280,
        "execveat": 281,
        "userfaultfd": 282,
        "kexec_file_load": 294,
        **_NEW,
    },
)
ARCH: Arch | None = (
    {"x86_64": X86_64, "amd64": X86_64, "aarch64": AARCH64, "arm64": AARCH64}.get(
        platform.machine().lower()
    )
    if LINUX and sys.maxsize > 2**32
    else None
)

_libc: Any = None


def libc() -> Any:
    """The C library, loaded once (OSError where there is none to load)."""
    global _libc
    if _libc is None:
        _libc = ctypes.CDLL(None, use_errno=True)
    return _libc


def _checked(result: int) -> int:
    if result < 0:
        err = ctypes.get_errno()
        raise OSError(err, os.strerror(err))
    return result


def prctl(option: int, arg2: Any = 0, arg3: int = 0, arg4: int = 0, arg5: int = 0) -> int:
    lib = libc()
    lib.prctl.restype = ctypes.c_int
    return _checked(
        lib.prctl(
            ctypes.c_int(option),
            arg2 if isinstance(arg2, ctypes._SimpleCData) else ctypes.c_ulong(arg2),
            ctypes.c_ulong(arg3),
            ctypes.c_ulong(arg4),
            ctypes.c_ulong(arg5),
        )
    )


def unshare(flags: int) -> None:
    _checked(libc().unshare(ctypes.c_int(flags)))


def syscall(name: str, *args: Any) -> int:
    """A raw system call by name on this architecture; OSError(ENOSYS) where unknown."""
    number = ARCH.nr(name) if ARCH is not None else None
    if number is None:
        raise OSError(38, f"{name}: not known on this architecture")
    lib = libc()
    lib.syscall.restype = ctypes.c_long
    return _checked(lib.syscall(ctypes.c_long(number), *args))


class _CapHeader(ctypes.Structure):
    _fields_ = [("version", ctypes.c_uint32), ("pid", ctypes.c_int)]


class _CapData(ctypes.Structure):
    _fields_ = [
        ("effective", ctypes.c_uint32),
        ("permitted", ctypes.c_uint32),
        ("inheritable", ctypes.c_uint32),
    ]


_CAP_VERSION_3 = 0x20080522
_LAST_CAP = 63  # the bounding set is dropped cap by cap; unknown numbers give EINVAL


def drop_capabilities() -> None:
    """No capability left, now or after an exec: the bounding set emptied, then every set."""
    for cap in range(_LAST_CAP + 1):
        try:
            prctl(PR_CAPBSET_DROP, cap)
        except OSError as exc:
            if exc.errno == 22:  # EINVAL: no capability of that number: done
                break
            if exc.errno != 1:  # EPERM: not ours to drop (no CAP_SETPCAP): nothing held
                raise
    header = _CapHeader(_CAP_VERSION_3, 0)
    data = (_CapData * 2)()  # all zero: 64 capabilities in two words
    syscall("capset", ctypes.byref(header), ctypes.byref(data))


def write_file(path: str, text: str) -> None:
    """Write a /proc file in one write (uid_map and friends take exactly one)."""
    fd = os.open(path, os.O_WRONLY)
    try:
        os.write(fd, text.encode())
    finally:
        os.close(fd)
