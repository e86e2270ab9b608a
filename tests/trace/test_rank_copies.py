"""Ranks made from another rank's conversion (rank_copies.py) are the ranks
converting every one gives: the same GOAL text, the same conversion record,
and an unpaired message still named."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from cloudnoise.errors import CloudnoiseError
from cloudnoise.schedules.patterns import schedule_goal_text
from cloudnoise.trace.convert import to_schedule
from cloudnoise.trace.extrapolate import extrapolated
from cloudnoise.trace.matching import Unmatched
from cloudnoise.trace.reader import open_trace

DATA = Path(__file__).resolve().parent / "data"


class EveryRank:
    """A trace reader without rank signatures: every rank converted on its own."""

    def __init__(self, trace: Any) -> None:
        self._t = trace
        self.format, self.path, self.num_ranks, self.warnings = trace.format, trace.path, trace.num_ranks, trace.warnings

    def calls(self, rank: int) -> Any:
        return self._t.calls(rank)

    def describe(self) -> dict[str, Any]:
        return self._t.describe()


@pytest.mark.parametrize(("trace", "ranks", "scaling"), [("lammps-melt-2", 64, "weak"), ("lammps-melt-4", 32, "strong")])
def test_copies_convert_as_every_rank_does(trace: str, ranks: int, scaling: str) -> None:
    ext = extrapolated(open_trace(DATA / trace), ranks, scaling=scaling)
    copied, c1 = to_schedule(ext)
    plain, c2 = to_schedule(EveryRank(ext))
    assert c1.copied_ranks > 0 and c2.copied_ranks == 0
    assert schedule_goal_text(copied) == schedule_goal_text(plain)
    d1, d2 = c1.to_dict(), c2.to_dict()
    for key in ("convert_seconds", "calls_per_second"):
        d1.pop(key), d2.pop(key)
    assert d1 == d2


def test_an_unpaired_message_of_an_extrapolated_program_names_its_rule() -> None:
    ext = extrapolated(open_trace(DATA / "lammps-melt-4"), 16)
    index = next(e.call.index for e in ext.entries if e.call.name == "MPI_Send")
    text = ext.unmatched(Unmatched("x", 5, index, "a message to rank 6 (tag 0) that rank 6 never receives (1 unmatched)"))
    assert "extrapolated to 16 ranks: rank 5" in text and "MPI_Send, peer by displacement" in text
    assert "The traced 4 ranks pair it" in text and "--grid" in text and "record the run" not in text
    # the recording's own verdict stays for a trace that is not extrapolated
    with pytest.raises(CloudnoiseError):
        raise Unmatched("record the run again", 0, 1, "x")
