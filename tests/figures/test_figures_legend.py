"""The model-comparison figure's colour legend (waza: one colour per suite) sits under the
panels, never over their tick labels, and a long provenance line wraps at the figure's
width instead of widening the image."""

from __future__ import annotations

import pandas as pd
import pytest

pytest.importorskip("matplotlib")

from scievals.figures import plots

SUITES = [f"suite-{i}-demo" for i in range(6)]  # 6 colours: two legend rows of 4


def frame() -> pd.DataFrame:
    rows = [{"metric": metric, "condition": suite, "model": model, "value": 0.5,
             "ci_low": 0.3, "ci_high": 0.7}
            for metric in ("pass_rate", "weighted_score", "trigger_accuracy")
            for suite in SUITES for model in ("waza_mock", "waza_mock [no-skill]")]
    out = pd.DataFrame(rows)
    out["metric"] = pd.Categorical(out["metric"], ["pass_rate", "weighted_score",
                                                   "trigger_accuracy"])
    out["condition"] = pd.Categorical(out["condition"], SUITES)
    return out


def test_the_legend_covers_no_axis_label_and_the_subtitle_wraps():
    subtitle = "data: " + ", ".join(f"{s} (sha256 {'a' * 12})" for s in SUITES * 3)
    fig = plots.model_comparison_figure(frame(), title="waza", subtitle=subtitle,
                                        xlim=(-0.05, 1.05), legend_title="suite")
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    (legend,) = fig.legends
    assert legend.get_title().get_text() == "suite"
    assert [t.get_text() for t in legend.get_texts()] == SUITES
    box = legend.get_window_extent(renderer)
    for ax in fig.axes:
        # the panel with its tick labels, axis labels and title
        assert not box.overlaps(ax.get_tightbbox(renderer)), ax.get_title()
        assert box.y1 < ax.get_tightbbox(renderer).y0  # under it, not beside it
    # every text of the figure ends within the figure's width (the provenance wrapped)
    width = fig.get_figwidth() * fig.dpi
    for text in fig.texts:
        if text.get_text() and text.get_rotation() == 0:
            assert text.get_window_extent(renderer).x1 <= width, text.get_text()[:40]
    plots.plt.close(fig)
