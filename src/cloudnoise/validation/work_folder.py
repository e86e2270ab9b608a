"""Where a validation's raw files go while it runs.

With `--out` the user's folder, kept. Without it a temporary folder, removed
when the run completes or is interrupted (Ctrl-C: nothing the user asked to
keep), and kept when the run fails, because the one-line error names the
launch log inside it.
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


@contextmanager
def work_folder(out: Path | None, prefix: str) -> Iterator[Path]:
    """Yield `out` (created) or a new temporary folder named `prefix...`."""
    if out is not None:
        out.mkdir(parents=True, exist_ok=True)
        yield out
        return
    scratch = Path(tempfile.mkdtemp(prefix=prefix))
    try:
        yield scratch
    except KeyboardInterrupt:
        shutil.rmtree(scratch, ignore_errors=True)
        raise
    # any other failure leaves the folder for the error that names its logs
    shutil.rmtree(scratch, ignore_errors=True)
