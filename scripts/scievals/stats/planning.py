"""How many items detect a difference: the planning arithmetic (docs/statistics.md, "Planning").

With the test the comparisons actually use, at 80 % power and the 5 % level:

- per-item means (sign-flip test): the smallest n whose minimum detectable difference
  ``sign_flip_mdd_factor(n) * sd`` is at most the difference, sd the standard deviation of
  the per-item differences (:func:`items_for_mean`);
- pass/fail (exact McNemar): the smallest n whose :func:`mcnemar_mdd` at the discordant
  share psi is at most the difference (:func:`items_for_pass_fail`);
- set statistics (a cluster bootstrap): the standard error scales as 1 / sqrt(n), so
  n = n_run ((z_0.975 + z_0.8) SE_run / diff)^2 (:func:`items_for_set`).

Where the spread comes from (a run's comparisons.csv, an imported log, a stated default) is
the caller's business (``scievals.results.plan``, :func:`scievals.stats.api.plan`).
"""

from __future__ import annotations

import math
from collections.abc import Callable

from scievals.stats.paired import mcnemar_mdd, sign_flip_mdd_factor

DEFAULT_SD = 0.25          # sd of per-item differences of a [0, 1] score, as a share of the range
DEFAULT_DISCORDANT = 0.3   # share of items on which two pass/fail arms disagree
MAX_ITEMS = 5000
Z_SUM = 1.959964 + 0.841621  # z(0.975) + z(0.80)


def items_for_mean(diff: float, sd: float) -> int | None:
    """Items at which the sign-flip test detects a true mean difference ``diff`` given the
    sd of the per-item differences (None: not within :data:`MAX_ITEMS`). A spread of 0
    needs the test's smallest n that can reject at all (6: 2 / 2^6 < 0.05)."""
    if not sd > 0:
        return 6
    return smallest(lambda k: sd * sign_flip_mdd_factor(k) <= diff)


def items_for_pass_fail(diff: float, discordant: float) -> int | None:
    """Items at which the exact McNemar test detects a difference of pass rates ``diff``
    when the arms disagree on a share ``discordant`` of the items (None: not within
    :data:`MAX_ITEMS`)."""
    return smallest(lambda k: mcnemar_mdd(k, round(discordant * k)) <= diff)


def items_for_set(diff: float, se: float, n_run: int) -> int:
    """Items at which a set statistic with standard error ``se`` at ``n_run`` items detects
    ``diff`` (the standard error scaling as 1 / sqrt(n))."""
    return math.ceil(n_run * (Z_SUM * se / diff) ** 2)


def smallest(detects: Callable[[int], bool]) -> int | None:
    """The smallest n in 2..MAX_ITEMS with detects(n) (monotone: doubling, then bisection)."""
    high = 2
    while not detects(high):
        high *= 2
        if high > MAX_ITEMS:
            return None
    low = high // 2
    while high - low > 1:
        mid = (low + high) // 2
        low, high = (low, mid) if detects(mid) else (mid, high)
    return high if not detects(low) or low < 2 else low


def sd_at_samples(sd_run: float, within_var: float, k_run: float, k: int) -> float:
    """The sd of per-item differences between two arms when each item's score is the mean of
    ``k`` samples instead of the run's ``k_run``: each arm's item mean carries s_w^2 / k of
    within-item variance (Miller 2024, eq. 4), two arms twice that, so
    sd_k^2 = sd_run^2 + 2 s_w^2 (1 / k - 1 / k_run), floored at 0."""
    return math.sqrt(max(0.0, sd_run ** 2 + 2 * within_var * (1 / k - 1 / k_run)))
