"""Every artifact program maps to the schedule it ran (goal2mpi.py's
variants): checked against Schedgen's own text and against LogGOPS times
worked out by hand."""

from __future__ import annotations

import re

import pytest

from cloudnoise.schedules.patterns import CollectiveSpec, goal_text, schedule_goal_text
from cloudnoise.simulation.api import simulate
from cloudnoise.simulation.params import LogGOPS
from cloudnoise.validation.artifact_csv import parse_name
from cloudnoise.validation.artifact_schedules import UnmappedRun, run_schedule


def ops(text: str) -> list[str]:
    """The op lines of a GOAL text, without their calc amounts."""
    return [re.sub(r"calc [0-9]+", "calc", line) for line in text.splitlines() if re.match(r"\s*l[0-9]+:", line)]


def calcs(text: str) -> list[int]:
    return [int(x) for x in re.findall(r"calc ([0-9]+)", text)]


@pytest.mark.parametrize("variant", ["", "_nbsend", "_test"])
@pytest.mark.parametrize(("pattern", "size"), [("nwaydissemination", 16384), ("binarytreebcast", 16),
                                               ("binomialtreebcast", 16777216), ("linear_alltoall", 16384)])
def test_plain_nbsend_and_test_run_schedgens_schedule(pattern: str, size: int, variant: str) -> None:
    sched = run_schedule(parse_name(f"{pattern}{variant}_8_{size}.csv"))
    want = goal_text(CollectiveSpec(pattern=pattern, ranks=8, size=size))
    assert schedule_goal_text(sched.schedule) == schedule_goal_text(
        run_schedule(parse_name(f"{pattern}_8_{size}.csv")).schedule)
    assert ops(schedule_goal_text(sched.schedule)) == ops(want)
    assert calcs(schedule_goal_text(sched.schedule)) == calcs(want)
    if pattern == "nwaydissemination":  # the reduction: a calc of SIZE ns per round but the last
        assert calcs(want) and set(calcs(want)) == {size}


@pytest.mark.parametrize("variant", ["_nocompute", "_nocompute_nbsend", "_nocompute_test"])
def test_nocompute_keeps_every_op_and_dependency_with_calcs_of_zero(variant: str) -> None:
    sched = run_schedule(parse_name(f"nwaydissemination{variant}_16_16384.csv"))
    want = goal_text(CollectiveSpec(pattern="nwaydissemination", ranks=16, size=16384))
    got = schedule_goal_text(sched.schedule)
    assert ops(got) == ops(want)
    assert len(calcs(got)) == len(calcs(want)) > 0 and set(calcs(got)) == {0}
    assert got.count("requires") == want.count("requires")


@pytest.mark.parametrize(("nodes", "size"), [(4, 16777216), (8, 16384), (16, 16)])
def test_pipelined_ring_segments_are_size_over_nodes(nodes: int, size: int) -> None:
    for variant in ("", "_nbsend", "_test"):
        sched = run_schedule(parse_name(f"pipelinedring{variant}_{nodes}_{size}.csv"))
        assert sched.segmentsize == size // nodes
        rank0 = schedule_goal_text(sched.schedule).split("rank 1")[0]
        sends = re.findall(r"send ([0-9]+)b to 1 ", rank0)
        assert sends == [str(size // nodes)] * nodes  # rank 0 sends every segment to rank 1
        # the authors' closed ring, which convert_all.sh's programs ran: rank 0 receives from the last rank
        assert len(re.findall(rf"recv [0-9]+b from {nodes - 1} ", rank0)) == nodes
        assert "the authors' schedgen" in sched.describe()


def test_what_has_no_schedule_is_refused() -> None:
    with pytest.raises(UnmappedRun, match="segment of 0 B"):
        run_schedule(parse_name("pipelinedring_32_16.csv"))
    with pytest.raises(UnmappedRun, match="'random_bisect' is not one cloudnoise generates"):
        run_schedule(parse_name("random_bisect_8_16.csv"))


def test_calc_and_nocompute_differ_by_the_calcs_on_the_critical_path() -> None:
    """4 ranks, 16 B, L = 1000 ns, o = 100 ns, g = G = 0: each of the two
    dissemination rounds is o + L + o = 1200 ns; the plain program busy-waits
    the first round's reduction (16 ns) before its second send."""
    params = LogGOPS.parse(L="1000", o="100", g="0", G="0", O="0", S="65535")

    def runtime(name: str) -> int:
        return int(simulate(run_schedule(parse_name(name)).schedule, params=params, reps=1).runtime_ns[0])

    assert runtime("nwaydissemination_nocompute_4_16.csv") == 2400
    assert runtime("nwaydissemination_nocompute_test_4_16.csv") == 2400
    assert runtime("nwaydissemination_4_16.csv") == 2416
