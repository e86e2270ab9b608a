"""Writes small OTF2 archives for the tests with the otf2 package's writer,
laid out as Score-P lays out an MPI trace: one location group (process) per
rank with one thread, the MPI COMM_LOCATIONS group listing the ranks'
threads in rank order, MPI_COMM_WORLD over a COMM_GROUP of every rank, and
one Enter/Leave pair of an MPI region per call with the MPI records between
them."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any

import otf2
from otf2.enums import CollectiveOp, GroupType, Paradigm


class Archive:
    """`with Archive(folder, ranks) as a: a.call(rank, "MPI_Send", t0, t1, ("mpi_send", t, ...))`."""

    def __init__(self, folder: Path, ranks: int, resolution: int = 1_000_000_000, name: str = "traces") -> None:
        self.folder = Path(folder)
        self.anchor = self.folder / f"{name}.otf2"
        self.w = otf2.writer.Writer(str(self.folder), archive_name=name, timer_resolution=resolution)
        defs = self.w.definitions
        node = defs.system_tree_node("node0")
        self.locations = []
        for r in range(ranks):
            group = defs.location_group(f"MPI Rank {r}", system_tree_parent=node)
            self.locations.append(defs.location("Master thread", group=group))
        defs.group("MPI", group_type=GroupType.COMM_LOCATIONS, paradigm=Paradigm.MPI, members=tuple(self.locations))
        self.world = self.comm("MPI_COMM_WORLD", range(ranks))
        self.writers = [self.w.event_writer_from_location(loc) for loc in self.locations]
        self.regions: dict[str, Any] = {}

    def comm(self, name: str, ranks: Any, parent: Any = None) -> Any:
        """A communicator over `ranks` (world ranks, in the new communicator's order)."""
        defs = self.w.definitions
        group = defs.group(name, group_type=GroupType.COMM_GROUP, paradigm=Paradigm.MPI, members=tuple(ranks))
        return defs.comm(name, group=group, parent=parent)

    def region(self, name: str) -> Any:
        if name not in self.regions:
            paradigm = Paradigm.MPI if name.startswith("MPI_") else Paradigm.USER
            self.regions[name] = self.w.definitions.region(name, paradigm=paradigm)
        return self.regions[name]

    def call(self, rank: int, name: str, t0: int, t1: int, *records: tuple) -> None:
        """One call: Enter at t0, each (event_writer_method, time, args...) record, Leave at t1."""
        ew = self.writers[rank]
        ew.enter(t0, self.region(name))
        for method, *args in records:
            getattr(ew, method)(*args)
        ew.leave(t1, self.region(name))

    def collective(self, rank: int, name: str, t0: int, t1: int, op: CollectiveOp, comm: Any, root: int,
                   sent: int, received: int) -> None:
        self.call(rank, name, t0, t1, ("mpi_collective_begin", t0), ("mpi_collective_end", t1, op, comm, root, sent, received))

    def close(self) -> None:
        self.w.close()

    def __enter__(self) -> Archive:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


def undefined_comm(ref: int = 77) -> Any:
    """Stands for a communicator the archive never defines (the writer only needs its reference)."""
    return SimpleNamespace(_ref=ref)
