"""A progress bar for long Monte Carlo runs (rich), silent when disabled."""

from __future__ import annotations

from collections.abc import Callable
from types import TracebackType

from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn


class RepetitionProgress:
    """Context manager; pass `update` to the engine as its progress callback."""

    def __init__(self, total: int, enabled: bool, description: str = "simulating") -> None:
        self.total = total
        self._progress: Progress | None = None
        self._task = None
        if enabled:
            self._progress = Progress(
                TextColumn("{task.description}"),
                BarColumn(),
                MofNCompleteColumn(),
                TimeRemainingColumn(),
                transient=True,
            )
            self._task = self._progress.add_task(description, total=total)

    def __enter__(self) -> RepetitionProgress:
        if self._progress is not None:
            self._progress.start()
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        if self._progress is not None:
            self._progress.stop()

    @property
    def callback(self) -> Callable[[int], None] | None:
        """What to hand the engine: None when disabled, so it runs unobserved."""
        return self.update if self._progress is not None else None

    def update(self, done: int) -> None:
        if self._progress is not None and self._task is not None:
            self._progress.update(self._task, completed=done)
