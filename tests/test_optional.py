"""optional.py: a package cloudnoise does not install is one line naming what to install."""

from __future__ import annotations

import sys

import pytest

import cloudnoise
from cloudnoise.errors import CloudnoiseError


def test_to_pandas_without_pandas_says_what_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    result = cloudnoise.simulate(pattern="dissemination", ranks=4, size="16B")
    monkeypatch.setitem(sys.modules, "pandas", None)  # as after the README's install: no pandas
    with pytest.raises(CloudnoiseError) as err:
        result.to_pandas()
    assert str(err.value) == ("to_pandas() needs pandas, which cloudnoise does not install by itself: "
                              "pip install pandas (or pip install 'cloudnoise[pandas]')")


def test_to_pandas_with_pandas() -> None:
    pytest.importorskip("pandas")
    frame = cloudnoise.simulate(pattern="dissemination", ranks=4, size="16B", reps=3).to_pandas()
    assert list(frame["rep"]) == [0, 1, 2] and (frame["runtime_ns"] > 0).all()
