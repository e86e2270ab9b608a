"""Packages cloudnoise uses but does not install with itself, imported where
they are needed: a missing one is a one-line error that says what to install.

pandas is one: `to_pandas()` returns a DataFrame, but the install stays
small and fast without it (bench/bench_install.py measures the install; pandas
adds about 84 MB and 5 CPU-seconds to it).
"""

from __future__ import annotations

from typing import Any

from cloudnoise.errors import CloudnoiseError


def import_pandas(what: str = "to_pandas()") -> Any:
    """The pandas module, or a CloudnoiseError naming what to install."""
    try:
        import pandas
    except ImportError:
        raise CloudnoiseError(f"{what} needs pandas, which cloudnoise does not install by itself: "
                              "pip install pandas (or pip install 'cloudnoise[pandas]')") from None
    return pandas
