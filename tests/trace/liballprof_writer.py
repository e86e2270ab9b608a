"""Writes liballprof trace files the way the tracer prints them (its
gencode.py: every argument of the C prototype by type, pointers and output
arguments as addresses, datatypes as ID,SIZE,EXTENT, communicators as
HANDLE,RANK,SIZE, count arrays as ADDRESS:C0,C1,...), with absolute
wall-clock microseconds, so that tests can build programs the real tracer
would have traced: sub-communicators, unknown calls, skewed clocks (with
each header form of the clock difference: `variant`).

Handles look like Open MPI's C binding by default (communicators are
pointers, different on every rank); `mpich=True` gives MPICH's integers
(MPI_COMM_WORLD = 0x44000000, new communicators 0x84000000 + k).
"""

from __future__ import annotations

from pathlib import Path

DOUBLE = "11,8,8"
INT = "2,4,4"
BASE_US = 1237666046950106.0


class RankWriter:
    """One rank's file: `call(name, *args)` appends a line `gap` us after the last one ended."""

    def __init__(self, rank: int, size: int, *, variant: str = "collprof", clockdiff_us: float = 0.0,
                 start_us: float = BASE_US, mpich: bool = False) -> None:
        self.rank, self.size, self.mpich = rank, size, mpich
        self.t = start_us
        self.new_comms = 0
        if variant == "collprof":
            self.lines = ["# collprof 0.9 output file", "# Sat Mar 21 16:07:26 2009", f"# host: node{rank}.example.org",
                          f"# Init clockdiff: {clockdiff_us:.6f}", ""]
        elif variant in ("htor", "htor-us", "none"):
            # htor's: seconds, as labelled; htor-us: microseconds labelled `s` (htor's PMPI tracer 0.9 on
            # a Cray, in the paper authors' MILC traces); none: no clockdiff line at all
            diff = {"htor": f"# clockdiff: {clockdiff_us / 1e6:.6f} s (relative to rank 0)",
                    "htor-us": f"# clockdiff: {clockdiff_us:.6f} s (relative to rank 0)", "none": None}[variant]
            self.lines = ["# htor's PMPI Tracer 1 Output File", "# time: Sat Mar 21 16:07:26 2009",
                          f"# hostname: node{rank}.example.org", "# uname: Linux node x86_64",
                          *([diff] if diff else []), ""]
        else:
            raise ValueError(variant)
        self.lines.append(f"MPI_Init:-:140737488343500:140737488344604:{self.t:.6f}")
        self.world = self.comm(1140850688 if mpich else 6611456 + 0, rank, size)

    @staticmethod
    def comm(handle: int, rank: int, size: int) -> str:
        return f"{handle},{rank},{size}"

    def new_handle(self) -> int:
        """The handle the library would give this rank's next communicator."""
        self.new_comms += 1
        if self.mpich:
            return 0x84000000 + self.new_comms - 1
        return 46912498581760 + 0x10000 * self.rank + 0x400 * self.new_comms

    def call(self, name: str, *args: object, dur: float = 4.0, gap: float = 10.0) -> None:
        t0 = self.t + gap
        self.t = t0 + dur
        self.lines.append(":".join([name, f"{t0:.6f}", *map(str, args), f"{self.t:.6f}"]))

    # the calls tests use, with liballprof's argument layout
    def send(self, count: int, peer: int, tag: int, comm: str, dtype: str = DOUBLE) -> None:
        self.call("MPI_Send", 11251872, count, dtype, peer, tag, comm)

    def recv(self, count: int, peer: int, tag: int, comm: str, dtype: str = DOUBLE) -> None:
        self.call("MPI_Recv", 11287888, count, dtype, peer, tag, comm, 140737488340112)

    def allreduce(self, count: int, comm: str) -> None:
        self.call("MPI_Allreduce", 140737488342216, 140737488341152, count, DOUBLE, 3, comm)

    def bcast(self, count: int, root: int, comm: str) -> None:
        self.call("MPI_Bcast", 6610272, count, DOUBLE, root, comm)

    def barrier(self, comm: str) -> None:
        self.call("MPI_Barrier", comm)

    def finalize(self) -> str:
        self.lines.append("# Finalize clockdiff: 0.000000")
        self.lines.append(f"MPI_Finalize:{self.t + 10:.6f}:-")
        return "\n".join(self.lines) + "\n"


def write(folder: Path, texts: list[str]) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for r, text in enumerate(texts):
        (folder / f"pmpi-trace-rank-{r}.txt").write_text(text)
    return folder
