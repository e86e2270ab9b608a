"""The figures of docs/explanation/model.md, drawn from what the engine computes.

    PYTHONPATH=src python docs/explanation/figures/model_figures.py     # writes the PNGs beside it

`loggops.png`: one message's costs on a timeline, each bar placed by the model's rule and the
total checked against the engine's end time for the same message. `noise-kinds.png`: the
slowdown (runtime over the noiseless runtime) of 300 repetitions of one collective under each
noise kind alone, simulated by `cloudnoise.simulate` from a profile that carries only that kind.
"""

from __future__ import annotations

import copy
import json
import tempfile
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

import cloudnoise  # noqa: E402

HERE = Path(__file__).resolve().parent
DATA = Path(cloudnoise.__file__).resolve().parent / "profiles" / "data"
REPS = 300

# One system's LogGOPS (AWS HPC's reconstructed parameters) and one noise kind at a time.
BASE = "aws-hpc"
KINDS = [
    ("OS noise", "os_noise", {"synthetic": "random:rate=1005,duration=mixture(0.995025*lognormal(median=3000,sigma=0.5)"
                                           "+0.004975*lognormal(median=99640,sigma=0.5))"},
     ("dissemination", 256, "16B"), "os"),
    ("latency noise (per message)", "latency_noise",
     {"spec": "mixture:0.999*lognormal(median=2107,sigma=0.25)+0.001*pareto(scale=4316,alpha=2)"},
     ("dissemination", 256, "16B"), "network"),
    ("latency stalls (in time)", "latency_noise",
     {"spec": "constant:value=0", "stalls": "rate=200,duration=lognormal(median=2ms,sigma=0.5),stall=50us,"
                                            "gap=lognormal(median=20us,sigma=0.2)"},
     ("dissemination", 256, "16B"), "network"),
    ("bandwidth noise (per message)", "bandwidth_noise",
     {"spec": "mixture:0.999*uniform(low=0.8002,high=1)+0.001*uniform(low=0.3,high=0.6)"},
     ("allreduce_ring", 16, "16MiB"), "network"),
    ("bandwidth episodes (in time)", "bandwidth_noise",
     {"spec": "constant:value=1", "episodes": "rate=1,duration=uniform(low=0,high=600ms),fraction=uniform(low=0.4,high=0.6)"},
     ("allreduce_ring", 16, "16MiB"), "network"),
]


def _profile(folder: Path, part: str, value: dict[str, str]) -> Path:
    doc = json.loads((DATA / f"{BASE}.json").read_text())
    for key in ("latency_noise", "bandwidth_noise", "os_noise", "different_racks"):
        doc.pop(key, None)
    doc[part] = {"provenance": {"kind": "reconstructed", "source": "docs/explanation/figures/model_figures.py"},
                 **copy.deepcopy(value)}
    path = folder / f"{part}-{len(list(folder.iterdir()))}.json"
    path.write_text(json.dumps(doc))
    return path


def noise_kinds(out: Path) -> None:
    fig, axes = plt.subplots(2, 3, figsize=(12, 6.4), constrained_layout=True)
    with tempfile.TemporaryDirectory() as tmp:
        panels = []
        for title, part, value, (pattern, ranks, size), variant in KINDS:
            r = cloudnoise.simulate(pattern=pattern, ranks=ranks, size=size, profile=_profile(Path(tmp), part, value),
                                    noise=[variant, "none"], reps=REPS, seed=1)
            quiet = float(r.variants["none"].runtime_ns[0])
            panels.append((title, f"{ranks}-rank {pattern.replace('_', ' ')}, {size}",
                           r.variants[variant].runtime_ns / quiet))
        daint = cloudnoise.simulate(pattern="dissemination", ranks=256, size="16B", profile="daint",
                                    noise=["network", "none"], reps=REPS, seed=1)
        panels.append(("switch draws (Daint's samples)", "256-rank dissemination, 16B",
                       daint.variants["network"].runtime_ns / float(daint.variants["none"].runtime_ns[0])))
    for ax, (title, workload, slowdown) in zip(axes.flat, panels):
        hi = max(float(np.quantile(slowdown, 0.99)), 1.02)
        ax.hist(np.clip(slowdown, None, hi), bins=40, color="#4c72b0")
        ax.axvline(1.0, color="black", lw=1.2, ls="--", label="noiseless")
        ax.axvline(float(np.median(slowdown)), color="#c44e52", lw=1.2, label=f"median {np.median(slowdown):.2f}x")
        ax.set_title(f"{title}\n{workload}", fontsize=10)
        ax.set_xlabel("runtime / noiseless runtime")
        ax.set_ylabel("repetitions")
        ax.legend(fontsize=8, frameon=False)
        ax.ticklabel_format(axis="x", useOffset=False, style="plain")
    fig.suptitle(f"Each noise kind alone: {REPS} repetitions (the last bar holds the p99 and beyond); "
                 "AWS HPC's LogGOPS parameters, Daint's for switch draws",
                 fontsize=11)
    fig.savefig(out, dpi=110)
    plt.close(fig)


def loggops(out: Path) -> None:
    # One eager message of s bytes, rank 0 to rank 1, LogGOPSim's rules: the sender's CPU
    # pays o + (s-1) O and its NIC g + (s-1) G; the first byte arrives o + L after the send
    # starts; the receiver's CPU then pays o + max((s-1) O, (s-1) G) while the bytes stream in.
    L, o, g, G, O, s = 3000.0, 1000.0, 1500.0, 0.5, 0.1, 4096
    goal = "num_ranks 2\n\nrank 0 {\nl1: send %db to 1 tag 0\n}\n\nrank 1 {\nl1: recv %db from 0 tag 0\n}\n" % (s, s)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "one.goal"
        path.write_text(goal)
        r = cloudnoise.simulate(path, L=L, o=o, g=g, G=G, O=O, S=65535)
    end = float(r.host_end_ns[1])
    send_cpu = (0.0, o + (s - 1) * O)
    nic = (0.0, g + (s - 1) * G)
    wire = (o, L)
    recv_cpu = (o + L, o + max((s - 1) * O, (s - 1) * G))
    model_end = recv_cpu[0] + recv_cpu[1]
    assert abs(model_end - end) < 1e-6, f"the drawn rule ({model_end} ns) is not the engine's ({end} ns)"
    fig, ax = plt.subplots(figsize=(9, 2.8), constrained_layout=True)
    rows = [("rank 0 CPU", [send_cpu], "o + (s-1)O"), ("rank 0 NIC", [nic], "g + (s-1)G: next send no earlier"),
            ("network", [wire], "L: first byte"), ("rank 1 CPU", [recv_cpu], "o + max((s-1)O, (s-1)G)")]
    for y, (name, spans, label) in enumerate(reversed(rows)):
        ax.broken_barh(spans, (y - 0.35, 0.7), color=["#c44e52", "#dd8452", "#55a868", "#4c72b0"][::-1][y])
        ax.text(spans[0][0] + spans[0][1] / 2, y, label, ha="center", va="center", fontsize=9, color="white",
                fontweight="bold")
    ax.set_yticks(range(len(rows)), [r[0] for r in reversed(rows)])
    ax.axvline(end, color="black", ls="--", lw=1)
    ax.text(end, len(rows) - 0.4, f" end {end / 1e3:.2f} us (the engine)", va="bottom", fontsize=9)
    ax.set_xlim(0, end * 1.18)
    ax.set_xlabel(f"time (ns): one {s}-byte eager message, L={L:.0f} o={o:.0f} g={g:.0f} ns, G={G} O={O} ns/B")
    fig.savefig(out, dpi=110)
    plt.close(fig)


if __name__ == "__main__":
    loggops(HERE / "loggops.png")
    noise_kinds(HERE / "noise-kinds.png")
    print("wrote", HERE / "loggops.png", HERE / "noise-kinds.png")
