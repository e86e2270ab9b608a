"""Where commands print: tables on stdout, notes and progress on stderr (docs/reference/conventions.md).

`Progress` is the one progress display of every long command: an estimate
before it starts, then a bar with ETA on a terminal or a plain line every
few seconds off one.

Rich sizes its output to the terminal and, when stdout is a pipe or a file,
to 80 columns, which folds or truncates wide tables. A table piped to
`less`, `grep` or a file must keep every column whole, so off a terminal the
console is as wide as the widest line needs. `write_csv` prints the same rows
as CSV for `--csv`.
"""

from __future__ import annotations

import csv
import sys
import threading
import time
from collections.abc import Iterable, Sequence
from typing import Any, Protocol, TextIO

from rich.console import Console

# Wide enough for any table we print; rich tables do not stretch to the width.
PIPE_WIDTH = 1000


def stdout_console() -> Console:
    """A console for results: the terminal's width on a terminal, unlimited when piped."""
    if sys.stdout.isatty():
        return Console()
    return Console(width=PIPE_WIDTH, soft_wrap=False)


def stderr_console(quiet: bool = False) -> Console:
    """A console for notes and progress; `quiet` silences it. Off a terminal a
    note stays one line (a log is read with grep)."""
    if sys.stderr.isatty():
        return Console(stderr=True, quiet=quiet)
    return Console(stderr=True, quiet=quiet, width=PIPE_WIDTH, soft_wrap=False)


def write_csv(columns: Sequence[str], rows: Iterable[Sequence[Any]], stream: Any = None) -> None:
    """`rows` as CSV with a header line, on stdout unless `stream` is given.

    None is written as an empty field; floats keep full precision."""
    out = stream or sys.stdout
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(columns)
    for row in rows:
        writer.writerow(["" if v is None else repr(v) if isinstance(v, float) else v for v in row])


# Off a terminal, a progress line this often (seconds); tests lower it.
PROGRESS_INTERVAL_S = 10.0
# An estimate below this is not printed: the command ends before anyone waits.
ESTIMATE_FLOOR_S = 10.0
# Without an estimate up front, the rate of the first this many seconds makes one.
AUTO_ESTIMATE_AFTER_S = 2.0
AUTO_ESTIMATE_FRACTION = 0.05  # ... and at least this fraction of the work
AUTO_ESTIMATE_UNTIL = 0.5  # past this fraction of the work an estimate is no news
# Until this fraction of the work is done the ETA is the up-front estimate's
# remainder (when there is one): the first tasks are too few to time the rest.
ETA_WARMUP_FRACTION = 0.02


class ProgressSink(Protocol):
    """What a long step tells about itself (`Progress` is the one that prints)."""

    def estimate(self, seconds: float | None, basis: str = "") -> None: ...

    def update(self, done: float, total: float, detail: str | None = None, description: str | None = None) -> None: ...


def duration_text(seconds: float) -> str:
    """A wall-clock duration for people: `45 s`, `2 min 05 s`, `1 h 20 min`."""
    s = max(0, int(round(seconds)))
    if s < 60:
        return f"{s} s"
    if s < 3600:
        return f"{s // 60} min {s % 60:02d} s"
    return f"{s // 3600} h {s % 3600 // 60:02d} min"


class Progress:
    """Progress of one long step, with elapsed time and ETA, on stderr.

    On a terminal it is a rich bar; off a terminal (a file, a pipe, a batch
    job's log) it is a plain line every `PROGRESS_INTERVAL_S` seconds, from a
    timer thread, so a step whose updates are rare still reports; `quiet`
    silences both. `estimate(seconds, basis)` prints one line before the work
    starts (when it is at least `ESTIMATE_FLOOR_S`). `update(done, total,
    detail)` counts work in any unit (the ETA assumes each unit costs the
    same time); `detail` says it in words ("384 of 1,100 repetitions").

    Use as a context manager; `update` may be called from any thread.
    """

    def __init__(self, what: str, *, quiet: bool = False, stream: TextIO | None = None,
                 interval_s: float | None = None, terminal: bool | None = None) -> None:
        self.what = what
        self.quiet = quiet
        self._stream = stream
        self.interval_s = PROGRESS_INTERVAL_S if interval_s is None else interval_s
        self._terminal = terminal
        self._lock = threading.Lock()
        self._t0 = time.monotonic()
        self._done = 0.0
        self._total = 0.0
        self._first: tuple[float, float] | None = None  # (time, done) at the first update
        self._detail = ""
        self._estimate_s: float | None = None
        self._estimated = False  # an estimate was given or made
        self._bar: Any = None
        self._task: Any = None
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self.lines = 0  # plain lines printed (progress and estimate)

    @property
    def stream(self) -> TextIO:
        return self._stream if self._stream is not None else sys.stderr

    @property
    def on_terminal(self) -> bool:
        if self._terminal is None:  # as rich sees it (TTY_COMPATIBLE and FORCE_TERMINAL count)
            self._terminal = Console(file=self.stream).is_terminal
        return self._terminal

    def __enter__(self) -> Progress:
        self._t0 = time.monotonic()
        if self.quiet:
            return self
        if self.on_terminal:
            from rich.progress import BarColumn, TaskProgressColumn, TextColumn, TimeElapsedColumn
            from rich.progress import Progress as RichProgress

            self._bar = RichProgress(
                TextColumn("{task.description}"), BarColumn(), TaskProgressColumn(), TextColumn("{task.fields[detail]}"),
                TimeElapsedColumn(), _eta_column(self), console=Console(file=self.stream), transient=True,
            )
            self._task = self._bar.add_task(self.what, total=None, detail="")
            self._bar.start()
        else:
            self._thread = threading.Thread(target=self._tick, name="cloudnoise-progress", daemon=True)
            self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
        if self._bar is not None:
            self._bar.stop()
        if not self.quiet and not self.on_terminal and self.lines and exc[0] is None:
            self._print(f"{self.what}: done in {duration_text(self.elapsed)}")

    @property
    def elapsed(self) -> float:
        return time.monotonic() - self._t0

    def estimate(self, seconds: float | None, basis: str = "") -> None:
        """Says before the work starts how long it should take (and from what);
        None: the step knows it is short, and no estimate is made from its rate."""
        with self._lock:
            self._estimate_s = None if seconds is None else max(0.0, seconds)
            self._estimated = True
        if self.quiet or seconds is None or seconds < ESTIMATE_FLOOR_S:
            return
        self.say(f"{self.what}: estimate about {duration_text(seconds)}" + (f" ({basis})" if basis else ""))

    def say(self, text: str) -> None:
        """One line on stderr (above the bar on a terminal); nothing when quiet."""
        if self.quiet:
            return
        if self._bar is not None:
            self._bar.console.print(text, markup=False, highlight=False)
        else:
            self._print(text)

    def update(self, done: float, total: float, detail: str | None = None, description: str | None = None) -> None:
        """`done` of `total` units; `detail` and `description` replace the words shown."""
        with self._lock:
            if self._first is None:
                self._first = (time.monotonic(), float(done))
            self._done, self._total = float(done), float(total)
            if detail is not None:
                self._detail = detail
            if description is not None:
                self.what = description
        if self._bar is not None:
            self._bar.update(self._task, completed=done, total=total, detail=self._detail, description=self.what)
        self._estimate_from_rate()

    def phase(self, description: str) -> None:
        """A new stretch of work with its own units (the next run of a measurement):
        the rate and ETA start again."""
        with self._lock:
            self.what = description
            self._first = None
            self._done = self._total = 0.0
            self._detail = ""
        if self._bar is not None:
            self._bar.update(self._task, completed=0, total=None, detail="", description=description)

    def _estimate_from_rate(self) -> None:
        """Without an estimate given up front, the rate so far makes one: said once, as
        soon as it reaches ESTIMATE_FLOOR_S (a rate that slows down later still gets
        said), and no longer tried once half the work is done."""
        with self._lock:
            if self._estimated or self._first is None or self._total <= 0:
                return
            spent = time.monotonic() - self._first[0]
            gained = self._done - self._first[1]
            if spent < AUTO_ESTIMATE_AFTER_S or gained < AUTO_ESTIMATE_FRACTION * (self._total - self._first[1]):
                return
            if self._done >= AUTO_ESTIMATE_UNTIL * self._total:
                self._estimated = True
                return
            seconds = (time.monotonic() - self._t0) + (self._total - self._done) * spent / gained
            if seconds < ESTIMATE_FLOOR_S:
                return
            self._estimated = True
        if not self.quiet:
            self.say(f"{self.what}: estimate about {duration_text(seconds)} (from the rate so far)")

    def eta_seconds(self) -> float | None:
        """Seconds left: from the rate since the first update once enough is done,
        else what the estimate leaves; None when neither says."""
        with self._lock:
            done, total, first, estimate = self._done, self._total, self._first, self._estimate_s
        now = time.monotonic()
        if total > 0 and first is not None:
            gained = done - first[1]
            left = total - first[1]
            if gained > 0 and (estimate is None or gained >= ETA_WARMUP_FRACTION * left):
                return (total - done) * (now - first[0]) / gained
        if estimate is not None:
            return max(0.0, estimate - (now - self._t0))
        return None

    def status_line(self) -> str:
        """The plain line printed off a terminal."""
        with self._lock:
            done, total, detail = self._done, self._total, self._detail
        parts = [f"{self.what}:"]
        if total > 0:
            parts.append(f"{100.0 * done / total:.0f}%" + (f" ({detail})," if detail else ","))
        else:
            parts.append("starting,")
        parts.append(f"{duration_text(self.elapsed)} elapsed")
        eta = self.eta_seconds()
        line = " ".join(parts)
        return line + (f", about {duration_text(eta)} left" if eta is not None else "")

    def _tick(self) -> None:
        while not self._stop.wait(self.interval_s):
            self._print(self.status_line())

    def _print(self, text: str) -> None:
        try:
            print(text, file=self.stream, flush=True)
        except (OSError, ValueError):  # stderr closed: progress is not worth an error
            return
        self.lines += 1


def _eta_column(progress: Progress) -> Any:
    """A rich column showing the time left as `progress.eta_seconds` computes it
    (imported here: rich.progress costs an import only when a bar is drawn)."""
    from rich.progress import ProgressColumn
    from rich.text import Text

    class EtaColumn(ProgressColumn):
        def render(self, task: Any) -> Text:
            eta = progress.eta_seconds()
            return Text("" if eta is None else f"about {duration_text(eta)} left", style="progress.remaining")

    return EtaColumn()
