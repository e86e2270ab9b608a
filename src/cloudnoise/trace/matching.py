"""Message and collective matching across a whole trace, counted while
converting rank by rank: a send without its receive, an any-source receive
that nothing can match, or ranks that disagree on a communicator's
collectives is a one-line error naming the rank and call, not a deadlock
in the simulation later. Memory: a counter per (sender, receiver, tag),
per (receiver, tag) of any-source receives and per communicator and rank.
"""

from __future__ import annotations

from cloudnoise.errors import CloudnoiseError
from cloudnoise.trace.goal_tags import user_tag


class Matching:
    """Counts messages per (sender, receiver, tag) and collectives per
    communicator and rank across the whole trace, to name what is unmatched."""

    def __init__(self) -> None:
        self.channels: dict[tuple[int, int, int], list[int]] = {}
        self.colls: dict[tuple, dict[int, list[int]]] = {}
        self.wild: dict[tuple[int, int], list[int]] = {}  # (receiver, tag) -> [any-source receives, rank, call]

    def wildcard(self, dst: int, tag: int, rank: int, index: int) -> None:
        entry = self.wild.get((dst, tag))
        if entry is None:
            self.wild[(dst, tag)] = [1, rank, index]
        else:
            entry[0] += 1
            entry[2] = index

    def _absorb_wildcards(self) -> None:
        """Messages no named receive takes go to the any-source receives of their receiver and tag."""
        if not self.wild:
            return
        for (src, dst, tag), entry in self.channels.items():
            w = self.wild.get((dst, tag))
            if w is not None and entry[0] > 0 and w[0] > 0:
                taken = min(entry[0], w[0])
                entry[0] -= taken
                w[0] -= taken
        for (dst, tag), (left, rank, index) in self.wild.items():
            if left > 0:
                raise CloudnoiseError(
                    f"rank {rank}, call {index}: {left} receive(s) from MPI_ANY_SOURCE (tag {user_tag(tag)}) "
                    "that no rank sends to; the trace is incomplete or inconsistent: record the run again"
                )

    def message(self, src: int, dst: int, tag: int, delta: int, rank: int, index: int, name: str) -> None:
        # [balance, rank and call of the latest send, of the latest receive]: MPI matches
        # in order, so what is left unmatched is the latest
        entry = self.channels.get((src, dst, tag))
        if entry is None:
            entry = self.channels[(src, dst, tag)] = [0, -1, -1, -1, -1]
        entry[0] += delta
        if delta > 0:
            entry[1], entry[2] = rank, index
        else:
            entry[3], entry[4] = rank, index

    def withdraw(self, src: int, dst: int, tag: int) -> None:
        """A send counted by message() was cancelled: its message was never sent."""
        self.channels[(src, dst, tag)][0] -= 1

    def collective(self, key: tuple, members: tuple[int, ...] | None, size: int, rank: int, index: int) -> None:
        per_rank = self.colls.setdefault(key, {})
        entry = per_rank.get(rank)
        if entry is None:
            per_rank[rank] = [1, index, size]
        else:
            entry[0] += 1
            entry[1] = index

    def check(self, source: str) -> None:
        try:
            self._absorb_wildcards()
        except CloudnoiseError as err:
            raise CloudnoiseError(f"{source}: {err}") from None
        for (src, dst, tag), (balance, srank, sindex, rrank, rindex) in self.channels.items():
            if balance > 0:
                raise CloudnoiseError(
                    f"{source}: rank {srank}, call {sindex}: a message to rank {dst} (tag {user_tag(tag)}) "
                    f"that rank {dst} never receives ({balance} unmatched); the trace is incomplete or inconsistent: "
                    "record the run again"
                )
            if balance < 0:
                raise CloudnoiseError(
                    f"{source}: rank {rrank}, call {rindex}: a receive from rank {src} (tag {user_tag(tag)}) "
                    f"that rank {src} never sends ({-balance} unmatched); the trace is incomplete or inconsistent: "
                    "record the run again"
                )
        for key, per_rank in self.colls.items():
            counts = {r: e[0] for r, e in per_rank.items()}
            size = next(iter(per_rank.values()))[2]
            if len(per_rank) != size or len(set(counts.values())) > 1:
                most = max(counts.values())
                short = min(per_rank, key=lambda r: (counts[r], r))
                raise CloudnoiseError(
                    f"{source}: rank {short}, call {per_rank[short][1]}: this rank made {counts[short]} collective "
                    f"calls on a communicator where another member made {most}"
                    + ("" if len(per_rank) == size else f" ({size - len(per_rank)} members made none)")
                    + "; the trace is incomplete or inconsistent: record the run again"
                )

    # -- a rank converted elsewhere (liballprof_native), merged once it is complete
    def merge_channels(self, rank: int, channels: list[tuple[int, int, int, int, int, int]]) -> None:
        """Adds one rank's (sender, receiver, tag, balance, latest send call or -1,
        latest receive call or -1), as message() would have counted them."""
        for src, dst, tag, balance, send_index, recv_index in channels:
            entry = self.channels.get((src, dst, tag))
            if entry is None:
                entry = self.channels[(src, dst, tag)] = [0, -1, -1, -1, -1]
            entry[0] += balance
            if send_index >= 0:
                entry[1], entry[2] = rank, send_index
            if recv_index >= 0:
                entry[3], entry[4] = rank, recv_index

    def merge_wildcards(self, rank: int, wildcards: list[tuple[int, int, int]]) -> None:
        """Adds one rank's any-source receives: (tag, count, latest call), as wildcard() would have."""
        for tag, count, latest in wildcards:
            entry = self.wild.get((rank, tag))
            if entry is None:
                self.wild[(rank, tag)] = [count, rank, latest]
            else:
                entry[0] += count
                entry[2] = latest

    def merge_collectives(self, other: Matching) -> None:
        """Adds the collectives another Matching counted (one rank's, every communicator)."""
        for key, per_rank in other.colls.items():
            self.colls.setdefault(key, {}).update(per_rank)
