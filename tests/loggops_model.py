"""A slow, plain-Python model of LogGOPSim's simulation rules, written from
the rules (not from the engine), used to cross-check the C++ engine on
random schedules. Unsigned 64-bit wrap-around of LogGOPSim is modelled where
it matters (the (size-1)*G terms of 0-byte messages).

Schedules are lists per rank of ops: dict(kind='send'|'recv'|'calc',
amount=bytes|ns, peer, tag, cpu, nic) plus edge lists
`requires[(a, b)]` (a after b finished) and `irequires` (a after b started),
in declaration order. Times are integer nanoseconds, parameters integers.
"""

from __future__ import annotations

import heapq

ANY = -1
KIND_ORDER = {"send": 1, "recv": 2, "calc": 3}
U64 = 2**64


def simulate(ranks: list[list[dict]], requires: list[list[tuple[int, int]]],
             irequires: list[list[tuple[int, int]]], L: int, o: int, g: int, G: int, O: int, S: int) -> list[int]:
    P = len(ranks)
    ncpu = 1 + max((op["cpu"] for r in ranks for op in r), default=0)
    nnic = 1 + max((op["nic"] for r in ranks for op in r), default=0)
    done_succ = [[[] for _ in r] for r in ranks]
    start_succ = [[[] for _ in r] for r in ranks]
    deps = [[0] * len(r) for r in ranks]
    for h in range(P):
        for a, b in requires[h]:
            done_succ[h][b].append(a)
            deps[h][a] += 1
        for a, b in irequires[h]:
            start_succ[h][b].append(a)
            deps[h][a] += 1

    def per_byte(size: int, cost: int) -> int:
        return ((size - 1) * cost) % U64  # unsigned, as the reference

    nexto = [[0] * ncpu for _ in range(P)]
    nextgr = [[0] * nnic for _ in range(P)]
    nextgs = [[0] * nnic for _ in range(P)]
    rq: list[list[tuple[int, int, int]]] = [[] for _ in range(P)]  # (src, tag, recv index)
    uq: list[list[tuple[int, int, int]]] = [[] for _ in range(P)]  # (src, tag, send index)
    queue: list[tuple[int, int, str, int, int]] = []  # (time, stamp, kind, host, op)
    stamp = 0
    ready: list[tuple[int, int]] = []

    def release(h: int, op: int, succ) -> None:
        for s in succ[h][op]:
            deps[h][s] = (deps[h][s] - 1) % 2**32
            if deps[h][s] == 0:
                ready.append((h, s))

    def push_ready(h: int, ops: list[int]) -> None:
        nonlocal stamp
        # Python's sort is stable; LogGOPSim's std::sort is too for <= 16 ops.
        for i in sorted(ops, key=lambda i: KIND_ORDER[ranks[h][i]["kind"]]):
            op = ranks[h][i]
            t = nexto[h][op["cpu"]]
            if op["kind"] == "send":
                t = max(t, nextgs[h][op["nic"]])
            heapq.heappush(queue, (t, stamp, op["kind"], h, i))
            stamp += 1

    def match(q: list[tuple[int, int, int]], src: int, tag: int):
        for k, (s, t, i) in enumerate(q):
            if (src == ANY or s == ANY or s == src) and (tag == ANY or t == ANY or t == tag):
                return q.pop(k)
        return None

    for h in range(P):
        push_ready(h, [i for i in range(len(ranks[h])) if deps[h][i] == 0])

    while queue:
        t, ts, kind, h, i = heapq.heappop(queue)
        if kind == "msg":
            op = ranks[h][i]  # h is the sender, i its send
            r, cpu, nic, size = op["peer"], op["cpu"], op["nic"], op["amount"]
            avail = max(nexto[r][cpu], nextgr[r][nic])
            if avail > t:
                heapq.heappush(queue, (avail, ts, kind, h, i))
            else:
                nexto[r][cpu] = (t + o + max(per_byte(size, O), per_byte(size, G))) % U64
                nextgr[r][nic] = (t + g + per_byte(size, G)) % U64
                m = match(rq[r], h, op["tag"])
                if m is None:
                    uq[r].append((h, op["tag"], i))
                else:
                    if size > S:
                        release(h, i, done_succ)
                        nexto[h][cpu] = max(nexto[h][cpu], t)
                        nextgs[h][nic] = max(nextgs[h][nic], t)
                    release(r, m[2], done_succ)
        else:
            op = ranks[h][i]
            cpu, nic = op["cpu"], op["nic"]
            if kind == "calc":
                if nexto[h][cpu] > t:
                    heapq.heappush(queue, (nexto[h][cpu], ts, kind, h, i))
                else:
                    nexto[h][cpu] = t + op["amount"]
                    release(h, i, start_succ)
                    release(h, i, done_succ)
            elif kind == "send":
                avail = max(nexto[h][cpu], nextgs[h][nic])
                if avail > t:
                    heapq.heappush(queue, (avail, ts, kind, h, i))
                else:
                    release(h, i, start_succ)
                    nexto[h][cpu] = (t + o + per_byte(op["amount"], O)) % U64
                    nextgs[h][nic] = (t + g + per_byte(op["amount"], G)) % U64
                    heapq.heappush(queue, (t + o + L, stamp, "msg", h, i))
                    stamp += 1
                    if op["amount"] <= S:
                        release(h, i, done_succ)
            else:  # recv
                release(h, i, start_succ)
                m = match(uq[h], op["peer"], op["tag"])
                if m is None:
                    rq[h].append((op["peer"], op["tag"], i))
                else:
                    sender, _, send_i = m
                    if op["amount"] > S:
                        release(sender, send_i, done_succ)
                        nexto[sender][cpu] = max(nexto[sender][cpu], t)
                        nextgs[sender][nic] = max(nextgs[sender][nic], t)
                    release(h, i, done_succ)
        if ready:
            for host in sorted({hh for hh, _ in ready}):
                push_ready(host, [s for hh, s in ready if hh == host])
            ready.clear()

    assert all(not q for q in rq) and all(not q for q in uq), "model: schedule did not complete"
    return [max(row) for row in nexto]


def to_goal(ranks: list[list[dict]], requires, irequires) -> str:
    """The same schedule as GOAL text."""
    lines = [f"num_ranks {len(ranks)}"]
    for h, ops in enumerate(ranks):
        lines.append(f"rank {h} {{")
        for i, op in enumerate(ops):
            opts = f" cpu {op['cpu']} nic {op['nic']}"
            if op["kind"] == "calc":
                lines.append(f"o{i}: calc {op['amount']} cpu {op['cpu']}")
            elif op["kind"] == "send":
                lines.append(f"o{i}: send {op['amount']}b to {op['peer']} tag {op['tag']}{opts}")
            else:
                lines.append(f"o{i}: recv {op['amount']}b from {op['peer']} tag {op['tag']}{opts}")
        lines += [f"o{a} requires o{b}" for a, b in requires[h]]
        lines += [f"o{a} irequires o{b}" for a, b in irequires[h]]
        lines.append("}")
    return "\n".join(lines) + "\n"
