"""The reading of liballprof headers' clock differences (src/cloudnoise/trace/liballprof_clock.py):
one test per header form, each on ranks whose clocks run apart by a known amount, against the
same program traced with agreeing clocks (the known answer); then ranks that no reading aligns."""

from __future__ import annotations

from pathlib import Path

import pytest

from cloudnoise.errors import CloudnoiseError
from cloudnoise.schedules.patterns import schedule_goal_text
from cloudnoise.trace.convert import to_schedule
from cloudnoise.trace.liballprof import LiballprofTrace
from cloudnoise.trace.reader import open_trace

from liballprof_writer import INT, RankWriter, write

START = 1_000_000_000.0  # us of rank 0's clock at MPI_Init's exit


def ring(variant: str, skew_us: list[float], *, exit_after_us: list[float] | None = None, compute_us: float = 200.0,
         stated_us: list[float] | None = None) -> list[str]:
    """Three ranks pass a message round a ring, then allreduce. Rank r's clock reads skew_us[r] more
    than rank 0's; its header states the difference as liballprof does (rank 0's time = the rank's
    + diff, so diff = -skew; or `stated_us`), in the form `variant`. Rank r leaves MPI_Init
    exit_after_us[r] after rank 0 (true time)."""
    exits = exit_after_us or [0.0, 3.0, 6.0]
    stated = stated_us if stated_us is not None else [-s for s in skew_us]
    texts = []
    for r in range(3):
        w = RankWriter(r, 3, variant=variant, clockdiff_us=stated[r], start_us=START + skew_us[r] + exits[r])
        nxt, prv = (r + 1) % 3, (r - 1) % 3
        if r == 0:
            w.send(2, nxt, 7, w.world, dtype=INT)
            w.recv(2, prv, 7, w.world, dtype=INT)
        else:
            w.recv(2, prv, 7, w.world, dtype=INT)
            w.send(2, nxt, 7, w.world, dtype=INT)
        w.call("MPI_Wtime", gap=compute_us)
        w.allreduce(1, w.world)
        texts.append(w.finalize())
    return texts


def converted(folder: Path) -> tuple[str, list[int]]:
    schedule, conv = to_schedule(open_trace(folder))
    return schedule_goal_text(schedule), conv.finalize_ns


SKEW = [0.0, 442.743301, -1856.565475]  # us: rank 1's clock ahead, rank 2's behind
SKEW_WHOLE_US = [0.0, 442.0, -1857.0]  # (htor's seconds have 6 decimals: whole microseconds)


@pytest.mark.parametrize("variant, skew, reading", [
    ("collprof", SKEW, "microseconds"),        # `# Init clockdiff: 1856.565475`: microseconds
    ("htor", SKEW_WHOLE_US, "seconds"),        # `# clockdiff: 0.001857 s (relative to rank 0)`: seconds, as labelled
    ("htor-us", SKEW, "microseconds"),         # `# clockdiff: -442.743301 s (...)`: microseconds despite the label
])
def test_each_header_form_is_read_so_that_the_ranks_align(tmp_path: Path, variant: str, skew: list[float],
                                                          reading: str) -> None:
    agreeing = converted(write(tmp_path / "agree", ring("none", [0.0, 0.0, 0.0])))
    folder = write(tmp_path / variant, ring(variant, skew))
    trace = LiballprofTrace(folder)
    assert trace.clock.reading == reading and not trace.warnings
    # the skew is undone: the same schedule and MPI_Finalize entries (to the ns) as with agreeing clocks
    assert converted(folder) == agreeing
    # rank 1 left MPI_Init 3 us after rank 0: its first calc, with the writer's 10 us gap
    assert agreeing[0].split("rank 1 {\n")[1].split("\n")[0].endswith(": calc 13000")


def test_microseconds_labelled_s_are_read_as_microseconds_and_said_so(tmp_path: Path, run_cli) -> None:
    """The MILC form: read as seconds the offsets would put the ranks' MPI_Init exits 1,857 s apart in a
    run of under a millisecond; as microseconds they agree within 6 us (the true exits)."""
    folder = write(tmp_path / "milc", ring("htor-us", SKEW))
    clock = LiballprofTrace(folder).clock
    assert clock.stated == "seconds" and clock.reading == "microseconds"
    assert clock.spread_us["microseconds"] == pytest.approx(6.0, abs=1e-6)
    assert clock.spread_us["seconds"] > 1.8e9
    proc = run_cli("trace", "show", folder)
    assert proc.returncode == 0, proc.stderr
    assert "labelled s, read as microseconds" in proc.stdout and "warning" not in proc.stdout


def test_true_seconds_stay_seconds_beside_a_microsecond_reading_that_also_fits(tmp_path: Path) -> None:
    """Seconds as labelled, offsets of a few microseconds: read as microseconds they would nearly vanish,
    leaving the raw clocks' 5 us skew; the label's reading aligns the ranks exactly and is kept."""
    folder = write(tmp_path / "s", ring("htor", [0.0, 5.0, -5.0]))
    assert LiballprofTrace(folder).clock.reading == "seconds"
    assert converted(folder) == converted(write(tmp_path / "agree", ring("none", [0.0, 0.0, 0.0])))


def test_no_clockdiff_line_reads_the_clocks_as_they_are(tmp_path: Path) -> None:
    folder = write(tmp_path / "none", ring("none", [0.0, 0.0, 0.0], exit_after_us=[0.0, 40.0, 80.0]))
    trace = LiballprofTrace(folder)
    assert trace.clock.reading == "none" and trace.clock.stated == "none" and not trace.warnings
    text, finalize = converted(folder)
    # the ranks left MPI_Init 40 us apart: rank 2's first calc is 80 us longer than rank 0's
    assert text.split("rank 2 {\n")[1].split("\n")[0].endswith(": calc 90000")
    assert finalize[2] - finalize[0] == 80_000


def test_ranks_no_reading_aligns_start_at_their_own_mpi_init_exits_with_one_warning(tmp_path: Path, run_cli) -> None:
    """Clocks 50 ms apart that the header does not explain (its offsets are 0), in a run of about 2 s:
    the runs overlap under the raw clocks, the MPI_Init exits agree under no reading (within 20 ms,
    1 % of the run): a warning, and every rank starts at its own MPI_Init exit (Schedgen's time base)."""
    folder = write(tmp_path / "w", ring("collprof", [0.0, 50_000.0, -50_000.0], compute_us=2e6,
                                        stated_us=[0.0, 0.0, 0.0]))
    trace = LiballprofTrace(folder)
    assert trace.clock.reading == "own MPI_Init exits" and len(trace.warnings) == 1
    _, conv = to_schedule(trace)
    assert conv.warnings[:1] == trace.warnings and "disagree under every reading" in conv.warnings[0]
    own = to_schedule(LiballprofTrace(folder, align_clocks=False))
    assert schedule_goal_text(own[0]) == schedule_goal_text(to_schedule(trace)[0])
    proc = run_cli("trace", "show", folder)
    assert proc.returncode == 0 and proc.stdout.count("warning: ") == 1


def test_ranks_no_reading_puts_in_one_run_are_one_line_exit_2(tmp_path: Path, run_cli) -> None:
    """Rank 2's clock is 10 s behind and its header says nothing of it, in a run of 1 ms: under every
    reading it leaves MPI_Init after the others have finished. Not one run's files: one line, exit 2."""
    folder = write(tmp_path / "x", ring("collprof", [0.0, 0.0, 10e6], stated_us=[0.0, 0.0, 0.0]))
    with pytest.raises(CloudnoiseError, match=r"not one run's: under every reading .* put one run's rank files"):
        LiballprofTrace(folder)
    for args in (["trace", "show", folder], ["trace", "convert", folder, "-o", tmp_path / "x.goal"]):
        proc = run_cli(*args)
        assert proc.returncode == 2 and proc.stdout == "" and len(proc.stderr.strip().splitlines()) == 1, proc.stderr
        assert "not one run's" in proc.stderr


def test_the_rule_on_known_numbers() -> None:
    """choose() alone: the label's reading is kept unless another aligns the ranks more than twice as
    closely (Sweep3D's numbers: 17.3 ms as stated, 16.6 ms ignored, in runs of 42.5 s); a header that
    aligns worse than the raw clocks by far is not used; and the ranks' runs are not read when a
    reading is within 1 ms and no other is close (MILC's form)."""
    from cloudnoise.trace.liballprof_clock import HeaderClock, choose

    asked: list[int] = []

    def last(r: int) -> float:
        asked.append(r)
        return 42.5e6 + init[r]

    us = [HeaderClock(d) for d in (0.0, -1856.565475, -1368.522644, 261.545181)]
    init = [950106.0, 951522.0, 951030.0, 966688.0]  # Sweep3D's MPI_Init exits (us, less 1237666046000000)
    c = choose("t", us, init, last)
    assert c.reading == "microseconds" and c.spread_us["none"] < c.spread_us["microseconds"] < 2 * c.spread_us["none"]
    assert asked == [0, 1, 2, 3]
    wrong = [HeaderClock(d) for d in (0.0, 30_000.0, -30_000.0, 0.0)]  # 60 ms apart as stated, 5 ms raw
    init = [0.0, 5000.0, 2000.0, 1000.0]
    assert choose("t", wrong, init, last).reading == "none"
    asked.clear()
    milc = [HeaderClock(d, labelled_seconds=True) for d in (0.0, -442.743301, 15.0, -3.5)]
    init = [1e15, 1e15 + 442.743301 + 4.0, 1e15 - 15.0 + 16.0, 1e15 + 3.5]
    c = choose("t", milc, init, last)
    assert c.reading == "microseconds" and c.spread_us["microseconds"] == pytest.approx(16.0) and not asked
