"""Which figures the report shows for each benchmark.

Adding a benchmark's figures is a local change: write its figure functions (for example
``scievals/report/autogkb.py``), list them in ``FIGURES`` below as ``"autogkb:function"``
(imported when drawn) and put one caption per
figure in ``report/<benchmark>/<figure>.rst``. A benchmark without an entry still gets the
generic model comparison (every metric of its summary, with CIs).

A figure function is called as ``draw(inputs, out)``: ``inputs`` maps each name in
``FigureSpec.inputs`` to a list of files (``summary`` is ``results/<benchmark>/summary.csv``;
other names are resolved by ``REPORT_INPUTS`` in ``rules/report.smk``), and ``out`` is the
PNG to write, or a folder to fill with PNGs when ``directory`` is true.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from scievals.common.extras import import_extra

Draw = Callable[[Mapping[str, Sequence[str]], str], None]


@dataclass(frozen=True)
class FigureSpec:
    name: str  # file stem and caption name: report/<benchmark>/<name>.rst
    label: str  # shown in the report's navigation
    # "module:function" under scievals.report, imported only when the figure is drawn:
    # rules/report.smk reads this registry at parse time, and matplotlib is the optional
    # 'report' extra (a core install must still parse and dry-run the workflow).
    draw_ref: str
    inputs: tuple[str, ...] = ("summary",)
    directory: bool = False  # writes a folder of PNGs (one per case, ...)
    options: tuple[tuple[str, str], ...] = ()  # keyword arguments of the function

    def function(self) -> Draw:
        module, name = self.draw_ref.split(":")
        return getattr(import_extra(f"scievals.report.{module}"), name)

    def draw(self, inputs: Mapping[str, Sequence[str]], out: str) -> None:
        self.function()(inputs, out, **dict(self.options))


FIGURES: dict[str, list[FigureSpec]] = {
    "abdev": [
        FigureSpec("model_comparison", "Model comparison", "abdev:model_comparison"),
        FigureSpec("assay_heatmap", "Spearman per assay and model", "abdev:assay_heatmap"),
    ],
    "gating": [
        FigureSpec("model_comparison", "Model comparison", "gating:model_comparison"),
        FigureSpec("case_heatmap", "Scores per test case", "gating:case_heatmap", ("per_case",)),
        FigureSpec("hierarchies", "True vs predicted hierarchies", "gating:hierarchies",
                   ("cases", "predictions"), directory=True),
    ],
}


def figures_for(benchmark: str) -> list[FigureSpec]:
    """The benchmark's figures, or the generic model comparison when it has none listed."""
    if benchmark in FIGURES:
        return FIGURES[benchmark]
    return [FigureSpec("model_comparison", "Model comparison", "generic:model_comparison",
                       options=(("benchmark", benchmark),))]


def figure(benchmark: str, name: str) -> FigureSpec:
    for spec in figures_for(benchmark):
        if spec.name == name:
            return spec
    raise KeyError(f"no figure {name!r} for benchmark {benchmark!r}")
