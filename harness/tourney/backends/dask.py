"""The Dask backend: chunks played as Dask tasks, on a cluster or on a local one.

:class:`DaskBackend` keeps the contract of :mod:`harness.tourney.backends`: ``results(specs)``
yields :class:`~.base.Done`, :class:`~.base.Failed` and ``None`` (a tick), and closing
the generator cancels the tasks still queued. Each chunk is one task running
:func:`~.dask_worker.play_task`, which wraps :func:`~.chunks.play_chunk` (a pure function
of its spec): the games are the ones the local backend plays, bit for bit. Workers write
nothing: the result and the task's log records come back in its reply, and the parent
stores them (the run folder, run.log) as the local backend does.

What a worker needs besides the spec travels with each task (:class:`~.dask_worker.Task`):

* **File plugins** (``path/to/bot.py:Bot``): the parent reads the file once per run and
  ships its source; the worker executes it under the module name the parent loaded it
  under (the code digest covers that name), so a worker on another machine never needs
  the file. It is shipped alone: modules it imports must be installed on the workers.
* **The code identity**: the harness version, the engine's digest and each entrant's
  code digest as computed here. A worker that differs is refused with one line naming
  it and both sides (:class:`WorkerMismatch`) and the run stops, keeping every chunk
  stored so far. The workers present are checked when the run starts; workers that
  join later, by their first task.

Faults: a chunk with user code (or seat limits) is played in a clean child process of
the Dask worker (:mod:`.dask_worker`), with everything the local backend contains: a
plugin that kills its process, loops in C code or prints costs only its own seat's
games, as locally. A chunk whose playing raises is retried once (a new task), then
reported, as locally. A Dask worker that dies itself (killed from outside) is Dask's
to handle: the scheduler reschedules its tasks on other workers (up to
``distributed.scheduler.allowed-failures`` times, then ``KilledWorker``, reported
without a retry of ours: Dask has retried it already).

Without an address, a ``LocalCluster`` of ``workers`` processes (one thread each: the
games are CPU-bound Python) runs on this machine, dashboard off unless asked for, its
scratch space inside the run folder and removed at the end (nothing goes to /tmp).
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import importlib.util
import itertools
import logging
import queue
import shutil
import signal
import sys
import threading
import time
import uuid
import warnings
from collections.abc import Iterable, Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

from harness.errors import PluginError, RunFailed, plural, safe_text
from harness.plugins import names_a_file, parse_reference, resolve
from harness.tourney.backends.base import (
    POLL,
    BackendStats,
    Done,
    Failed,
    Outcome,
    Retries,
)
from harness.tourney.backends.dask_worker import (
    PROGRESS_TOPIC,
    Reply,
    Shipped,
    Task,
    identity,
    mismatch,
    play_task,
)
from harness.tourney.chunks import WORKER_LOGGER
from harness.tourney.groups import Chunk
from harness.tourney.plan import EntrantRef, engine_digest

log = logging.getLogger("harness.tourney")
INSTALL = "pip install 'pickomino-harness[dask]'"
CONNECT_TIMEOUT = 5.0  # seconds to reach a scheduler before giving up (one line)
LOOK_EVERY = 2.0  # seconds between looks at the cluster's workers (joined, left)


class DaskError(RunFailed):
    """The Dask backend cannot go on: Dask missing, scheduler unreachable or lost."""


class WorkerMismatch(DaskError):
    """A worker has other code than this machine (version, engine or a strategy)."""


def require_distributed() -> Any:
    """The ``distributed`` package, or a one-line error saying how to install it."""
    try:
        import distributed
    except ImportError:
        raise DaskError(
            f"--backend dask needs Dask distributed, which is not installed: {INSTALL}"
        ) from None
    return distributed


def address_problem(address: str) -> str | None:
    """What is wrong with a scheduler address as written (None: nothing), before anything
    is made or reached: a scheme Dask knows, and a host and port where it needs them."""
    from distributed.comm import parse_address
    from distributed.comm.addressing import parse_host_port
    from distributed.comm.registry import get_backend

    try:
        scheme, location = parse_address(address, strict=False)
        get_backend(scheme)
        if scheme != "inproc":
            host, port = parse_host_port(location)
            if not host or not 0 < int(port) < 65536:
                return "give the scheduler as tcp://HOST:PORT"
    except (ValueError, TypeError) as exc:
        return f"{safe_text(exc, 200)}; give the scheduler as tcp://HOST:PORT"
    return None


def file_of(load: str) -> str | None:
    """The file of a file-plugin reference (``/abs/bot.py:Bot(k=1)``), else None
    (harness.plugins tells a file from a module reference the same way)."""
    ref, _ = parse_reference(load)
    where, sep, _ = ref.rpartition(":")
    if sep and names_a_file(where):
        return where
    return None


def forward(records: list[dict[str, Any]]) -> None:
    """Log a worker's records here (they reach run.log as the local workers' do)."""
    wlog = logging.getLogger(WORKER_LOGGER)
    for data in records:
        wlog.handle(logging.makeLogRecord({**data, "args": None}))


class _ToRunLog(logging.Handler):
    """Dask's own warnings in this process (a worker died, ...) go to run.log."""

    def __init__(self, target: logging.Handler) -> None:
        super().__init__(logging.WARNING)
        self.target = target

    def emit(self, record: logging.LogRecord) -> None:
        self.target.handle(record)


class DaskBackend:
    """Plays chunks as Dask tasks: on the scheduler at ``address``, or on a local cluster
    of ``workers`` processes with its scratch space in ``scratch`` (see the module doc).

    ``log_to`` (run.log's handler) also gets Dask's warnings, which are kept off the
    terminal; ``echo`` gets one-line notes for people (where it plays, the dashboard).
    """

    def __init__(
        self,
        *,
        address: str | None = None,
        workers: int = 1,
        dashboard: bool = False,
        scratch: Path | None = None,
        log_to: logging.Handler | None = None,
        echo: Any = None,
    ) -> None:
        if address is None and (workers < 1 or scratch is None):
            raise ValueError("a local Dask cluster needs 1 or more workers and a scratch folder")
        self.address = address
        self.workers = workers  # on a scheduler: its threads when the run started
        self.dashboard = dashboard
        self.scratch = scratch
        self.log_to = log_to
        self.echo = echo or (lambda text: None)
        self._prepared: dict[tuple[str, tuple], tuple[EntrantRef, Shipped | None, str]] = {}
        self._lock = threading.Lock()
        self._playing: set[str] = set()  # the keys of the tasks in play
        self._live: dict[str, dict[str, Any]] = {}  # their last progress, by task key
        self._hold: contextlib.ExitStack | None = None  # held(): one cluster for many calls
        self._held_client: Any = None

    def describe(self) -> str:
        if self.address:
            return f"Dask scheduler {self.address}"
        return f"a local Dask cluster of {plural(self.workers, 'worker')}"

    def in_flight(self) -> int:
        """Games played of the chunks in play, as their tasks report them (Dask events:
        :class:`~.dask_worker._Reporter`), game by game, every half second."""
        with self._lock:
            return sum(heard["rows"] for heard in self._live.values())

    def decision_times(self) -> dict[str, tuple[int, float]]:
        """The timed decisions of the chunks in play, by strategy, as their tasks report."""
        out: dict[str, tuple[int, float]] = {}
        with self._lock:
            for heard in self._live.values():
                for name, (n, seconds) in heard["times"].items():
                    have = out.get(name, (0, 0.0))
                    out[name] = (have[0] + n, have[1] + seconds)
        return out

    def _heard(self, event: Any) -> None:
        """A task's progress event (in a thread of the client's): kept by its task key,
        while the task is in play (a late event of a landed task is dropped)."""
        with contextlib.suppress(Exception):  # a malformed event: no progress shown
            msg = event[1]
            key, rows = str(msg["key"]), int(msg["rows"])
            times = {str(k): (int(v[0]), float(v[1])) for k, v in msg["times"].items()}
            with self._lock:
                if key in self._playing:
                    self._live[key] = {"rows": rows, "times": times}

    def stats(self) -> BackendStats:
        return BackendStats()  # Dask keeps its own: the dashboard

    # -- the cluster -------------------------------------------------------------------------
    @contextlib.contextmanager
    def _client(self) -> Iterator[Any]:
        """A client of the scheduler, or of a new local cluster; at the end both are closed
        and the scratch space removed. Dask's warnings go to run.log, not the terminal."""
        distributed = require_distributed()
        from distributed.utils import silence_logging_cmgr

        with contextlib.ExitStack() as stack:
            if self.log_to is not None:
                dlog, to_log = logging.getLogger("distributed"), _ToRunLog(self.log_to)
                dlog.addHandler(to_log)
                stack.callback(dlog.removeHandler, to_log)
            stack.enter_context(silence_logging_cmgr(logging.CRITICAL))
            client = self._connect(distributed) if self.address else self._local(stack)
            stack.callback(_quietly, client.close)
            yield client

    def _connect(self, distributed: Any) -> Any:
        """A client of the scheduler at ``address``, or a one-line error.

        The address is probed first with a bare connection: a Client that fails to
        connect is left half-built with its event loop running, and its ``__del__``,
        run by the garbage collector in whatever thread, can block that thread later.
        """
        address = self.address
        try:
            _probe(address)
            return distributed.Client(
                address, timeout=CONNECT_TIMEOUT, set_as_default=False, name="harness"
            )
        except (ValueError, TypeError) as exc:  # a malformed address
            raise DaskError(f"--address {address}: {exc}") from None
        except OSError:
            raise DaskError(
                f"cannot reach a Dask scheduler at {address} within {CONNECT_TIMEOUT:.0f} s: "
                "is `dask scheduler` running there, and its port open to this machine?"
            ) from None
        except Exception as exc:  # something answered, but not as a scheduler
            raise DaskError(
                f"{address} did not answer as a Dask scheduler ({type(exc).__name__}: {exc})"
            ) from None

    def _local(self, stack: contextlib.ExitStack) -> Any:
        import dask
        from distributed import Client, LocalCluster

        assert self.scratch is not None
        scratch = self.scratch
        shutil.rmtree(scratch, ignore_errors=True)  # what a killed run left
        scratch.mkdir(parents=True)
        stack.callback(shutil.rmtree, scratch, True)
        settings = {
            # The scheduler and the nannies put scratch space in temporary-directory (the
            # system temp folder by default); local_directory covers only the workers.
            "temporary-directory": str(scratch),
            # CPU that Dask spends beside the games (benchmarks/dask_vs_local.py): the
            # workers' sampling profiler (for the dashboard) costs ~20% per game, so it
            # is on only with the dashboard; and every process checks its event loop
            # every 20 ms, 3% of a core per idle worker: once a second is plenty.
            "distributed.worker.profile.enabled": self.dashboard,
            "distributed.admin.tick.interval": "1s",
        }
        stack.enter_context(dask.config.set(settings))
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # "port 8787 is in use": the link says where
                cluster = LocalCluster(
                    n_workers=self.workers,
                    threads_per_worker=1,
                    processes=True,
                    # Off, the scheduler still serves its health routes, by default on
                    # port 8787: a free port instead. On: this machine only.
                    dashboard_address="127.0.0.1:8787" if self.dashboard else None,
                    scheduler_kwargs={} if self.dashboard else {"dashboard_address": "127.0.0.1:0"},
                    local_directory=str(scratch),
                    silence_logs=logging.CRITICAL,
                    preload=["harness.tourney.backends.dask_worker"],  # workers leave Ctrl-C to us
                )
        except Exception as exc:
            raise DaskError(
                f"could not start a local Dask cluster ({type(exc).__name__}: {exc}); from "
                "a Python script, put the call under `if __name__ == '__main__':`"
            ) from None
        stack.callback(_quietly, cluster.close)
        return Client(cluster, set_as_default=False, name="harness")

    def _check_workers(self, client: Any) -> None:
        """Refuse the run at once if a worker present has other harness code."""
        import harness

        version, engine = harness.__version__, engine_digest()
        for worker, found in sorted(client.run(identity, on_error="return").items()):
            if isinstance(found, BaseException):
                raise WorkerMismatch(
                    f"Dask worker {worker} cannot run harness ({type(found).__name__}: "
                    f"{found}): install pickomino-harness {version} on every worker"
                )
            refusal = mismatch(found, version, engine, worker)
            if refusal is not None:
                raise WorkerMismatch(refusal)
            log.info(
                "Dask worker %s: harness %s, Python %s, pid %d",
                worker,
                found["version"],
                found["python"],
                found["pid"],
            )

    # -- tasks ---------------------------------------------------------------------------------
    def _prepare(self, ref: EntrantRef) -> tuple[EntrantRef, Shipped | None, str]:
        """The entrant as a worker loads it, its shipped file (if any) and its code digest
        here. Once per run: a file edited mid-run does not change what is shipped."""
        key = (ref.load, ref.params)
        if key not in self._prepared:
            spec = resolve(ref.load, dict(ref.params) or None)
            code = spec.identity()["code"]
            path = file_of(ref.load)
            shipped = None
            if path is not None:
                module = sys.modules[spec.cls.__module__]
                try:
                    source = Path(path).read_bytes()
                except OSError as exc:
                    raise PluginError(f"{path}: cannot read it: {exc.strerror}") from None
                if hashlib.sha256(source).hexdigest()[:16] != module.__harness_code__:
                    raise PluginError(f"{path}: changed while being read; run again")
                shipped = Shipped(module.__name__, path, source)
                # The worker resolves "<module>:Class(k=v)": the module it installed.
                ref = replace(ref, load=module.__name__ + ref.load[len(path) :])
            self._prepared[key] = (ref, shipped, code)
        return self._prepared[key]

    def task(self, spec: Chunk) -> Task:
        """The task that plays ``spec`` (PluginError if a plugin file cannot be read)."""
        import harness

        prepared = [self._prepare(ref) for ref in spec.entrants]
        return Task(
            spec=replace(spec, entrants=tuple(p[0] for p in prepared)),
            shipped=tuple(p[1] for p in prepared if p[1] is not None),
            version=harness.__version__,
            engine=engine_digest(),
            codes=tuple(p[2] for p in prepared),
        )

    @contextlib.contextmanager
    def held(self) -> Iterator[None]:
        """One cluster (or one connection) for every :meth:`results` call inside: an
        adaptive run's batches each call it, and a local cluster takes seconds to start.
        Started at the first call that has work, closed at the end. What is played does
        not depend on it: a batch's chunks are stored, then read back in plan order."""
        stack = contextlib.ExitStack()
        self._hold = stack
        try:
            yield
        finally:
            self._hold, self._held_client = None, None
            with _logged(DaskError):
                stack.close()

    @contextlib.contextmanager
    def _session(self) -> Iterator[Any]:
        """The client of a :meth:`results` call: the held one (started on first use), or
        one of its own, closed at its end."""
        hold = getattr(self, "_hold", None)
        if hold is None:
            with self._client() as client:
                self._started(client)
                yield client
            return
        if getattr(self, "_held_client", None) is None:
            self._held_client = hold.enter_context(self._client())
            self._started(self._held_client)
        yield self._held_client

    def _started(self, client: Any) -> None:
        """Say where the games play, and refuse workers with other harness code."""
        nthreads = client.nthreads()
        threads = sum(nthreads.values())
        if self.address:
            self.workers = threads
        where = self.address or client.scheduler.address
        link = f"; dashboard {client.dashboard_link}" if self.dashboard else ""
        if self.dashboard and importlib.util.find_spec("bokeh") is None:
            link += f" (it needs bokeh: {INSTALL})"
        self.echo(f"Dask: {len(nthreads)} workers, {threads} threads at {where}{link}")
        log.info("Dask scheduler %s: %d workers, %d threads%s", where, len(nthreads), threads, link)
        if not threads:
            self.echo("Dask: the scheduler has no workers yet; waiting for some to join.")
        self._check_workers(client)

    def results(self, specs: Iterable[Chunk]) -> Iterator[Outcome]:
        pending = iter(specs)
        first = next(pending, None)
        if first is None:
            return  # nothing to play: no cluster to start
        with _logged(DaskError), _Interrupts() as interrupts, self._session() as client:
            interrupts.check()  # Ctrl-C while the cluster started
            yield from self._play(client, itertools.chain([first], pending), interrupts)

    def _play(
        self, client: Any, specs: Iterator[Chunk], interrupts: _Interrupts
    ) -> Iterator[Outcome]:
        """Keep twice the cluster's threads in tasks (every worker has its next chunk
        queued) and yield outcomes as tasks land; cancel what is left when closed."""
        landed: queue.Queue[Any] = queue.Queue()  # futures, as Dask finishes them
        inflight: dict[Any, Chunk] = {}
        retries = Retries()
        retry: list[Chunk] = []
        ready: list[Outcome] = []
        token = uuid.uuid4().hex[:8]  # task keys unique to this run on a shared scheduler
        workers = client.nthreads()  # address -> threads
        looked = time.monotonic()

        def submit(spec: Chunk) -> None:
            try:
                task = self.task(spec)
            except PluginError as exc:
                ready.append(Failed(spec, f"cannot ship it: {exc}"))
                return
            attempt = retries.attempt(spec)
            # The content key: two chunks of one table and deal range (e.g. sprt's two seat
            # orders) are different tasks.
            key = f"harness-chunk-{spec.key}-{token}-{attempt}"
            with self._lock:
                self._playing.add(key)
            try:
                future = client.submit(play_task, replace(task, key=key), key=key, retries=0)
            except OSError as exc:
                raise _lost(type(exc).__name__) from None
            inflight[future] = spec
            future.add_done_callback(landed.put)  # called in a thread of the client's

        with contextlib.suppress(Exception):  # progress is a nicety: never the run's end
            client.subscribe_topic(PROGRESS_TOPIC, self._heard)
        try:
            while True:
                interrupts.check()
                while len(inflight) < max(4, 2 * sum(workers.values())):
                    spec = retry.pop(0) if retry else next(specs, None)
                    if spec is None:
                        break
                    submit(spec)
                yield from ready
                ready.clear()
                if not inflight:
                    return
                try:
                    future = landed.get(timeout=POLL)
                except queue.Empty:
                    interrupts.check()
                    if time.monotonic() - looked >= LOOK_EVERY:
                        looked, workers = time.monotonic(), _look(client, workers)
                    yield None
                    continue
                spec = inflight.pop(future)
                with self._lock:  # landed: its rows are the outcome's from now on
                    self._playing.discard(future.key)
                    self._live.pop(future.key, None)
                outcome = self._outcome(client, future, spec)
                if isinstance(outcome, str):  # a reason to retry
                    failed = retries.failed(spec, outcome)
                    if failed is None:
                        retry.append(spec)
                        continue
                    outcome = failed
                ready.append(outcome)
        finally:
            if inflight:
                with contextlib.suppress(Exception):
                    client.cancel(list(inflight))
                inflight.clear()
            with contextlib.suppress(Exception):
                client.unsubscribe_topic(PROGRESS_TOPIC)
            with self._lock:
                self._playing.clear()
                self._live.clear()

    @staticmethod
    def _outcome(client: Any, future: Any, spec: Chunk) -> Done | Failed | str:
        """What a landed task means: Done, Failed (no retry), or the reason to retry it.
        Raises for what stops the run: a refused worker, a lost scheduler."""
        from distributed.scheduler import KilledWorker

        if future.status == "finished":
            try:
                reply: Reply = future.result()
            except OSError as exc:  # distributed's CommClosedError is one
                raise _lost(type(exc).__name__) from None
            forward(reply.records)
            if reply.status == "ok":
                assert reply.result is not None
                return Done(spec, reply.result)
            if reply.status == "refused":
                raise WorkerMismatch(reply.reason)
            return f"playing it raised {reply.reason} (on Dask worker {reply.worker})"
        if future.status == "error":
            exc = future.exception()
            if isinstance(exc, KilledWorker):
                reason = f"its Dask workers died each time they played it ({exc})"
                log.error("chunk %s failed: %s; giving up", spec.describe(), reason)
                return Failed(spec, reason)
            missing = exc.name if isinstance(exc, ModuleNotFoundError) else None
            if missing and missing.split(".")[0] == "harness":
                raise WorkerMismatch(
                    f"a Dask worker cannot import {missing}: install pickomino-harness on "
                    "every worker"
                )
            return f"its task raised {type(exc).__name__}: {exc}"
        # Cancelled or lost: by a scheduler that restarted, or one we lost.
        if client.status not in ("running", "connecting"):
            raise _lost(f"the client is {client.status}")
        return f"its Dask task was {future.status}"


@contextlib.contextmanager
def _logged(kind: type[Exception]) -> Iterator[None]:
    """Errors that stop the run are in run.log too, not only on the terminal."""
    try:
        yield
    except kind as exc:
        log.error("%s", exc)
        raise


def _lost(why: str) -> DaskError:
    return DaskError(
        f"lost the Dask scheduler ({why}); the chunks stored so far are kept: run the same "
        "command again to resume"
    )


def _probe(address: str | None) -> None:
    """Open and close one connection to ``address`` (in a thread of its own: the caller's
    may run an event loop already, a notebook's); raises what the connection raised."""
    from distributed import Security
    from distributed.comm import connect

    # As the Client will: TLS settings from Dask's config (distributed.comm.tls).
    args = Security().get_connection_args("client")

    async def probe() -> None:
        comm = await connect(address, timeout=CONNECT_TIMEOUT, **args)
        await comm.close()

    failed: list[BaseException] = []

    def run() -> None:
        try:
            asyncio.run(probe())
        except BaseException as exc:  # handed to the caller's thread
            failed.append(exc)

    thread = threading.Thread(target=run, name="harness-dask-probe", daemon=True)
    thread.start()
    thread.join()
    if failed:
        raise failed[0]


class _Interrupts:
    """Ctrl-C and SIGTERM while Dask runs are noted, then raised as KeyboardInterrupt by
    :meth:`check` in our own loop. Raised at any point they can land inside Dask's code
    (a future's ``__del__``, where they are printed and lost) and the run goes on; and
    a second Ctrl-C cannot cut the cluster's closing short. (Main thread only: signal
    handlers can be set nowhere else.)"""

    def __init__(self) -> None:
        self.caught: int | None = None
        self.old: dict[int, Any] = {}

    def __enter__(self) -> _Interrupts:
        if threading.current_thread() is threading.main_thread():
            for sig in (signal.SIGINT, signal.SIGTERM):
                self.old[sig] = signal.signal(sig, self._note)
        return self

    def _note(self, signum: int, frame: Any) -> None:
        self.caught = signum

    def check(self) -> None:
        if self.caught is not None:
            raise KeyboardInterrupt

    def __exit__(self, *exc: object) -> None:
        for sig, old in self.old.items():
            signal.signal(sig, old)


def _look(client: Any, before: dict[str, int]) -> dict[str, int]:
    """The cluster's workers (address -> threads); logs those that joined or left."""
    try:
        now = client.nthreads()
    except Exception:  # a scheduler that does not answer now: the next look will tell
        return before
    for worker in sorted(before.keys() - now.keys()):
        log.warning("Dask worker %s left the cluster; its tasks are rescheduled", worker)
    for worker in sorted(now.keys() - before.keys()):
        log.info("Dask worker %s joined the cluster", worker)
    return now


def _quietly(close: Any) -> None:
    """Closing a client or a cluster that is already gone is no error of the run's."""
    with contextlib.suppress(Exception):
        close()
