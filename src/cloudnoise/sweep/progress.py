"""A progress bar over a sweep's repetitions, on stderr so stdout keeps only
results; silent when disabled (--json, or not a terminal)."""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn


class SweepProgress:
    """A rich progress bar over repetitions (on stderr, so stdout keeps only the
    results), created once the total is known."""

    def __init__(self, enabled: bool, description: str = "sweeping") -> None:
        self.enabled = enabled
        self.description = description
        self._progress: Any = None
        self._task: Any = None

    def __enter__(self) -> SweepProgress:
        return self

    def __exit__(self, *exc: object) -> None:
        if self._progress is not None:
            self._progress.stop()

    def update(self, done: int, total: int, description: str | None = None) -> None:
        """Show `done` of `total`; `description` (if given) replaces the label, e.g. the step now running."""
        if not self.enabled:
            return
        if description is not None:
            self.description = description
        if self._progress is None:
            self._progress = Progress(
                TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn(), transient=True,
                console=Console(stderr=True),
            )
            self._task = self._progress.add_task(self.description, total=total)
            self._progress.start()
        self._progress.update(self._task, completed=done, total=total, description=self.description)
