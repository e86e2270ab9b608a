"""The one exception type the CLI turns into a one-line message and an exit code.

Every stage raises CloudnoiseError for bad input or an impossible request, so
users see `cloudnoise: error: <what is wrong and what to do>` instead of a
traceback, and scripts can tell failure kinds apart by exit status.
"""

from __future__ import annotations

# Exit statuses shared by every command.
EXIT_USAGE = 2  # malformed input, impossible parameters
EXIT_STUCK = 3  # a schedule that cannot complete (deadlock)
EXIT_RUNTIME = 4  # an external tool (MPI, launcher) failed
EXIT_INTERRUPTED = 130


class CloudnoiseError(Exception):
    """An error the user can act on; `str(err)` is the whole message."""

    def __init__(self, message: str, exit_code: int = EXIT_USAGE) -> None:
        super().__init__(message)
        self.exit_code = exit_code
