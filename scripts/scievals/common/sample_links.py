"""Addresses inside the sample viewer (``results/report/samples.html``): a model's items, one
item, two models side by side. Here, below the results and report floors, so that the
viewer (:mod:`scievals.report.viewer`) and the leaderboard page that links into it
(:mod:`scievals.results.leaderboard`) share one definition."""

from __future__ import annotations

from urllib.parse import quote

PAGE = "samples.html"  # the page's name in results/report/, where the leaderboard is too


def _fragment(*parts: str) -> str:
    # encodeURIComponent's inverse (decodeURIComponent) reads every %-escape quote() writes
    return "/".join(quote(str(p), safe="") for p in parts)


def item_link(benchmark: str, model: str, condition: str | None = None,
              item: str | None = None) -> str:
    """The viewer's URL (relative to results/report/) of a model's items on a benchmark,
    of one condition when ``condition`` is given, of one item when ``item`` is too:
    ``samples.html#gating/marker_baseline/baseline/OMIP-069`` (each part %-encoded)."""
    parts = [benchmark, model]
    if condition is not None:
        parts.append(condition)
        if item is not None:
            parts.append(item)
    return f"{PAGE}#{_fragment(*parts)}"


def compare_link(benchmark: str, model_a: str, model_b: str, condition: str | None = None,
                 item: str | None = None) -> str:
    """The viewer's URL of two models side by side on a benchmark's items (of one condition
    when given, one item opened when that is given too): ``samples.html#compare/gating/A/B``.
    "compare" is no benchmark's name."""
    parts = ["compare", benchmark, model_a, model_b]
    if condition is not None:
        parts.append(condition)
        if item is not None:
            parts.append(item)
    return f"{PAGE}#{_fragment(*parts)}"
