"""The report's figures print no "Tight layout not applied" (issue 36, point 8)."""

from __future__ import annotations

import inspect
import warnings

import matplotlib.pyplot as plt
import pytest
from scievals.figures import plots


def _crowded():
    """A figure whose axis labels leave no room: matplotlib cannot apply a tight layout."""
    fig, axes = plt.subplots(1, 6, figsize=(2, 1))
    for ax in axes:
        ax.set_ylabel("a label far longer than the figure is wide " * 3)
    return fig


def test_matplotlib_warns_on_this_figure():  # so the test below can fail
    fig = _crowded()
    with pytest.warns(UserWarning, match="Tight layout not applied"):
        fig.tight_layout()
    plt.close(fig)


def test_the_figures_layout_call_says_nothing():
    fig = _crowded()
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # any warning fails the test
        plots._tight(fig)
    plt.close(fig)


def test_every_layout_call_of_the_figures_goes_through_it():
    source = inspect.getsource(plots)
    assert source.count("fig.tight_layout(") == 1  # the one inside _tight
