"""The GOAL reader never crashes, hangs or accepts garbage silently: random
mutations of valid schedules either parse (and then simulate or report a
deadlock) or raise GoalError with a `NAME:LINE: ...` message."""

from __future__ import annotations

import random
import re

from cloudnoise import _engine

SEED_TEXT = """num_ranks 3
rank 0 {
l1: send 100b to 1 tag 4 cpu 1 nic 0
l2: recv 8b from -1 tag -1
l3: calc 500
l3 requires l2
l1 irequires l3
}
rank 1 {
/* comment */ l1: recv 100b from 0 tag 4
l2: send 8b to 0 tag 9 // trailing
l3: calc 10
l3 requires l1
}
rank 2 {
l1: calc 7
}
"""

TOKENS = ["{", "}", ":", "-1", "requires", "irequires", "send", "recv", "calc", "rank", "num_ranks",
          "tag", "cpu", "nic", "b", "to", "from", "99999999999999999999999", "0", "\n", " ", "/*", "*/",
          "//", "\x00", "\xff", "l1", "l9"]


def mutate(rng: random.Random, text: str) -> str:
    chars = list(text)
    for _ in range(rng.randint(1, 6)):
        op = rng.random()
        pos = rng.randrange(len(chars) + 1)
        if op < 0.35 and chars:
            del chars[min(pos, len(chars) - 1)]
        elif op < 0.7:
            chars[pos:pos] = list(rng.choice(TOKENS))
        elif chars:
            chars[min(pos, len(chars) - 1)] = chr(rng.randrange(1, 128))
    return "".join(chars)


def test_mutations_parse_or_fail_cleanly():
    rng = random.Random(1234)
    params = _engine.LogGOPSParams(2_500_000, 1_500_000, 1_000_000, 6_000_000, 0, 65535)
    outcomes = {"ok": 0, "goal_error": 0, "deadlock": 0}
    for _ in range(3000):
        text = mutate(rng, SEED_TEXT)
        try:
            sched = _engine.parse_goal(text.encode("utf-8", "surrogateescape"), "fuzz")
        except _engine.GoalError as err:
            assert re.match(r"^fuzz:\d+: \S", str(err)), str(err)
            assert "\n" not in str(err)
            outcomes["goal_error"] += 1
            continue
        try:
            _engine.run(sched, params, _engine.NoiseModel())
            outcomes["ok"] += 1
        except _engine.DeadlockError as err:
            assert str(err).startswith("schedule cannot complete")
            outcomes["deadlock"] += 1
    # The mutations exercise all three outcomes.
    assert all(n > 0 for n in outcomes.values()), outcomes
