"""autogkb's items for the paired comparisons: articles (``case_id`` of the per-case
table), each arm's per-article mean over its samples; every headline metric is a mean."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from scievals.common.comparisons import ItemMetric, per_item_files


def item_metrics(inputs: Mapping[str, Sequence[str]], models: Sequence[str],
                 headline: Sequence[str], section: Mapping) -> list[ItemMetric]:
    return per_item_files(inputs["per_case"], inputs["table"], "case_id",
                          {metric: "mean" for metric in headline})
