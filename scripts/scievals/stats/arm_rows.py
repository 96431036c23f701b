"""Every row an arm's table gets from its per-item frame, by condition, in one place.

A structured-answer benchmark's score step (gating, autogkb) writes per condition: the metric
means with their sample spread and the k-sample rows (:mod:`scievals.stats.samples`), the
refinement counts of a later turn (:mod:`scievals.stats.refinement`) and the calibration rows
of the units' stated confidences (:mod:`scievals.stats.calibration_rows`). The caller adds
what is not a statistic of the items (the LLM usage rows).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

import pandas as pd

from scievals.stats.calibration_rows import condition_items
from scievals.stats.refinement import turn_rows
from scievals.stats.samples import means_with_samples


def arm_items(per_item: pd.DataFrame, records: Iterable[Mapping], metrics: Sequence[str],
              sampled: Sequence[str], bootstrap: Mapping, ranges: Mapping | None,
              turn_metrics: Mapping[str, bool]) -> dict[str, list[dict]]:
    """condition -> its metric dicts (``common.tables.result_rows``' shape)."""
    turns = turn_rows(per_item, records, turn_metrics)
    calibration = condition_items(per_item, bootstrap)
    return {condition: items + turns.get(condition, []) + calibration.get(condition, [])
            for condition, items in means_with_samples(per_item, metrics, sampled, bootstrap,
                                                       ranges).items()}
