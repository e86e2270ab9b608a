"""Turn any engine schedule into the flat op table the C executor reads.

The engine writes every schedule back as canonical GOAL text
(``patterns.schedule_goal_text``): per rank, ``lN: send|recv|calc ...``
lines in program order, then ``lA requires lB`` / ``lA irequires lB``
edges. That form is regular, so it is parsed here with one pattern per line
kind and flattened into ``cloudnoise-optable 1`` (see
``src/probes/cn_goal_exec.c``): ops numbered from 0 per rank, peers and tags
as numbers with -1 for "any", and every GOAL tag renumbered densely
(0, 1, 2, ... in order of first use) so any schedule fits MPI's tag space
(MPI guarantees only 0..32767). Renumbering keeps matching exact: two ops
match on a tag iff they did before.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cloudnoise.errors import CloudnoiseError

ANY = 2**32 - 1  # the engine's "any" marker, written as -1 in GOAL text

_OP = re.compile(
    r"^l(\d+): (send|recv) (\d+)b (?:to|from) (-?\d+) tag (-?\d+)(?: cpu (\d+))?(?: nic (\d+))?$"
)
_CALC = re.compile(r"^l(\d+): calc (\d+)(?: cpu (\d+))?$")
_DEP = re.compile(r"^l(\d+) (requires|irequires) l(\d+)$")


@dataclass
class OpTable:
    """A schedule as per-rank op lists and dependency edges."""

    ranks: int
    ops: list[list[tuple[str, int, int, int]]] = field(default_factory=list)  # kind, amount, peer, tag
    deps: list[list[tuple[int, int, int]]] = field(default_factory=list)  # waiter, waited, 0|1
    tags: dict[int, int] = field(default_factory=dict)  # GOAL tag -> MPI tag
    extra_cpus: bool = False  # some calc ran on a cpu other than 0 (serialised here)

    @property
    def max_bytes(self) -> int:
        return max((a for rank in self.ops for k, a, _, _ in rank if k != "c"), default=0)

    @property
    def num_ops(self) -> int:
        return sum(len(r) for r in self.ops)

    def text(self) -> str:
        """The table in the executor's text format."""
        out = ["cloudnoise-optable 1", f"ranks {self.ranks}", f"max_bytes {self.max_bytes}"]
        for r in range(self.ranks):
            out.append(f"rank {r} ops {len(self.ops[r])} deps {len(self.deps[r])}")
            out.extend(f"{k} {a} {p} {t}" for k, a, p, t in self.ops[r])
            out.extend(f"d {a} {b} {kind}" for a, b, kind in self.deps[r])
        return "\n".join(out) + "\n"

    def write(self, path: Path) -> None:
        path.write_text(self.text())


def _mpi_tag(table: OpTable, tag: int) -> int:
    if tag == -1:
        return -1
    if tag not in table.tags:
        table.tags[tag] = len(table.tags)
    return table.tags[tag]


def from_goal_text(text: str) -> OpTable:
    """Parse canonical GOAL text (the engine's writer output) into an OpTable."""
    table: OpTable | None = None
    rank = -1
    for lineno, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if not line:
            continue
        if line.startswith("num_ranks "):
            table = OpTable(ranks=int(line.split()[1]))
            table.ops = [[] for _ in range(table.ranks)]
            table.deps = [[] for _ in range(table.ranks)]
            continue
        if table is None:
            raise CloudnoiseError(f"schedule text line {lineno}: expected num_ranks first")
        if line.startswith("rank ") and line.endswith("{"):
            rank = int(line.split()[1])
            continue
        if line == "}":
            rank = -1
            continue
        if rank < 0:
            raise CloudnoiseError(f"schedule text line {lineno}: op outside a rank block")
        ops = table.ops[rank]
        m = _OP.match(line)
        if m:
            kind = "s" if m.group(2) == "send" else "r"
            tag = int(m.group(5))
            if kind == "s" and tag == -1:  # MPI cannot send "any tag": give it a tag of its own
                tag = ANY
            ops.append((kind, int(m.group(3)), int(m.group(4)), _mpi_tag(table, tag)))
            continue
        m = _CALC.match(line)
        if m:
            if m.group(3) not in (None, "0"):
                table.extra_cpus = True
            ops.append(("c", int(m.group(2)), -1, -1))
            continue
        m = _DEP.match(line)
        if m:
            table.deps[rank].append(
                (int(m.group(1)) - 1, int(m.group(3)) - 1, 0 if m.group(2) == "requires" else 1)
            )
            continue
        raise CloudnoiseError(f"schedule text line {lineno}: cannot read {line!r}")
    if table is None:
        raise CloudnoiseError("the schedule text has no num_ranks line")
    return table


def from_schedule(schedule: Any) -> OpTable:
    """The op table of an engine schedule (via its canonical GOAL text)."""
    from cloudnoise.schedules.patterns import schedule_goal_text

    return from_goal_text(schedule_goal_text(schedule))
