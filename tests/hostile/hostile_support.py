"""Running cloudnoise as a hostile or careless user would, and checking it stays polite.

Every case runs the real command line in its own process, in a sandbox folder
with its own HOME and cache (so a crash report, a compiled probe or a stray
file would land where the test sees it), and checks three things the
hardening issue asks of every bad input: the exit status, exactly one line on
stderr that starts `cloudnoise: error:` (never a traceback), and that nothing
outside the command's output folder changed.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
MPL_CONFIG = Path(tempfile.gettempdir()) / f"cloudnoise-tests-mpl-{os.getuid()}"


@dataclass(frozen=True)
class Sandbox:
    """A folder tree a command runs in: `work` is its cwd, `home` its HOME and cache."""

    root: Path

    @property
    def work(self) -> Path:
        return self.root / "work"

    @property
    def home(self) -> Path:
        return self.root / "home"

    def env(self, **extra: str) -> dict[str, str]:
        env = dict(os.environ)
        if env.get("PYTHONPATH"):
            # the commands run in the sandbox: a relative PYTHONPATH (src) must still point here
            env["PYTHONPATH"] = os.pathsep.join(os.path.abspath(p) for p in env["PYTHONPATH"].split(os.pathsep) if p)
        env.update(
            HOME=str(self.home),
            XDG_CACHE_HOME=str(self.home / ".cache"),
            CLOUDNOISE_CACHE_DIR=str(self.home / ".cache" / "cloudnoise"),
            COLUMNS="200",
            # matplotlib's font cache is matplotlib's, not ours: kept out of the sandbox
            MPLCONFIGDIR=str(MPL_CONFIG),
        )
        env.update(extra)
        return env

    def run(self, *args: object, timeout: float = 120, **extra_env: str) -> subprocess.CompletedProcess[str]:
        """`cloudnoise ARGS` in the sandbox."""
        return subprocess.run(
            [sys.executable, "-m", "cloudnoise", *map(str, args)],
            cwd=self.work,
            env=self.env(**extra_env),
            capture_output=True,
            text=True,
            timeout=timeout,
        )

    def snapshot(self, *, outside_of: Path | None = None) -> dict[str, tuple[int, int, int]]:
        """Every path under the sandbox (except `outside_of` and below) with (size, mtime_ns, mode);
        folders by their mode only."""
        seen: dict[str, tuple[int, int, int]] = {}
        for dirpath, dirnames, filenames in os.walk(self.root):
            here = Path(dirpath)
            if outside_of is not None:
                dirnames[:] = [d for d in dirnames if (here / d) != outside_of]
            for name in dirnames + filenames:
                p = here / name
                if outside_of is not None and p == outside_of:
                    continue
                st = p.lstat()
                # (A folder's mtime moves when a temporary file comes and goes: its entries tell.)
                is_file = p.is_file()
                seen[str(p.relative_to(self.root))] = (st.st_size if is_file else 0, st.st_mtime_ns if is_file else 0,
                                                       st.st_mode)
        return seen


def sandbox(tmp_path: Path) -> Sandbox:
    box = Sandbox(tmp_path)
    box.work.mkdir(parents=True, exist_ok=True)
    box.home.mkdir(parents=True, exist_ok=True)
    return box


def assert_refused(proc: subprocess.CompletedProcess[str], *, status: int = 2, says: str | tuple[str, ...] = ()) -> None:
    """Exit `status`, one `cloudnoise: error:` line on stderr naming each of `says`, no traceback."""
    lines = proc.stderr.splitlines()
    assert proc.returncode == status, (proc.returncode, proc.stderr)
    assert len(lines) == 1, proc.stderr
    assert lines[0].startswith("cloudnoise: error: "), proc.stderr
    assert "Traceback" not in proc.stderr and "internal error" not in proc.stderr
    for text in (says,) if isinstance(says, str) else says:
        assert text in lines[0], (text, lines[0])


def refused_without_side_effects(box: Sandbox, *args: object, says: str | tuple[str, ...] = (),
                                 status: int = 2, out: Path | None = None) -> subprocess.CompletedProcess[str]:
    """Runs ARGS, asserts a one-line refusal and that nothing outside `out` changed."""
    before = box.snapshot(outside_of=out)
    proc = box.run(*args)
    assert_refused(proc, status=status, says=says)
    after = box.snapshot(outside_of=out)
    assert after == before, {k: (before.get(k), after.get(k)) for k in set(before) ^ set(after) | {
        k for k in before.keys() & after.keys() if before[k] != after[k]}}
    return proc
