"""``python -m scievals plan BENCHMARK --diff 0.05``: how many items an experiment needs.

Answers "how many cases / articles / tasks / antibodies would it take to detect a true
difference of ``--diff`` between two models with 80 % power at the 5 % level", with the test
the comparisons actually use (docs/statistics.md, "Planning"):

- per-item means (sign-flip test): the smallest n whose minimum detectable difference
  ``sign_flip_mdd_factor(n) * sd`` is at most the difference, sd the standard deviation of
  the per-item differences;
- pass/fail (exact McNemar): the smallest n whose :func:`mcnemar_mdd` at the discordant
  share psi is at most the difference;
- set statistics (abdev's cluster bootstrap): the standard error scales as 1 / sqrt(n), so
  n = n_run ((z_0.975 + z_0.8) SE_run / diff)^2.

The spread comes from the last run's ``results/<benchmark>/comparisons.csv`` (per-item
means: each pair's sd of differences read back from its ``mdd`` column; set statistics: the
standard error off each pair's interval, width / (2 * 1.96); pass/fail: psi from the arms'
pass rates as if they erred independently; the median over the metric's pairs, each pair of
arms counted once however many families hold it, a copy's spread of 0 left out) or, without
it, from a stated default (``--sd``, ``--discordant``), and the answer says which. Inputs no
estimate can use (not finite, a difference beyond the metric's range, a spread of 0 given or
the only one observed) get a one-line refusal saying why.

``--samples K`` plans a run that asks each item K times (``n_samples``): an arm's per-item
mean then carries s_w^2 / K of within-item variance, so the sd of per-item differences moves
from the last run's (k_run samples) by 2 s_w^2 (1 / K - 1 / k_run)
(:func:`scievals.stats.planning.sd_at_samples`, s_w^2 and k_run read from the per-item
tables), and the answer counts the requests, items x K per arm.
"""

from __future__ import annotations

import argparse
import math
from pathlib import Path

import numpy as np
import pandas as pd

from scievals import registry
from scievals.common.errors import ScievalsError
from scievals.common.output import wrap_width, wrapped
from scievals.stats.intervals import metric_range
from scievals.stats.paired import sign_flip_mdd_factor
from scievals.stats.planning import (
    DEFAULT_DISCORDANT,
    DEFAULT_SD,
    MAX_ITEMS,
    items_for_mean,
    items_for_pass_fail,
    items_for_set,
    sd_at_samples,
)


def register(sub: argparse._SubParsersAction) -> None:
    plan = sub.add_parser(
        "plan",
        # argparse %-formats a help string (%(default)s), not a description
        help="how many items (cases, articles, tasks) detect a difference at 80 %% power",
        description="Size an experiment before paying for it: the number of items at which "
        "the benchmark's paired test detects a true difference of --diff between two models "
        "with 80 % power at the 5 % level, from the last run's comparisons.csv (or a "
        "stated default spread).",
    )
    plan.add_argument("benchmark", nargs="?", choices=registry.NAMES,
                      help="the benchmark (not with --from)")
    plan.add_argument("--from", dest="logs", nargs="+", metavar="LOG",
                      help="plan from two or more logs of other tools instead (inspect_ai, "
                      "lm-eval, Every Eval Ever, tables `import` kept): the spread of their "
                      "paired per-item differences")
    plan.add_argument("--diff", type=float, required=True,
                      help="the true difference to detect, in the metric's units")
    plan.add_argument("--metric", help="metric (default: the benchmark's first headline metric)")
    plan.add_argument("--results", default="results", help="results folder (default results)")
    plan.add_argument("--sd", type=float,
                      help="sd of per-item differences to assume (default: observed, else "
                      f"{DEFAULT_SD} x the metric's range)")
    plan.add_argument("--discordant", type=float,
                      help="share of items two pass/fail arms disagree on (default: observed, "
                      f"else {DEFAULT_DISCORDANT})")
    plan.add_argument("--samples", type=int, metavar="K",
                      help="samples per item (n_samples) the planned run would take: the sd "
                      "moves by the within-item variance the last run's per-item tables show, "
                      "and the answer counts requests (items x K per arm)")
    plan.set_defaults(func=_plan)


def _plan(args: argparse.Namespace) -> int:
    if args.logs:
        from scievals.interop.paired_logs import plan_logs  # only for logs

        print(plan_logs(args.logs, args.diff, args.metric))
        return 0
    if args.benchmark is None:
        raise ScievalsError("plan", "no benchmark", "name one, or give logs with --from")
    text = plan_text(args.benchmark, args.diff, args.metric, Path(args.results), args.sd,
                     args.discordant, args.samples)
    print(wrapped(text, wrap_width()))
    return 0


def plan_text(benchmark: str, diff: float, metric: str | None = None,
              results: Path = Path("results"), sd: float | None = None,
              discordant: float | None = None, samples: int | None = None) -> str:
    """The plan's answer as text (see the module docstring)."""
    entry = registry.get(benchmark)
    metric = metric or entry.headline_metrics[0]
    span = _check_inputs(entry, metric, diff, sd, discordant)
    if samples is not None and samples < 1:
        raise ScievalsError("--samples", f"{samples} is not a number of samples >= 1",
                            "give the n_samples the planned run would use, e.g. --samples 5")
    pairs = _pairs(results / benchmark / "comparisons.csv", metric)
    kind = _kind(pairs, benchmark, metric)
    noun = entry.item_noun
    if kind == "pass_fail":
        share, source = _discordant(pairs, discordant)
        n = items_for_pass_fail(diff, share)
        test = f"exact McNemar, {share:.2f} of {noun} discordant ({source})"
    elif kind == "set":
        if pairs is None:
            raise ScievalsError(results / benchmark / "comparisons.csv", "not found",
                                "run the workflow first: a set statistic's spread is read "
                                "from its paired bootstrap")
        pairs = _one_per_pair(pairs)
        se = float(np.median((pairs["ci_high"] - pairs["ci_low"]) / (2 * 1.959964)))
        n_run = int(pairs["n"].median())
        n = items_for_set(diff, se, n_run)
        test = (f"paired cluster bootstrap, standard error {se:.3g} at {n_run} {noun} "
                f"(median of {len(pairs)} pairs, {results / benchmark / 'comparisons.csv'})")
    else:
        spread, source = _sd(pairs, sd, metric, span, results / benchmark / "comparisons.csv")
        if samples is not None:
            spread, source = _at_samples(spread, source, samples, results / benchmark / "scores",
                                         metric)
        n = items_for_mean(diff, spread)
        test = f"sign-flip, sd of per-item differences {spread:.3g} ({source})"
    # a default spread is a guess: said first, not in a parenthesis after the number
    # (issue 46 item 7), with what would measure it
    lead = ""
    if kind != "set" and DEFAULT_MARK in source:
        flag = "--discordant" if kind == "pass_fail" else "--sd"
        lead = (f"A GUESS from an assumed spread ({source}; give {flag}, or run two models "
                "to measure it): ")
        test = test[:test.rindex(" (")]  # the source is said in the lead
    have = _items_scored(results / benchmark / "summary.csv", metric, noun)
    if n is None:
        return (f"{benchmark} {metric}: {lead}a difference of {diff:g} is not detectable with "
                f"80 % power at any n up to {MAX_ITEMS} {noun} ({test}).{have}")
    cost = "" if samples is None else (f"; at {samples} samples per item: {n * samples} "
                                       "requests per arm and prompt condition")
    return (f"{benchmark} {metric}: {lead}about {n} {noun} detect a true difference of "
            f"{diff:g} with 80 % power at the 5 % level ({test}){cost}.{have}")


DEFAULT_MARK = "the default"  # in the source of a spread no run measured


def _items_scored(summary: Path, metric: str, noun: str) -> str:
    """" The last run scored N <noun> (dataset)." from the benchmark's summary ("" without
    one): the plan's number beside what the data at hand hold."""
    try:
        frame = pd.read_csv(summary, usecols=["dataset", "metric", "n"])
    except (OSError, ValueError):
        return ""
    rows = frame[frame["metric"] == metric]
    n = pd.to_numeric(rows["n"], errors="coerce")
    if not n.notna().any():
        return ""
    datasets = rows["dataset"].astype(str).unique()
    if len(datasets) > 1:  # waza's suites: the largest, not a total the plan could use
        return (f" The last run scored at most {int(n.max())} {noun} per dataset "
                f"({len(datasets)} datasets, {summary}).")
    return f" The last run scored {int(n.max())} {noun} ({datasets[0]}, {summary})."


def within_item(scores: Path, metric: str) -> tuple[float, float] | None:
    """(mean within-item variance of ``metric`` over samples, median samples per item) over
    the per-item tables in ``scores`` (``*.per_case.csv``) where items were sampled more than
    once; None when none was."""
    variances, sizes = [], []
    for path in sorted(scores.glob("*.per_case.csv")):
        frame = pd.read_csv(path, dtype={"case_id": str, "condition": str})
        if metric not in frame or "sample_index" not in frame:
            continue
        keys = [c for c in ("model", "condition", "case_id") if c in frame]
        grouped = pd.to_numeric(frame[metric], errors="coerce").groupby(
            [frame[c] for c in keys])
        counts, var = grouped.count(), grouped.var(ddof=1)
        repeated = counts > 1
        variances += var[repeated].dropna().tolist()
        sizes += counts[repeated].tolist()
    if not variances:
        return None
    return float(np.mean(variances)), float(np.median(sizes))


def _at_samples(spread: float, source: str, samples: int, scores: Path,
                metric: str) -> tuple[float, str]:
    """The sd at ``samples`` per item, from the last run's within-item variance."""
    within = within_item(scores, metric)
    if within is None:
        return spread, (f"{source}; the last run sampled no item twice, so the within-item "
                        f"spread at {samples} samples is not known and the sd is kept")
    var, k_run = within
    return sd_at_samples(spread, var, k_run, samples), (
        f"{source}, moved to {samples} samples per item by the last run's within-item "
        f"variance {var:.3g} at {k_run:g} samples")


def _pairs(path: Path, metric: str) -> pd.DataFrame | None:
    if not path.exists():
        return None
    try:
        frame = pd.read_csv(path, dtype={"metric": str, "method": str})
    except (pd.errors.ParserError, UnicodeDecodeError) as exc:
        raise ScievalsError(path, f"not a readable CSV ({exc})", "re-run the workflow") from None
    missing = [c for c in ("metric", "n", "ci_low", "ci_high", "method") if c not in frame]
    if missing:
        raise ScievalsError(path, f"lacks columns {missing}", "re-run the workflow")
    for column in ("n", "ci_low", "ci_high", "value_a", "value_b"):
        if column in frame:
            frame[column] = pd.to_numeric(frame[column], errors="coerce")
    rows = frame[(frame["metric"] == metric) & np.isfinite(frame["ci_low"])
                 & np.isfinite(frame["ci_high"]) & (frame["n"] > 0)]
    return rows if len(rows) else None


def _kind(pairs: pd.DataFrame | None, benchmark: str, metric: str) -> str:
    if pairs is not None:
        method = str(pairs["method"].iloc[0])
        if "McNemar" in method:
            return "pass_fail"
        if method.startswith(("sign-flip", "paired t")):
            return "mean"
        return "set"
    if benchmark == "abdev":
        return "set"
    return "pass_fail" if metric == "pass_rate" else "mean"


def _check_inputs(entry, metric: str, diff: float, sd: float | None,
                  discordant: float | None) -> float:
    """Refuse, in one line each, inputs no estimate can use; return the metric's span
    (high - low of its declared range; inf when it has no upper bound)."""
    for flag, value in (("--diff", diff), ("--sd", sd), ("--discordant", discordant)):
        if value is not None and not math.isfinite(value):
            raise ScievalsError(flag, f"{value} is not a finite number",
                                "give a number, e.g. --diff 0.05")
    if not diff > 0:
        raise ScievalsError("--diff", f"{diff} is not a positive difference",
                            "give the true difference to detect, e.g. --diff 0.05")
    low, high = metric_range(entry.ranges(), metric)
    span = high - low
    if diff > span:
        raise ScievalsError("--diff", f"{diff:g} exceeds the whole range [{low:g}, {high:g}] of "
                            f"{metric}: no two models can differ by that much",
                            f"give a difference of at most {span:g}")
    if sd is not None and not 0 < sd <= span:
        why = ("a spread of 0 would make any difference detectable with 2 items" if sd <= 0
               else f"per-item differences of a metric in [{low:g}, {high:g}] have an sd of "
               f"at most {span:g}")
        raise ScievalsError("--sd", f"{sd:g} is not a usable spread: {why}",
                            "give the sd of per-item differences between two models")
    if discordant is not None and not 0 < discordant <= 1:
        raise ScievalsError("--discordant", f"{discordant:g} is not a share in (0, 1]",
                            "give the share of items two models disagree on, e.g. 0.3")
    return span


def _one_per_pair(pairs: pd.DataFrame) -> pd.DataFrame:
    """One row per (dataset, pair of arms): a pair that sits in several families (a
    single-condition model in every condition's family, a dataset's pooled family) is one
    observation of the spread, not one per family."""
    keys = [c for c in ("dataset", "arm_a", "arm_b") if c in pairs]
    if "arm_a" not in keys or "arm_b" not in keys:
        return pairs
    arms = pairs[["arm_a", "arm_b"]].astype(str)
    first, second = arms.min(axis=1), arms.max(axis=1)
    key = pd.DataFrame({"dataset": pairs.get("dataset", ""), "first": first,
                        "second": second})
    return pairs[~key.duplicated().to_numpy()]


def _sd(pairs, sd, metric, span, path) -> tuple[float, str]:
    if sd is not None:
        return float(sd), "given"
    if pairs is not None and "mdd" in pairs:
        # each pair's mdd is sign_flip_mdd_factor(n) * sd: read sd back where it is finite
        # and positive (a copy's constant differences have no spread: NaN, formerly 0)
        pairs = _one_per_pair(pairs)
        mdd = pd.to_numeric(pairs["mdd"], errors="coerce").to_numpy(float)
        n = pairs["n"].to_numpy(int)
        factor = np.array([sign_flip_mdd_factor(int(k)) if k >= 2 else math.inf for k in n])
        testable = np.isfinite(factor)
        keep = testable & np.isfinite(mdd) & (mdd > 0)
        spread = mdd[keep] / factor[keep]
        if spread.size:
            source = (f"median of {spread.size} pairs of the last run, "
                      f"n = {int(np.median(n[testable]))}")
            return float(np.median(spread)), source
        if testable.any():
            raise ScievalsError(path, f"every pair of {metric} has the same difference on "
                                "every item (copies of one model): an observed spread of 0 "
                                "is no estimate", "give --sd, or run two different models")
    why = ("no comparisons.csv" if not path.exists() else
           f"no pair of models compared on {metric} in {path}" if pairs is None
           else "no pair with 6 or more items")
    if not math.isfinite(span):
        raise ScievalsError("--sd", f"{why}, and {metric} has no upper bound to scale a "
                            "default spread by", "give --sd (the sd of per-item differences)")
    return DEFAULT_SD * span, f"{why}: {DEFAULT_MARK} {DEFAULT_SD} x range {span:g}"


def _discordant(pairs, discordant) -> tuple[float, str]:
    if discordant is not None:
        return float(discordant), "given"
    if pairs is not None and {"value_a", "value_b"} <= set(pairs.columns):
        pairs = _one_per_pair(pairs)
        a, b = pairs["value_a"].to_numpy(float), pairs["value_b"].to_numpy(float)
        share = float(np.nanmedian(a * (1 - b) + b * (1 - a)))
        return share, f"from the last run's pass rates, median of {len(pairs)} pairs"
    return DEFAULT_DISCORDANT, DEFAULT_MARK
