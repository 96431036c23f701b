"""Calibration figures of a benchmark with units (gating, autogkb): a reliability diagram per
arm with its bin counts, and the risk-coverage curves of every arm.

Both read the per-case tables' ``units`` column (stats.calibration_rows) and use stated
(verbal) confidences; an arm in which no unit states one is left out. With no such arm the
figure says so instead of being blank (the report still lists it).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from scievals.common.io import user_file
from scievals.figures.plots import plt, save_figure
from scievals.stats import calibration as C
from scievals.stats.calibration_rows import UNITS_COLUMN, unit_rows
from scievals.stats.comparisons import arm_labels

MAX_ARMS = 12  # panels of the reliability diagram (the first arms by name)


def arm_units(paths: Sequence[str]) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """arm label -> (confidences, correct) of the units that state a confidence."""
    frames = [pd.read_csv(user_file(p), dtype={"condition": str, "case_id": str})
              for p in paths]
    frames = [f for f in frames if not f.empty and UNITS_COLUMN in f.columns]
    if not frames:
        return {}
    frame = pd.concat(frames, ignore_index=True)
    frame["condition"] = frame["condition"].fillna("")
    frame["_arm"] = arm_labels(frame)
    out = {}
    for label, rows in frame.groupby("_arm", sort=True):
        stated = [(y, c) for _, y, c in unit_rows(rows, "verbal") if c is not None]
        if stated:
            y, c = zip(*stated)
            out[str(label)] = (np.asarray(c, dtype=float), np.asarray(y, dtype=float))
    return out


def _empty(out: str, title: str) -> None:
    fig, ax = plt.subplots(figsize=(6, 2))
    ax.axis("off")
    ax.text(0.5, 0.5, "no model states a confidence per unit\n(confidence: on, an own file "
            "with confidences, or a baseline that states them)", ha="center", va="center")
    fig.suptitle(title)
    save_figure(fig, out)


def reliability(inputs: Mapping[str, Sequence[str]], out: str, *, benchmark: str = "") -> None:
    """One panel per arm: accuracy against mean confidence per bin (10 bins), the diagonal,
    and each bin's unit count written above its bar; the panel title gives the ECE."""
    arms = arm_units(inputs["per_case"])
    title = f"{benchmark}: reliability of stated confidence".lstrip(": ")
    if not arms:
        _empty(out, title)
        return
    labels = list(arms)[:MAX_ARMS]
    cols = min(3, len(labels))
    rows = math.ceil(len(labels) / cols)
    fig, axes = plt.subplots(rows, cols, figsize=(4.2 * cols, 4 * rows), squeeze=False)
    for ax, label in zip(axes.ravel(), labels):
        c, y = arms[label]
        bins = C.reliability(c, y)
        mids = [b["low"] + 0.05 for b in bins]
        acc = [0.0 if b["count"] == 0 else b["accuracy"] for b in bins]
        ax.bar(mids, acc, width=0.09, color="#4c72b0", label="accuracy")
        ax.plot([0, 1], [0, 1], color="grey", linestyle="--", linewidth=1)
        for mid, b in zip(mids, bins):
            if b["count"]:
                ax.plot(b["mean_confidence"], b["accuracy"], "o", color="#dd8452", markersize=4)
                ax.text(mid, min(1.0, b["accuracy"]) + 0.02, str(b["count"]), ha="center",
                        fontsize=7)
        ax.set_xlim(0, 1)
        ax.set_ylim(0, 1.1)
        ax.set_xlabel("stated confidence (bin; dot: mean)")
        ax.set_ylabel("share right")
        ax.set_title(f"{label}\nECE {C.ece(c, y):.3f}, {c.size} units", fontsize=9)
    for ax in axes.ravel()[len(labels):]:
        ax.axis("off")
    fig.suptitle(title + (f" (first {MAX_ARMS} arms)" if len(arms) > MAX_ARMS else ""))
    fig.tight_layout()
    save_figure(fig, out)


def risk_coverage(inputs: Mapping[str, Sequence[str]], out: str, *, benchmark: str = "") -> None:
    """Every arm's risk (share wrong) of its k most confident units against the coverage
    k / n; the legend gives each arm's AURC (lower is better)."""
    arms = arm_units(inputs["per_case"])
    title = f"{benchmark}: risk-coverage of stated confidence".lstrip(": ")
    if not arms:
        _empty(out, title)
        return
    fig, ax = plt.subplots(figsize=(6.5, 4.5))
    for label, (c, y) in list(arms.items())[:MAX_ARMS]:
        coverage, risk = C.risk_coverage(c, y)
        ax.plot(coverage, risk, label=f"{label} (AURC {C.aurc(c, y):.3f})")
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1)
    ax.set_xlabel("coverage (share of units kept, most confident first)")
    ax.set_ylabel("risk (share of kept units that are wrong)")
    ax.legend(fontsize=7)
    fig.suptitle(title)
    fig.tight_layout()
    save_figure(fig, out)
