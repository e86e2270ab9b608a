"""Which of two builds of one campaign gives its measurement back more closely
(model/closer_build.py): known verdicts."""

from __future__ import annotations

from cloudnoise.model.closer_build import bandwidth_no_worse, closer, missed_rows


def _closure(missed: dict[str, float]) -> dict:
    """Rows p50, p90, p99, late > 1 us; a missed row's replay off its measured 1000 by the given share."""
    rows = [{"statistic": s, "judged": True, "within": s not in missed, "measured": 1000.0,
             "replay": 1000.0 * (1 + missed.get(s, 0.0))} for s in ("p50", "p90", "p99", "late > 1 us")]
    return {"closes": not missed, "rows": rows}


def test_a_richer_build_is_kept_where_it_gives_the_series_back_more_closely():
    without = _closure({"p50": 0.3, "p90": -0.4, "late > 1 us": 0.5})
    assert closer(_closure({}), without)
    assert closer(_closure({"p90": -0.9}), without)  # fewer rows, however far
    assert not closer(_closure({"p90": -0.1, "p99": 0.2}), without)  # a row the other gives back
    assert closer(_closure({"p90": -0.13}), _closure({"p90": -0.41}))  # the same row by less
    assert not closer(_closure({"p90": -0.2}), _closure({"p90": 0.15}))  # the same row by more
    assert not closer(_closure({"p90": -0.1, "p99": 0.3}), _closure({"p90": -0.2, "p99": 0.2}))  # not every row
    assert bandwidth_no_worse(_closure({"p99": 0.2}), _closure({"p99": 0.1, "p50": 0.1}))
    assert not bandwidth_no_worse(_closure({"p50": 0.2}), _closure({}))
    assert bandwidth_no_worse(None, None)


def test_missed_rows_are_the_judged_rows_outside_their_tolerance():
    rows = _closure({"p90": 0.2})["rows"] + [{"statistic": "p99.9", "judged": False, "within": False,
                                               "measured": 1.0, "replay": 2.0}]
    assert missed_rows({"rows": rows}) == {"p90"}
    assert missed_rows(None) == set()
