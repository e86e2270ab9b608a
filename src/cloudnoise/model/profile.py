"""System profiles: everything the simulator and the cost model need to know about one system.

A profile is one JSON file (format `cloudnoise-profile/1`, documented in
docs/profile-format.md).  The built-in profiles (the paper's Table I systems)
and the profiles `cloudnoise model build` writes from a user's own measurement
campaign use this same format.

Every part carries a provenance: `measured` (by the user's campaign or the
paper's authors), `published` (copied from a price list, data sheet or paper
table), `reconstructed` (derived under stated assumptions) or `calibrated`
(fitted to cited targets, see cloudnoise.profiles.calibrate), with a `source`
sentence, so no one mistakes a reconstruction for a measurement.

Noise models are given as a spec string (see cloudnoise.model.distributions and
cloudnoise.model.os_noise), as a samples/trace file relative to the profile's
folder, or (for distributions) as an embedded quantile table.

A profile may come from someone else (docs/reference/security.md): it is checked
against PROFILE_SCHEMA (types, and every number within cloudnoise.limits)
before anything is built from it, and the data files it names (its side
files) must lie inside its own folder and be there: one rule, `side_file`,
which `cloudnoise profiles copy` (profiles/copy.py) follows to copy a
profile whole.
"""

from __future__ import annotations

import json
import math
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any

import numpy as np

from cloudnoise import limits
from cloudnoise.errors import CloudnoiseError
from cloudnoise.model.compute import ComputeRate, PeakFlops, peak_times_efficiency
from cloudnoise.input_files import check_schema, file_beside, read_json
from cloudnoise.model.distributions import (
    BANDWIDTH_NOISE,
    LATENCY_NOISE,
    Distribution,
    NoiseUse,
    QuantileTable,
    check_bandwidth_noise,
    check_latency_noise,
    load_empirical,
    parse_distribution,
    spec_files,
)
from cloudnoise.model.os_noise import OSNoiseTrace, SyntheticOSNoise, parse_os_noise_spec, read_trace
from cloudnoise.model.bandwidth_episodes import BandwidthEpisodes, parse_bandwidth_episodes
from cloudnoise.model.latency_episodes import LatencyEpisodes, parse_latency_episodes
from cloudnoise.model.latency_levels import LatencyLevels, parse_latency_levels
from cloudnoise.model.latency_state import LatencyState, parse_latency_state
from cloudnoise.model.provenance import PROVENANCE_KINDS, Provenance
from cloudnoise.model.switch_draws import SwitchDraws, SwitchSets, switch_sets
from cloudnoise.output_files import write_text

FORMAT = "cloudnoise-profile/1"
# Top-level keys in the order they are written (after "format").
KEY_ORDER = (
    "name",
    "description",
    "labels",
    "hardware",
    "compute",
    "prices",
    "table2",
    "loggops",
    "latency_noise",
    "bandwidth_noise",
    "os_noise",
    "different_racks",
    "switch_draws",
    "campaign",
    "closure",
    "bandwidth_closure",
    "check",
    "copied_from",
)
PLACEMENTS = ("same-rack", "different-racks")


def _schema() -> dict[str, Any]:
    """The JSON Schema of a profile file: every type, and every number within its limit."""
    text = {"type": "string", "maxLength": 100_000}
    opt_text = {"type": ["string", "null"], "maxLength": 100_000}
    provenance = {
        "type": "object",
        "required": ["kind", "source"],
        "properties": {"kind": {"enum": list(PROVENANCE_KINDS)}, "source": text},
        "additionalProperties": False,
    }

    def number(high: float) -> dict[str, Any]:
        return {"type": "number", "minimum": 0, "maximum": high}

    def opt_number(high: float) -> dict[str, Any]:
        return {"type": ["number", "null"], "minimum": 0, "maximum": high}

    def part(required: list[str], **props: Any) -> dict[str, Any]:
        return {
            "type": "object",
            "required": ["provenance", *required],
            "properties": {"provenance": provenance, **props},
            "additionalProperties": False,
        }

    time_ns = number(limits.MAX_TIME_NS)
    per_byte_ns = number(limits.MAX_PER_BYTE_FS / 1e6)
    price = opt_number(limits.MAX_PRICE_PER_NODE_HOUR)
    link = {
        "type": ["object", "null"],
        "properties": {k: opt_number(1e12) for k in (
            "min_latency_us", "mean_latency_us", "max_bandwidth_gbit_s", "mean_bandwidth_gbit_s")},
        "additionalProperties": False,
    }
    # a replay against its measurement (model/closure.py, model/bandwidth_closure.py)
    closure = {"oneOf": [{"type": "null"}, part(
        ["experiment", "round_trips", "closes", "rows"], experiment=text,
        size_bytes={"type": ["integer", "null"], "minimum": 0},
        round_trips={"type": "integer", "minimum": 0}, closes={"type": "boolean"},
        replayed={"type": ["integer", "null"], "minimum": 0},
        rows={"type": "array", "maxItems": 1000, "items": {
            "type": "object", "required": ["statistic", "measured", "replay", "judged", "within"],
            "properties": {"statistic": text,  # a sum's excess over K medians may be below 0
                           "measured": {"type": "number", "minimum": -1e18, "maximum": 1e18},
                           "replay": {"type": "number", "minimum": -1e18, "maximum": 1e18},
                           "judged": {"type": "boolean"}, "within": {"type": "boolean"},
                           # the measured quantile's own 95 % interval (model/quantile_interval.py)
                           "interval_95": {"type": "array", "minItems": 2, "maxItems": 2,
                                           "items": {"type": "number", "minimum": -1e18, "maximum": 1e18}}},
            "additionalProperties": False}},
        clock_step_ns=opt_number(1e12), seed={"type": ["integer", "null"], "minimum": 0},
        tolerance=opt_text, stall_model=opt_text,
        notes={"type": ["array", "null"], "items": text, "maxItems": 1000})]}
    noise = part(
        [], spec=opt_text, samples=opt_text, column=opt_text, note=opt_text, episodes=opt_text, stalls=opt_text,
        levels=opt_text, state=opt_text,
        quantiles={
            "type": ["object", "null"],
            "required": ["p", "v"],
            "properties": {
                "p": {"type": "array", "items": {"type": "number"}, "minItems": 2, "maxItems": 1_000_000},
                "v": {"type": "array", "items": {"type": "number"}, "minItems": 2, "maxItems": 1_000_000},
            },
            "additionalProperties": False,
        },
    )
    os_noise = part([], trace=opt_text, synthetic=opt_text, note=opt_text)
    size_class = {
        "type": "object", "required": ["min_bytes", "L", "G", "O"],
        "properties": {"min_bytes": {"type": "integer", "minimum": 0, "maximum": 2**62},
                       "L": time_ns, "G": per_byte_ns, "O": per_byte_ns},
        "additionalProperties": False,
    }
    loggops = part(
        ["L", "o", "g", "G", "O", "S"], L=time_ns, o=time_ns, g=time_ns, G=per_byte_ns, O=per_byte_ns,
        S={"type": "integer", "minimum": 0, "maximum": 2**63 - 1},
        O_rendezvous={"oneOf": [{"type": "null"}, per_byte_ns]},
        size_classes={"type": ["array", "null"], "items": size_class, "maxItems": 10_000},
        o_s={"oneOf": [{"type": "null"}, time_ns]}, o_r={"oneOf": [{"type": "null"}, time_ns]},
    )
    return {
        "type": "object",
        "required": ["format", "name", "description", "loggops", "hardware", "prices"],
        "properties": {
            "format": {"const": FORMAT},
            "name": {"type": "string", "minLength": 1, "maxLength": 200},
            "description": text,
            "labels": {"type": "array", "items": text, "maxItems": 1000},
            "hardware": part(
                [], instance_type=opt_text, cpu=opt_text, network=opt_text, topology=opt_text, routing=opt_text,
                transport=opt_text, os=opt_text, cores={"type": ["integer", "null"], "minimum": 1, "maximum": 2**31},
                memory_gb=opt_number(1e9), nominal_bandwidth_gbit_s=opt_number(1e9),
                core_latency_ns=opt_number(1e9),
            ),
            "prices": part(
                [], currency=text, committed_per_node_hour=price, on_demand_per_node_hour=price,
                as_of=opt_text, region=opt_text, note=opt_text,
            ),
            "table2": {"oneOf": [{"type": "null"}, part([], same_rack=link, different_racks=link,
                                                        unknown_distance=link)]},
            "loggops": loggops,
            "latency_noise": {"oneOf": [{"type": "null"}, noise]},
            "bandwidth_noise": {"oneOf": [{"type": "null"}, noise]},
            "os_noise": {"oneOf": [{"type": "null"}, os_noise]},
            # compute's peak and efficiency are checked by their dataclasses (model/compute.py)
            "compute": {"oneOf": [{"type": "null"}, part(
                ["gflops"], gflops=number(1e12), peak={"type": ["object", "null"]},
                efficiency={"type": ["object", "null"]}, note=opt_text)]},
            "different_racks": {"oneOf": [{"type": "null"}, {
                "type": "object", "required": ["loggops"],
                "properties": {"loggops": loggops, "latency_noise": {"oneOf": [{"type": "null"}, noise]},
                               "bandwidth_noise": {"oneOf": [{"type": "null"}, noise]}, "note": opt_text,
                               "os_noise": {"oneOf": [{"type": "null"}, os_noise]}},
                "additionalProperties": False}]},
            "switch_draws": {"oneOf": [{"type": "null"}, part(
                ["nodes_per_switch"], nodes_per_switch={"type": "integer", "minimum": 1, "maximum": 2**31},
                samples=opt_text, note=opt_text)]},
            "copied_from": {"type": "object", "required": ["profile", "values_sha256"],
                            "properties": {"profile": text, "values_sha256": {
                                "type": "object", "maxProperties": 64,
                                "additionalProperties": {"type": "string", "pattern": "^[0-9a-f]{64}$"}}},
                            "additionalProperties": False},
            "check": {"oneOf": [{"type": "null"}, part(
                [], ranks={"type": ["array", "integer", "null"]}, reps={"type": ["integer", "null"], "minimum": 1},
                median_abs_error=opt_number(1e12), worst_abs_error=opt_number(1e12), worst=opt_text,
                machine_state={"type": ["object", "null"]},
                results={"type": ["array", "null"], "maxItems": 100_000})]},
            "campaign": {"oneOf": [{"type": "null"}, part(
                [], pairs={"type": ["array", "null"], "maxItems": 100_000,
                           "items": {"type": "array", "items": text, "minItems": 2, "maxItems": 2}},
                round_trips={"type": ["integer", "null"], "minimum": 0},
                duration_s=opt_number(1e12), stall_time_share=opt_number(1), stall_sample_share=opt_number(1),
                episode_time_share=opt_number(1), os_noise=opt_text,
                load={"type": ["array", "null"], "maxItems": 100_000, "items": {"type": "object"}},
                per_pair={"type": ["array", "null"], "maxItems": 100_000, "items": {"type": "object"}},
                flags={"type": ["array", "null"], "items": text, "maxItems": 1000})]},
            "closure": closure,
            "bandwidth_closure": closure,
        },
        "additionalProperties": False,
    }


PROFILE_SCHEMA = _schema()


@dataclass(frozen=True)
class Hardware:
    """What the nodes and the network are (Table I)."""

    provenance: Provenance
    instance_type: str | None = None
    cpu: str | None = None
    cores: int | None = None  # physical cores per node
    memory_gb: float | None = None
    nominal_bandwidth_gbit_s: float | None = None
    network: str | None = None  # topology as published, e.g. "Fat Tree"
    topology: str | None = None  # topology family: fat-tree | dragonfly | ...
    routing: str | None = None
    transport: str | None = None
    os: str | None = None
    # One-way time of a cache line between the first two ranks' cores while the
    # loggp fit was measured (measurement/core_latency.py): the machine state the
    # profile describes, which validate compares with the state it runs in.
    core_latency_ns: float | None = None


@dataclass(frozen=True)
class ComputePeak:
    """The node's peak flop rate from its published CPU (see cloudnoise.model.compute)."""

    provenance: Provenance
    sockets: int
    cores_per_socket: int
    clock_ghz: float
    flops_per_cycle: int  # double precision, per cycle per core
    isa: str = ""

    def __post_init__(self) -> None:
        self.flops()  # checks the numbers

    def flops(self) -> PeakFlops:
        return PeakFlops(self.sockets, self.cores_per_socket, self.clock_ghz, self.flops_per_cycle, self.isa)


@dataclass(frozen=True)
class ComputeEfficiency:
    """The share of the peak a large DGEMM reaches with the system's BLAS."""

    provenance: Provenance
    value: float
    blas: str | None = None


@dataclass(frozen=True)
class Compute:
    """A node's DGEMM rate (one rank per node), the rate `gemm:N` phases run at.

    Built-ins: `peak` x `efficiency` (gflops must equal it); a measured
    profile: the rate timed on that machine (no peak)."""

    provenance: Provenance
    gflops: float
    peak: ComputePeak | None = None
    efficiency: ComputeEfficiency | None = None
    note: str | None = None

    def __post_init__(self) -> None:
        g = self.gflops
        if not (isinstance(g, (int, float)) and not isinstance(g, bool) and math.isfinite(g) and g > 0):
            raise CloudnoiseError(f"compute: gflops must be a positive number (GFLOP/s), got {g!r}")
        if (self.peak is None) != (self.efficiency is None):
            raise CloudnoiseError("compute: give both peak and efficiency, or neither")
        if self.peak is not None and self.efficiency is not None:
            expected = peak_times_efficiency(self.peak.flops(), self.efficiency.value)
            if not math.isclose(g, expected, rel_tol=1e-9):
                raise CloudnoiseError(
                    f"compute: gflops {g:g} is not peak x efficiency = {self.peak.flops().gflops:g} x "
                    f"{self.efficiency.value:g} = {expected:g}"
                )

    def rate(self, system: str = "") -> ComputeRate:
        """The rate with a one-line account of where it comes from."""
        who = f"{system}: " if system else ""
        if self.peak is not None and self.efficiency is not None:
            pk = self.peak.flops()
            blas = f" with {self.efficiency.blas}" if self.efficiency.blas else ""
            text = (
                f"{who}{pk.sockets}x{pk.cores_per_socket} cores x {pk.clock_ghz:g} GHz x {pk.flops_per_cycle} "
                f"flop/cycle = {pk.gflops:g} GFLOP/s peak ({self.peak.provenance.kind}) x efficiency "
                f"{self.efficiency.value:g}{blas} ({self.efficiency.provenance.kind})"
            )
        else:
            text = f"{who}{self.provenance.source}"
        return ComputeRate(float(self.gflops), self.provenance.kind, text)


@dataclass(frozen=True)
class Prices:
    """Hourly price per node; None where no price is published."""

    provenance: Provenance
    currency: str = "USD"
    committed_per_node_hour: float | None = None
    on_demand_per_node_hour: float | None = None
    as_of: str | None = None
    region: str | None = None
    note: str | None = None


@dataclass(frozen=True)
class LinkFigures:
    """Table II figures for one node distance; None where not available (N.A.)."""

    min_latency_us: float | None = None
    mean_latency_us: float | None = None
    max_bandwidth_gbit_s: float | None = None
    mean_bandwidth_gbit_s: float | None = None


@dataclass(frozen=True)
class Table2:
    """Latency and bandwidth summary as in the paper's Table II.

    A campaign whose node distance is unknown (two ranks on one machine, or
    nodes wherever the scheduler put them) files its figures under
    `unknown_distance`, never under same rack."""

    provenance: Provenance
    same_rack: LinkFigures = field(default_factory=LinkFigures)
    different_racks: LinkFigures = field(default_factory=LinkFigures)
    unknown_distance: LinkFigures | None = None

    def rows(self) -> list[tuple[str, LinkFigures]]:
        """(distance label, figures) of every distance with at least one figure."""
        out = [("same rack", self.same_rack), ("different racks", self.different_racks)]
        if self.unknown_distance is not None:
            out.append(("distance unknown", self.unknown_distance))
        return [(d, f) for d, f in out if any(getattr(f, k.name) is not None for k in fields(LinkFigures))]


@dataclass(frozen=True)
class SizeClass:
    """L (ns), G and O (ns per byte) for messages of at least min_bytes."""

    min_bytes: int
    L: float
    G: float
    O: float  # noqa: E741 (the model's name)

    def __post_init__(self) -> None:
        if not (isinstance(self.min_bytes, int) and self.min_bytes >= 0):
            raise CloudnoiseError(f"a size class's min_bytes must be an integer >= 0, got {self.min_bytes!r}")
        for name in ("L", "G", "O"):
            v = getattr(self, name)
            if not (isinstance(v, (int, float)) and math.isfinite(v) and v >= 0):
                raise CloudnoiseError(f"size class {name} must be a finite number >= 0, got {v!r}")


@dataclass(frozen=True)
class LogGOPS:
    """LogGOPS parameters: times in ns, G and O in ns per byte, S in bytes."""

    provenance: Provenance
    L: float
    o: float
    g: float
    G: float
    O: float  # noqa: E741 (the model's name)
    S: int
    # Per-byte CPU overhead above S where a campaign measured it (the cost of
    # posting a rendezvous send); absent: O at every size, as LogGOPSim.
    O_rendezvous: float | None = None
    # L, G and O per message-size class where a campaign measured them (the
    # first from 0 B, by growing min_bytes); absent: L, G, O at every size.
    size_classes: tuple[SizeClass, ...] = ()
    # Separate send and receive overheads where a campaign found that they
    # predict better than one o (both given: the engine charges o_s to sends
    # and o_r to receives; o stays their mean for other readers).
    o_s: float | None = None
    o_r: float | None = None

    def __post_init__(self) -> None:
        if (self.o_s is None) != (self.o_r is None):
            raise CloudnoiseError("LogGOPS o_s and o_r go together (or neither)")
        for name in ("o_s", "o_r"):
            v = getattr(self, name)
            if v is not None and not (isinstance(v, (int, float)) and math.isfinite(v) and v >= 0):
                raise CloudnoiseError(f"LogGOPS {name} must be a finite number >= 0, got {v!r}")
        classes = []
        for i, c in enumerate(self.size_classes or ()):
            if isinstance(c, dict):
                try:
                    c = SizeClass(**c)
                except TypeError as err:
                    raise CloudnoiseError(f"size_classes[{i}]: {err}") from None
            if not isinstance(c, SizeClass):
                raise CloudnoiseError(f"size_classes[{i}] must be an object with min_bytes, L, G, O")
            classes.append(c)
        if classes and classes[0].min_bytes != 0:
            raise CloudnoiseError("the first of size_classes must start at min_bytes 0")
        if any(b.min_bytes <= a.min_bytes for a, b in zip(classes, classes[1:])):
            raise CloudnoiseError("size_classes must be listed by growing min_bytes")
        object.__setattr__(self, "size_classes", tuple(classes))
        for name in ("L", "o", "g", "G", "O", "O_rendezvous"):
            v = getattr(self, name)
            if v is None and name == "O_rendezvous":
                continue
            if not (isinstance(v, (int, float)) and math.isfinite(v) and v >= 0):
                raise CloudnoiseError(f"LogGOPS {name} must be a finite number >= 0, got {v!r}")
        if not (isinstance(self.S, int) and self.S >= 0):
            raise CloudnoiseError(f"LogGOPS S must be an integer >= 0 (bytes), got {self.S!r}")

    def least_L(self) -> float:
        """The least latency any message has (ns): L, or the least of the size classes' L."""
        return min([float(self.L)] + [float(c.L) for c in self.size_classes]) if self.size_classes else float(self.L)

    def latency_noise_floor(self) -> float:
        """The least per-message latency noise (ns): minus the least L and the send overhead, so
        that a message arrives no earlier than its send starts (a round trip measured faster than
        the fitted overheads allow is a message whose overheads were smaller then)."""
        # whole picoseconds, as the engine takes them, and one above: no rounding can pass it
        least_ps = round(self.least_L() * 1000) + round(float(self.o_s if self.o_s is not None else self.o) * 1000)
        return -(least_ps - 1) / 1000.0


#: The key that marks a `cloudnoise profiles show --json` view: a profile to read, not to load.
VIEW_KEY = "view_of"
#: What to do about a profile without its side files (said by every error about one).
COPY_HINT = "copy a profile with `cloudnoise profiles copy NAME|FILE DIR`, which takes its side files along"


def side_file(base_dir: Path | None, name: str, what: str, where: str | None = None) -> Path:
    """A side file of a profile: a data file its JSON names (noise samples, an OS-noise
    trace, switch-draw samples). The one rule: the name is relative to the JSON's folder,
    the file lies inside that folder (a profile may come from someone else:
    docs/reference/security.md) and is there; a profile made in Python, without a folder, names
    files as given. A missing file is one line that names it and says how to copy a
    profile whole (`where` names the profile; else the caller's context does)."""
    if base_dir is None:
        return Path(name)
    head = f"{where}: " if where else ""
    try:
        path = file_beside(base_dir, name, what)
    except CloudnoiseError as err:  # outside the folder, a NUL: named with the profile
        raise CloudnoiseError(f"{head}{err}", err.exit_code) from None
    if not path.is_file():
        raise CloudnoiseError(f"{head}its {what} file {name} is missing (not in {base_dir.resolve()}); {COPY_HINT}")
    return path


_file = side_file  # the parts below resolve their files by the rule


@dataclass(frozen=True)
class Check:
    """How well the profile predicted real runs where it was measured: the
    errors of `cloudnoise validate --suite` (what `model build --check`
    stores). Errors are (simulated - measured) / measured medians."""

    provenance: Provenance
    ranks: int
    reps: int
    median_abs_error: float
    worst_abs_error: float
    worst: str
    results: tuple[dict[str, Any], ...] = ()
    # how many configurations ran in the profile's machine state and their
    # errors (validation/suite.py summarize_rows; measurement/core_latency.py)
    machine_state: dict[str, Any] | None = None

    def __post_init__(self) -> None:
        for name in ("median_abs_error", "worst_abs_error"):
            v = getattr(self, name)
            if not (isinstance(v, (int, float)) and math.isfinite(v) and v >= 0):
                raise CloudnoiseError(f"check {name} must be a finite number >= 0, got {v!r}")
        if not isinstance(self.results, (list, tuple)) or not all(isinstance(r, dict) for r in self.results):
            raise CloudnoiseError("check results must be a list of objects")
        object.__setattr__(self, "results", tuple(self.results))


@dataclass(frozen=True)
class Campaign:
    """What the campaign a profile was built from measured, so what it can vouch for: the
    pairs of hosts its latency series ran between (empty where the tool did not record
    them), its round trips and how long they took, the share of that time spent in stalls
    (and of the bandwidth series' in drops), the load at its experiments' starts and ends,
    and `model build`'s flags about them (noise from one pair in a short run, a busy
    machine, no OS-noise run)."""

    provenance: Provenance
    pairs: tuple[tuple[str, str], ...] = ()
    round_trips: int | None = None
    duration_s: float | None = None
    stall_time_share: float | None = None
    stall_sample_share: float | None = None
    episode_time_share: float | None = None
    os_noise: str | None = None
    load: tuple[dict[str, Any], ...] = ()
    flags: tuple[str, ...] = ()
    # several pairs measured in turn: each pair's hosts, round trips, duration, time in stalls
    per_pair: tuple[dict[str, Any], ...] = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "pairs", tuple(tuple(p) for p in (self.pairs or ())))
        object.__setattr__(self, "per_pair", tuple(self.per_pair or ()))
        object.__setattr__(self, "load", tuple(self.load or ()))
        object.__setattr__(self, "flags", tuple(self.flags or ()))


@dataclass(frozen=True)
class Closure:
    """The profile's replay of its own measurement (model/closure.py): back-to-back ping-pongs
    through the engine with this profile, as many as measured, against the measured round
    trips, row by row (quantiles and shares late), and whether every judged row is within its
    tolerance. `stall_model` says how the profile's stalls act and why."""

    provenance: Provenance
    experiment: str
    round_trips: int
    closes: bool
    rows: tuple[dict[str, Any], ...]
    size_bytes: int | None = None
    replayed: int | None = None
    clock_step_ns: float | None = None
    seed: int | None = None
    tolerance: str | None = None
    stall_model: str | None = None
    notes: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "rows", tuple(dict(r) for r in self.rows))
        object.__setattr__(self, "notes", tuple(self.notes or ()))

    def misses(self) -> list[str]:
        return [str(r["statistic"]) for r in self.rows if r.get("judged") and not r.get("within")]


@dataclass(frozen=True)
class NoiseModel:
    """A per-message noise distribution: exactly one of spec, samples, quantiles."""

    provenance: Provenance
    spec: str | None = None
    samples: str | None = None  # file relative to the profile's folder
    column: str | None = None  # for Parquet/CSV samples
    quantiles: dict[str, list[float]] | None = None  # {"p": [...], "v": [...]}
    note: str | None = None
    # Bandwidth only: drops that persist in time, besides the per-message
    # draws (model/bandwidth_episodes.py; `rate=..,duration=..,fraction=..`).
    episodes: str | None = None
    # Latency only: stalls that come in time, besides the per-message draws
    # (model/latency_episodes.py; `rate=..,duration=..,stall=..,gap=..` or
    # `period=..,stall=..`); the draws are then the remainder without them.
    stalls: str | None = None
    # Latency only: levels that persist in time, per sending host, added to
    # the per-message draws (model/latency_levels.py; `hold=TIME,level=DIST`).
    levels: str | None = None
    # Latency only: a state per sending host that persists in time and moves
    # which part of the per-message distribution its draws come from
    # (model/latency_state.py; `hold=TIME,weight=W`).
    state: str | None = None

    def __post_init__(self) -> None:
        given = [k for k in ("spec", "samples", "quantiles") if getattr(self, k) is not None]
        if len(given) != 1:
            raise CloudnoiseError(
                f"a noise model needs exactly one of spec, samples, quantiles; got {', '.join(given) or 'none'}"
            )
        if self.episodes is not None:
            try:
                parse_bandwidth_episodes(self.episodes)
            except CloudnoiseError as err:
                raise CloudnoiseError(f"episodes: {err}", err.exit_code) from None
        if self.stalls is not None:
            try:
                parse_latency_episodes(self.stalls)
            except CloudnoiseError as err:
                raise CloudnoiseError(f"stalls: {err}", err.exit_code) from None
        if self.levels is not None:
            try:
                parse_latency_levels(self.levels)
            except CloudnoiseError as err:
                raise CloudnoiseError(f"levels: {err}", err.exit_code) from None
        if self.state is not None:
            try:
                parse_latency_state(self.state)
            except CloudnoiseError as err:
                raise CloudnoiseError(f"state: {err}", err.exit_code) from None

    def distribution(self, base_dir: Path | None = None, use: NoiseUse | None = None) -> Distribution:
        """The distribution; with `use`, a samples file's first value outside its
        range is refused with its file and line (not only as a draw of the result)."""
        if self.spec is not None:
            return parse_distribution(self.spec, base_dir, confine=base_dir is not None)
        if self.samples is not None:
            return load_empirical(_file(base_dir, self.samples, "samples"), column=self.column, use=use)
        q = self.quantiles or {}
        if set(q) != {"p", "v"}:
            raise CloudnoiseError("an embedded quantile table needs exactly the keys p and v")
        return QuantileTable(np.asarray(q["p"], dtype=np.float64), np.asarray(q["v"], dtype=np.float64))


@dataclass(frozen=True)
class OSNoiseModel:
    """OS noise: a detour trace file (relative to the profile) or a synthetic spec."""

    provenance: Provenance
    trace: str | None = None
    synthetic: str | None = None
    note: str | None = None

    def __post_init__(self) -> None:
        if (self.trace is None) == (self.synthetic is None):
            raise CloudnoiseError("OS noise needs exactly one of trace (a file) or synthetic (a spec)")
        if self.synthetic is not None:
            parse_os_noise_spec(self.synthetic)

    def load(self, base_dir: Path | None = None) -> OSNoiseTrace | SyntheticOSNoise:
        if self.synthetic is not None:
            return parse_os_noise_spec(self.synthetic)
        return read_trace(_file(base_dir, self.trace, "OS noise trace"))  # type: ignore[arg-type]


@dataclass(frozen=True)
class RackPlacement:
    """What changes when the nodes are on different racks (Table II's second block,
    Sec. IV-B/C): the network's LogGOPS parameters and noise, and, where the
    different-racks figures come from a run of their own (the paper authors'
    scenarios), that run's OS noise; without `os_noise` the node's (top-level)
    OS noise holds at both placements. The rest of the profile is the node's."""

    loggops: LogGOPS
    latency_noise: NoiseModel | None = None
    bandwidth_noise: NoiseModel | None = None
    note: str | None = None
    os_noise: OSNoiseModel | None = None


@dataclass(frozen=True)
class SystemProfile:
    """One system: hardware, prices, published figures, LogGOPS parameters and noise models."""

    name: str
    description: str
    loggops: LogGOPS
    hardware: Hardware
    prices: Prices
    labels: tuple[str, ...] = ()
    compute: Compute | None = None
    table2: Table2 | None = None
    latency_noise: NoiseModel | None = None
    bandwidth_noise: NoiseModel | None = None
    os_noise: OSNoiseModel | None = None
    different_racks: RackPlacement | None = None
    # The paper authors' network semantics (model/switch_draws.py): when
    # present, every simulation of the profile charges messages as their
    # simulator did, and its network noise is their measured samples.
    switch_draws: SwitchDraws | None = None
    campaign: Campaign | None = None
    closure: Closure | None = None
    # The replay of the bandwidth series (model/bandwidth_closure.py): the same table, its own rows.
    bandwidth_closure: Closure | None = None
    check: Check | None = None
    # Written by `profiles copy`: the source's name and its parts' values hashed (model/edits.py).
    copied_from: dict[str, Any] | None = None
    base_dir: Path | None = field(default=None, compare=False)  # where relative files resolve; not saved
    origin: str = field(default="", compare=False)  # the file it was read from, for error messages; not saved
    # Which placement the top-level network parts describe: "same-rack" for the
    # built-ins, None where the profile does not say (a campaign of unknown
    # node distance). Not saved: `at` sets it.
    placement: str | None = field(default=None, compare=False)
    # The same-rack parameters, kept by `at("different-racks")`: switch draws
    # charge messages within a switch with them. Not saved.
    near_loggops: LogGOPS | None = field(default=None, compare=False)

    def __post_init__(self) -> None:
        for where, lat in (("latency_noise", self.latency_noise),
                           ("different_racks.latency_noise",
                            self.different_racks.latency_noise if self.different_racks else None)):
            if lat is not None and lat.episodes is not None:
                raise CloudnoiseError(
                    f"{self.origin or 'profile ' + self.name}: {where}: episodes are bandwidth drops; "
                    "move them to bandwidth_noise"
                )
        for where, bw in (("bandwidth_noise", self.bandwidth_noise),
                          ("different_racks.bandwidth_noise",
                           self.different_racks.bandwidth_noise if self.different_racks else None)):
            if bw is not None and (bw.stalls is not None or bw.levels is not None or bw.state is not None):
                what = "stalls" if bw.stalls is not None else "levels" if bw.levels is not None else "states"
                raise CloudnoiseError(
                    f"{self.origin or 'profile ' + self.name}: {where}: {what} delay messages; "
                    "move them to latency_noise"
                )

    def one_host(self) -> bool:
        """Built from a campaign whose ranks shared one host: its figures are shared memory,
        not a network (said wherever its results are shown)."""
        from cloudnoise.measurement.placement import ONE_HOST

        return self.hardware is not None and self.hardware.network == ONE_HOST

    def placement_label(self) -> str:
        """Where this profile's nodes sit: the placement `at` chose, else the
        built-ins' same rack (the paper's Table II first block), else what a
        campaign said about its node distance ("unknown" when it did not).
        A profile with a different-racks block describes the same rack at its
        top level (`at`), whatever its Table II: aws-hpc has none (the paper
        gives its bare-metal twin's figures) and is the same rack all the same."""
        if self.placement is not None:
            return self.placement
        if self.different_racks is not None:
            return "same-rack"
        t2 = self.table2
        if t2 is None or t2.provenance.kind != "published":
            if t2 is not None and t2.provenance.kind == "measured" and t2.unknown_distance is None:
                return "same-rack" if t2.same_rack.min_latency_us is not None else "different-racks"
            return "unknown"
        return "same-rack"

    def placements(self) -> tuple[str, ...]:
        """The placements this profile describes."""
        return ("same-rack", "different-racks") if self.different_racks is not None else ("same-rack",)

    def at(self, placement: str) -> SystemProfile:
        """This system with its nodes placed as asked: `same-rack` is the profile
        as written, `different-racks` swaps in that block's network parts."""
        from dataclasses import replace

        if placement not in PLACEMENTS:
            raise CloudnoiseError(f"--placement: choose from {', '.join(PLACEMENTS)}, got {placement!r}")
        if placement == "same-rack":
            return replace(self, placement="same-rack")
        dr = self.different_racks
        if dr is None:
            raise CloudnoiseError(
                f"{self.name}: the profile has no different-racks figures (Table II has them for AWS, GCP, Alps, "
                "Daint and DEEP-EST); use --placement same-rack"
            )
        return replace(
            self, loggops=dr.loggops, latency_noise=dr.latency_noise, bandwidth_noise=dr.bandwidth_noise,
            os_noise=dr.os_noise if dr.os_noise is not None else self.os_noise,
            placement="different-racks", near_loggops=self.loggops,
        )

    def switch_sets(self, L_ps: int, G_fs: int, with_noise: bool) -> SwitchSets | None:
        """The engine's near and far sets under switch draws (None without
        them), for this profile's placement: `L_ps` and `G_fs` are the
        placement's parameters as resolved (the far ones across racks); the
        near ones are the same rack's."""
        sd = self.switch_draws
        if sd is None:
            return None
        placement = self.placement or "same-rack"
        near = self.near_loggops if placement == "different-racks" and self.near_loggops is not None else None
        if G_fs % 1000:
            raise CloudnoiseError(f"{self.where}: switch draws charge G in whole picoseconds per byte; "
                                  f"got {G_fs / 1e6} ns/B")
        here = (int(L_ps), int(G_fs) // 1000)
        near_ps = here if near is None else (round(near.L * 1000), round(near.G * 1_000_000) // 1000)
        with _naming(f"{self.where}: switch_draws"):
            samples = (sd.load_samples(side_file(self.base_dir, sd.samples, "switch_draws samples"))
                       if with_noise and sd.samples is not None else None)
            return switch_sets(sd.nodes_per_switch, near_ps, here, samples, placement, with_noise)

    def side_files(self) -> list[tuple[str, str]]:
        """(name, what) of every side file the profile names, relative to its JSON, each
        once, in the order of the file: what `cloudnoise profiles copy` takes along."""
        found: dict[str, str] = {}

        def noise(model: NoiseModel | None, part: str) -> None:
            if model is None:
                return
            if model.samples is not None:
                found.setdefault(model.samples, f"{part} samples")
            for name in spec_files(model.spec) if model.spec is not None else ():
                found.setdefault(name, f"{part} samples")

        noise(self.latency_noise, "latency_noise")
        noise(self.bandwidth_noise, "bandwidth_noise")
        if self.os_noise is not None and self.os_noise.trace is not None:
            found.setdefault(self.os_noise.trace, "os_noise trace")
        if self.different_racks is not None:
            noise(self.different_racks.latency_noise, "different_racks.latency_noise")
            noise(self.different_racks.bandwidth_noise, "different_racks.bandwidth_noise")
            dr_os = self.different_racks.os_noise
            if dr_os is not None and dr_os.trace is not None:
                found.setdefault(dr_os.trace, "different_racks.os_noise trace")
        if self.switch_draws is not None and self.switch_draws.samples is not None:
            found.setdefault(self.switch_draws.samples, "switch_draws samples")
        return list(found.items())

    def provenance_kinds(self) -> dict[str, str]:
        """Each part a simulation uses, labelled with its provenance kind
        (published, reconstructed, calibrated, measured)."""
        out = {"loggops": self.loggops.provenance.kind}
        for part in ("latency_noise", "bandwidth_noise", "os_noise", "compute", "switch_draws"):
            value = getattr(self, part)
            if value is not None:
                out[part] = value.provenance.kind
        return out

    def describe_use(self) -> dict[str, Any]:
        """What a result says about the profile it ran on."""
        return {"name": self.name, "placement": self.placement_label(), "provenance": self.provenance_kinds()}

    @property
    def where(self) -> str:
        """How errors name this profile: its file, else its name."""
        return self.origin or f"profile {self.name}"

    def latency_distribution(self) -> Distribution | None:
        """The latency excess distribution (ns over L), or None for no latency noise."""
        if self.latency_noise is None:
            return None
        # measured per-message noise may run below L (a round trip faster than the noiseless
        # one), never so far that a message arrives before its send starts
        least = self.loggops.latency_noise_floor()
        with _naming(f"{self.where}: latency_noise"):
            dist = self.latency_noise.distribution(self.base_dir, LATENCY_NOISE.down_to(least))
        return check_latency_noise(dist, f"{self.where}: latency_noise", least)

    def bandwidth_distribution(self) -> Distribution | None:
        """The bandwidth fraction-of-peak distribution, or None for no bandwidth noise."""
        if self.bandwidth_noise is None:
            return None
        with _naming(f"{self.where}: bandwidth_noise"):
            dist = self.bandwidth_noise.distribution(self.base_dir, BANDWIDTH_NOISE)
        return check_bandwidth_noise(dist, f"{self.where}: bandwidth_noise")

    def bandwidth_episodes(self) -> BandwidthEpisodes | None:
        """Bandwidth drops that persist in time, or None (per-message draws only)."""
        if self.bandwidth_noise is None or self.bandwidth_noise.episodes is None:
            return None
        with _naming(f"{self.where}: bandwidth_noise.episodes"):
            return parse_bandwidth_episodes(self.bandwidth_noise.episodes)

    def latency_episodes(self) -> LatencyEpisodes | None:
        """Latency stalls that come in time, or None (per-message draws only)."""
        if self.latency_noise is None or self.latency_noise.stalls is None:
            return None
        with _naming(f"{self.where}: latency_noise.stalls"):
            return parse_latency_episodes(self.latency_noise.stalls)

    def latency_levels(self) -> LatencyLevels | None:
        """Latency levels that persist in time, or None."""
        if self.latency_noise is None or self.latency_noise.levels is None:
            return None
        with _naming(f"{self.where}: latency_noise.levels"):
            return parse_latency_levels(self.latency_noise.levels)

    def latency_state(self) -> LatencyState | None:
        """A latency noise state that persists in time, or None."""
        if self.latency_noise is None or self.latency_noise.state is None:
            return None
        with _naming(f"{self.where}: latency_noise.state"):
            return parse_latency_state(self.latency_noise.state)

    def bandwidth_sample_distribution(self) -> Distribution | None:
        """The bandwidth fraction a measurement's samples show (Table II's mean,
        Fig. 11's bottom 0.1%): the per-message draws, and the episodes' drops
        by their share of samples. None for no bandwidth noise."""
        draws, episodes = self.bandwidth_distribution(), self.bandwidth_episodes()
        return draws if episodes is None else episodes.marginal(draws)

    def os_noise_source(self) -> OSNoiseTrace | SyntheticOSNoise | None:
        """The OS noise trace, or a synthetic generator, or None."""
        if self.os_noise is None:
            return None
        with _naming(f"{self.where}: os_noise"):
            return self.os_noise.load(self.base_dir)

    def compute_rate(self) -> ComputeRate | None:
        """The node's DGEMM rate for `gemm:N` phases, with its source; None when
        the profile does not say (then a gemm phase is timed on this machine)."""
        return None if self.compute is None else self.compute.rate(self.name)

    def price_per_node_hour(self, pricing: str) -> float | None:
        """The committed or on-demand hourly price per node (None if unpublished)."""
        if pricing == "committed":
            return self.prices.committed_per_node_hour
        if pricing == "on-demand":
            return self.prices.on_demand_per_node_hour
        raise CloudnoiseError(f"unknown pricing {pricing!r}: use committed or on-demand")

    def to_dict(self) -> dict[str, Any]:
        """The JSON-ready form (what save_profile writes)."""
        out: dict[str, Any] = {"format": FORMAT}
        for name in KEY_ORDER:
            value = getattr(self, name)
            if value is None and name in ("compute", "different_racks", "switch_draws", "copied_from"):
                continue  # optional parts a profile may not have
            if name == "labels":
                value = list(value)
            elif value is not None and hasattr(value, "__dataclass_fields__"):
                value = _drop_none(asdict(value))
            if name in ("check", "campaign", "closure", "bandwidth_closure") and value is None:  # only where known
                continue
            out[name] = value
        return out


class _naming:
    """Prefixes a CloudnoiseError raised inside the block with where it happened."""

    def __init__(self, where: str) -> None:
        self.where = where

    def __enter__(self) -> None:
        return None

    def __exit__(self, kind: type | None, err: BaseException | None, tb: object) -> bool:
        if isinstance(err, CloudnoiseError) and not str(err).startswith(self.where):
            raise CloudnoiseError(f"{self.where}: {err}", err.exit_code) from None
        return False


def _drop_none(d: dict[str, Any]) -> dict[str, Any]:
    """Drop optional keys that are None, except the numeric ones where null means 'not available'."""
    keep_null = {f.name for f in fields(LinkFigures)} | {"committed_per_node_hour", "on_demand_per_node_hour"}
    out = {}
    for k, v in d.items():
        if isinstance(v, dict):
            v = _drop_none(v) if k != "quantiles" else v
        if v is None and k not in keep_null:
            continue
        if k == "size_classes" and not v:
            continue
        out[k] = v
    return out


# ---------------------------------------------------------------------------
# Reading
# ---------------------------------------------------------------------------


_NESTED: dict[str, tuple[tuple[str, type], ...]] = {
    "Table2": (("same_rack", LinkFigures), ("different_racks", LinkFigures), ("unknown_distance", LinkFigures)),
    "Compute": (("peak", ComputePeak), ("efficiency", ComputeEfficiency)),
    "RackPlacement": (("loggops", LogGOPS), ("latency_noise", NoiseModel), ("bandwidth_noise", NoiseModel),
                      ("os_noise", OSNoiseModel)),
}


def _build(cls, data: Any, where: str):
    """Construct dataclass `cls` from a dict, with one-line errors naming the bad key."""
    if not isinstance(data, dict):
        raise CloudnoiseError(f"{where}: expected an object, got {type(data).__name__}")
    names = {f.name for f in fields(cls)}
    unknown = sorted(set(data) - names)
    if unknown:
        raise CloudnoiseError(f"{where}: unknown key {unknown[0]!r} (known: {', '.join(sorted(names))})")
    kwargs = dict(data)
    if "provenance" in names:
        if "provenance" not in data:
            raise CloudnoiseError(f"{where}: missing provenance {{kind, source}}")
        kwargs["provenance"] = _build(Provenance, data["provenance"], f"{where}.provenance")
    for key, sub in _NESTED.get(cls.__name__, ()):
        if key in names and key in data and data[key] is not None:
            kwargs[key] = _build(sub, data[key], f"{where}.{key}")
    try:
        return cls(**kwargs)
    except TypeError as err:
        raise CloudnoiseError(f"{where}: {err}") from None
    except CloudnoiseError as err:
        raise CloudnoiseError(f"{where}: {err}", err.exit_code) from None


def profile_from_dict(data: dict[str, Any], where: str = "profile", base_dir: Path | None = None) -> SystemProfile:
    """A SystemProfile from its JSON-ready dict (see to_dict), checked against PROFILE_SCHEMA first."""
    if not isinstance(data, dict):
        raise CloudnoiseError(f"{where}: a profile is a JSON object")
    if VIEW_KEY in data:
        original = data[VIEW_KEY].get("file") if isinstance(data[VIEW_KEY], dict) else None
        raise CloudnoiseError(
            f"{where}: a `cloudnoise profiles show --json` view{f' of {original}' if original else ''}, not a loadable "
            f"profile (its side files stay beside the original); {COPY_HINT}, then edit the copy")
    fmt = data.get("format")
    if fmt != FORMAT:
        raise CloudnoiseError(f"{where}: format is {fmt!r}, expected {FORMAT!r}")
    # the schema sees the data as JSON has it (a dict built in Python may hold tuples)
    check_schema(json.loads(json.dumps(data, default=list)), PROFILE_SCHEMA, where, "profile")
    from cloudnoise.model.edits import mark_edits

    body = {k: v for k, v in mark_edits(data, where).items() if k != "format"}
    required = ("name", "description", "loggops", "hardware", "prices")
    missing = [k for k in required if k not in body]
    if missing:
        raise CloudnoiseError(f"{where}: missing {', '.join(missing)}")
    parts = {
        "loggops": LogGOPS,
        "hardware": Hardware,
        "compute": Compute,
        "prices": Prices,
        "table2": Table2,
        "latency_noise": NoiseModel,
        "bandwidth_noise": NoiseModel,
        "os_noise": OSNoiseModel,
        "different_racks": RackPlacement,
        "switch_draws": SwitchDraws,
        "check": Check,
        "campaign": Campaign,
        "closure": Closure,
        "bandwidth_closure": Closure,
    }
    for key, cls in parts.items():
        if body.get(key) is not None:
            body[key] = _build(cls, body[key], f"{where}: {key}")
    labels = body.get("labels", [])
    if not isinstance(labels, list) or not all(isinstance(x, str) for x in labels):
        raise CloudnoiseError(f"{where}: labels must be a list of strings")
    body["labels"] = tuple(labels)
    known = {f.name for f in fields(SystemProfile)} - {"base_dir", "placement", "near_loggops"}
    unknown = sorted(set(body) - known)
    if unknown:
        raise CloudnoiseError(f"{where}: unknown key {unknown[0]!r}")
    with _naming(where):
        profile = SystemProfile(**body, base_dir=base_dir, origin=where if base_dir is not None else "")
    for name, what in profile.side_files():  # a moved or half-copied profile is refused here, whole
        side_file(base_dir, name, what, where)
    return profile


def load_profile(path: str | Path) -> SystemProfile:
    """Read a profile JSON file; relative noise files resolve against its folder."""
    p = Path(path)
    data = read_json(p, "profile file")
    return profile_from_dict(data, str(p), base_dir=p.resolve().parent)


def save_profile(profile: SystemProfile, path: str | Path) -> None:
    """Write a profile as indented JSON (stable key order, trailing newline), atomically."""
    write_text(path, json.dumps(profile.to_dict(), indent=2, ensure_ascii=False, allow_nan=False) + "\n")
