"""The installed distribution's version, "0.0.0+src" when running from a source tree.

Its own module so that the stages that stamp it on their outputs (campaigns, sweeps,
reports) need not import the package's `__init__`, which names the stages' functions:
`cloudnoise.__version__` reads it from here on first use (importlib.metadata is most of
an eager `import cloudnoise`'s time).
"""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version


def _installed() -> str:
    try:
        return version("cloudnoise")
    except PackageNotFoundError:  # running from a source tree
        return "0.0.0+src"


__version__ = _installed()
