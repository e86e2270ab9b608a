"""Damaged or inconsistent traces: one line naming the rank and the call
index and saying what to do, exit status 2; never a traceback."""

from __future__ import annotations

from pathlib import Path

import pytest

from measure_support import run

from cloudnoise.errors import CloudnoiseError
from cloudnoise.trace.convert import to_schedule
from cloudnoise.trace.reader import open_trace

from native_writer import coll, finalize, record, recv, send, write_trace


def good(tmp_path: Path) -> Path:
    return write_trace(tmp_path / "t", [[send(10, 20, 1, 8), finalize(100)], [recv(10, 50, 0, 8), finalize(100)]])


def convert_error(folder: Path) -> str:
    with pytest.raises(CloudnoiseError) as err:
        to_schedule(open_trace(folder))
    assert err.value.exit_code == 2
    return str(err.value)


def test_truncated_file(tmp_path: Path) -> None:
    folder = good(tmp_path)
    f = folder / "rank-000001.cntr"
    f.write_bytes(f.read_bytes()[:-40])
    msg = convert_error(folder)
    assert "rank 1" in msg and "call" in msg and "record the run again" in msg


def test_missing_end_record(tmp_path: Path) -> None:
    folder = write_trace(tmp_path / "t", [[finalize(100)], [finalize(100)]], with_end=False)
    msg = convert_error(folder)
    assert "rank 0" in msg and "without its end record" in msg


def test_corrupt_length(tmp_path: Path) -> None:
    folder = good(tmp_path)
    f = folder / "rank-000000.cntr"
    data = bytearray(f.read_bytes())
    first = 64 + 24  # header, then MPI_Init's record
    data[first + 4:first + 8] = (3).to_bytes(4, "little")
    f.write_bytes(bytes(data))
    msg = convert_error(folder)
    assert "rank 0, call 1" in msg and "impossible record length" in msg


def test_missing_rank_file(tmp_path: Path) -> None:
    folder = good(tmp_path)
    (folder / "rank-000001.cntr").unlink()
    with pytest.raises(CloudnoiseError, match="rank 1's file rank-000001.cntr is missing"):
        open_trace(folder)


def test_send_without_receive(tmp_path: Path) -> None:
    folder = write_trace(tmp_path / "t", [[send(10, 20, 1, 8), send(30, 40, 1, 8), finalize(100)],
                                          [recv(10, 50, 0, 8), finalize(100)]])
    msg = convert_error(folder)
    assert "rank 0, call 2" in msg and "never receives" in msg


def test_communicator_never_created(tmp_path: Path) -> None:
    folder = write_trace(tmp_path / "t", [[coll("MPI_Barrier", 10, 20, 0, comm=7), finalize(100)]])
    msg = convert_error(folder)
    assert "rank 0, call 1 (MPI_Barrier)" in msg and "communicator 7 was never created" in msg


def test_collective_counts_disagree(tmp_path: Path) -> None:
    folder = write_trace(tmp_path / "t", [[coll("MPI_Barrier", 10, 20, 0), coll("MPI_Barrier", 30, 40, 0), finalize(100)],
                                          [coll("MPI_Barrier", 10, 20, 0), finalize(100)]])
    msg = convert_error(folder)
    assert "rank 1, call 1" in msg and "collective calls" in msg


def test_unsupported_call_refused_unless_allowed(tmp_path: Path) -> None:
    folder = write_trace(tmp_path / "t", [[record("MPI_Win_fence", 10, 20), finalize(100)]])
    msg = convert_error(folder)
    assert "rank 0, call 1 (MPI_Win_fence)" in msg and "--allow-unsupported" in msg
    proc = run("trace", "show", str(folder), "--allow-unsupported", "--json")
    assert proc.returncode == 0, proc.stderr
    assert '"MPI_Win_fence": 1' in proc.stdout


def test_cli_one_line_exit_2(tmp_path: Path) -> None:
    folder = good(tmp_path)
    f = folder / "rank-000000.cntr"
    f.write_bytes(b"garbage" * 20)
    for args in (("trace", "show", str(folder)), ("trace", "convert", str(folder), "-o", str(tmp_path / "x.goal")),
                 ("simulate", "--trace", str(folder)), ("trace", "show", str(tmp_path / "nothing"))):
        proc = run(*args)
        assert proc.returncode == 2, (args, proc.stderr)
        lines = proc.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("cloudnoise: error:") and "Traceback" not in proc.stderr
    assert not (tmp_path / "x.goal").exists()


def test_an_unreadable_run_description_is_a_warning(tmp_path: Path) -> None:
    """trace.json describes the run (command, hosts); the ranks' files are the trace. Cut short
    or not an object, `trace show` says so and goes on; the trace still simulates."""
    folder = good(tmp_path)
    for text, says in (('{"command": ', "not readable"), ("[1, 2]", "not a JSON object")):
        (folder / "trace.json").write_text(text)
        proc = run("trace", "show", str(folder))
        assert proc.returncode == 0, proc.stderr
        assert f"warning: {folder / 'trace.json'}: {says}" in proc.stdout
        assert "the recorded run's description is left out" in proc.stdout
    assert run("simulate", "--trace", str(folder), "--noise", "none").returncode == 0


def test_damaged_gzip_rank_file(tmp_path: Path) -> None:
    import gzip

    folder = good(tmp_path)
    for f in sorted(folder.glob("rank-*.cntr")):
        data = gzip.compress(f.read_bytes())
        f.unlink()
        (folder / (f.name + ".gz")).write_bytes(data)
    to_schedule(open_trace(folder))  # compressed rank files read as they are
    f = folder / "rank-000001.cntr.gz"
    f.write_bytes(f.read_bytes()[:-30])  # cut short
    msg = convert_error(folder)
    assert "rank-000001.cntr.gz: rank 1: cannot read" in msg and "cut short" in msg and "\n" not in msg


DATA = Path(__file__).resolve().parent / "data"


@pytest.mark.parametrize(("args", "says"), [
    (["simulate", "--trace", DATA / "lammps-melt-4", "--ranks", "16", "--grid", "4x4x2", "--L", "1us"],
     "--grid 4x4x2 holds 32 ranks, not --ranks 16: give dimensions whose product is 16"),
    (["trace", "extrapolate", DATA / "lammps-melt-4", "--ranks", "16", "--grid", "4x4", "-o", "x.goal"],
     "--grid 4x4: 2 dimensions, the traced grid 1x2x2 has 3"),
    (["simulate", "--trace", DATA / "sweep3d-2x2", "--ranks", "16", "--scaling", "strong", "--L", "1us"],
     "--scaling strong needs a decomposition to scale"),
    (["simulate", "--trace", DATA / "lammps-melt-4", "--scaling", "strong", "--L", "1us"],
     "--scaling and --grid say how to extrapolate a trace: give --ranks N too"),
    (["simulate", "--pattern", "dissemination", "--ranks", "4", "--size", "8", "--scaling", "strong"],
     "--scaling goes with --app or --trace --ranks"),
])
def test_extrapolation_options_that_cannot_apply_are_one_line(tmp_path: Path, args: list, says: str) -> None:
    proc = run(*[str(tmp_path / a) if a == "x.goal" else str(a) for a in args])
    assert proc.returncode == 2 and says in proc.stderr and proc.stderr.count("\n") == 1, proc.stderr
