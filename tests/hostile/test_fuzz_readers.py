"""Every reader of input from someone else, fuzzed for a bounded number of inputs
(bench/bench_fuzz.py runs the same targets for millions, coverage-guided): each input is
read or refused with an expected one-line error, never anything else."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fuzz_targets import TARGETS, Choices

# Inputs per target: a bounded run per reader, sized for under 10 s each on a 2-core machine
# under some load (a count rather than a clock keeps the run derandomized, so a failure in CI
# repeats exactly); bench/bench_fuzz.py runs millions.
EXAMPLES = 1200
SLOWER = {"profile": 400, "noise-samples": 750, "sweep": 900, "campaign": 900, "measured-runs": 500,
          "native-trace": 900, "liballprof": 900}


class HypothesisChoices(Choices):
    """Choices drawn by hypothesis (which then shrinks a failure to a small input)."""

    def __init__(self, data: st.DataObject) -> None:
        self.data = data

    def integer(self, low: int, high: int) -> int:
        return self.data.draw(st.integers(low, high))

    def raw(self, max_size: int) -> bytes:
        return self.data.draw(st.binary(max_size=max_size))


@pytest.mark.parametrize("name", sorted(TARGETS))
def test_reader_reads_or_refuses_every_input(name, tmp_path):
    target = TARGETS[name]
    seen: dict[str, int] = {"read": 0, "refused": 0}

    @settings(max_examples=SLOWER.get(name, EXAMPLES), deadline=None, database=None, derandomize=True,
              suppress_health_check=list(HealthCheck))
    @given(st.data())
    def fuzz(data: st.DataObject) -> None:
        seen[target.run(HypothesisChoices(data), tmp_path / "work")] += 1

    fuzz()
    # A target whose every input is refused tests only the first check of its reader.
    assert seen["read"] > 0 and seen["refused"] > 0, seen
