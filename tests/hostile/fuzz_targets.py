"""One fuzz target per reader of files and values that may come from someone else.

A target turns a stream of choices into one input (a file, a folder, a value
on the command line), hands it to the reader through cloudnoise's own API, and
accepts exactly two outcomes: the input is read, or the reader refuses it
with an expected error (what `cloudnoise.errors.expected_error` turns into one
`cloudnoise: error:` line, or the engine's own input errors). Anything else
(another exception, a hang, a crash of the process) is a defect.

The choices come from a fuzzer: `hypothesis` in the test suite (a bounded
number of inputs per target, tests/hostile/test_fuzz_readers.py) and
`atheris`, coverage-guided, in bench/bench_fuzz.py (millions). Both drive the
same targets through the small `Choices` interface below, so a defect found
by one is replayed by the other. Each input is either raw bytes (what a
coverage-guided fuzzer is good at) or a well-formed seed with a few
structure-aware edits (a JSON value replaced by one of another type or an
extreme number, a line of text repeated, dropped or cut, a token inserted):
a reader's deeper checks are only reached by inputs that pass its first ones.
"""

from __future__ import annotations

import copy
import json
import shutil
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

import cloudnoise.profiles
from cloudnoise import _engine
from cloudnoise.errors import expected_error

REPO = Path(__file__).resolve().parents[2]
# the trace format's writer from the format's description (tests/trace/native_writer.py)
sys.path.insert(0, str(REPO / "tests" / "trace")) if str(REPO / "tests" / "trace") not in sys.path else None
PROFILE_DATA = Path(cloudnoise.profiles.__file__).parent / "data"


# The modules the targets read through (imported inside them, so that a test collecting
# this file stays light): bench/bench_fuzz.py imports them under atheris's coverage
# instrumentation.
READER_MODULES = (
    "cloudnoise.model.profile", "cloudnoise.model.distributions", "cloudnoise.model.os_noise",
    "cloudnoise.simulation.noise", "cloudnoise.units", "cloudnoise.schedules.apps", "cloudnoise.costs.price_file",
    "cloudnoise.measurement.campaign_files", "cloudnoise.report.data", "cloudnoise.sweep.store",
    "cloudnoise.trace.reader", "cloudnoise.trace.convert", "cloudnoise.trace.native_format",
    "cloudnoise.trace.liballprof", "cloudnoise.input_files", "cloudnoise.limits",
    "cloudnoise.validation.artifact_csv", "cloudnoise.validation.measured_files",
    "cloudnoise.measurement.imports.netgauge_lines", "cloudnoise.measurement.imports.netgauge_pingpong",
    "cloudnoise.measurement.imports.netgauge_osnoise", "cloudnoise.measurement.imports.netgauge_loggp_table",
    "cloudnoise.measurement.imports.netgauge_extras",
)


class Choices(Protocol):
    """Where a target's decisions come from (a fuzzer's input)."""

    def integer(self, low: int, high: int) -> int: ...

    def raw(self, max_size: int) -> bytes: ...


def pick(choices: Choices, items: Sequence[Any]) -> Any:
    return items[choices.integer(0, len(items) - 1)]


class Defect(Exception):
    """A reader's outcome that is neither a result nor an expected one-line error."""


# Values a hostile or careless file holds in place of a good one.
HOSTILE_VALUES: tuple[Any, ...] = (
    None, True, False, 0, -1, 1, 2**31, 2**53 + 1, 2**63, 2**64, -(2**63) - 1, 10**400,
    0.5, -0.0, 1e-300, 1e300, -1e300, float("nan"), float("inf"), float("-inf"),
    "", "x", "1", "1e999", "../../etc/passwd", "$\\frac{", "\u0000", "é" * 3, [], [1, "a"], {}, {"a": None},
)

TEXT_TOKENS: tuple[str, ...] = (
    "\n", "\t", " ", ",", ":", "{", "}", "[", "]", "=", '"', "#", "-", ".", "e", "nan", "inf", "-1", "0",
    "99999999999999999999999", "1e308", "18446744073709551616", "\x00", "\xff", "\ufeff", "\r\n",
)


# -- turning choices into inputs -----------------------------------------


def edited_json(choices: Choices, seed: Any, edits: int = 3) -> Any:
    """`seed` with up to `edits` values (anywhere in it) replaced, removed or duplicated."""
    doc = copy.deepcopy(seed)
    for _ in range(choices.integer(1, edits)):
        paths = list(_json_paths(doc))
        if not paths:
            break
        parent, key = pick(choices, paths)
        action = choices.integer(0, 3)
        if action == 0 and isinstance(parent, dict):
            del parent[key]
        elif action == 2 and isinstance(parent, list):
            parent.append(copy.deepcopy(parent[key]))
        else:  # (a copy: the hostile values are shared by every input)
            parent[key] = copy.deepcopy(pick(choices, HOSTILE_VALUES))
    return doc


def _json_paths(node: Any, depth: int = 0):
    if depth > 12:
        return
    items = node.items() if isinstance(node, dict) else enumerate(node) if isinstance(node, list) else ()
    for key, value in items:
        yield node, key
        yield from _json_paths(value, depth + 1)


def edited_text(choices: Choices, seed: str, edits: int = 4) -> str:
    """`seed` with up to `edits` line or token edits."""
    lines = seed.splitlines(keepends=True)
    for _ in range(choices.integer(1, edits)):
        if not lines:
            lines = [""]
        i = choices.integer(0, len(lines) - 1)
        action = choices.integer(0, 4)
        if action == 0:
            del lines[i]
        elif action == 1:
            lines.insert(i, lines[i])
        elif action == 2:
            cut = choices.integer(0, len(lines[i]))
            lines[i] = lines[i][:cut]
        else:
            pos = choices.integer(0, len(lines[i]))
            lines[i] = lines[i][:pos] + pick(choices, TEXT_TOKENS) + lines[i][pos:]
    return "".join(lines)


def file_bytes(choices: Choices, seeds: Sequence[str | bytes], *, is_json: bool = False) -> bytes:
    """Raw bytes, or a seed edited as text or (for JSON) as a document."""
    mode = choices.integer(0, 3)
    if mode == 0:
        return choices.raw(4096)
    seed = pick(choices, seeds)
    if isinstance(seed, bytes):
        data = bytearray(seed)
        for _ in range(choices.integer(1, 8)):
            if not data:
                break
            data[choices.integer(0, len(data) - 1)] = choices.integer(0, 255)
        return bytes(data[: choices.integer(0, len(data))] if mode == 1 else data)
    if is_json and mode >= 2:
        return json.dumps(edited_json(choices, json.loads(seed))).encode()
    return edited_text(choices, seed).encode("utf-8", "surrogateescape")


# -- running one input ------------------------------------------------------


def outcome(read: Callable[[], Any], also_expected: tuple[type[BaseException], ...] = ()) -> str:
    """'read' or 'refused'; raises Defect for any other outcome."""
    try:
        read()
    except also_expected:
        return "refused"
    except Exception as err:  # noqa: BLE001 - sorting every outcome is the point
        known = expected_error(err)
        if known is None:
            raise Defect(f"{type(err).__name__}: {err}") from err
        # (A file name or value with a newline in the message is fine: the CLI prints it on one line.)
        if not str(known).strip():
            raise Defect(f"an error that says nothing: {type(err).__name__}") from err
        return "refused"
    return "read"


ENGINE_ERRORS: tuple[type[BaseException], ...] = tuple(
    getattr(_engine, name) for name in ("GoalError", "ScheduleError", "DeadlockError") if hasattr(_engine, name)
)


@dataclass(frozen=True)
class Target:
    """A reader under fuzz: `run(choices, workdir)` builds one input and reads it."""

    name: str
    run: Callable[[Choices, Path], str]
    about: str


def _fresh(workdir: Path) -> Path:
    shutil.rmtree(workdir, ignore_errors=True)
    workdir.mkdir(parents=True)
    return workdir


# -- the readers ---------------------------------------------------------------

GOAL_SEEDS = (
    (REPO / "examples" / "dissemination_16.goal").read_text(),
    "num_ranks 3\nrank 0 {\nl1: send 100b to 1 tag 4 cpu 1 nic 0\nl2: recv 8b from -1 tag -1\nl3: calc 500\n"
    "l3 requires l2\nl1 irequires l3\n}\nrank 1 {\n/* c */ l1: recv 100b from 0 tag 4\nl2: send 8b to 0 tag 9\n"
    "l3: calc 10\nl3 requires l1\n}\nrank 2 {\nl1: calc 7\n}\n",
)


def goal(choices: Choices, workdir: Path) -> str:
    """The GOAL reader (C++), and the engine on what it accepts (small schedules)."""
    data = file_bytes(choices, GOAL_SEEDS)

    def read() -> None:
        sched = _engine.parse_goal(data, "fuzz.goal")
        if sched.num_ranks <= 64 and sched.num_ops <= 5000:
            params = _engine.LogGOPSParams(2_500_000, 1_500_000, 1_000_000, 6_000_000, 0, 65535)
            _engine.run(sched, params, _engine.NoiseModel(), program_order=True)

    return outcome(read, ENGINE_ERRORS)


def profile(choices: Choices, workdir: Path) -> str:
    """A profile file, loaded and every model in it built."""
    from cloudnoise.model.profile import load_profile

    # the first four, and Oracle's (bandwidth drops in episodes)
    names = sorted(p.name for p in PROFILE_DATA.glob("*.json") if p.name != "calibration.json")[:4]
    seeds = [(PROFILE_DATA / n).read_text() for n in names + ["oracle-hpc-metal.json"]]
    path = _fresh(workdir) / "p.json"
    path.write_bytes(file_bytes(choices, seeds, is_json=True))

    def read() -> None:
        import numpy as np

        from cloudnoise.simulation.noise import NoiseSetup

        p = load_profile(path)
        p.latency_distribution()
        p.bandwidth_distribution()
        p.bandwidth_sample_distribution()
        episodes = p.bandwidth_episodes()
        if episodes is not None:
            NoiseSetup(bandwidth_episodes=episodes.table(np.random.default_rng(0))).engine_model("network")
        p.os_noise_source()
        p.compute_rate()

    return outcome(read)


def noise_samples(choices: Choices, workdir: Path) -> str:
    """A latency or bandwidth samples file (one number per line, or CSV)."""
    from cloudnoise.model.distributions import check_bandwidth_noise, check_latency_noise, load_empirical

    seeds = ("120\n135.5\n150\n2000\n", "latency_ns\n100\n101\n", "0.99\n1\n0.5\n", "# comment\n1e2\n3e2\n")
    path = _fresh(workdir) / pick(choices, ("s.txt", "s.csv"))
    path.write_bytes(file_bytes(choices, seeds))
    check = pick(choices, (check_latency_noise, check_bandwidth_noise))
    return outcome(lambda: check(load_empirical(str(path))))


def native_trace(choices: Choices, workdir: Path) -> str:
    """A trace from `cloudnoise trace record` (binary rank files), read and converted to a schedule."""
    import native_writer as w

    from cloudnoise.trace.convert import to_schedule
    from cloudnoise.trace.reader import open_trace

    body0 = [w.init(), w.send(1000, 1100, 1, 64, tag=3), w.coll("MPI_Allreduce", 2000, 2500, 8), w.finalize(3000)]
    body1 = [w.init(), w.recv(900, 1300, 0, 64, tag=3), w.irecv(1310, 1320, -1, 8, req=0xA, tag=-1),
             w.poll("MPI_Testany", 1330, 1400, 5, (0xA, 0xB)), w.cancel(1410, 1420, 0xA),
             w.waitall(1430, 1440, [(0xA, -3, -1, 0)], "MPI_Wait"), w.coll("MPI_Allreduce", 2000, 2600, 8),
             w.finalize(3000)]
    root = _fresh(workdir) / "t"
    w.write_trace(root, [body0, body1])
    victim = root / pick(choices, sorted(p.name for p in root.iterdir()))
    victim.write_bytes(file_bytes(choices, (victim.read_bytes(),)))
    return outcome(lambda: to_schedule(open_trace(root)))


def os_noise_trace(choices: Choices, workdir: Path) -> str:
    """An OS-noise (selfish-detour) trace, read and charged to activities by the engine."""
    from cloudnoise.simulation.noise import _engine_trace, load_os_noise

    seeds = ("0\t1000\n5000\t200\n1000000\t50000\n", "# selfish\n10\t1\n20\t1\n30\t1\n")
    path = _fresh(workdir) / "os.trace"
    path.write_bytes(file_bytes(choices, seeds))
    start, length = choices.integer(0, 10**17), choices.integer(0, 10**17)

    def read() -> None:
        # what the reader accepted goes to the engine as simulate hands it over, and is
        # charged to an activity without overflow
        _engine_trace(load_os_noise(str(path), seed=0)).noise(start, length)

    return outcome(read)


VALUE_PARSERS = ("time", "size", "per_byte", "latency_spec", "bandwidth_spec", "os_spec", "app", "pattern_spec")
VALUE_SEEDS = ("2.5us", "16MiB", "100Gbit/s", "lognormal:median=800ns,sigma=0.7", "uniform:low=0.8,high=1",
               "random:rate=1000,duration=5us", "periodic:frequency=100,duration=10us",
               "gemm:128 + dissemination:128KiB", "allreduce_ring:16MiB:segmentsize=4KiB",
               "mixture:0.9*lognormal(median=100,sigma=0.5)+0.1*pareto(scale=1000,alpha=1.5,max=1e5)")


def values(choices: Choices, workdir: Path) -> str:
    """The parsers of command-line values: times, sizes, bandwidths, noise specs, app phases."""
    from cloudnoise.model.distributions import check_bandwidth_noise, check_latency_noise, parse_distribution
    from cloudnoise.model.os_noise import parse_os_noise_spec
    from cloudnoise.schedules.apps import parse_app
    from cloudnoise.units import parse_per_byte_fs, parse_size_bytes, parse_time_ps

    text = file_bytes(choices, VALUE_SEEDS).decode("utf-8", "replace")
    parser = pick(choices, VALUE_PARSERS)
    read: dict[str, Callable[[], Any]] = {
        "time": lambda: parse_time_ps(text),
        "size": lambda: parse_size_bytes(text),
        "per_byte": lambda: parse_per_byte_fs(text),
        "latency_spec": lambda: check_latency_noise(parse_distribution(text)),
        "bandwidth_spec": lambda: check_bandwidth_noise(parse_distribution(text)),
        "os_spec": lambda: parse_os_noise_spec(text).trace(10_000_000_000),
        "app": lambda: parse_app(text),
        "pattern_spec": lambda: parse_app(text),
    }
    return outcome(read[parser])


def app_file(choices: Choices, workdir: Path) -> str:
    """An application file (TOML)."""
    from cloudnoise.schedules.apps import load_app

    seeds = [p.read_text() for p in sorted((REPO / "examples" / "apps").glob("*.toml"))]
    seeds.append('[[phase]]\ngemm = 8192\n[[phase]]\ncollective = "allreduce_ring:512MiB"\n')
    path = _fresh(workdir) / "a.toml"
    path.write_bytes(file_bytes(choices, seeds))
    return outcome(lambda: load_app(str(path)))


def price_file(choices: Choices, workdir: Path) -> str:
    """A price file (CSV)."""
    from cloudnoise.costs.price_file import load_price_file

    seeds = ("system,pricing,usd_per_node_hour,date,source\n"
             "daint,on-demand,2.5,2023-05-01,https://example.org/prices\n"
             "aws-hpc,spot,0.9,2024-01-31,vendor page\n",)
    path = _fresh(workdir) / "prices.csv"
    path.write_bytes(file_bytes(choices, seeds))
    return outcome(lambda: load_price_file(path))


def _campaign_seed() -> dict[str, Any]:
    unit = {"size": 1, "interval_ns": 0, "iterations": 100}
    run = {"probe": "cn_pingpong", "mode": "pingpong", "ranks": 2, "units": [unit], "ppn": None, "split": False,
           "warmup": 10, "duration_s": 0.0, "detours": 0, "inject": None, "role": "measure", "extra": {}}
    return {"cloudnoise_version": "0.0.0", "created": "2026-11-25T05:49:59+00:00", "launch_host": "vm",
            "labels": {"system": "synthetic", "distance": "same-rack"},
            "experiments": {"latency": {"plan": [run], "complete": True}}, "complete": True}


def campaign_metadata(choices: Choices, workdir: Path) -> str:
    """A campaign's metadata.json and summary.json, as `model build`, `report` and `--resume` read them."""
    from cloudnoise.measurement.campaign_files import read_experiment_summary, read_metadata, read_summary

    root = _fresh(workdir) / "c"
    (root / "latency").mkdir(parents=True)
    summary = {"experiments": {"latency": {"samples": 300}},
               "table2": {"min_latency_us": 1.0, "max_bandwidth_gbps": 100.0}, "labels": {}}
    exp = {"experiment": "latency", "samples": 300, "results": [{"size_bytes": 1, "samples": 300, "min_us": 1.0}]}
    files = {root / "metadata.json": _campaign_seed(), root / "summary.json": summary,
             root / "latency" / "summary.json": exp}
    damaged = pick(choices, list(files))  # one file damaged, the others as written: deeper checks get reached
    for path, doc in files.items():
        text = json.dumps(doc)
        path.write_bytes(file_bytes(choices, (text,), is_json=True) if path == damaged else text.encode())

    def read() -> None:
        read_metadata(root)
        read_summary(root)
        read_experiment_summary(root, "latency")

    return outcome(read)


def _sweep_seed() -> dict[str, Any]:
    return {"format": "cloudnoise-sweep/1",
            "experiment": {"name": "t", "kind": "collective", "spec": "dissemination:16B", "figure": None},
            "systems": ["daint"], "nodes": [4], "variants": ["none", "both"], "reps": 2, "seed": 0}


def sweep_folder(choices: Choices, workdir: Path) -> str:
    """A sweep folder's sweep.json (the results beside it are well-formed), as report and cost read it."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    from cloudnoise.report.data import load_sweep

    root = _fresh(workdir) / "s"
    root.mkdir()
    real = REPO / "tests" / "hostile" / "data" / "sweep.json"
    seeds = (real.read_text(),) if real.exists() else (json.dumps(_sweep_seed()),)
    (root / "sweep.json").write_bytes(file_bytes(choices, seeds, is_json=True))
    pq.write_table(pa.table({
        "system": ["daint"] * 4, "nodes": pa.array([4] * 4, pa.int64()), "variant": ["none", "none", "both", "both"],
        "rep": pa.array([0, 1, 0, 1], pa.int64()), "seed": pa.array([0] * 4, pa.uint64()),
        "runtime_ns": [1000.0, 1100.0, 1200.0, 900.0]}), root / "results.parquet")
    return outcome(lambda: load_sweep(root))


def liballprof_trace(choices: Choices, workdir: Path) -> str:
    """A liballprof trace (two rank files), read and converted to a schedule."""
    from cloudnoise.trace.convert import to_schedule
    from cloudnoise.trace.reader import open_trace

    head = "# htor's PMPI Tracer 1.0 Output File\n# hostname: node0.\n\n"
    rank0 = (head + "MPI_Init:-:1:2:1000000.000000\nMPI_Send:1000010.000000:6610272:4:2,4,4:1:9:0,0,2:1000012.000000\n"
             "MPI_Allreduce:1000100.000000:1:2:1:11,8,8:3:0,0,2:1000110.000000\n"
             "MPI_Finalize:1000200.000000:1000201.000000\n")
    rank1 = (head + "MPI_Init:-:1:2:1000000.000000\nMPI_Recv:1000005.000000:6610272:4:2,4,4:0:9:0,1,2:1:1000013.000000\n"
             "MPI_Allreduce:1000100.000000:1:2:1:11,8,8:3:0,1,2:1000111.000000\n"
             "MPI_Finalize:1000200.000000:1000202.000000\n")
    root = _fresh(workdir) / "t"
    root.mkdir()
    which = choices.integer(0, 1)
    (root / "pmpi-trace-rank-0.txt").write_bytes(file_bytes(choices, (rank0,)) if which == 0 else rank0.encode())
    (root / "pmpi-trace-rank-1.txt").write_bytes(file_bytes(choices, (rank1,)) if which == 1 else rank1.encode())
    return outcome(lambda: to_schedule(open_trace(root)))


def otf2_archive(choices: Choices, workdir: Path) -> str:
    """An OTF2 archive (the optional `otf2` reader) with one of its files damaged, read and converted.
    The archive's files are read by the OTF2 C library: this target runs in bench_fuzz.py's own
    process only (a crash there would take the test session with it)."""
    from cloudnoise.trace.convert import to_schedule
    from cloudnoise.trace.reader import open_trace

    template = workdir.parent / "otf2-template"
    if not template.exists():
        import otf2_writer as ow

        T = 5_000_000
        with ow.Archive(template, 2, resolution=1_000_000) as a:
            w = a.world
            a.call(0, "MPI_Init", T, T + 10)
            a.call(0, "MPI_Send", T + 20, T + 21, ("mpi_send", T + 20, 1, w, 7, 64))
            a.call(0, "MPI_Finalize", T + 50, T + 60)
            a.call(1, "MPI_Init", T, T + 12)
            a.call(1, "MPI_Recv", T + 15, T + 23, ("mpi_recv", T + 22, 0, w, 7, 64))
            a.call(1, "MPI_Finalize", T + 40, T + 45)
    root = _fresh(workdir) / "a"
    shutil.copytree(template, root)
    victim = pick(choices, sorted(p for p in root.rglob("*") if p.is_file()))
    victim.write_bytes(file_bytes(choices, (victim.read_bytes(),)))
    return outcome(lambda: to_schedule(open_trace(root)))


MEASURED_RUN_SEEDS = (
    "#MessageSize Rank0Time(us) Rank1Time(us) Rank2Time(us) Rank3Time(us) \n"
    "16 4.291534 4.053116 7.867813 5.483627 \n16 9.059906 3.576279 8.821487 4.053116 \n",
    "#MessageSize Rank0Time(us) Rank1Time(us) \n16384 21.0 20.5 \n16384 22.25 19.0 \n",
)
MEASURED_RUN_NAMES = ("nwaydissemination_nocompute_4_16.csv", "pipelinedring_test_2_16384.csv",
                      "linear_alltoall_4_16.csv", "binomialtreebcast_nbsend_2_16384.csv", "x_4_16.csv")


def measured_runs(choices: Choices, workdir: Path) -> str:
    """Collective runs measured elsewhere (validate --measured): a per-rank CSV
    in a folder or streamed from a .tar.xz, read and mapped to its schedule."""
    import io
    import tarfile

    from cloudnoise.validation.artifact_schedules import UnmappedRun, run_schedule
    from cloudnoise.validation.measured import read_runs

    root = _fresh(workdir)
    name = pick(choices, MEASURED_RUN_NAMES)
    data = file_bytes(choices, MEASURED_RUN_SEEDS)
    if choices.integer(0, 1):
        source = root / "run.tar.xz"
        with tarfile.open(source, "w:xz") as tar:
            info = tarfile.TarInfo(f"run/{name}")
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
        if choices.integer(0, 2) == 0:  # a cut archive
            whole = source.read_bytes()
            source.write_bytes(whole[: choices.integer(0, len(whole))])
    else:
        source = root / "run"
        source.mkdir()
        (source / name).write_bytes(data)

    def read() -> None:
        items = list(read_runs(source))
        for item in items:
            if isinstance(item, str):
                raise UnmappedRun(item)
            run_schedule(item.name)

    return outcome(read)


NETGAUGE_SEEDS = {
    "pingpong": ("#size\trtt\n" + "1\t1.430500\n" * 1000, "#size\trtt\n" + "16777216\t1800.537000\n" * 1000
                 + "#size\trtt\n" + "16777216\t1783.132500\n" * 1000),
    "osnoise": ("# Benchmark Method: selfish\n# Nodename: nid00460\n# Minimal cycle length [ns]: 237.973277 \n"
                "# Threshold: [% minimal cycle length]: 900 \n# Time [ns]\tselfish duration [ns]\n0.00\t6675.25\n"
                "9773.90\t16926.10\n# CPU overhead due to noise: 0.67%\n# Measurement period: 101.52 s\n",),
    "loggp": ("# size n PRTT(1,0,s) PRTT(n,0,s) PRTT(n,PRTT(1,0,s),s) L o_s o_r g G lsqu(g,G)\n#\n#\n"
              "1 10 2.622000 15.974000 38.862000 1.311000 1.404667 1.431111 -nan -nan -nan\n"
              "1025 10 4.529000 19.550000 59.127000 1.311000 1.537444 1.669778 1.483374 0.000181 -nan\n",),
    "gemm": ("#N\tTIME(s)\tGFLOPs/s\tTHEO_PEAK\n1024\t0.01\t200.0\t300.0\n",),
    "hoverboard": ("# Hoverboard test (1048576 1 1000000000)\n# time(ns),sleep_time(ns),repetitions\n"
                   "5685806,1000000000,1\n246763,1000000000,1\n",),
}


def netgauge_file(choices: Choices, workdir: Path) -> str:
    """A Netgauge output file (ping-pong samples, selfish detours, LogGP table, DGEMM, hoverboard),
    read by the import's parser for its kind."""
    import io

    from cloudnoise.measurement.imports import (
        netgauge_extras,
        netgauge_loggp_table,
        netgauge_osnoise,
        netgauge_pingpong,
    )

    kind = pick(choices, sorted(NETGAUGE_SEEDS))
    data = io.BytesIO(file_bytes(choices, NETGAUGE_SEEDS[kind]))
    read: dict[str, Callable[[], Any]] = {
        "pingpong": lambda: list(netgauge_pingpong.read(data, "f", netgauge_pingpong.PingPongTotals())),
        "osnoise": lambda: list(netgauge_osnoise.read(data, "f", [])),
        "loggp": lambda: netgauge_loggp_table.read(data, "f").records(),
        "gemm": lambda: netgauge_extras.read_gemm(data, "f"),
        "hoverboard": lambda: netgauge_extras.read_hoverboard(data, "f"),
    }
    return outcome(read[kind])


TARGETS: dict[str, Target] = {
    t.name: t
    for t in (
        Target("goal", goal, "GOAL text (C++ reader) and the engine"),
        Target("profile", profile, "profile JSON and the noise models it names"),
        Target("noise-samples", noise_samples, "latency/bandwidth samples files"),
        Target("os-noise-trace", os_noise_trace, "OS-noise traces"),
        Target("values", values, "command-line values: times, sizes, bandwidths, noise specs, app phases"),
        Target("app-file", app_file, "application TOML"),
        Target("price-file", price_file, "price CSV"),
        Target("campaign", campaign_metadata, "campaign metadata.json and summaries"),
        Target("sweep", sweep_folder, "sweep.json with its results"),
        Target("liballprof", liballprof_trace, "liballprof traces, converted"),
        Target("native-trace", native_trace, "recorded traces (binary rank files), converted"),
        Target("measured-runs", measured_runs, "collective runs measured elsewhere (validate --measured)"),
        Target("netgauge-file", netgauge_file, "Netgauge output files, by the import's parsers"),
    )
}
# Targets that read through a C library of someone else's in this process: bench only.
BENCH_ONLY: dict[str, Target] = {"otf2": Target("otf2", otf2_archive, "OTF2 archives (otf2 package), converted")}

