"""The engine beside a textbook event loop of the same collective.

    PYTHONPATH=src python bench/bench_textbook_loop.py [--ranks 16384] [--reps 20] [--pairs 5]

The targets for the 16K-rank 16 B dissemination under noise are >= 50x LogGOPSim -O3 per
repetition and bench_noise's 1000 repetitions in <= 8 s, or a profile-backed account of
where the remaining time goes and why it cannot go (the physical limit of an event loop on
this core, measured). This script is a step towards that account: it compiles (g++ -O3
-march=native) a minimal simulator of the same collective, a textbook discrete-event loop
written for this one case, and runs it beside the engine on one thread, in turn, in the
same minutes:

* the textbook loop: every rank's rounds of a dissemination (send to r + 2^k, receive from
  r - 2^k, round k + 1 after both), LogGP with o, g, L; two heap events per message
  (the sender's round start, the message's arrival) in one binary heap of
  (time, rank, round) keys, and, with --noise, one latency draw per message from a
  1024-entry quantile table by a xorshift generator (what a per-message noise draw
  costs at the least). No schedule, no matching queue, no OS noise, no windows: it
  knows the collective's structure, which a general GOAL simulator does not.
* the engine: cloudnoise.simulate on the generated Schedgen schedule (14 rounds x
  16,384 ranks = 229,376 messages), one thread, noise `none` and `network` with
  bench_noise's latency and bandwidth models; run with --reps and with twice as many,
  the difference divided by --reps, so that the per-call set-up (noise tables, the
  schedule's transfer to the engine) stays out as it does for the loop.

Printed: nanoseconds of CPU per message for each, per pair, and the ratio engine / loop
(medians). CPU time (the process's own) is used because the machine is shared; both
sides run alternately so that load changes hit both. The loop's runtimes are not the
engine's (its semantics are simpler), and it is not a lower bound either:

On the 2-core development VM (PGO off, load ~7, --reps 10 --pairs 2): textbook loop
197 ns per message without noise, 374 ns with a latency draw; the engine 63 ns without
noise, 88 ns with `network` (latency and bandwidth draws): 0.32x and 0.23x of the loop.
The engine's windows (host by host, radix-ordered stamps) beat the one binary heap of
16K-32K events by 3x, so the textbook loop is no floor; a floor needs a loop as clever as
the engine's, minus the engine's generality.
What the figures do say: bench_noise's 1000 repetitions on 2 threads at <= 8 s need
<= 70 ns per message with OS and network noise on each thread (229,376 messages a
repetition); the engine's `network` alone is at 88 ns here.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

LOOP_CPP = r"""
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <vector>
#include <algorithm>

struct Ev { int64_t t; uint32_t rank; uint32_t kind_round; };  // kind in the top bit: 1 = arrival
static inline bool later(const Ev& a, const Ev& b) { return a.t > b.t; }

int main(int argc, char** argv) {
  const uint32_t P = std::strtoul(argv[1], nullptr, 10);
  const int reps = std::atoi(argv[2]);
  const bool noise = std::atoi(argv[3]) != 0;
  const int64_t L = 1200000, o = 150000, g = 150000;  // ps, bench_noise's azure-hpc
  uint32_t R = 0; while ((1u << R) < P) ++R;
  std::vector<int64_t> table(1024);
  for (int i = 0; i < 1024; ++i) table[i] = int64_t(100000.0 * (1.0 + i / 1024.0) * (1.0 + i / 1024.0));
  std::vector<int64_t> cpu(P), arrived(size_t(P) * R), entered(size_t(P) * R);
  std::vector<uint8_t> have(size_t(P) * R), waiting(size_t(P) * R);
  std::vector<Ev> heap; heap.reserve(2 * size_t(P));
  uint64_t x = 88172645463325252ull, messages = 0; int64_t end_sum = 0;
  timespec a, b; clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &a);
  for (int rep = 0; rep < reps; ++rep) {
    std::fill(cpu.begin(), cpu.end(), 0); std::fill(have.begin(), have.end(), 0);
    std::fill(waiting.begin(), waiting.end(), 0);
    heap.clear();
    for (uint32_t r = 0; r < P; ++r) heap.push_back({0, r, 0});
    std::make_heap(heap.begin(), heap.end(), later);
    int64_t end = 0;
    while (!heap.empty()) {
      std::pop_heap(heap.begin(), heap.end(), later);
      Ev e = heap.back(); heap.pop_back();
      const uint32_t k = e.kind_round & 0x7fffffffu;
      const size_t slot = size_t(e.rank) * R + k;
      if (!(e.kind_round & 0x80000000u)) {  // rank enters round k: send, then wait for its receive
        if (k == R) { end = std::max(end, e.t); continue; }
        const int64_t start = std::max(e.t, cpu[e.rank]);
        cpu[e.rank] = start + std::max(o, g);
        int64_t lat = L;
        if (noise) { x ^= x << 13; x ^= x >> 7; x ^= x << 17; lat += table[x & 1023]; }
        const uint32_t peer = uint32_t((e.rank + (1u << k)) % P);
        heap.push_back({start + o + lat, peer, k | 0x80000000u});
        std::push_heap(heap.begin(), heap.end(), later);
        ++messages;
        if (have[slot]) {  // its message is already there
          const int64_t done = std::max(arrived[slot], cpu[e.rank]) + o;
          cpu[e.rank] = done;
          heap.push_back({done, e.rank, k + 1}); std::push_heap(heap.begin(), heap.end(), later);
        } else { waiting[slot] = 1; entered[slot] = e.t; }
      } else {  // round k's message arrives at e.rank
        if (waiting[slot]) {
          const int64_t done = std::max(e.t, cpu[e.rank]) + o;
          cpu[e.rank] = done;
          heap.push_back({done, e.rank, k + 1}); std::push_heap(heap.begin(), heap.end(), later);
        } else { have[slot] = 1; arrived[slot] = e.t; }
      }
    }
    end_sum += end;
  }
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &b);
  const double s = (b.tv_sec - a.tv_sec) + 1e-9 * (b.tv_nsec - a.tv_nsec);
  std::printf("%llu %.9f %lld\n", (unsigned long long)messages, s, (long long)(end_sum / reps));
  return 0;
}
"""


def build_loop(work: Path) -> Path:
    src, exe = work / "loop.cpp", work / "loop"
    src.write_text(LOOP_CPP)
    subprocess.run(["g++", "-O3", "-march=native", "-std=c++17", "-o", str(exe), str(src)], check=True)
    return exe


def loop_ns_per_message(exe: Path, ranks: int, reps: int, noise: bool) -> float:
    out = subprocess.run([str(exe), str(ranks), str(reps), "1" if noise else "0"], capture_output=True, text=True,
                         check=True).stdout.split()
    messages, seconds = int(out[0]), float(out[1])
    return seconds / messages * 1e9


def engine_ns_per_message(ranks: int, reps: int, variant: str) -> float:
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from bench_noise import noise_case

    from cloudnoise import simulate
    from cloudnoise.schedules.patterns import CollectiveSpec, generate

    params, noise = noise_case()
    sched = generate(CollectiveSpec(pattern="dissemination", ranks=ranks, size=16))
    simulate(sched, params=params, noise=noise, variant=variant, reps=1, seed=1, threads=1,
             ready_order="loggopsim")  # warm: imports, first allocations
    cpu, messages = [], 0
    for n in (reps, 2 * reps):  # the difference leaves out the per-call set-up (noise tables)
        c0 = time.process_time()
        r = simulate(sched, params=params, noise=noise, variant=variant, reps=n, seed=1, threads=1,
                     ready_order="loggopsim")
        cpu.append(time.process_time() - c0)
        messages = r.messages
    return (cpu[1] - cpu[0]) / (messages * reps) * 1e9


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--ranks", type=int, default=16384)
    ap.add_argument("--reps", type=int, default=20)
    ap.add_argument("--pairs", type=int, default=5)
    opts = ap.parse_args()
    import os

    print(f"{opts.ranks}-rank 16 B dissemination, {opts.reps} repetitions per run, one thread, CPU ns per message; "
          f"load {os.getloadavg()[0]:.2f}")
    with tempfile.TemporaryDirectory() as tmp:
        exe = build_loop(Path(tmp))
        rows: dict[str, list[float]] = {k: [] for k in ("loop none", "engine none", "loop noise", "engine network")}
        print("pair   loop none  engine none   loop noise  engine network")
        for i in range(opts.pairs):
            rows["loop none"].append(loop_ns_per_message(exe, opts.ranks, opts.reps, False))
            rows["engine none"].append(engine_ns_per_message(opts.ranks, opts.reps, "none"))
            rows["loop noise"].append(loop_ns_per_message(exe, opts.ranks, opts.reps, True))
            rows["engine network"].append(engine_ns_per_message(opts.ranks, opts.reps, "network"))
            print(f"{i + 1:>4}  " + "  ".join(f"{rows[k][-1]:>10.1f}" for k in rows))
    med = {k: statistics.median(v) for k, v in rows.items()}
    print("median " + ", ".join(f"{k} {v:.1f} ns" for k, v in med.items()))
    print(f"engine / textbook loop: noiseless {med['engine none'] / med['loop none']:.2f}x, "
          f"with noise draws per message {med['engine network'] / med['loop noise']:.2f}x")


if __name__ == "__main__":
    main()
