"""What a memory access and a mispredicted branch cost on this core: the limits an event
loop meets (the account of where the 16K-rank runs' time goes).

    python bench/bench_core_limits.py                 # ~1 minute
    python bench/bench_core_limits.py --loads 4000000 --sizes 48KiB,2MiB

An event loop over thousands of hosts in LogGOPSim's global (time, stamp) order reads
each event's host, its posted receives and its queue slot at addresses that the order
makes random; the engine's counted figures (valgrind's cache and branch model, which
counts misses but not what they cost) say how many such accesses miss each cache level
per event. This script measures what they cost here, with a C program compiled by gcc
-O2 (-march=native):

* dependent loads: a pointer chase through a random cyclic order of 64-byte lines in a
  working set of each size: nanoseconds per load when each address needs the load before
  it (as an event's host needs its event, and its queue slot its time): the latency of
  the level the working set fits.
* independent loads: the same lines read in a random order known in advance (the next
  address does not wait on the last load): nanoseconds per load when the core overlaps
  the misses, the best a loop can do when it knows its next addresses ahead.
* branches: a loop whose branch follows random bits against the same loop on bits all
  one: nanoseconds per mispredicted branch (the difference, per misprediction).
* the clock: a chain of dependent adds (one cycle each): cycles per nanosecond, the
  core's clock as it runs here (this VM shows only a nominal 2.3 GHz), to turn an
  instruction count and a time into instructions per cycle.

Printed: a table of nanoseconds per access at each working-set size, the branch cost
and the clock. CPU time of the child alone; the machine is shared, so run it when it is
quiet and take the medians of --repeat runs (printed as min-median-max).

On the 2-core development VM (load 0.7-1.1), medians: dependent
loads 3.0 ns (32 KiB), 6.4 (256 KiB), 8.2 (1 MiB), 30.3 (2 MiB), 38.7 (4 MiB), 151
(16 MiB), 168 (64 MiB), 277 (512 MiB); independent loads 3.5-4.9 ns up to 16 MiB, 14.9
at 64 MiB, 23.5 at 512 MiB; a mispredicted branch 9.1 ns; the clock 2.9 GHz.
docs/explanation/engine.md sets these beside the engine's counted instructions, misses
and mispredictions per event.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from cloudnoise.errors import CloudnoiseError
from cloudnoise.units import parse_size_bytes

PROGRAM = r"""
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double cpu_s(void) {
  struct timespec t;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return t.tv_sec + 1e-9 * t.tv_nsec;
}

static uint64_t state = 88172645463325252ull;
static uint64_t next_random(void) {  /* xorshift64 */
  state ^= state << 13;
  state ^= state >> 7;
  state ^= state << 17;
  return state;
}

/* One 64-byte line per slot; slot i's first word holds the next slot's index. */
typedef struct { uint64_t next; uint64_t pad[7]; } Line;

int main(int argc, char** argv) {
  if (argc != 4) return 2;
  const char mode = argv[1][0];
  const size_t bytes = strtoull(argv[2], 0, 10);
  const long loads = strtol(argv[3], 0, 10);
  if (mode == 'c') {  /* the clock: a chain of dependent adds, one cycle each */
    uint64_t x = 0;
    const double t0 = cpu_s();
    for (long i = 0; i < loads; ++i) {
      /* Register to register: recent cores fold an add of an immediate at
         renaming, which would count several a cycle. */
      __asm__ volatile("add %0, %0\n\tadd %0, %0\n\tadd %0, %0\n\tadd %0, %0\n\t"
                       "add %0, %0\n\tadd %0, %0\n\tadd %0, %0\n\tadd %0, %0" : "+r"(x));
    }
    const double t = cpu_s() - t0;
    printf("%.3f %llu\n", 8.0 * loads / t / 1e9, (unsigned long long)(x & 1));
    return 0;
  }
  if (mode == 'b') {  /* branches: random bits, then all ones */
    const size_t n = 1u << 16;
    uint8_t* bits = malloc(n);
    for (size_t i = 0; i < n; ++i) bits[i] = next_random() & 1;
    double t[2];
    volatile uint64_t sink = 0;
    for (int pass = 0; pass < 2; ++pass) {
      if (pass == 1) memset(bits, 1, n);
      uint64_t a = 0, b = 0;
      const double t0 = cpu_s();
      for (long i = 0; i < loads; ++i) {
        /* An if the compiler must keep as a branch: both arms store. */
        if (bits[i & (n - 1)]) { a += i; __asm__ volatile("" : "+r"(a)); }
        else { b ^= i; __asm__ volatile("" : "+r"(b)); }
      }
      t[pass] = cpu_s() - t0;
      sink = a + b;
    }
    (void)sink;
    /* Half the random branches are mispredicted at best. */
    printf("%.3f\n", (t[0] - t[1]) / (loads / 2.0) * 1e9);
    return 0;
  }
  const size_t n = bytes / sizeof(Line);
  Line* lines = aligned_alloc(64, n * sizeof(Line));
  uint32_t* order = malloc(n * sizeof(uint32_t));
  if (!lines || !order) {
    fprintf(stderr, "cannot allocate %zu bytes\n", bytes);
    return 3;
  }
  for (size_t i = 0; i < n; ++i) order[i] = (uint32_t)i;
  for (size_t i = n - 1; i > 0; --i) {  /* Fisher-Yates */
    const size_t j = next_random() % (i + 1);
    const uint32_t x = order[i]; order[i] = order[j]; order[j] = x;
  }
  for (size_t i = 0; i < n; ++i) lines[order[i]].next = order[(i + 1) % n];
  uint64_t sum = 0;
  /* A first pass brings the set into whatever level holds it. */
  for (size_t i = 0, p = order[0]; i < n; ++i) p = lines[p].next, sum += p;
  const double t0 = cpu_s();
  if (mode == 'd') {
    uint64_t p = order[0];
    for (long i = 0; i < loads; ++i) p = lines[p].next;
    sum += p;
  } else {
    for (long i = 0; i < loads; ++i) sum += lines[order[(size_t)i % n]].next;
  }
  const double t = cpu_s() - t0;
  printf("%.3f %llu\n", t / loads * 1e9, (unsigned long long)(sum & 1));
  return 0;
}
"""

def build(work: Path) -> Path:
    if shutil.which("gcc") is None:
        sys.exit("gcc is not installed (Debian: apt-get install gcc)")
    src = work / "limits.c"
    src.write_text(PROGRAM)
    exe = work / "limits"
    subprocess.run(["gcc", "-O2", "-march=native", "-o", str(exe), str(src)], check=True)
    return exe


def measure(exe: Path, mode: str, size: int, loads: int) -> float:
    out = subprocess.run([str(exe), mode, str(size), str(loads)], capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit(f"the measurement ({mode}, {size} bytes) failed: {out.stderr.strip() or f'exit {out.returncode}'}")
    return float(out.stdout.split()[0])


def spread(values: list[float]) -> str:
    return f"{min(values):6.1f} {statistics.median(values):6.1f} {max(values):6.1f}"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", default="32KiB,256KiB,1MiB,2MiB,4MiB,16MiB,64MiB,512MiB",
                    help="working sets, comma-separated (default: %(default)s)")
    ap.add_argument("--loads", type=int, default=20_000_000, help="loads per measurement (default: %(default)s)")
    ap.add_argument("--repeat", type=int, default=3, help="runs of each measurement (default: %(default)s)")
    args = ap.parse_args()
    try:
        sizes = [parse_size_bytes(s.strip(), "--sizes") for s in args.sizes.split(",")]
    except CloudnoiseError as err:
        sys.exit(str(err))
    if any(size < 128 for size in sizes):
        sys.exit("--sizes: at least 128B (two lines to chase)")
    if any(size > 1 << 32 for size in sizes):
        sys.exit("--sizes: at most 4GiB (the largest set must stay in memory)")
    if args.loads < 1000 or args.repeat < 1:
        sys.exit("--loads must be at least 1000 and --repeat at least 1")
    with tempfile.TemporaryDirectory() as tmp:
        exe = build(Path(tmp))
        print("working set   dependent load ns (min median max)   independent load ns (min median max)")
        for size in sizes:
            dep = [measure(exe, "d", size, args.loads) for _ in range(args.repeat)]
            ind = [measure(exe, "i", size, args.loads) for _ in range(args.repeat)]
            label = (f"{size / (1 << 20):g} MiB" if size >= 1 << 20
                     else f"{size / (1 << 10):g} KiB" if size >= 1 << 10 else f"{size} B")
            print(f"{label:>11}   {spread(dep):>33}   {spread(ind):>36}")
        branch = [measure(exe, "b", 0, args.loads * 5) for _ in range(args.repeat)]
        print(f"mispredicted branch: {spread(branch)} ns (min median max)")
        clock = [measure(exe, "c", 0, args.loads * 5) for _ in range(args.repeat)]
        print(f"clock (dependent adds per ns): {spread(clock)} GHz (min median max)")


if __name__ == "__main__":
    main()
