"""Matplotlib drawing for the report: model comparisons, heatmaps, gating hierarchies.

Every function takes data already shaped by :mod:`scievals.figures.frames` and writes one
image atomically (temp file, then rename), so a failed plot never leaves a broken file.
The Agg backend is forced: report jobs run on headless cluster nodes.
"""

from __future__ import annotations

import math
import os
import re
import textwrap
import warnings
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.figure import Figure
from matplotlib.transforms import offset_copy

from scievals.common.io import atomic_path

DPI = 110
PANEL_COLUMNS = 3


def save_figure(fig: Figure, out: str | os.PathLike) -> None:
    suffix = Path(out).suffix.lstrip(".") or "png"
    with atomic_path(out) as tmp:
        fig.savefig(tmp, format=suffix, dpi=DPI, bbox_inches="tight")
    plt.close(fig)


def _tight(fig: Figure, **kwargs) -> None:
    """``fig.tight_layout``, without its "Tight layout not applied" warning: a figure whose
    decorations (a long subtitle, many panels) leave no room keeps its layout, and
    :func:`save_figure`'s ``bbox_inches="tight"`` still crops it to what was drawn. The
    warning named nothing a user could act on and was printed by every report run."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="Tight layout not applied",
                                category=UserWarning)
        fig.tight_layout(**kwargs)


def _subtitle(fig: Figure, title: str, subtitle: str) -> None:
    """Title and provenance line above the axes, placed in points so they never overlap;
    the provenance wraps at the figure's width (a long list of datasets would otherwise
    widen the image far beyond its panels); a figure whose provenance names demo data is
    marked as such (:func:`mark_demo`)."""
    # 7.5-point text averages about 0.55 of its size per character
    width = max(40, int(fig.get_figwidth() * 72 / (7.5 * 0.55)))
    lines = textwrap.wrap(subtitle, width) or [""]
    above = offset_copy(fig.transFigure, fig=fig, y=4, units="points")
    fig.text(0.01, 1.0, "\n".join(lines), fontsize=7.5, color="0.35", ha="left", va="bottom",
             transform=above)
    raised = 9.5 * (len(lines) - 1)  # each further line of 7.5-point text, in points
    higher = offset_copy(fig.transFigure, fig=fig, y=16 + raised, units="points")
    fig.text(0.01, 1.0, title, fontsize=12, fontweight="bold", ha="left", va="bottom",
             transform=higher)
    if "demo" in subtitle.lower():  # demo datasets carry "demo" in their label
        mark_demo(fig, raised)


DEMO_MARK = "DEMO DATA - not the real benchmark"
DEMO_COLOUR = "#b00020"


def mark_demo(fig: Figure, raised: float = 0.0) -> None:
    """Say DEMO in the image itself, so a figure copied out of the report cannot pass for
    real results: a red label above the title (``raised`` points higher over a wrapped
    provenance line) and a faint diagonal watermark."""
    top = offset_copy(fig.transFigure, fig=fig, y=32 + raised, units="points")
    fig.text(0.01, 1.0, DEMO_MARK, fontsize=11, fontweight="bold", color=DEMO_COLOUR,
             ha="left", va="bottom", transform=top)
    fig.text(0.5, 0.5, "DEMO", fontsize=60, fontweight="bold", color=DEMO_COLOUR, alpha=0.12,
             ha="center", va="center", rotation=25, transform=fig.transFigure, zorder=10)


def plot_model_comparison(
    frame: pd.DataFrame,
    out: str | os.PathLike,
    *,
    title: str,
    subtitle: str = "",
    metric_labels: Mapping[str, str] | None = None,
    xlim: tuple[float, float] | None = None,
    legend_title: str = "condition",
) -> None:
    """One panel per metric: each model's value with its 95 % CI, one colour per condition.

    ``frame`` comes from :func:`frames.comparison_frame` (columns metric, condition, model,
    value, ci_low, ci_high). Rows without a CI are drawn as points only.
    """
    fig = model_comparison_figure(frame, title=title, subtitle=subtitle,
                                  metric_labels=metric_labels, xlim=xlim,
                                  legend_title=legend_title)
    save_figure(fig, out)


# Height of one legend row (fontsize 8) and the gap under the tick labels, in inches.
LEGEND_ROW_IN = 0.22
LEGEND_GAP_IN = 0.15


def model_comparison_figure(frame: pd.DataFrame, *, title: str, subtitle: str = "",
                            metric_labels: Mapping[str, str] | None = None,
                            xlim: tuple[float, float] | None = None,
                            legend_title: str = "condition") -> Figure:
    """The figure :func:`plot_model_comparison` saves. The colour legend sits in its own
    strip under the panels, as tall as its rows, so it never covers the axes' labels."""
    metrics = list(frame["metric"].cat.categories) if hasattr(frame["metric"], "cat") else list(
        dict.fromkeys(frame["metric"])
    )
    conditions = (
        list(frame["condition"].cat.categories)
        if hasattr(frame["condition"], "cat")
        else list(dict.fromkeys(frame["condition"]))
    )
    models = sorted(frame["model"].astype(str).unique())
    ncols = min(PANEL_COLUMNS, len(metrics))
    nrows = math.ceil(len(metrics) / ncols)
    height = max(1.6, 0.35 * len(models) * max(1, len(conditions)) ** 0.5 + 1.0)
    legend_columns = min(len(conditions), 4)
    legend_in = (LEGEND_ROW_IN * (math.ceil(len(conditions) / legend_columns) + 1)
                 + LEGEND_GAP_IN) if len(conditions) > 1 else 0.0
    fig, axes = plt.subplots(
        nrows, ncols, figsize=(4.2 * ncols, height * nrows + 0.9 + legend_in), squeeze=False,
        sharey=True
    )
    colours = plt.get_cmap("tab10")
    offsets = np.linspace(-0.25, 0.25, len(conditions)) if len(conditions) > 1 else [0.0]
    y_of = {m: i for i, m in enumerate(models)}
    for k, metric in enumerate(metrics):
        ax = axes[k // ncols][k % ncols]
        panel = frame[frame["metric"] == metric]
        for c, condition in enumerate(conditions):
            rows = panel[panel["condition"] == condition]
            if rows.empty:
                continue
            y = np.array([y_of[str(m)] for m in rows["model"]]) + offsets[c]
            x = rows["value"].to_numpy(dtype=float)
            low = rows["ci_low"].to_numpy(dtype=float)
            high = rows["ci_high"].to_numpy(dtype=float)
            has_ci = ~(np.isnan(low) | np.isnan(high))
            err = np.vstack([np.where(has_ci, x - low, 0.0), np.where(has_ci, high - x, 0.0)])
            ax.errorbar(
                x, y, xerr=np.clip(err, 0, None), fmt="o", ms=5, capsize=3,
                color=colours(c % 10), label=str(condition) if condition else "(all)",
            )
        ax.set_title((metric_labels or {}).get(str(metric), str(metric)), fontsize=10)
        ax.axvline(0.0, color="0.8", lw=0.8, zorder=0)
        ax.grid(axis="x", color="0.92")
        if xlim is not None:
            ax.set_xlim(*xlim)
        ax.set_yticks(range(len(models)), models)
        ax.set_ylim(-0.6, len(models) - 0.4)
        ax.invert_yaxis()
    for k in range(len(metrics), nrows * ncols):
        axes[k // ncols][k % ncols].set_visible(False)
    bottom = legend_in / fig.get_figheight()
    if len(conditions) > 1:
        # every condition, whichever panel drew it (the first may lack some)
        found: dict[str, object] = {}
        for ax in axes.flat:
            for handle, label in zip(*ax.get_legend_handles_labels()):
                found.setdefault(label, handle)
        fig.legend(list(found.values()), list(found), loc="lower center", ncol=legend_columns,
                   fontsize=8, title=legend_title, title_fontsize=8, bbox_to_anchor=(0.5, 0.0),
                   frameon=False)
    _tight(fig, rect=(0, bottom, 1, 1))
    _subtitle(fig, title, subtitle)
    return fig


def plot_heatmap(
    matrix: pd.DataFrame,
    out: str | os.PathLike,
    *,
    title: str,
    subtitle: str = "",
    colorbar_label: str = "",
    vmin: float | None = None,
    vmax: float | None = None,
    cmap: str = "viridis",
    annotate: bool = True,
) -> None:
    """A matrix as coloured cells with the value written in each; NaN cells say 'n/a'."""
    values = matrix.to_numpy(dtype=float)
    nrows, ncols = values.shape
    fig, ax = plt.subplots(figsize=(max(4.0, 1.1 * ncols + 2.5), max(2.2, 0.42 * nrows + 1.6)))
    masked = np.ma.masked_invalid(values)
    colour_map = plt.get_cmap(cmap).with_extremes(bad="0.88")
    image = ax.imshow(masked, cmap=colour_map, vmin=vmin, vmax=vmax, aspect="auto")
    ax.set_xticks(range(ncols), [str(c) for c in matrix.columns], rotation=30, ha="right")
    ax.set_yticks(range(nrows), [str(i) for i in matrix.index])
    ax.set_xlabel(str(matrix.columns.name or ""))
    ax.set_ylabel(str(matrix.index.name or ""))
    if annotate and nrows * ncols <= 400:
        low, high = image.get_clim()
        for i in range(nrows):
            for j in range(ncols):
                v = values[i, j]
                if np.isnan(v):
                    ax.text(j, i, "n/a", ha="center", va="center", fontsize=7, color="0.4")
                    continue
                shade = (v - low) / (high - low) if high > low else 0.5
                ink = "white" if (cmap in ("viridis", "magma") and shade < 0.55) or (
                    cmap.startswith("RdBu") and abs(shade - 0.5) > 0.3) else "black"
                ax.text(j, i, f"{v:.2f}", ha="center", va="center", fontsize=7.5, color=ink)
    fig.colorbar(image, ax=ax, label=colorbar_label, fraction=0.05, pad=0.02)
    _tight(fig)
    _subtitle(fig, title, subtitle)
    save_figure(fig, out)


# --- gating hierarchies -------------------------------------------------------------------


def default_gate_key(name: str) -> str:
    """Light normalisation for matching gate names across trees: case, spaces, punctuation.

    ``+``/``-`` after a marker are kept (CD4+ is not CD4-); a hyphen between two letters
    ("T-cells") is spelling and is dropped.
    """
    text = re.sub(r"(?<=[a-z])-(?=[a-z])", "", str(name).lower())
    return re.sub(r"[^a-z0-9+\-]", "", text)


def tree_layout(root: Mapping) -> list[tuple[str, int, float, int | None]]:
    """(name, depth, y, parent index) for every node, depth-first; leaves get y = 0, 1, 2...

    A parent sits at the mean height of its children, which keeps the tree readable
    without crossing edges.
    """
    nodes: list[tuple[str, int, float, int | None]] = []
    next_leaf = [0.0]

    def visit(node: Mapping, depth: int, parent: int | None) -> float:
        index = len(nodes)
        nodes.append((str(node.get("name", "?")), depth, 0.0, parent))
        children = [c for c in node.get("children") or [] if isinstance(c, Mapping)]
        if children:
            ys = [visit(child, depth + 1, index) for child in children]
            y = float(np.mean(ys))
        else:
            y = next_leaf[0]
            next_leaf[0] += 1.0
        name, d, _, p = nodes[index]
        nodes[index] = (name, d, y, p)
        return y

    visit(root, 0, None)
    return nodes


def depth_columns(layouts: list[list[tuple[str, int, float, int | None]]]) -> list[float]:
    """x of each depth, in character widths: a column is as wide as its longest name."""
    widths: dict[int, int] = {}
    for layout in layouts:
        for name, depth, _, _ in layout:
            widths[depth] = max(widths.get(depth, 0), len(name))
    xs, x = [], 0.0
    for depth in range(max(widths) + 1):
        xs.append(x)
        x += widths.get(depth, 0) + 3.0
    return xs + [x]


def _draw_tree(ax, layout, xs: list[float], other_keys: set[str], key: Callable[[str], str],
               hit: str, miss: str, title: str, n_leaves: float) -> None:
    for name, depth, y, parent in layout:
        if parent is not None:
            _, parent_depth, parent_y, _ = layout[parent]
            x0 = xs[parent_depth] + len(layout[parent][0]) + 0.8
            ax.plot([x0, xs[depth] - 0.3], [parent_y, y], color="0.6", lw=0.8, zorder=1)
    for name, depth, y, _ in layout:
        colour = hit if key(name) in other_keys else miss
        ax.text(xs[depth], y, name, ha="left", va="center", fontsize=7, zorder=2,
                bbox={"boxstyle": "round,pad=0.25", "fc": colour, "ec": "0.4", "lw": 0.5})
    ax.set_xlim(-1.0, xs[-1])
    ax.set_ylim(n_leaves - 0.5, -0.5)
    ax.set_title(title, fontsize=9)
    ax.axis("off")


def gate_keys(root: Mapping, key: Callable[[str], str] = default_gate_key) -> set[str]:
    return {key(name) for name, _, _, _ in tree_layout(root)}


def plot_hierarchies(
    truth: Mapping,
    predictions: Mapping[str, Mapping | None],
    out: str | os.PathLike,
    *,
    title: str,
    subtitle: str = "",
    key: Callable[[str], str] = default_gate_key,
) -> None:
    """The true gating tree beside each model's predicted tree.

    Truth gates a model also named are green, missed ones orange; predicted gates that
    are in the truth are green, extra ones red. ``predictions`` maps a label (model and
    condition) to a GateNode dict, or None when the model's reply could not be parsed.
    """
    truth_keys = gate_keys(truth, key)
    labels = list(predictions)
    layouts = {"truth": tree_layout(truth)}
    layouts.update({label: tree_layout(tree) for label, tree in predictions.items() if tree})
    leaves = max(max(n[2] for n in layout) + 1 for layout in layouts.values())
    # One character of 7-pt text is about 0.065 inch wide; an unparsable reply gets 2.5 in.
    widths = [depth_columns([layouts["truth"]])[-1] * 0.065 + 0.4] + [
        depth_columns([layouts[label]])[-1] * 0.065 + 0.4 if label in layouts else 2.5
        for label in labels
    ]
    fig, axes = plt.subplots(
        1, len(widths), figsize=(sum(widths), 0.3 * leaves + 1.4), squeeze=False,
        gridspec_kw={"width_ratios": widths},
    )
    predicted_keys = set().union(*(gate_keys(t, key) for t in predictions.values() if t))
    layout = layouts["truth"]
    _draw_tree(axes[0][0], layout, depth_columns([layout]), predicted_keys, key,
               "#b7e4c7", "#fcd5a5", "truth", leaves)
    for ax, label in zip(axes[0][1:], labels, strict=True):
        tree = predictions[label]
        if not tree:
            ax.text(0.5, 0.5, "no parsable hierarchy", ha="center", va="center", fontsize=9)
            ax.set_title(label, fontsize=9)
            ax.axis("off")
            continue
        layout = layouts[label]
        _draw_tree(ax, layout, depth_columns([layout]), truth_keys, key,
                   "#b7e4c7", "#f4a3a3", label, leaves)
    _tight(fig)
    _subtitle(fig, title, subtitle)
    save_figure(fig, out)


def panel_order(values: Sequence[str], preferred: Sequence[str]) -> list[str]:
    """``preferred`` entries that occur first (in that order), then the rest sorted."""
    present = list(dict.fromkeys(values))
    head = [p for p in preferred if p in present]
    return head + sorted(v for v in present if v not in head)
