"""One rank's converted ops and edges, as the columns the schedule
assemblers take (kinds, amounts, peers, tags; edges from, to, start)."""

from __future__ import annotations

from array import array

import numpy as np


class OpColumns:
    """One rank's ops and edges, appended in program order, numbered from
    `base` (a converter that keeps the rank's other ops elsewhere asks for
    one collective's ops alone, numbered where they will go)."""

    def __init__(self, base: int = 0) -> None:
        self.base = base
        self.kinds = array("B")
        self.amounts = array("Q")
        self.peers = array("I")
        self.tags = array("I")
        self.efrom = array("I")
        self.eto = array("I")
        self.estart = array("B")

    def op(self, kind: int, amount: int, peer: int, tag: int) -> int:
        self.kinds.append(kind)
        self.amounts.append(amount)
        self.peers.append(peer)
        self.tags.append(tag)
        return self.base + len(self.kinds) - 1

    def wait(self, a: int, b: int | None, start: int = 0) -> None:
        """Op `a` waits for op `b` to finish (start=1: to start); nothing when b is None."""
        if b is not None:
            self.efrom.append(a)
            self.eto.append(b)
            self.estart.append(start)

    def columns(self) -> tuple[np.ndarray, ...]:
        return (
            np.frombuffer(self.kinds, dtype=np.uint8), np.frombuffer(self.amounts, dtype=np.uint64),
            np.frombuffer(self.peers, dtype=np.uint32), np.frombuffer(self.tags, dtype=np.uint32),
            np.frombuffer(self.efrom, dtype=np.uint32), np.frombuffer(self.eto, dtype=np.uint32),
            np.frombuffer(self.estart, dtype=np.uint8),
        )

    def column_bytes(self) -> tuple[bytes, ...]:
        """The columns as raw bytes (kinds, amounts, peers, tags, from, to, start)."""
        return (self.kinds.tobytes(), self.amounts.tobytes(), self.peers.tobytes(), self.tags.tobytes(),
                self.efrom.tobytes(), self.eto.tobytes(), self.estart.tobytes())
