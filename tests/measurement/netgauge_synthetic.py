"""Small synthetic Netgauge run folders with known contents, in the formats the
paper's scripts leave (see cloudnoise.measurement.imports.netgauge_*)."""

from __future__ import annotations

from pathlib import Path

import numpy as np

RUN = 1000


def pingpong_text(sizes: list[int], runs: int, half_us, header_every_run: bool = True) -> str:
    """`#size<TAB>rtt` runs of 1000 samples; half_us(run, i) is sample i's RTT/2 in us."""
    out = []
    for r in range(runs):
        for size in sizes:
            if header_every_run or (r == 0 and size == sizes[0]):
                out.append("#size\trtt")
            out += [f"{size}\t{half_us(r, i):.6f}" for i in range(RUN)]
    return "\n".join(out) + "\n"


def osnoise_text(runs: list[list[tuple[float, float]]], period_s: float, host: str = "node7") -> str:
    out = []
    for detours in runs:
        out += ["# Benchmark Method: selfish", "# Compute-Cycle Duration: 1000 usec", f"# Nodename: {host}",
                "# Sysname : Linux", "# Release : 5.3.18-test", "# Minimal cycle length [ns]: 100.000000 ",
                "# Threshold: [% minimal cycle length]: 900 ", "# ", "# Time [ns]\tselfish duration [ns]"]
        out += [f"{s:.2f}\t{d:.2f}" for s, d in detours]
        out += ["# CPU overhead due to noise: 0.10%", f"# Measurement period: {period_s:.2f} s"]
    return "\n".join(out) + "\n"


def loggp_table(L: float, o_s: float, o_r: float, g: float, G: float, S: int, n: int = 10,
                sizes: list[int] | None = None, rendezvous_ns: float = 0.0) -> str:
    """A Netgauge LogGP table generated from known LogGP parameters (us, us/B) by the
    LogGP formulas Netgauge's method rests on: PRTT(1,0,s) = 2 (o_s + L + (s-1) G + o_r),
    PRTT(n,0,s) = PRTT(1,0,s) + (n-1) max(o_s, g + (s-1) G), PRTT(n,d,s) = PRTT(1,0,s)
    + (n-1)(o_s + d); a message above S pays `rendezvous_ns` more one way."""
    sizes = sizes or [1] + [1 + 1024 * k for k in range(1, 128)]
    rows = ["# size n PRTT(1,0,s) PRTT(n,0,s) PRTT(n,PRTT(1,0,s),s) L o_s o_r g G lsqu(g,G)",
            '# to get o: plot "./loggp.out" using 1:(($5-$3)/($2-1)-$3)',
            '# to get g,G: plot "./loggp.out" using 1:($4-$3)/($2-1)']
    xs, ys = [], []
    for s in sizes:
        one_way = o_s + L + (s - 1) * G + o_r + (rendezvous_ns / 1e3 if s > S else 0.0)
        p1 = 2 * one_way
        pn = p1 + (n - 1) * max(o_s, g + (s - 1) * G)
        pd = p1 + (n - 1) * (o_s + p1)
        xs.append(s - 1)
        ys.append((pn - p1) / (n - 1))
        if len(xs) >= 2:
            G_fit, g_fit = np.polyfit(xs, ys, 1)
            gg, GG = f"{g_fit:.6f}", f"{G_fit:.6f}"
        else:
            gg, GG = "-nan", "-nan"
        os_ = (pd - p1) / (n - 1) - p1
        rows.append(f"{s} {n} {p1:.6f} {pn:.6f} {pd:.6f} {p1 / 2 if s == sizes[0] else 0:.6f} {os_:.6f} {o_r:.6f} "
                    f"{gg} {GG} -nan")
    # Netgauge's L column repeats PRTT(1,0,1)/2 on every row
    first_L = rows[3].split()[5]
    rows = rows[:3] + [" ".join(r.split()[:5] + [first_L] + r.split()[6:]) for r in rows[3:]]
    return "\n".join(rows) + "\n"


def write_run(folder: Path, lat_runs: int = 3, bw_runs: int = 2) -> Path:
    """A small run folder: latency and bandwidth noise, a 3-size sweep, OS noise in two calls,
    a LogGP table, a DGEMM file, the timer resolution and a command log."""
    folder.mkdir(parents=True, exist_ok=True)
    # latency: sample i of run r takes 2 + r + i/1000 us (the first 21 of each run are warm-up)
    (folder / "ng_netnoise_mpi_lat.out").write_text(
        pingpong_text([1], lat_runs, lambda r, i: 2.0 + r + i / 1000.0))
    (folder / "ng_netnoise_mpi_bw.out").write_text(
        pingpong_text([16777216], bw_runs, lambda r, i: 1600.0 + (i % 7)))
    (folder / "ng_one_one_mpi_stripe1.out").write_text(
        pingpong_text([1, 1024, 1048576], 1, lambda r, i: 3.0))
    (folder / "ng_osnoise.out").write_text(osnoise_text(
        [[(0.0, 1000.0), (5000.0, 2000.0)], [(100.0, 3000.0)]], period_s=1.0))
    (folder / "ng_loggp.out").write_text(loggp_table(L=1.0, o_s=0.3, o_r=0.4, g=0.5, G=0.0001, S=8192))
    (folder / "gemm_1024.dat").write_text("#N\tTIME(s)\tGFLOPs/s\tTHEO_PEAK\n1024\t0.01\t200.0\t300.0\n"
                                          "1024\t0.01\t210.0\t300.0\n1024\t0.01\t220.0\t300.0\n")
    (folder / "wtime_res.out").write_text("MPI_Wtime resolution is 1.000000 nanoseconds.\n")
    (folder / "ng_netnoise_mpi_lat.cmdout").write_text(
        "# Info:   (0): Netgauge v2.4.6 MPI enabled (P=2, threadlevel=0) (./netgauge -c 1000 -g 1 -s 1-1 "
        "-f x.out.tmp -m mpi -x one_one )\n1 bytes \t -> 2.00 us \t == 3.73 Mbit/s\n")
    return folder
