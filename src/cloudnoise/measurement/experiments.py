"""The experiments of ``cloudnoise measure`` as plans of probe launches.

Each experiment (paper Sec. III-IV) becomes a list of :class:`Run` s, one
probe launch each, made of :class:`Unit` s (a message size, an inter-message
interval and a number of iterations). A plan is stored in the campaign's
metadata so ``--resume`` continues exactly what was asked, whatever the new
command line says.

Defaults follow the paper: ping-pongs from 1 B to 16 MiB in powers of two,
1000 iterations per size after warm-up; connections N = 1, 2, 4, 8, 16 each
carrying size/N; bursts of 1 MiB with intervals from 0 to 1 s, 20 iterations
after 10 warm-ups; noise runs for a duration (the paper ran one hour; the
default here is a minute); selfish detour with the 9 x t_min threshold.
"""

from __future__ import annotations

import math
import re
from dataclasses import asdict, dataclass, field
from typing import Any

from cloudnoise.errors import CloudnoiseError

PINGPONG_EXPERIMENTS = (
    "latency",
    "bandwidth",
    "connections",
    "bidirectional",
    "burst",
    "latency-noise",
    "bandwidth-noise",
)
EXPERIMENTS = PINGPONG_EXPERIMENTS + ("os-noise", "loggp")

# The probes that ship with cloudnoise and their modes: the only code a plan may name.
PROBE_MODES: dict[str, tuple[str, ...]] = {
    "cn_pingpong": ("pingpong", "bidir"),
    "cn_detour": ("detour",),
    "cn_loggp": ("loggp",),
}
ROLES = ("measure", "sweep", "skip")


def _whole(value: Any, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0 or value >= 2**62:
        raise ValueError(f"{what} {value!r} is not a whole number in range")
    return value

MiB = 1 << 20
DEFAULT_SIZES = [1 << k for k in range(25)]  # 1 B .. 16 MiB
LOGGP_SIZES = [1 << k for k in range(25)]  # 1 B .. 16 MiB
# Above 1 MiB the default iteration count shrinks in proportion to the size
# (at least this many), so the large sizes cost about what 1 MiB does.
LOGGP_MIN_LARGE_ITERATIONS = 50
LOGGP_WARMUP = 2  # untimed repetitions of each operation, per size and round
LOGGP_ROUNDS = 5  # the size sweep is repeated: each round is one short estimate
LOGGP_TRAIN = 8  # messages per train (Netgauge's PRTT n)
BURST_INTERVALS_S = [0.0, 1e-6, 1e-5, 1e-4, 1e-3, 1e-2, 1e-1, 1.0]
SWEEP_SIZES = [1 << k for k in range(14, 25, 2)]  # 16 KiB .. 16 MiB for picking a size


@dataclass
class Unit:
    """One message size (and interval) measured ``iterations`` times."""

    size: int
    interval_ns: int = 0
    iterations: int = 1000


@dataclass
class Run:
    """One probe launch. ``size`` of a unit is 0 while it waits for a sweep."""

    probe: str  # "cn_pingpong" or "cn_detour"
    mode: str  # "pingpong", "bidir", "loggp" or "detour"
    ranks: int
    units: list[Unit]
    ppn: int | None = None
    split: bool = False
    warmup: int = 10
    duration_s: float = 0.0
    detours: int = 0
    inject: tuple[float, float] | None = None  # (period us, duration us), tests only
    role: str = "measure"  # "sweep" runs only pick the size of later runs
    extra: dict[str, Any] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)

    @staticmethod
    def from_dict(data: dict[str, Any]) -> "Run":
        """A run as stored in a campaign's metadata. The metadata is data from
        wherever the folder came from: the probe must be one that ships with
        cloudnoise and be used in one of its modes, and every field must have
        its type, else a one-line error (a plan never chooses code)."""
        try:
            if not isinstance(data, dict):
                raise TypeError("a run is not an object")
            data = dict(data)
            probe, mode = data.get("probe"), data.get("mode")
            if not isinstance(probe, str) or PROBE_MODES.get(probe) is None or mode not in PROBE_MODES[probe]:
                raise ValueError(f"probe {probe!r} in mode {mode!r} is not one of cloudnoise's probes")
            unknown = set(data) - set(Run.__dataclass_fields__)
            if unknown:
                raise ValueError(f"unknown field {sorted(unknown)[0]!r}")
            units = data["units"]
            if not isinstance(units, list) or not units:
                raise TypeError("units must be a non-empty list")
            data["units"] = [Unit(**{k: _whole(v, k) for k, v in u.items()}) for u in units]
            for key in ("ranks", "warmup", "detours"):
                if key in data:
                    data[key] = _whole(data[key], key)
            if data.get("ppn") is not None:
                data["ppn"] = _whole(data["ppn"], "ppn")
            if "duration_s" in data:
                d = data["duration_s"]
                if isinstance(d, bool) or not isinstance(d, (int, float)) or not math.isfinite(d) or d < 0:
                    raise ValueError(f"duration_s {d!r}")
                data["duration_s"] = float(d)
            if data.get("inject") is not None:
                data["inject"] = tuple(float(x) for x in data["inject"])
            if not isinstance(data.get("extra", {}), dict) or data.get("role", "measure") not in ROLES:
                raise ValueError("bad extra or role")
            pair = data.get("extra", {}).get("hosts")
            if pair is not None and not (isinstance(pair, list) and len(pair) == 2
                                         and all(isinstance(h, str) and HOST_NAME.fullmatch(h) for h in pair)):
                raise ValueError("a run's hosts are two host names")
            return Run(**data)
        except (TypeError, ValueError, KeyError) as err:
            raise CloudnoiseError(f"the campaign's plan is not valid ({err}); measure into a new --out") from None

    @property
    def pairs(self) -> int:
        return max(1, self.ranks // 2)


@dataclass
class Options:
    """What the user asked for; None means the experiment's default."""

    ranks: int | None = None
    sizes: list[int] | None = None
    iterations: int | None = None
    warmup: int | None = None
    duration_s: float | None = None
    connections: list[int] | None = None
    intervals_s: list[float] | None = None
    detours: int | None = None
    per_core: bool = False
    ppn: int | None = None
    hosts: int = 1
    host_names: list[str] = field(default_factory=list)  # --hosts as given (latency-noise pairs them)
    inject: tuple[float, float] | None = None
    train: int = LOGGP_TRAIN
    rounds: int = LOGGP_ROUNDS


HOST_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._:-]{0,252}")


def host_pairs(hosts: list[str]) -> list[tuple[str, str]]:
    """The pairs `measure latency-noise --hosts` measures in turn: with more than two hosts, each
    host with the next (a-b, c-d, ...; an odd one out with the first), so that every host is in
    a pair and no two pairs share a host where the count is even. Two hosts or fewer: none (the
    launch places the ranks)."""
    if len(hosts) <= 2:
        return []
    pairs = [(hosts[i], hosts[i + 1]) for i in range(0, len(hosts) - 1, 2)]
    if len(hosts) % 2:
        pairs.append((hosts[-1], hosts[0]))
    return pairs


def default_warmup(iterations: int) -> int:
    """10 % of the iterations, at least 10 and at most 100."""
    return max(10, min(100, iterations // 10))


def _powers_of_two_up_to(limit: int) -> list[int]:
    out, n = [], 1
    while n <= limit:
        out.append(n)
        n *= 2
    return out


def plan(experiment: str, opt: Options, cpu_count: int) -> list[Run]:
    """The launches that measure ``experiment`` as asked."""
    if experiment not in EXPERIMENTS:
        raise CloudnoiseError(f"unknown experiment {experiment!r}; one of {', '.join(EXPERIMENTS)}")
    ranks = opt.ranks
    if experiment == "os-noise":
        if opt.per_core:
            ranks = ranks or cpu_count * max(1, opt.hosts)
        ranks = ranks or 1
        duration = 10.0 if opt.duration_s is None else opt.duration_s
        detours = 100000 if opt.detours is None else opt.detours
        ppn = opt.ppn or (cpu_count if opt.per_core and opt.hosts > 1 else None)
        return [
            Run("cn_detour", "detour", ranks, [Unit(0, 0, 0)], ppn=ppn, duration_s=duration,
                detours=detours, inject=opt.inject, extra={"bind_core": opt.per_core})
        ]

    ranks = ranks or 2
    if ranks < 2:
        raise CloudnoiseError(f"{experiment} needs at least 2 ranks (a ping-pong pair); pass --ranks 2")
    if ranks % 2:
        raise CloudnoiseError(f"{experiment} needs an even number of ranks (pairs); got --ranks {ranks}")
    iterations = opt.iterations
    two_nodes_ppn = opt.ppn or (ranks // 2 if opt.hosts > 1 else None)

    if experiment == "loggp":
        if ranks != 2:
            raise CloudnoiseError("loggp runs on exactly 2 ranks; pass --ranks 2")
        if not 2 <= opt.train <= 64:
            raise CloudnoiseError(f"--train must be 2 to 64 messages, got {opt.train}")
        if opt.rounds < 1:
            raise CloudnoiseError(f"--rounds must be at least 1, got {opt.rounds}")
        its = iterations or 1000
        units = [
            Unit(s, 0, its if iterations or s <= MiB else max(LOGGP_MIN_LARGE_ITERATIONS, its * MiB // s))
            for s in (opt.sizes or LOGGP_SIZES)
        ]
        warm = opt.warmup if opt.warmup is not None else LOGGP_WARMUP
        # Each rank on a core of its own: two busy-polling ranks that the
        # scheduler puts on one core take turns in time slices (milliseconds
        # per message on a loaded machine).
        return [Run("cn_loggp", "loggp", 2, units, ppn=opt.ppn or (1 if opt.hosts > 1 else None),
                    warmup=warm, extra={"train": opt.train, "rounds": opt.rounds,
                                        "bind_core": opt.hosts > 1 or cpu_count >= 2})]

    if experiment == "burst":
        its = iterations or 20
        warm = 10 if opt.warmup is None else opt.warmup
        sizes = opt.sizes or [MiB]
        intervals = opt.intervals_s if opt.intervals_s is not None else BURST_INTERVALS_S
        units = [Unit(s, int(round(iv * 1e9)), its) for s in sizes for iv in intervals]
        return [Run("cn_pingpong", "pingpong", 2, units, ppn=1 if opt.hosts > 1 else None, warmup=warm)]

    if experiment in ("latency-noise", "bandwidth-noise"):
        duration = 60.0 if opt.duration_s is None else opt.duration_s
        warm = 10 if opt.warmup is None else opt.warmup
        if experiment == "latency-noise":
            sizes = opt.sizes or [1]
            # more than two hosts: their pairs one after another, each for the duration, each its own
            # series (a pair's stalls told from the system's: model/vouching.py)
            return [Run("cn_pingpong", "pingpong", 2, [Unit(sizes[0], 0, 0)],
                        ppn=1 if opt.hosts > 1 else None, warmup=warm, duration_s=duration,
                        extra={"bind_core": opt.hosts > 1 or cpu_count >= 2, **({"hosts": list(pair)} if pair else {})})
                    for pair in (host_pairs(opt.host_names) or [None])]
        conns = opt.connections or _powers_of_two_up_to(ranks // 2)
        runs: list[Run] = []
        need_sweep = opt.sizes is None or len(conns) > 1
        if need_sweep:
            sweep_sizes = opt.sizes or SWEEP_SIZES
            for n in conns:
                runs.append(Run("cn_pingpong", "pingpong", 2 * n, [Unit(s, 0, 50) for s in sweep_sizes],
                                ppn=n if opt.hosts > 1 else None, split=True, warmup=5, role="sweep"))
        size = opt.sizes[0] if opt.sizes and not need_sweep else 0
        pairs = conns[0] if len(conns) == 1 else 0
        runs.append(Run("cn_pingpong", "pingpong", 2 * pairs, [Unit(size, 0, 0)],
                        ppn=(pairs or None) if opt.hosts > 1 else None, split=True,
                        warmup=warm, duration_s=duration, extra={"ppn_per_pair": opt.hosts > 1}))
        return runs

    its = iterations or 1000
    warm = opt.warmup if opt.warmup is not None else default_warmup(its)
    units = [Unit(s, 0, its) for s in (opt.sizes or DEFAULT_SIZES)]
    if experiment in ("latency", "bandwidth"):
        return [Run("cn_pingpong", "pingpong", ranks, units, ppn=two_nodes_ppn,
                    split=ranks > 2, warmup=warm)]
    if experiment == "bidirectional":
        return [Run("cn_pingpong", "bidir", ranks, units, ppn=two_nodes_ppn, split=ranks > 2, warmup=warm)]
    # connections: one launch per number of concurrent pairs
    conns = opt.connections or _powers_of_two_up_to(min(16, ranks // 2))
    too_many = [n for n in conns if 2 * n > ranks]
    if too_many:
        raise CloudnoiseError(
            f"{max(too_many)} connections need {2 * max(too_many)} ranks; raise --ranks or lower --connections"
        )
    return [
        Run("cn_pingpong", "pingpong", 2 * n, [Unit(u.size, 0, u.iterations) for u in units],
            ppn=n if opt.hosts > 1 else opt.ppn, split=True, warmup=warm)
        for n in conns
    ]
