"""What refinement turns changed, as result-table rows of each later turn's arm.

The paired test of turn 0 against turn k is the comparisons' (the two arms are conditions of
one model, scored on the same items: ``comparisons.csv``, family ``conditions``). Beside it,
the tables count, for each later turn ``<base>#turn<k>`` of a base condition present in the
same table:

- ``<metric>:improved`` / ``<metric>:worsened``: items whose per-item value (the mean over
  its samples) is better / worse at turn k than at turn 0 (``lower`` metrics are better
  lower); ``n`` = items scored at both turns; unchanged items are the rest;
- ``followups_sent`` / ``replies_stood``: the replies of the turn that answered a follow-up,
  and those that stood because the checks found nothing in the previous reply (or it was a
  failed request); ``n`` = the turn's replies (items x samples).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping

import pandas as pd

from scievals.common.experiments import parse_condition

# differences below this are float noise of equal means, not a change
TOLERANCE = 1e-12


def change_rows(per_sample: pd.DataFrame, metrics: Mapping[str, bool]) -> dict[str, list[dict]]:
    """condition (a later turn) -> its ``:improved`` / ``:worsened`` rows. ``per_sample`` has
    ``condition``, ``case_id`` and the metric columns; ``metrics`` maps metric -> lower is
    better."""
    conditions = set(per_sample["condition"].astype(str))
    if not any(parse_condition(c).turn for c in conditions):
        return {}
    means = {c: f.groupby("case_id")[list(metrics)].mean()
             for c, f in per_sample.groupby("condition", sort=True)}
    out: dict[str, list[dict]] = {}
    for condition in sorted(conditions):
        parsed = parse_condition(condition)
        first = parsed.with_turn(0).name
        if parsed.turn == 0 or first not in conditions:
            continue
        rows = []
        for metric, lower in metrics.items():
            both = pd.concat([means[first][metric], means[condition][metric]], axis=1,
                             join="inner").dropna()
            change = both.iloc[:, 1] - both.iloc[:, 0]
            if lower:
                change = -change
            rows += [{"metric": f"{metric}:improved", "value": int((change > TOLERANCE).sum()),
                      "n": len(both)},
                     {"metric": f"{metric}:worsened", "value": int((change < -TOLERANCE).sum()),
                      "n": len(both)}]
        out[condition] = rows
    return out


def followup_rows(records: Iterable[Mapping]) -> dict[str, list[dict]]:
    """condition (a later turn) -> ``followups_sent`` and ``replies_stood`` rows, from the
    prediction records' ``turn`` and ``refine_status`` (records without them: none)."""
    counts: dict[str, Counter] = {}
    for record in records:
        if int(record.get("turn") or 0) > 0:
            counts.setdefault(str(record["condition"]), Counter())[record.get("refine_status")] += 1
    return {condition: [{"metric": "followups_sent", "value": c["revised"], "n": c.total()},
                        {"metric": "replies_stood", "value": c["stood"], "n": c.total()}]
            for condition, c in sorted(counts.items())}


def turn_rows(per_sample: pd.DataFrame, records: Iterable[Mapping],
              metrics: Mapping[str, bool]) -> dict[str, list[dict]]:
    """Both kinds of rows, by condition (empty without refinement turns)."""
    out = followup_rows(records)
    for condition, rows in change_rows(per_sample, metrics).items():
        out.setdefault(condition, []).extend(rows)
    return out
