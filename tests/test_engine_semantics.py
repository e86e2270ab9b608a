"""Known answers for the LogGOPS rules, worked out by hand from the model."""

from __future__ import annotations

import pytest

from cloudnoise import _engine, simulate
from cloudnoise.simulation.params import LogGOPS

PARAMS = LogGOPS.parse(L="2500", o="1500", g="1000", G="6", O="0", S="65535")


def run_text(text: str, params: LogGOPS = PARAMS, **kw):
    return simulate(_engine.parse_goal(text.encode(), "test"), params=params, **kw)


def pair(size: int) -> str:
    return f"num_ranks 2\nrank 0 {{\nl1: send {size}b to 1 tag 0\n}}\nrank 1 {{\nl1: recv {size}b from 0 tag 0\n}}\n"


def test_eager_message():
    # Sender: o + (s-1)O. Receiver: message at o+L, then o + (s-1)G.
    r = run_text(pair(8))
    assert r.host_end_ns.tolist() == [1500, 1500 + 2500 + 1500 + 7 * 6]
    assert r.events == 3 and r.messages == 1


def test_rendezvous_message_holds_the_sender():
    # Above S the sender's CPU is held until the message is matched (o+L).
    r = run_text(pair(100_000))
    assert r.host_end_ns.tolist() == [1500 + 2500, 1500 + 2500 + 1500 + 99_999 * 6]


def test_rendezvous_overhead_applies_above_S_only():
    # O = 10 ns/B on the sender and, as max(O, G), on the receiver; with
    # O_rendezvous = 1 ns/B a message above S pays that instead, below S O.
    big = LogGOPS.parse(L="2500", o="1500", g="1000", G="6", O="10", S="65535", O_rendezvous="1")
    r = run_text(pair(100_000), big)
    assert r.host_end_ns.tolist() == [1500 + 99_999 * 1, 1500 + 2500 + 1500 + 99_999 * 6]
    r = run_text(pair(100_000), LogGOPS.parse(L="2500", o="1500", g="1000", G="6", O="10", S="65535"))
    assert r.host_end_ns.tolist() == [1500 + 99_999 * 10, 1500 + 2500 + 1500 + 99_999 * 10]
    r = run_text(pair(8), big)
    assert r.host_end_ns.tolist() == [1500 + 7 * 10, 1500 + 2500 + 1500 + 7 * 10]


def test_O_on_the_command_line_applies_to_every_size():
    p = LogGOPS.parse(O="10", O_rendezvous="1")
    assert p.with_overrides(O="3").O_rendezvous_fs is None and p.with_overrides(L="5").O_rendezvous_fs == 10**6
    assert p.as_ns()["O_rendezvous"] == 1 and "O_rendezvous" not in LogGOPS.parse().as_ns()


def test_picosecond_exact_bandwidth():
    # 100 Gb/s is G = 0.08 ns/byte: 999 bytes cost 79.92 ns, not 79 or 80.
    params = LogGOPS.parse(L="2500", o="1500", g="1000", G="100Gbit/s", O="0", S="65535")
    r = run_text(pair(1000), params)
    assert r.host_end_ns.tolist() == [1500, pytest.approx(5579.92, abs=1e-9)]
    assert r.to_dict()["host_end_ns"][1] == 5579.92


def test_gap_between_messages():
    # Two back-to-back sends on one NIC: the second waits for g.
    text = (
        "num_ranks 2\nrank 0 {\nl1: send 1b to 1 tag 0\nl2: send 1b to 1 tag 1\n}\n"
        "rank 1 {\nl1: recv 1b from 0 tag 0\nl2: recv 1b from 0 tag 1\n}\n"
    )
    params = LogGOPS.parse(L="1000", o="100", g="5000", G="0", O="0", S="65535")
    r = run_text(text, params)
    # second send at g=5000 -> arrives 5000+100+1000, received +100
    assert r.host_end_ns.tolist() == [5100, 6200]


def test_calc_and_cpus_run_in_parallel():
    text = "num_ranks 1\nrank 0 {\nl1: calc 500 cpu 0\nl2: calc 700 cpu 1\nl3: calc 100 cpu 0\n}\n"
    # cpu 0 runs l1 then l3 (600); cpu 1 runs l2 (700); a rank ends with its last CPU.
    assert run_text(text).host_end_ns.tolist() == [700]


def test_requires_and_irequires():
    # l2 requires l1 (after it ends); l3 irequires l1 (after it starts), on cpu 1.
    text = "num_ranks 1\nrank 0 {\nl1: calc 500\nl2: calc 100\nl3: calc 50 cpu 1\nl2 requires l1\nl3 irequires l1\n}\n"
    assert run_text(text).host_end_ns.tolist() == [600]


def test_wildcards_match_first_in_order():
    text = (
        "num_ranks 3\nrank 0 {\nl1: send 8b to 2 tag 5\n}\nrank 1 {\nl1: calc 100000\nl2: send 8b to 2 tag 6\nl2 requires l1\n}\n"
        "rank 2 {\nl1: recv 8b from -1 tag -1\nl2: recv 8b from 1 tag 6\n}\n"
    )
    r = run_text(text)
    # rank 0's message (tag 5) matches the any/any receive; rank 1's arrives late.
    assert r.host_end_ns[2] == 100_000 + 1500 + 2500 + 1500 + 7 * 6


def test_ns_output_is_integer_when_exact():
    r = run_text(pair(8))
    assert all(isinstance(x, int) for x in r.to_dict()["host_end_ns"])


def test_repetitions_without_noise_are_identical():
    r = run_text(pair(8), reps=5, threads=2)
    assert r.runtime_ns.tolist() == [5542] * 5


def test_a_small_receive_completes_the_rendezvous_message_it_takes():
    # Rank 1's 8 B receive, posted at 10 us, takes a 100,000 B message (above S)
    # waiting since 4 us: the message's size makes it rendezvous, so its
    # sender is held until then (10 us), its next calc ends at 10.1 us. (A
    # rule by the receive's size never completed that send: a deadlock.)
    text = ("num_ranks 2\nrank 0 {\nl1: send 100000b to 1 tag 0\nl2: calc 100\nl2 requires l1\n}\n"
            "rank 1 {\nl1: calc 10000\nl2: recv 8b from 0 tag 0\nl2 requires l1\n}\n")
    r = run_text(text)
    assert r.host_end_ns.tolist() == [10_000 + 100, 10_000 + 1500 + 99_999 * 6]


def test_a_large_receive_does_not_complete_an_eager_send_twice():
    # Rank 1's 100,000 B receive takes an 8 B (eager) message: its send was
    # complete when it left (rank 0's calc ends at o + 100 ns); completing it
    # again at the match would run that calc a second time, at 10 us.
    text = ("num_ranks 2\nrank 0 {\nl1: send 8b to 1 tag 0\nl2: calc 100\nl2 requires l1\n}\n"
            "rank 1 {\nl1: calc 10000\nl2: recv 100000b from 0 tag 0\nl2 requires l1\n}\n")
    r = run_text(text)
    assert r.host_end_ns.tolist() == [1500 + 100, 10_000 + 1500 + 7 * 6]
    assert r.events == 5


# Rank 0 sends a rendezvous message M1 and an eager M2 on one channel, then
# (once M1 is matched) X on another tag; rank 1 receives M1, then X, then M2.
# Should M2 overtake M1 (a latency drawn per message), M2 takes M1's receive
# and M1 waits for a receive posted only after X, which waits for M1: the
# program deadlocks, though MPI never lets M2 overtake M1.
OVERTAKE = ("num_ranks 2\nrank 0 {\nm1: send 100000b to 1 tag 0\nm2: send 8b to 1 tag 0\nx: send 8b to 1 tag 1\n"
            "x requires m1\n}\nrank 1 {\nr1: recv 100000b from 0 tag 0\nrx: recv 8b from 0 tag 1\n"
            "r2: recv 8b from 0 tag 0\nrx requires r1\nr2 requires rx\n}\n")
NO_G = LogGOPS.parse(L="2500", o="1500", g="1000", G="0", O="0", S="65535")


def _stuck_repetitions(in_order: bool, reps: int = 40) -> int:
    from cloudnoise.errors import CloudnoiseError

    stuck = 0
    for rep in range(reps):
        schedule = _engine.parse_goal(OVERTAKE.encode(), "test")
        schedule.in_order = in_order
        try:
            simulate(schedule, params=NO_G, latency_noise="lognormal:median=10us,sigma=1.5", first_rep=rep)
        except CloudnoiseError:
            stuck += 1
    return stuck


def test_in_order_channels_keep_mpi_order_under_latency_noise():
    # LogGOPSim's semantics (the default) let M2 overtake M1 in some
    # repetitions; a schedule that keeps MPI's order (a recorded trace's)
    # completes in every one.
    assert _stuck_repetitions(in_order=False) > 0
    assert _stuck_repetitions(in_order=True) == 0


def test_in_order_changes_nothing_without_latency_noise():
    schedule = _engine.parse_goal(OVERTAKE.encode(), "test")
    plain = simulate(schedule, params=NO_G).host_end_ns.tolist()
    schedule.in_order = True
    assert simulate(schedule, params=NO_G).host_end_ns.tolist() == plain
