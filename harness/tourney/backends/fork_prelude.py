"""The fork server's first import: it keeps that process single-threaded.

Workers are forked from a fork server (see :func:`.process.context`), and a fork is only
safe from a process with one thread: Python 3.12+ warns "This process ... is
multi-threaded, use of fork() may lead to deadlocks in the child" otherwise. The fork
server preloads harness and the built-in strategies, and ``optimal`` imports numpy,
whose BLAS (OpenBLAS in the wheels) starts a pool of ``cores - 1`` threads as it loads.
OpenBLAS stops that pool before each fork, but the stopped threads can still be counted
at the moment of the fork, so the warning came now and then, not always.

So this module, listed before every other preload, loads numpy with its thread pools
limited to one thread (the variables are read once, as the libraries load) and then puts
the environment back as it was: the workers' ``os.environ``, and the seat processes and
subprocesses a plugin starts, see the user's own settings. What a worker keeps is a BLAS
that runs on its own thread, which is what a tournament wants anyway: one worker per
core already keeps every core busy.

Imported in the fork server only, never in the parent (a notebook's numpy keeps its
threads).
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator

# OpenBLAS, OpenMP (numpy or plugins built with it) and MKL (conda's numpy).
THREAD_VARIABLES = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")


@contextlib.contextmanager
def one_thread_each() -> Iterator[None]:
    """Set every pool-size variable to 1 for the block, then restore them exactly."""
    saved = {name: os.environ.get(name) for name in THREAD_VARIABLES}
    os.environ.update(dict.fromkeys(THREAD_VARIABLES, "1"))
    try:
        yield
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


with one_thread_each(), contextlib.suppress(ImportError):  # numpy comes with pandas
    import numpy  # noqa: F401  (loaded here for its side effect: a BLAS of one thread)
