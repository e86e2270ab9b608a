"""Exchanges for a grid dimension the trace shows with one rank.

An application loops over its grid's dimensions, exchanging with the
neighbours of each; where a dimension has one rank the neighbour is the rank
itself, and applications such as LAMMPS copy the data without MPI. A trace
on 4 ranks as 1 x 2 x 2 therefore has no messages along dimension 0, yet on
2 x 2 x 2 ranks the application exchanges along it as along the others.

Such a dimension k gets the exchanges of the nearest dimension m that has
them (the lower one on a tie): every *block* along m (a run of calls whose
messages all move along one dimension and that completes every request it
starts) gets a copy moved onto k, placed beside it where the pass's order
puts dimension k: before it when the pass goes up (0, 1, 2), after it when
it goes down (2, 1, 0), as the adjacent blocks show. Copies keep
their calls' requests and tags (a block completes what it starts, so the
copy's requests are done before the original's begin) and are sized by
scaling.py (the ratio of the faces). A run of messages along m that is not
such a block (a Waitall over several dimensions) cannot be copied: the
extrapolation refuses, naming the call, and says how to keep k at one rank.
"""

from __future__ import annotations

from dataclasses import dataclass

from cloudnoise.errors import CloudnoiseError
from cloudnoise.trace.peer_rules import PeerRule, RuledCall, moved_rule

P2P = ("send", "recv", "isend", "irecv", "sendrecv")


@dataclass(frozen=True)
class Block:
    start: int
    end: int  # one past its last call
    dim: int


def _dim_of(e: RuledCall) -> int | None:
    """The one grid dimension a point-to-point call's messages move along, or None."""
    rules = [r for r in (e.rule, e.recv_rule) if r is not None and r.mode == "grid"]
    moved = {k for r in rules for k in r.moved}
    if e.call.kind in P2P and rules and len(moved) == 1:
        return moved.pop()
    return None


def blocks_of(entries: list[RuledCall]) -> tuple[list[Block], list[tuple[int, int]]]:
    """The template's blocks, and the runs of calls along one dimension that are not blocks (start, dim)."""
    blocks: list[Block] = []
    loose: list[tuple[int, int]] = []
    i, n = 0, len(entries)
    while i < n:
        dim = _dim_of(entries[i])
        if dim is None:
            i += 1
            continue
        open_: set[int] = set()
        j = i
        while j < n:
            e = entries[j]
            c = e.call
            if c.kind in P2P:
                if _dim_of(e) != dim:
                    break
                if c.kind in ("isend", "irecv"):
                    open_.add(c.request)
            elif c.kind == "complete" and c.completions:
                done = {req for req, *_ in c.completions}
                if not done <= open_:
                    break
                open_ -= done
            elif c.kind == "complete":
                pass  # a Test that completed nothing
            else:
                break
            j += 1
        if open_:
            loose.append((i, dim))
        else:
            blocks.append(Block(i, j, dim))
        i = max(j, i + 1)
    return blocks, loose


def copy_missing_dims(entries: list[RuledCall], traced_dims: tuple[int, ...], new_dims: tuple[int, ...]
                      ) -> tuple[list[RuledCall], dict[int, int]]:
    """The template with exchanges for every dimension of one traced rank that
    has more on the new grid (see the module docstring), and which dimension
    each copies {k: m}."""
    used = {d for e in entries if (d := _dim_of(e)) is not None}
    used |= {k for e in entries for r in (e.rule, e.recv_rule) if r is not None and r.mode == "grid" for k in r.moved}
    missing = [k for k, (d, nd) in enumerate(zip(traced_dims, new_dims)) if d == 1 and nd > 1 and k not in used]
    if not missing or not used:
        return entries, {}
    sources = {k: min(used, key=lambda m: (abs(m - k), m)) for k in missing}
    blocks, loose = blocks_of(entries)
    for start, dim in loose:
        if dim in sources.values():
            k = next(k for k, m in sources.items() if m == dim)
            c = entries[start].call
            raise CloudnoiseError(
                f"call {c.index} ({c.name}): dimension {k} of the traced grid {'x'.join(map(str, traced_dims))} has one "
                f"rank and no messages, and dimension {dim}'s exchanges, which it would copy, are not self-contained "
                f"here (a completion waits for requests of several dimensions); give --grid with dimension {k} of "
                f"size 1 (e.g. --grid {'x'.join(map(str, _spread(new_dims, k)))}), or record on ranks that split "
                "every dimension")
    # Each block along a source dimension gets a copy beside it, on the side the
    # pass's order puts the missing dimension: a pass going up (0, 1, 2) reaches a
    # lower dimension first, one going down reaches it last; the order shows in the
    # adjacent blocks (a block with nothing adjacent is taken as going up).
    inserts: dict[int, list[RuledCall]] = {}  # before template index -> copies
    for i, b in enumerate(blocks):
        prev = blocks[i - 1].dim if i > 0 and blocks[i - 1].end == b.start else None
        nxt = blocks[i + 1].dim if i + 1 < len(blocks) and blocks[i + 1].start == b.end else None
        ks = [k for k in missing if sources[k] == b.dim]
        before = [k for k in ks if not _after(k, b.dim, prev, nxt)]
        after = [k for k in ks if _after(k, b.dim, prev, nxt)]
        for k in sorted(before):
            inserts.setdefault(b.start, []).extend(_copy(entries[b.start:b.end], b.dim, k))
        for k in sorted(after, reverse=True):
            inserts.setdefault(b.end, []).extend(_copy(entries[b.start:b.end], b.dim, k))
    out: list[RuledCall] = []
    for i, e in enumerate(entries):
        out.extend(inserts.get(i, ()))
        out.append(e)
    out.extend(inserts.get(len(entries), ()))
    return out, sources


def _after(k: int, m: int, prev: int | None, nxt: int | None) -> bool:
    """Whether dimension k's copy of a block along m goes after it: k below m
    when the pass came down to m (from a higher dimension, going no higher);
    k above m unless the pass is going down past m."""
    if k < m:
        return prev is not None and prev > m and not (nxt is not None and nxt > m)
    return not (nxt is not None and nxt < m and not (prev is not None and prev < m))


def _copy(block: list[RuledCall], src: int, dst: int) -> list[RuledCall]:
    out = []
    for e in block:
        c = e.call.copy()
        if c.completions is not None:
            c.completions = list(c.completions)
        rule = moved_rule(e.rule, src, dst) if isinstance(e.rule, PeerRule) and e.rule.mode == "grid" else e.rule
        recv = moved_rule(e.recv_rule, src, dst) if isinstance(e.recv_rule, PeerRule) and e.recv_rule.mode == "grid" \
            else e.recv_rule
        out.append(RuledCall(c, rule, recv, e.gap, e.dur, (dst, src)))
    return out


def _spread(dims: tuple[int, ...], k: int) -> tuple[int, ...]:
    """A grid of the same ranks with dimension k of size 1 (its ranks moved to the largest other dimension)."""
    d = list(dims)
    if len(d) < 2:
        return dims
    j = max((i for i in range(len(d)) if i != k), key=lambda i: d[i])
    d[j] *= d[k]
    d[k] = 1
    return tuple(d)
