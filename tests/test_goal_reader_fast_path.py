"""The GOAL reader scans the statements Schedgen writes (`l3: send 8b to 1
tag 0`, `l3 requires l2`, single spaces) in one pass and leaves every other
statement to its general path. Both must read the same schedule and word
the same errors: each text here is read as written and as its twin with
doubled spaces, which the fast path never takes."""

from __future__ import annotations

import random

import pytest

from cloudnoise import _engine

PARAMS = _engine.LogGOPSParams(L_ps=2_500_000, o_ps=1_500_000, g_ps=1_000_000, G_fs=6_000, O_fs=0, S=65535)


def schedgen_text(rng: random.Random, ranks: int) -> str:
    lines = [f"num_ranks {ranks}", ""]
    for r in range(ranks):
        lines.append(f"rank {r} {{")
        n = 0
        for step in range(rng.randint(1, 6)):
            peer = (r + 1 + step) % ranks
            src = (r - 1 - step) % ranks
            size = rng.choice([0, 1, 8, 16384, 65535, 65536, 10**7])
            lines.append(f"l{n + 1}: send {size}b to {peer} tag {step}")
            lines.append(f"l{n + 2}: recv {size}b from {src} tag {step}")
            lines.append(f"l{n + 3}: calc {rng.choice([0, 7, 1500])}")
            lines.append(f"l{n + 3} requires l{n + 2}")
            if n:
                lines.append(f"l{n + 1} {rng.choice(['requires', 'irequires'])} l{n}")
            n += 3
        lines.append("}")
    return "\n".join(lines) + "\n"


def general_twin(text: str) -> str:
    # Same tokens, spacing the fast path does not take.
    return text.replace(": ", ":  ").replace(" requires ", "  requires ").replace(" irequires ", "  irequires ")


def outcome(text: str):
    """What reading and running a text gives: results, or the error's words."""
    try:
        sched = _engine.parse_goal(text.encode("latin-1"), "t.goal")
    except _engine.GoalError as err:
        return ("goal error", str(err))
    try:
        out = _engine.run(sched, PARAMS, _engine.NoiseModel())
    except (_engine.DeadlockError, OverflowError) as err:
        return (type(err).__name__, str(err), sched.num_ops, sched.num_templates)
    return ("ran", out["max_end_ps"].tolist(), out["host_end_ps"].tolist(), out["events"], sched.num_ops,
            sched.num_templates)


def assert_same(text: str):
    fast, general = outcome(text), outcome(general_twin(text))
    assert fast == general, text


@pytest.mark.parametrize("seed", range(8))
def test_schedgen_text_reads_as_the_general_path_does(seed):
    rng = random.Random(seed)
    text = schedgen_text(rng, rng.randint(1, 9))
    assert outcome(text)[0] in ("ran", "DeadlockError", "ReorderedDeadlockError")
    assert_same(text)


EDGES = [
    "l1: send 8b to 1 tag 0",                      # plain
    "l1: send 8 to 1 tag 0",                       # size without b
    "l1: send 8b to 1 tag 0 cpu 0",                # an option: general path
    "l1: send 8b to 1 tag 0 // note",              # a comment
    "l1: send 8b to 1 tag 0\r",                    # CRLF line end
    "l1: send 8b to 1 tag -1",                     # wildcard tag on a send: an error
    "l1: send 8b to -1 tag 0",                     # wildcard destination: an error
    "l1: send 8b to 7 tag 0",                      # destination out of range
    "l1: send 9007199254740993b to 1 tag 0",       # size over 2^53
    "l1: send 9007199254740992b to 1 tag 0",       # size 2^53
    "l1: send 1234567b to 1 tag 0",                # seven digits
    "l1: send 12345678b to 1 tag 0",               # eight digits
    "l1: send 123456789012345678b to 1 tag 0",     # eighteen digits
    "l1: send 1234567890123456789b to 1 tag 0",    # nineteen digits
    "l1: send 99999999999999999999999b to 1 tag 0",  # beyond 64 bits
    "l1: send 8b to 1 tag 4294967294",             # the largest tag
    "l1: send 8b to 1 tag 4294967295",             # one past it
    "l1: send 0008b to 001 tag 00",                # leading zeros
    "l1: recv 8b from -1 tag -1",                  # wildcards
    "l1: recv 8b from -10 tag 0",                  # not a wildcard
    "l1: recv 8b from 1 tag -1x",                  # garbage after a wildcard
    "l1: calc 9223372036854775",                   # the longest calc in ns
    "l1: calc 9223372036854776",                   # one past it
    "l01: calc 5\nl1: calc 6\nl1 requires l01",    # l01 and l1 are two labels
    "l1: calc 5\nl1: calc 6",                      # duplicate label
    "send requires l1",                            # a keyword as a label
    "l1: calc 5\nl2: calc 6\nl2 requires l3",      # undefined label
    "l1: calc 5\nl1 requires l1",                  # depends on itself
    "l1: calc 5\nl2: calc 6\nl1 requires l2\nl2 requires l1",  # a cycle
    "l1: calc 5\nl2: calc 6\nl1 requires l2",      # a backward edge, no cycle
    "l1: calc 5\nl2: calc 6\nl2 irequires l1",     # irequires
    "l1: sendx 8b to 1 tag 0",                     # unknown operation
    "l1: send 8b to 1 tag 0x",                     # trailing garbage
    "l1: send 8b to 1 tag",                        # truncated
    "l60000000: calc 5\nl1: calc 6\nl1 requires l60000000",  # a huge label number
    "x_1: calc 5\nl1: calc 6\nl1 requires x_1",    # other label names
]


@pytest.mark.parametrize("body", EDGES)
def test_edge_statements_read_as_the_general_path_does(body):
    text = f"num_ranks 2\nrank 0 {{\n{body}\n}}\nrank 1 {{\nl1: recv 8b from 0 tag 0\n}}\n"
    assert_same(text)
    # At the very end of the text too (the 8-byte number reads must not
    # run past it).
    text = f"num_ranks 2\nrank 1 {{\nl1: calc 1\n}}\nrank 0 {{\n{body}"
    assert_same(text)


def test_label_names_are_text_not_numbers():
    # The label table keeps l<number> labels in an array: l01 is still not l1.
    text = "num_ranks 1\nrank 0 {\nl01: calc 5\nl1: calc 6\nl1 requires l01\nl001: calc 1\nl0: calc 2\n}\n"
    kind, max_end, *_ = outcome(text)
    assert kind == "ran" and max_end == [14_000]  # four calcs on one CPU: 5 + 6 + 1 + 2 ns
    assert "duplicate label 'l01'" in outcome(text.replace("l001:", "l01:"))[1]


def test_many_labels_in_one_rank_read_alike():
    # Past the label array's first length (4096), labels go to the hash
    # table within the rank and to the grown array in the next.
    ops = 9000
    body = "\n".join(f"l{i}: calc 1" for i in range(1, ops + 1))
    deps = "\n".join(f"l{i + 1} requires l{i}" for i in range(1, ops))
    text = f"num_ranks 2\nrank 0 {{\n{body}\n{deps}\n}}\nrank 1 {{\n{body}\n{deps}\nl5 requires l9000\n}}\n"
    assert_same(text)
    assert outcome(text)[0] == "goal error"  # the cycle in rank 1
    text = text.replace("l5 requires l9000\n", "l8000: calc 2\n")
    assert_same(text)
    assert "duplicate label 'l8000'" in outcome(text)[1]
