"""console.Progress: an estimate before the work, a bar on a terminal, a plain
line at a fixed interval off one, nothing with quiet."""

from __future__ import annotations

import io
import re
import time

import pytest

from cloudnoise import console
from cloudnoise.console import Progress, duration_text


class Stamped(io.StringIO):
    """A non-terminal stream that remembers when each line was written."""

    def __init__(self) -> None:
        super().__init__()
        self.t0 = time.monotonic()
        self.stamps: list[tuple[float, str]] = []

    def write(self, text: str) -> int:
        if text.strip():
            self.stamps.append((time.monotonic() - self.t0, text.strip()))
        return super().write(text)


def test_duration_text() -> None:
    assert [duration_text(s) for s in (0.4, 45, 125, 3600 + 20 * 60 + 7)] == ["0 s", "45 s", "2 min 05 s", "1 h 20 min"]


def test_off_a_terminal_an_estimate_first_then_a_line_every_interval() -> None:
    stream = Stamped()
    with Progress("advise", stream=stream, interval_s=0.1, terminal=False) as p:
        p.estimate(30, "timed here")
        for k in range(1, 9):
            time.sleep(0.05)
            p.update(k, 8, f"{k} of 8 repetitions")
    times = [t for t, _ in stream.stamps]
    lines = [s for _, s in stream.stamps]
    assert lines[0] == "advise: estimate about 30 s (timed here)" and times[0] < 0.05
    status = [s for s in lines[1:-1]]
    assert len(status) >= 2
    for line in status:
        assert re.fullmatch(r"advise: (starting|\d+% \(\d of 8 repetitions\)), \d+ s elapsed, about \d+ s left", line), line
    assert lines[-1].startswith("advise: done in ")
    gaps = [b - a for a, b in zip(times, times[1:-1])]
    assert max(gaps) < 0.25, gaps  # every interval, whatever the updates do


def test_quiet_prints_nothing_and_short_steps_say_nothing() -> None:
    stream = Stamped()
    with Progress("x", stream=stream, interval_s=0.05, quiet=True, terminal=False) as p:
        p.estimate(100)
        p.update(1, 2)
        time.sleep(0.12)
    assert stream.getvalue() == ""
    short = Stamped()
    with Progress("x", stream=short, interval_s=10, terminal=False) as p:
        p.estimate(3)  # below the floor: not said
        p.update(1, 1)
    assert short.getvalue() == ""


def test_eta_follows_the_rate_once_work_is_done(monkeypatch: pytest.MonkeyPatch) -> None:
    now = [100.0]
    monkeypatch.setattr(console.time, "monotonic", lambda: now[0])
    p = Progress("x", stream=io.StringIO(), terminal=False)
    p.estimate(50)
    assert p.eta_seconds() == 50  # nothing done: what the estimate leaves
    p.update(0, 100)
    now[0] += 10
    p.update(25, 100)  # a quarter in 10 s: 30 s left
    assert p.eta_seconds() == pytest.approx(30)


def test_without_an_estimate_the_rate_so_far_makes_one(monkeypatch: pytest.MonkeyPatch) -> None:
    now = [0.0]
    monkeypatch.setattr(console.time, "monotonic", lambda: now[0])
    stream = io.StringIO()
    p = Progress("simulate", stream=stream, terminal=False)
    p.update(0, 1000)
    now[0] = 1.0
    p.update(60, 1000)  # 6% in 1 s: too soon to say
    now[0] = 2.0
    p.update(100, 1000)  # 100 in 2 s: 1000 take 20 s
    assert stream.getvalue() == "simulate: estimate about 20 s (from the rate so far)\n"
    now[0] = 3.0
    p.update(150, 1000)
    assert stream.getvalue().count("estimate") == 1


def test_a_rate_that_slows_down_is_said_once_it_passes_the_floor(monkeypatch: pytest.MonkeyPatch) -> None:
    now = [0.0]
    monkeypatch.setattr(console.time, "monotonic", lambda: now[0])
    stream = io.StringIO()
    p = Progress("measure", stream=stream, terminal=False)
    p.update(0, 1000)
    now[0] = 2.0
    p.update(300, 1000)  # would end at 6.7 s: below the floor, nothing said yet
    assert stream.getvalue() == ""
    now[0] = 8.0
    p.update(400, 1000)  # slower: 20 s in all
    assert stream.getvalue() == "measure: estimate about 20 s (from the rate so far)\n"
    q = Progress("late", stream=io.StringIO(), terminal=False)
    q.update(0, 10)
    now[0] = 20.0
    q.update(6, 10)  # past half the work: no estimate any more
    assert q._stream.getvalue() == ""  # type: ignore[union-attr]


def test_on_a_terminal_a_bar_with_the_detail(monkeypatch: pytest.MonkeyPatch) -> None:
    with Progress("sweep", stream=io.StringIO(), terminal=True) as p:
        p.update(3, 10, "3 of 10 repetitions")
        task = p._bar.tasks[0]
        assert (task.completed, task.total, task.fields["detail"]) == (3, 10, "3 of 10 repetitions")
