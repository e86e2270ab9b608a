"""The errors users see: one line, `cloudnoise: error: ...`, and an exit status.

Every stage raises CloudnoiseError for bad input or an impossible request, so
users see `cloudnoise: error: <what is wrong and what to do>` instead of a
traceback, and scripts can tell failure kinds apart by exit status
(docs/reference/conventions.md). `expected_error` is the one place that also turns the
failures any input can provoke anywhere (a directory where a file was
expected, a file that is not UTF-8, a request larger than memory, input
nested too deeply, a number out of range) into such a line, for the paths a
reader did not guard itself; anything else is a bug (exit 1, see
cloudnoise.crash_report).
"""

from __future__ import annotations

import errno

# Exit statuses shared by every command.
EXIT_INTERNAL = 1  # a bug: the traceback went to a file, not to the terminal
EXIT_USAGE = 2  # malformed input, impossible parameters
EXIT_STUCK = 3  # a schedule that cannot complete (deadlock)
EXIT_RUNTIME = 4  # an external tool (MPI, launcher) failed
EXIT_INTERRUPTED = 130

# How much of a user's value an error message repeats (a 5000-character spec
# is named by its start, not printed whole).
SHOWN_CHARS = 60


class CloudnoiseError(Exception):
    """An error the user can act on; `str(err)` is the whole message."""

    def __init__(self, message: str, exit_code: int = EXIT_USAGE) -> None:
        super().__init__(message)
        self.exit_code = exit_code


def shown(value: object, limit: int = SHOWN_CHARS) -> str:
    """`value` as an error message quotes it: repr, on one line, cut to `limit` characters."""
    text = repr(value) if isinstance(value, str) else str(value)
    text = text.replace("\n", "\\n").replace("\r", "\\r")
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _os_error(err: OSError) -> CloudnoiseError:
    name = err.filename if err.filename is not None else None
    where = f"{name}: " if name is not None else ""
    if isinstance(err, IsADirectoryError):
        return CloudnoiseError(f"{where}is a directory, expected a file; give the file's path")
    if isinstance(err, NotADirectoryError):
        return CloudnoiseError(f"{where}a part of this path is a file, expected a directory")
    if isinstance(err, FileNotFoundError):
        return CloudnoiseError(f"{where}no such file or directory")
    if isinstance(err, PermissionError):
        return CloudnoiseError(f"{where}permission denied")
    if err.errno in (errno.ENOSPC, errno.EDQUOT):
        return CloudnoiseError(f"{where}no space left on the device (or over quota); free some and rerun")
    if err.errno == errno.EROFS:
        return CloudnoiseError(f"{where}read-only file system; choose another output place")
    text = err.strerror or str(err) or type(err).__name__
    return CloudnoiseError(f"{where}{text}")


def expected_error(err: BaseException) -> CloudnoiseError | None:
    """The one-line error for a failure that bad input can cause anywhere, or
    None for an error that is a bug (or already a CloudnoiseError's job).

    Readers name their file themselves where they can; this is the net below
    them, so that no input ever shows a traceback.
    """
    if isinstance(err, CloudnoiseError):
        return err
    if isinstance(err, UnicodeDecodeError):
        return CloudnoiseError(
            f"an input file is not UTF-8 text ({err.reason} at byte {err.start}); "
            "save it as UTF-8 (not UTF-16) text, or give the right file"
        )
    if isinstance(err, OSError):
        return _os_error(err)
    if isinstance(err, MemoryError):
        return CloudnoiseError(
            "not enough memory for this request; make it smaller (ranks, repetitions, trace length, rates)"
        )
    if isinstance(err, RecursionError):
        return CloudnoiseError("an input is nested too deeply to read (more levels than any real file has)")
    if isinstance(err, OverflowError):
        detail = str(err).strip()
        return CloudnoiseError(
            "a number is out of range" + (f" ({detail})" if detail else "") + "; see docs/reference/conventions.md for the limits"
        )
    return None
