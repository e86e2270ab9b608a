"""Applications: compute and communication phases, repeated.

An application is a sequence of phases run K times (iterations) on every
rank. A phase is compute (one local `calc` per rank) or a collective (any
Schedgen pattern, generated in the engine). It is what tightly coupled codes
look like to the network: compute, exchange, compute, exchange.

Phase syntax (phases joined by `+`, spaces optional)::

    gemm:N[:gflops=R]       DGEMM of two N x N double matrices (2 N^3 flop);
                            its time comes from the compute model
                            (cloudnoise.schedules.compute_model): R GFLOP/s if
                            given (here or --gflops), else the system's rate
                            (its profile's `compute`), else DGEMM timed on
                            this machine with numpy's BLAS (cached).
    compute:T               a fixed compute time; T needs a unit: 2.5ms, 800us
    PATTERN:SIZE[:OPTS]     a Schedgen collective (see `cloudnoise schedule
                            list`), SIZE with a unit (128KiB, 512MiB);
                            OPTS are comma-separated nway=K, segmentsize=B,
                            nb=T (Schedgen's --nway, --segmentsize, --nb),
                            schedgen=public|paper (whose Schedgen: see
                            cloudnoise.schedules.patterns); segmentsize=size/ranks
                            gives one segment per rank (the paper's rings)

Examples::

    gemm:128 + dissemination:128KiB
    gemm:8192 + allreduce_ring:512MiB
    compute:1ms + nwaydissemination:8B:nway=3 + compute:250us
    gemm:8192 + pipelinedring:512MiB:schedgen=paper,segmentsize=size/ranks

An app file (TOML, `--app strawman.toml`) holds the same, plus defaults::

    name = "strawman, small"
    iterations = 10          # --iterations overrides
    ranks = 64               # optional; --ranks overrides
    gflops = 2000            # optional; --gflops overrides
    phases = ["gemm:128", "dissemination:128KiB"]

or, with one table per phase::

    [[phase]]
    gemm = 128
    [[phase]]
    compute = "2.5ms"
    [[phase]]
    collective = "pipelinedring"
    size = "1MiB"
    segmentsize = "64KiB"

How phases are joined (see src/engine/schedules/application.hpp): on each
rank, every phase starts once that rank has finished its previous phase (the
previous iteration's last phase for a first phase). There is no barrier
between phases beyond what the collective itself implies. Collective
instances get distinct message tags, so messages of different phases can
never match each other.

Compute and communication time: for these bulk-synchronous applications the
compute phases lie on the critical path, so `compute` = K x (sum of the
compute phases' lengths), and `communication` = completion - compute: the
collectives' time plus every wait and delay that noise adds (OS detours met
during compute included). `cm_cp_ratio` = communication / compute (Cm/Cp).
"""

from __future__ import annotations

import dataclasses
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from cloudnoise import limits
from cloudnoise.errors import CloudnoiseError
from cloudnoise.model.compute import ComputeRate
from cloudnoise.output_files import atomic_write
from cloudnoise.schedules.compute_model import ComputeTime, gemm_time
from cloudnoise.schedules.patterns import (
    DEFAULT_SCHEDGEN,
    CollectiveSpec,
    _call,
    _engine,
    check_schedgen,
    parse_segmentsize,
    accepted_names,
    pattern_names,
)
from cloudnoise.units import parse_size_bytes, parse_time_ps

_COLLECTIVE_OPTIONS = ("nway", "segmentsize", "nb", "schedgen")


@dataclass(frozen=True)
class Phase:
    """One phase as written; `kind` is gemm, compute or collective."""

    kind: str
    text: str
    n: int = 0  # gemm
    gflops: float | None = None  # gemm, per phase
    compute_ps: int = 0  # compute
    pattern: str = ""  # collective
    size: int = 0
    nway: int = 1
    segmentsize: int | str = 1  # bytes, or "size/ranks"
    nb_ns: int | None = None
    schedgen: str = DEFAULT_SCHEDGEN

    def collective(self, ranks: int) -> CollectiveSpec:
        """This collective phase on `ranks` ranks (checks its arguments against them)."""
        return CollectiveSpec(self.pattern, ranks, self.size, self.nway, self.segmentsize, self.nb_ns, self.schedgen)


@dataclass(frozen=True)
class AppSpec:
    """An application as parsed, before compute times and ranks are fixed."""

    phases: tuple[Phase, ...]
    name: str = ""
    iterations: int | None = None
    ranks: int | None = None
    gflops: float | None = None
    source: str = ""


def _fail(where: str, message: str) -> CloudnoiseError:
    return CloudnoiseError(f"{where}: {message}")


def _positive_int(text: str, where: str, what: str) -> int:
    try:
        value = int(text.strip().replace("_", ""))
    except ValueError:
        raise _fail(where, f"{what} must be a positive integer, got {text.strip()!r}") from None
    if value < 1:
        raise _fail(where, f"{what} must be a positive integer, got {value}")
    return value


def _positive_float(text: Any, where: str, what: str) -> float:
    try:
        value = float(text)
    except (TypeError, ValueError):
        raise _fail(where, f"{what} must be a positive number, got {text!r}") from None
    if not value > 0 or value == float("inf"):
        raise _fail(where, f"{what} must be a positive number, got {text!r}")
    return value


def _options(text: str, where: str, allowed: tuple[str, ...]) -> dict[str, str]:
    out: dict[str, str] = {}
    for item in text.split(","):
        item = item.strip()
        if not item:
            continue
        key, eq, value = item.partition("=")
        key = key.strip()
        if not eq or not value.strip():
            raise _fail(where, f"option {item!r} should be NAME=VALUE ({', '.join(allowed)})")
        if key not in allowed:
            raise _fail(where, f"unknown option {key!r} (choose from {', '.join(allowed)})")
        if key in out:
            raise _fail(where, f"option {key!r} given twice")
        out[key] = value.strip()
    return out


def _time_ps(text: str, where: str) -> int:
    t = text.strip()
    if not t or t[-1].isdigit() or t[-1] == ".":
        raise _fail(where, f"a time needs a unit (ps, ns, us, ms, s), got {t!r}")
    try:
        return parse_time_ps(t, where)
    except CloudnoiseError as err:
        raise CloudnoiseError(str(err)) from None


def parse_phase(text: str, where: str = "", schedgen: str | None = None) -> Phase:
    """One phase: `gemm:N[:gflops=R]`, `compute:T` or `PATTERN:SIZE[:OPTS]`;
    a collective that names no `schedgen=` takes `schedgen` (default public)."""
    text = text.strip()
    where = where or f"phase {text!r}"
    if not text:
        raise _fail(where, "empty phase (two '+' in a row, or a '+' at an end?)")
    parts = [p.strip() for p in text.split(":")]
    kind = parts[0]
    if len(parts) < 2 or not parts[1]:
        raise _fail(where, "expected KIND:VALUE, e.g. gemm:128, compute:2.5ms or dissemination:128KiB")
    if len(parts) > 3:
        raise _fail(where, "too many ':' (options go after the second ':' separated by commas)")
    opts_text = parts[2] if len(parts) == 3 else ""
    if kind == "gemm":
        n = _positive_int(parts[1], where, "gemm's N")
        opts = _options(opts_text, where, ("gflops",))
        gflops = _positive_float(opts["gflops"], where, "gflops") if "gflops" in opts else None
        return Phase("gemm", text, n=n, gflops=gflops)
    if kind == "compute":
        if opts_text:
            raise _fail(where, "compute takes no options")
        return Phase("compute", text, compute_ps=_time_ps(parts[1], where))
    names = accepted_names()
    if kind not in names:
        raise _fail(where, f"unknown phase kind {kind!r}; use gemm, compute or a pattern: {', '.join(names)}")
    try:
        size = parse_size_bytes(parts[1], "size")
    except CloudnoiseError as err:
        raise _fail(where, str(err)) from None
    opts = _options(opts_text, where, _COLLECTIVE_OPTIONS)
    nway = _positive_int(opts["nway"], where, "nway") if "nway" in opts else 1
    try:
        segmentsize = parse_segmentsize(opts["segmentsize"], "segmentsize") if "segmentsize" in opts else 1
        schedgen = check_schedgen(opts.get("schedgen", schedgen or DEFAULT_SCHEDGEN), "schedgen")
    except CloudnoiseError as err:
        raise _fail(where, str(err)) from None
    if isinstance(segmentsize, int) and segmentsize < 1:
        raise _fail(where, "segmentsize must be at least 1 byte")
    nb_ns = _time_ps(opts["nb"], where) // 1000 if "nb" in opts else None
    return Phase("collective", text, pattern=kind, size=size, nway=nway, segmentsize=segmentsize, nb_ns=nb_ns,
                 schedgen=schedgen)


def parse_app(text: str, schedgen: str | None = None) -> AppSpec:
    """An application from the `+`-joined phase syntax (`schedgen`: the
    flavour of collectives that do not name theirs)."""
    if not text.strip():
        raise CloudnoiseError("--app: empty application; e.g. --app 'gemm:128 + dissemination:128KiB'")
    pieces = text.split("+")
    phases = tuple(parse_phase(p, f"--app phase {i + 1} ({p.strip()!r})", schedgen) for i, p in enumerate(pieces))
    return AppSpec(phases=phases, name=" + ".join(p.text for p in phases), source=text)


_FILE_KEYS = ("name", "iterations", "ranks", "gflops", "phases", "phase")
_TABLE_KINDS = ("gemm", "compute", "collective")


def _phase_from_table(table: dict[str, Any], where: str, schedgen: str | None = None) -> Phase:
    kinds = [k for k in _TABLE_KINDS if k in table]
    if len(kinds) != 1:
        raise _fail(where, "needs exactly one of gemm = N, compute = \"T\" or collective = \"PATTERN\"")
    kind = kinds[0]
    allowed = {"gemm": ("gemm", "gflops"), "compute": ("compute",), "collective": ("collective", "size", *_COLLECTIVE_OPTIONS)}[kind]
    for key in table:
        if key not in allowed:
            raise _fail(where, f"unknown key {key!r} for a {kind} phase (allowed: {', '.join(allowed)})")
    if kind == "gemm":
        text = f"gemm:{table['gemm']}" + (f":gflops={table['gflops']}" if "gflops" in table else "")
    elif kind == "compute":
        text = f"compute:{table['compute']}"
    else:
        if "size" not in table:
            raise _fail(where, "a collective phase needs size = \"SIZE\"")
        opts = ",".join(f"{k}={table[k]}" for k in _COLLECTIVE_OPTIONS if k in table)
        text = f"{table['collective']}:{table['size']}" + (f":{opts}" if opts else "")
    return parse_phase(text, where, schedgen)


def load_app(path: str | Path, schedgen: str | None = None) -> AppSpec:
    """An application from a TOML app file (see the module docstring)."""
    p = Path(path)
    try:
        data = tomllib.loads(p.read_text())
    except FileNotFoundError:
        raise CloudnoiseError(f"{p}: no such app file") from None
    except (OSError, UnicodeDecodeError) as err:
        raise CloudnoiseError(f"{p}: cannot read ({err})") from None
    except tomllib.TOMLDecodeError as err:
        raise CloudnoiseError(f"{p}: not valid TOML ({err})") from None
    for key in data:
        if key not in _FILE_KEYS:
            raise CloudnoiseError(f"{p}: unknown key {key!r} (allowed: {', '.join(_FILE_KEYS)})")
    if ("phases" in data) == ("phase" in data):
        raise CloudnoiseError(f"{p}: give the phases either as phases = [\"gemm:128\", ...] or as [[phase]] tables")
    phases: list[Phase] = []
    if "phases" in data:
        items = data["phases"]
        if not isinstance(items, list) or not all(isinstance(i, str) for i in items):
            raise CloudnoiseError(f"{p}: phases must be a list of strings like \"gemm:128\"")
        for i, item in enumerate(items):
            phases.extend(parse_phase(x, f"{p}: phase {i + 1} ({x.strip()!r})", schedgen) for x in item.split("+"))
    else:
        tables = data["phase"]
        if not isinstance(tables, list) or not all(isinstance(t, dict) for t in tables):
            raise CloudnoiseError(f"{p}: phase must be an array of tables ([[phase]])")
        phases = [_phase_from_table(t, f"{p}: [[phase]] {i + 1}", schedgen) for i, t in enumerate(tables)]
    if not phases:
        raise CloudnoiseError(f"{p}: no phases")

    def opt_int(key: str) -> int | None:
        v = data.get(key)
        if v is None:
            return None
        if not isinstance(v, int) or isinstance(v, bool) or v < 1:
            raise CloudnoiseError(f"{p}: {key} must be a positive integer, got {v!r}")
        return v

    gflops = data.get("gflops")
    if gflops is not None:
        gflops = _positive_float(gflops, str(p), "gflops")
    name = data.get("name", p.stem)
    if not isinstance(name, str):
        raise CloudnoiseError(f"{p}: name must be a string")
    return AppSpec(
        phases=tuple(phases),
        name=name,
        iterations=opt_int("iterations"),
        ranks=opt_int("ranks"),
        gflops=gflops,
        source=str(p),
    )


def app_from(value: str, schedgen: str | None = None) -> AppSpec:
    """`--app`'s value: an app file (a path that exists, or ends in .toml), else
    the phase syntax; `schedgen` is the flavour of the collectives that name none."""
    if schedgen is not None:
        check_schedgen(schedgen)
    if value.strip().endswith(".toml") or Path(value).is_file():
        return load_app(value, schedgen)
    if ":" not in value and Path(value).is_dir():
        raise CloudnoiseError(f"--app {value}: is a directory; give an app file (TOML) or phases such as "
                              "'gemm:128 + dissemination:128KiB' (see docs/how-to/applications.md)")
    return parse_app(value, schedgen)


@dataclass
class Application:
    """An application with its ranks, iterations and compute times fixed."""

    spec: AppSpec
    ranks: int
    iterations: int
    compute: list[ComputeTime | None] = field(default_factory=list)  # per phase; None for collectives

    @property
    def compute_ps_per_iteration(self) -> int:
        return sum(c.ps for c in self.compute if c is not None)

    @property
    def compute_ns(self) -> float:
        """Compute time on the critical path: iterations x the compute phases."""
        ps = self.iterations * self.compute_ps_per_iteration
        return ps // 1000 if ps % 1000 == 0 else ps / 1000

    def strong(self, ranks: int | None = None) -> Application:
        """The application strongly scaled to `ranks` (default its own): its compute
        phases are the whole job's work, each rank's share 1 / ranks of it."""
        n = self.ranks if ranks is None else ranks
        compute = [None if c is None else dataclasses.replace(
            c, seconds=c.seconds / n, detail=f"{c.detail}; / {n} ranks (strong scaling)".lstrip("; "))
            for c in self.compute]
        return dataclasses.replace(self, ranks=n, compute=compute)

    def engine_phases(self, whole_ns: bool = False) -> list[tuple[str, str, int, int, int, int | None, str]]:
        """Phases as the engine takes them; `whole_ns` rounds compute to ns (GOAL's unit)."""
        out = []
        for phase, c in zip(self.spec.phases, self.compute):
            if c is not None:
                ps = round(c.ps, -3) if whole_ns else c.ps
                out.append(("compute", "", ps, 0, 0, None, ""))
            else:
                spec = phase.collective(self.ranks)  # an MPI name becomes MPICH's algorithm at these ranks
                out.append(("collective", spec.pattern, phase.size, phase.nway, spec.segment_bytes(), phase.nb_ns,
                            phase.schedgen))
        return out

    def generate(self) -> Any:
        """The application as an engine `Schedule`."""
        return _call(_engine().generate_application, self.ranks, self.iterations, self.engine_phases())

    def goal_text(self) -> str:
        """The application as GOAL text (compute times rounded to whole ns, GOAL's unit)."""
        return _call(_engine().application_goal_text, self.ranks, self.iterations, self.engine_phases(whole_ns=True))

    def write_goal(self, path: str | Path) -> None:
        """Writes the application as GOAL text (gzip if path ends in .gz); compute rounded to ns."""
        phases = self.engine_phases(whole_ns=True)
        atomic_write(
            path, lambda tmp: _call(_engine().write_application_goal, self.ranks, self.iterations, phases, str(tmp))
        )

    def count(self) -> dict[str, int]:
        return dict(_call(_engine().count_application, self.ranks, self.iterations, self.engine_phases()))

    def label(self) -> str:
        text = " + ".join(self._phase_text(p) for p in self.spec.phases)
        written = " + ".join(p.text for p in self.spec.phases)
        head = f"{self.spec.name}: " if self.spec.name and self.spec.name != written else ""
        return f"{head}{text}, {self.iterations} iteration{'s' if self.iterations != 1 else ''}, {self.ranks} ranks"

    def _phase_text(self, phase: Any) -> str:
        """A phase as written; an MPI name also says the algorithm MPICH runs here."""
        if phase.kind == "collective":
            spec = phase.collective(self.ranks)
            if spec.mpi_call is not None:
                return f"{phase.text} (MPICH's algorithm here: {spec.pattern})"
        return str(phase.text)

    def describe(self) -> dict[str, Any]:
        """The application for JSON output."""
        phases = []
        for phase, c in zip(self.spec.phases, self.compute):
            d: dict[str, Any] = {"phase": phase.text, "kind": "compute" if c is not None else "collective"}
            if c is not None:
                d.update(duration_ns=c.ps / 1000, method=c.method, detail=c.detail)
                if c.gflops is not None:
                    d.update(gflops=c.gflops, rate_source=c.rate_kind)
            phases.append(d)
        return {
            "name": self.spec.name,
            "source": self.spec.source,
            "ranks": self.ranks,
            "iterations": self.iterations,
            "phases": phases,
            "compute_ns": self.compute_ns,
        }


def resolve(
    spec: AppSpec,
    *,
    ranks: int | None = None,
    iterations: int | None = None,
    gflops: float | None = None,
    rate: ComputeRate | None = None,
    cache_dir: Path | None = None,
) -> Application:
    """Fixes ranks (argument, else the file's), iterations (argument, else the
    file's, else 1) and every compute phase's time (see compute_model): a
    phase's own gflops, else `gflops` (--gflops), else the file's, else the
    system's `rate` (a profile's compute), else DGEMM timed here."""
    # counts the engine's generator can take, or one line naming where they came from
    if ranks is not None:
        limits.check_count(ranks, "--ranks", 1, limits.MAX_RANKS)
    elif spec.ranks is not None:
        ranks = limits.check_count(spec.ranks, "ranks", 1, limits.MAX_RANKS, spec.source)
    else:
        raise CloudnoiseError("--app needs --ranks P (or ranks = P in the app file)")
    if iterations is not None:
        limits.check_count(iterations, "--iterations", 1, limits.MAX_APP_ITERATIONS)
    else:
        iterations = limits.check_count(spec.iterations or 1, "iterations", 1, limits.MAX_APP_ITERATIONS, spec.source)
    user_rate = gflops if gflops is not None else spec.gflops
    compute: list[ComputeTime | None] = []
    for phase in spec.phases:
        if phase.kind == "gemm":
            given = phase.gflops or user_rate
            compute.append(gemm_time(phase.n, gflops=given, rate=None if given else rate, directory=cache_dir))
        elif phase.kind == "compute":
            compute.append(ComputeTime(phase.compute_ps / 1e12, "given", phase.text))
        else:
            phase.collective(ranks)  # checks the pattern's arguments against these ranks
            compute.append(None)
    app = Application(spec=spec, ranks=ranks, iterations=iterations, compute=compute)
    _check_compute_fits(app)
    return app


def _check_compute_fits(app: Application) -> None:
    """Each compute phase, and all of them over the iterations, within one
    simulated time (limits.MAX_TIME_PS): the engine keeps times in int64 ps."""
    where = f"{app.spec.source}: " if app.spec.source.endswith(".toml") else "--app "
    longest = limits.MAX_TIME_PS / 1e12
    for phase, c in zip(app.spec.phases, app.compute):
        if c is not None and c.ps > limits.MAX_TIME_PS:
            rate = f" at {c.gflops:g} GFLOP/s" if c.gflops else ""
            hint = "give a smaller N or a higher --gflops" if phase.kind == "gemm" else "give a shorter time"
            raise CloudnoiseError(f"{where}{phase.text}{rate} takes {c.seconds:.3g} s, longer than one simulated time "
                                  f"may last ({longest:g} s): {hint}")
    total_s = app.iterations * app.compute_ps_per_iteration / 1e12
    if total_s > longest:
        raise CloudnoiseError(f"{where}{app.iterations} iterations of {app.compute_ps_per_iteration / 1e12:.3g} s of "
                              f"compute take {total_s:.3g} s, longer than one simulated time may last ({longest:g} s): "
                              "give fewer --iterations or shorter phases")


def split_times(app: Application, max_end_ns: np.ndarray) -> dict[str, Any]:
    """Compute and communication time of every repetition (see the module docstring)."""
    end = np.asarray(max_end_ns, dtype=float)
    compute = float(app.compute_ns)
    comm = end - compute
    ratio = comm / compute if compute > 0 else np.full_like(comm, np.nan)

    def clean(values: np.ndarray) -> list[int | float | None]:
        return [None if np.isnan(v) else (int(v) if float(v).is_integer() else round(float(v), 6)) for v in values]

    return {
        "compute_ns": app.compute_ns,
        "communication_ns": clean(comm),
        "cm_cp_ratio": clean(ratio) if compute > 0 else [None] * len(comm),
        "communication_median_ns": float(np.median(comm)) if len(comm) else None,
        "cm_cp_ratio_median": float(np.median(ratio)) if compute > 0 and len(comm) else None,
    }
