"""Runs a sweep's tasks, in this process or on Dask, and saves each as it ends.

Dask (dask.distributed) is the default: a `LocalCluster` of worker
processes on this machine, or any running scheduler given by address (how a
Slurm/PBS allocation made with dask-jobqueue, or cloud VMs, are reached).
Each configuration's setup is submitted once as a small task and every
chunk of repetitions depends on it. Finished tasks come back to the client
in completion order (`as_completed`) and the client writes each one's part
file, so nothing is written twice or by two processes. A worker lost
mid-sweep costs only the tasks it held: the scheduler reruns them elsewhere
(and `retries` covers a task that failed for a passing reason), and since
every repetition depends only on its configuration's seed and its index,
the rerun gives the same numbers.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import json
import logging
import uuid
import warnings
from collections.abc import Callable, Hashable, Iterator
from dataclasses import dataclass
from typing import Any, TypeVar

from cloudnoise.errors import EXIT_RUNTIME, CloudnoiseError
from cloudnoise.model.profile import SystemProfile
from cloudnoise.simulation.noise import noise_from_profile
from cloudnoise.simulation.params import LogGOPS
from cloudnoise.sweep.experiment import Experiment
from cloudnoise.sweep.plan import Task, config_seed
from cloudnoise.sweep.task import ChunkResult, ConfigSetup, PreparedNoise, TaskFailure, hold, run_chunk

# How often Dask may rerun a task that raised (not a CloudnoiseError: those
# are returned, never retried); a lost worker's tasks are rerun regardless.
TASK_RETRIES = 2
DASK_LOGGERS = ("distributed", "dask", "tornado", "asyncio", "bokeh")

K = TypeVar("K", bound=Hashable)  # what names a configuration's setup
OnResult = Callable[[ChunkResult], None]
OnFailure = Callable[[TaskFailure], None]


@dataclass(frozen=True)
class System:
    """A system of the sweep: its name (the results' key), what the user gave, its profile."""

    name: str
    source: str  # a built-in name, or a profile file's absolute path
    profile: SystemProfile

    @property
    def fingerprint(self) -> str:
        """SHA-256 of the profile's content: a resumed sweep must simulate the same system."""
        text = json.dumps(self.profile.to_dict(), sort_keys=True, default=str)
        return hashlib.sha256(text.encode()).hexdigest()


def config_setup(experiment: Experiment, system: System, nodes: int, seed: int, ready_order: str) -> ConfigSetup:
    """The parameters and noise of one (system, nodes), with its derived seed."""
    s = config_seed(seed, system.name, nodes)
    return ConfigSetup(
        system=system.name,
        nodes=nodes,
        seed=s,
        params=LogGOPS.from_profile(system.profile),
        noise=PreparedNoise.of(noise_from_profile(system.profile, s)),
        experiment=experiment,
        ready_order=ready_order,
    )


def run_in_process(
    setups: dict[tuple[str, int], ConfigSetup], tasks: list[Task], on_result: OnResult, on_failure: OnFailure | None = None
) -> None:
    """Runs the tasks one after the other here, no Dask (the reference, and small sweeps)."""
    for task in tasks:
        _deliver(run_chunk(setups[(task.system, task.nodes)], task), on_result, on_failure)


def _deliver(result: ChunkResult | TaskFailure, on_result: OnResult, on_failure: OnFailure | None) -> None:
    """A finished task to `on_result`; a failed one to `on_failure` (the sweep
    goes on without it), or, with no `on_failure`, as a CloudnoiseError."""
    if isinstance(result, TaskFailure):
        if on_failure is None:
            raise CloudnoiseError(result.message, result.exit_code)
        on_failure(result)
    else:
        on_result(result)


@contextlib.contextmanager
def quiet_dask() -> Iterator[None]:
    """Keeps Dask's logging and warnings off the terminal while a sweep runs (restored after)."""
    loggers = [logging.getLogger(name) for name in DASK_LOGGERS]
    levels = [lg.level for lg in loggers]
    for lg in loggers:
        lg.setLevel(logging.CRITICAL + 1)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            yield
    finally:
        for lg, level in zip(loggers, levels):
            lg.setLevel(level)


@contextlib.contextmanager
def dask_client(
    scheduler: str | None = None, workers: int = 2, threads_per_worker: int = 1, connect_timeout: float = 20.0
) -> Iterator[Any]:
    """A connected `distributed.Client`: to `scheduler` if given, else to a new
    LocalCluster of `workers` processes (closed on exit)."""
    try:
        from distributed import Client, LocalCluster
    except ImportError:  # pragma: no cover - a declared dependency
        raise CloudnoiseError("Dask is not installed: pip install 'distributed>=2024.1', or run with --in-process") from None
    with quiet_dask():
        if scheduler:
            _check_address(scheduler)
            try:
                client = Client(scheduler, timeout=connect_timeout, set_as_default=False)
            except (OSError, TimeoutError, ValueError, TypeError) as err:
                detail = str(err).splitlines()[0] if str(err) else type(err).__name__
                raise CloudnoiseError(
                    f"cannot reach the Dask scheduler {scheduler!r} within {connect_timeout:g} s ({detail}); "
                    "check the address (tcp://HOST:PORT) and that the scheduler runs, or drop --scheduler for a local cluster"
                ) from None
            try:
                yield client
            finally:
                client.close()
            return
        try:
            cluster = LocalCluster(
                n_workers=workers,
                threads_per_worker=threads_per_worker,
                processes=True,
                dashboard_address=None,
                silence_logs=logging.CRITICAL,
                preload=["cloudnoise.sweep.worker_setup"],
            )
        except (OSError, RuntimeError, TimeoutError) as err:
            raise CloudnoiseError(
                f"could not start a local Dask cluster of {workers} workers ({err}); "
                "try fewer --workers, or --in-process"
            ) from None
        client = Client(cluster, set_as_default=False)
        try:
            yield client
        finally:
            client.close()
            cluster.close()


def _check_address(address: str) -> None:
    """A malformed address fails here, before a Client is made (a Client that
    never connected complains again when it is garbage collected)."""
    from distributed.comm.addressing import parse_address, parse_host_port

    try:
        scheme, location = parse_address(address, strict=False)
        if scheme in ("tcp", "tls", "ws", "wss"):
            parse_host_port(location)
    except (ValueError, TypeError) as err:
        raise CloudnoiseError(
            f"--scheduler {address!r} is not a Dask scheduler address ({err}); write tcp://HOST:PORT, e.g. tcp://10.0.0.5:8786"
        ) from None


def run_on_dask(
    client: Any,
    setups: dict[tuple[str, int], ConfigSetup],
    tasks: list[Task],
    on_result: OnResult,
    on_failure: OnFailure | None = None,
) -> None:
    """Runs the tasks on the client's cluster; `on_result` sees each as it finishes.

    A TaskFailure (a deadlock, an impossible parameter: the same anywhere)
    goes to `on_failure` and the rest goes on; without `on_failure` it cancels
    the rest and becomes a CloudnoiseError. A task that kept killing its
    workers or raised on every retry always ends the run. Each configuration's
    setup is shipped once."""
    from distributed import as_completed

    token = uuid.uuid4().hex[:12]  # keys unique on a scheduler shared with other clients
    with quiet_dask():
        held = {
            cfg: client.submit(hold, setup, key=f"cloudnoise-setup-{token}-{i}", pure=False)
            for i, (cfg, setup) in enumerate(setups.items())
        }
        by_config: dict[tuple[str, int], list[Task]] = {}
        for t in tasks:  # grid order is kept: tasks come grouped by configuration
            by_config.setdefault((t.system, t.nodes), []).append(t)
        futures = []
        for cfg, group in by_config.items():
            futures += client.map(
                run_chunk,
                [held[cfg]] * len(group),
                group,
                key=[f"cloudnoise-{token}-{t.key}" for t in group],
                retries=TASK_RETRIES,
                pure=False,
                threads=1,  # a task per Dask thread: see run_chunk
            )
        try:
            for future in as_completed(futures, loop=client.loop):
                if future.status == "error":
                    raise _task_error(future)
                _deliver(future.result(), on_result, on_failure)
                future.release()
        finally:
            client.cancel(futures + list(held.values()))


def run_groups_on_dask(
    client: Any,
    make_setup: Callable[[K], ConfigSetup],
    groups: list[tuple[K, list[Task]]],
    on_result: Callable[[K, ChunkResult], None],
    on_failure: Callable[[K, TaskFailure], None] | None = None,
    window: int = 8,
    queue: int = 8,
) -> None:
    """Runs groups of tasks, each group one configuration's, in the order given,
    with at most `window` configurations in flight, and groups started while
    fewer than `queue` tasks are in flight (many small groups at the end keep
    the workers fed): a group's setup is made
    (`make_setup(key)`) and sent to every worker when the group starts and
    dropped when its last task ends, so memory holds `window` setups whatever the number of
    groups (a paper setup carries 5-40 MB of noise; 8 of them are at most
    about 320 MB in each worker). Within the window the
    scheduler starts tasks in the order given (Dask priorities), so the
    workers take the largest first and the small groups at the end fill every
    worker to the last task. `on_result(key, result)` sees each as it ends."""
    from collections import deque

    from distributed import as_completed

    token = uuid.uuid4().hex[:12]
    rank = 0
    total = sum(len(g) for _, g in groups)
    workers = max(1, len(client.nthreads()))
    pending = deque(groups)
    active: dict[K, list[Any]] = {}  # key -> [setup future, tasks left]
    keys: dict[str, K] = {}
    inflight: dict[str, Any] = {}  # key -> future, until its result is delivered
    with quiet_dask():
        done = as_completed(loop=client.loop)

        def start() -> None:
            nonlocal rank
            cfg, group = pending.popleft()
            # A group of several tasks per worker gets its setup on every worker: its tasks then
            # run wherever a worker is free (a setup held by one draws the group's tasks to it
            # while the others wait); a small group's one copy goes where its tasks run.
            if len(group) >= 2 * workers:
                h = client.scatter(make_setup(cfg), broadcast=True, hash=False)
            else:
                h = client.submit(hold, make_setup(cfg), key=f"cloudnoise-setup-{token}-{rank}", pure=False,
                                  priority=total - rank + 1)
            active[cfg] = [h, len(group)]
            for t in group:
                f = client.submit(run_chunk, h, t, threads=1, key=f"cloudnoise-{token}-{rank}-{t.key}",
                                  retries=TASK_RETRIES, pure=False, priority=total - rank)
                rank += 1
                keys[f.key] = cfg
                inflight[f.key] = f
                done.add(f)

        def fill() -> None:
            while pending and (not active or len(active) < window and sum(e[1] for e in active.values()) < queue):
                start()

        try:
            fill()
            for future in done:
                if future.status == "error":
                    raise _task_error(future)
                cfg = keys.pop(future.key)
                inflight.pop(future.key, None)
                _deliver(future.result(), functools.partial(on_result, cfg),
                         None if on_failure is None else functools.partial(on_failure, cfg))
                future.release()
                entry = active[cfg]
                entry[1] -= 1
                if entry[1] == 0:
                    entry[0].release()
                    del active[cfg]
                fill()
        finally:
            client.cancel(list(inflight.values()) + [e[0] for e in active.values()])


def run_groups_in_process(
    make_setup: Callable[[K], ConfigSetup],
    groups: list[tuple[K, list[Task]]],
    on_result: Callable[[K, ChunkResult], None],
    on_failure: Callable[[K, TaskFailure], None] | None = None,
) -> None:
    """`run_groups_on_dask` here, one group after the other (one setup in memory)."""
    for cfg, group in groups:
        setup = make_setup(cfg)
        for task in group:
            _deliver(run_chunk(setup, task), functools.partial(on_result, cfg),
                     None if on_failure is None else functools.partial(on_failure, cfg))


def _task_error(future: Any) -> CloudnoiseError:
    """A task's exception as one line that says what to do."""
    exc = future.exception()
    name = type(exc).__name__
    if name == "KilledWorker":
        return CloudnoiseError(
            f"a sweep task kept killing its workers ({exc}); give the workers more memory, or run fewer "
            "threads per worker; finished tasks are saved: rerun with --resume",
            EXIT_RUNTIME,
        )
    text = str(exc).splitlines()[0] if str(exc) else ""
    hint = " (is cloudnoise installed on the workers?)" if isinstance(exc, ImportError) else ""
    return CloudnoiseError(
        f"a sweep task failed on a worker: {name}: {text}{hint}; finished tasks are saved: rerun with --resume",
        EXIT_RUNTIME,
    )
