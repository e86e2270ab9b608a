"""Files over 16 MB are parsed in two halves on two threads: the result must
be the schedule a single pass gives, and errors must name the same line."""

from __future__ import annotations

from pathlib import Path

import pytest

from cloudnoise import _engine, simulate
from cloudnoise.errors import CloudnoiseError
from cloudnoise.schedules.patterns import CollectiveSpec, generate, write_goal
from cloudnoise.simulation.api import load_schedule
from cloudnoise.simulation.params import LogGOPS

SPEC = CollectiveSpec(pattern="dissemination", ranks=16384, size=16)


@pytest.fixture(scope="module")
def big_file(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("big") / "diss.goal"
    write_goal(SPEC, path)
    assert path.stat().st_size > 16 << 20
    return path


def test_big_file_equals_generated_schedule(big_file):
    params = LogGOPS.parse(L="2500", o="1500", g="1000", G="6", O="0", S="65535")
    from_file = simulate(big_file, params=params)
    in_memory = simulate(generate(SPEC), params=params)
    assert from_file.host_end_ns.tolist() == in_memory.host_end_ns.tolist()
    assert from_file.events == in_memory.events == 688_128


def test_error_in_second_half_names_its_line(big_file, tmp_path):
    lines = big_file.read_text().splitlines()
    bad_line = int(len(lines) * 0.8)
    while not lines[bad_line - 1].startswith("l"):
        bad_line += 1
    lines[bad_line - 1] = "l1: sendd 16b to 0 tag 0"
    bad = tmp_path / "bad.goal"
    bad.write_text("\n".join(lines) + "\n")
    with pytest.raises(CloudnoiseError) as info:
        load_schedule(bad)
    assert str(info.value).startswith(f"{bad}:{bad_line}: unknown operation 'sendd'")


def test_deadlock_lines_are_right_in_second_half(big_file, tmp_path):
    # A receive nothing matches, far into the file: the deadlock report
    # names its line, so per-op lines survive joining the halves.
    text = big_file.read_text()
    marker = "rank 16000 {\n"
    at = text.index(marker) + len(marker)
    text = text[:at] + "lx: recv 8b from 3 tag 777\n" + text[at:]
    line = text[:at].count("\n") + 1
    path = tmp_path / "stuck.goal"
    path.write_text(text)
    sched = _engine.read_goal(str(path))
    with pytest.raises(CloudnoiseError) as info:
        simulate(sched, params=LogGOPS.parse())
    assert f"rank 16000: recv 8b from 3 tag 777 (line {line}) never matched" in str(info.value)
