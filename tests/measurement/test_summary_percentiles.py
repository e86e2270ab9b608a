"""StreamStats percentiles from one cumulative sum: the same values as the HDR library's own loop."""

from __future__ import annotations

import numpy as np

from cloudnoise.measurement.summaries import PERCENTILES, StreamStats


def test_percentiles_equal_the_librarys_on_random_histograms():
    rng = np.random.default_rng(3)
    ps = [*PERCENTILES, 0.0, 1.0, 37.2, 100.0]
    for trial in range(20):
        s = StreamStats()
        s.add((rng.lognormal(6 + trial % 5, 0.5 + trial % 3, size=int(rng.integers(1, 40000)))).astype(np.int64) + 1)
        if trial % 4 == 0:
            s = StreamStats.from_json(s.to_json())  # a decoded histogram may hold a shorter counts array
        reference = s.hist.get_percentile_to_value_dict(ps)
        for p in ps:
            want = float(min(max(reference[p], s.min), s.max)) if 0 < p < 100 else None
            if want is not None:
                assert s.percentile(p) == want
                assert s.percentiles((p,))[f"p{p:g}"] == want
