"""gating's items for the paired comparisons: cases (``case_id`` of the per-case table),
each arm's per-case mean over its samples; every headline metric is a per-item mean."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from scievals.common.comparisons import ItemMetric, per_item_files


def item_metrics(inputs: Mapping[str, Sequence[str]], models: Sequence[str],
                 headline: Sequence[str], section: Mapping) -> list[ItemMetric]:
    return per_item_files(inputs["per_case"], inputs["table"], "case_id",
                          {metric: "mean" for metric in headline})
