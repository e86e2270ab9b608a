"""The GOAL reader: the format's features, and one clear line for each kind
of malformed input (`FILE:LINE: what`, exit status 2)."""

from __future__ import annotations

import gzip

import pytest

from cloudnoise import _engine, simulate
from cloudnoise.simulation.api import load_schedule
from cloudnoise.errors import CloudnoiseError

GOOD = """// a comment
num_ranks 2 /* inline */

rank 0 {
  l1: send 8b to 1 tag 3 cpu 0 nic 0
  l2: calc 100
  l2 requires l1   // trailing comment
}
/* a block
   comment */
rank 1 {
  later requires first
  first: recv 8b from -1 tag -1
  later: calc 5
}
"""


def test_features_parse(goal_file):
    s = load_schedule(goal_file(GOOD))
    assert (s.num_ranks, s.num_ops, s.num_cpus, s.num_nics) == (2, 4, 1, 1)


def test_gzip_read_directly(tmp_path):
    p = tmp_path / "s.goal.gz"
    p.write_bytes(gzip.compress(GOOD.encode()))
    plain = simulate(_engine.parse_goal(GOOD.encode()))
    assert simulate(p).host_end_ns.tolist() == plain.host_end_ns.tolist()


def test_memory_per_op_is_compact():
    ranks, per_rank = 64, 200
    lines = [f"num_ranks {ranks}"]
    for r in range(ranks):
        lines.append(f"rank {r} {{")
        for i in range(per_rank):
            lines.append(f"l{i}: calc {i}")
            if i:
                lines.append(f"l{i} requires l{i - 1}")
        lines.append("}")
    s = _engine.parse_goal("\n".join(lines).encode())
    assert s.num_ops == ranks * per_rank
    assert s.memory_bytes / s.num_ops <= 64


BAD = {
    "unknown keyword": ("num_ranks 1\nrank 0 {\nl1: sned 8b to 0 tag 0\n}\n", 3, "unknown operation 'sned'"),
    "unknown top keyword": ("num_ranks 1\nbogus 3\n", 2, "unknown keyword 'bogus'"),
    "undefined label": ("num_ranks 1\nrank 0 {\nl1: calc 5\nl1 requires l9\n}\n", 4, "undefined label 'l9'"),
    "duplicate label": ("num_ranks 1\nrank 0 {\nl1: calc 5\nl1: calc 6\n}\n", 4, "duplicate label 'l1'"),
    "rank out of range": ("num_ranks 2\nrank 5 {\n}\n", 2, "rank 5 out of range"),
    "peer out of range": ("num_ranks 2\nrank 0 {\nl1: send 8b to 7 tag 0\n}\n", 3, "out of range"),
    "missing brace": ("num_ranks 1\nrank 0 {\nl1: calc 5\n", 2, "missing '}'"),
    "cycle": ("num_ranks 1\nrank 0 {\nl1: calc 5\nl2: calc 6\nl1 requires l2\nl2 requires l1\n}\n", 3, "cycle"),
    "size too big": ("num_ranks 2\nrank 0 {\nl1: send 99999999999999999999999b to 1 tag 0\n}\n", 3, "does not fit"),
    "calc too long": ("num_ranks 1\nrank 0 {\nl1: calc 18446744073709551615\n}\n", 3, "out of range"),
    "binary garbage": ("\x00\x01\x02ELF\x7f\x00garbage", 1, "binary data"),
    "empty file": ("", 1, "empty"),
    "only comments": ("// nothing\n\n", 3, "no 'num_ranks'"),
    "missing ranks": ("num_ranks 3\nrank 0 {\n}\n", 1, "defines 1 of 3 ranks"),
    "rank before num_ranks": ("rank 0 {\n}\n", 1, "before 'num_ranks'"),
    "garbage after op": ("num_ranks 1\nrank 0 {\nl1: calc 5 banana\n}\n", 3, "unknown keyword 'banana'"),
    "wildcard send tag": ("num_ranks 2\nrank 0 {\nl1: send 8b to 1 tag -1\n}\n", 3, "wildcard"),
    "unterminated comment": ("num_ranks 1\n/* oops\n", 2, "unterminated"),
}


@pytest.mark.parametrize("case", list(BAD), ids=list(BAD))
def test_malformed_gives_file_line_message(case, goal_file, run_cli):
    text, line, fragment = BAD[case]
    path = goal_file(text)
    with pytest.raises(CloudnoiseError) as info:
        load_schedule(path)
    assert str(info.value).startswith(f"{path}:{line}: "), str(info.value)
    assert fragment in str(info.value)
    assert info.value.exit_code == 2


def test_cli_malformed_is_one_line_exit_2(goal_file, run_cli):
    path = goal_file(BAD["undefined label"][0])
    proc = run_cli("simulate", path)
    assert proc.returncode == 2
    assert proc.stdout == ""
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and f"{path}:4: undefined label" in lines[0]


def test_truncated_gzip(tmp_path, run_cli):
    p = tmp_path / "t.goal.gz"
    p.write_bytes(gzip.compress(GOOD.encode())[:30])
    proc = run_cli("simulate", p)
    assert proc.returncode == 2 and "gzip" in proc.stderr and "Traceback" not in proc.stderr


def test_deadlock_names_ranks_exit_3(goal_file, run_cli):
    text = (
        "num_ranks 3\nrank 0 {\nl1: recv 8b from 1 tag 0\nl2: send 8b to 1 tag 0\nl2 requires l1\n}\n"
        "rank 1 {\nl1: recv 8b from 0 tag 0\nl2: send 8b to 0 tag 0\nl2 requires l1\n}\n"
        "rank 2 {\nl1: calc 10\n}\n"
    )
    proc = run_cli("simulate", goal_file(text))
    assert proc.returncode == 3
    msg = proc.stderr.strip()
    assert len(msg.splitlines()) == 1
    assert "2 ranks stuck" in msg
    assert "rank 0: recv 8b from 1 tag 0 (line 3) never matched" in msg
    assert "rank 1: recv 8b from 0 tag 0 (line 8) never matched" in msg


def test_unreceived_message_is_an_error(goal_file, run_cli):
    proc = run_cli("simulate", goal_file("num_ranks 2\nrank 0 {\nl1: send 8b to 1 tag 0\n}\nrank 1 {\n}\n"))
    assert proc.returncode == 3 and "never received" in proc.stderr


def test_deadlock_names_the_first_op_that_never_became_ready(goal_file, run_cli):
    # Rank 0's rendezvous send is never matched, so the calc after it never
    # becomes ready; the send itself (no dependencies) was ready at time 0
    # and must not be named as waiting.
    text = (
        "num_ranks 2\nrank 0 {\nl1: send 100000b to 1 tag 5\nl2: calc 10\nl2 requires l1\n}\n"
        "rank 1 {\nl1: calc 5\n}\n"
    )
    proc = run_cli("simulate", goal_file(text))
    assert proc.returncode == 3
    msg = proc.stderr.strip()
    assert "rank 0: calc 10 (line 4) waits on operations that never finish" in msg
    assert "rank 1: message from rank 0 (send 100000b to 1 tag 5 (line 3)) never received" in msg


def test_deadlock_skips_ops_that_became_ready_after_time_0(goal_file, run_cli):
    # The send has a dependency and became ready (after the calc): the op
    # waiting is the calc after it. The engine marks readiness only when it
    # runs a deadlocked repetition again to report it.
    text = (
        "num_ranks 2\nrank 0 {\nl1: calc 5\nl2: send 100000b to 1 tag 5\nl2 requires l1\n"
        "l3: calc 10\nl3 requires l2\n}\nrank 1 {\nl1: calc 5\n}\n"
    )
    proc = run_cli("simulate", goal_file(text))
    assert proc.returncode == 3
    assert "rank 0: calc 10 (line 6) waits on operations that never finish" in proc.stderr
