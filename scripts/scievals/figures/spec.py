"""What a report figure is; which figures a benchmark shows is its registry entry.

A benchmark lists its figures in ``scievals.registry.REGISTRY`` (``figures=``): figure
functions live in ``scievals/<benchmark>/figures.py``, one caption per figure in
``report/<benchmark>/<figure>.rst``. A benchmark without figures gets
:data:`GENERIC_FIGURES` (every metric of its summary, with CIs).

A figure function is called as ``draw(inputs, out)``: ``inputs`` maps each name in
``FigureSpec.inputs`` to a list of files (``summary`` is ``results/<benchmark>/summary.csv``;
other names are the benchmark's ``report_inputs``), and ``out`` is the PNG to write, or a
folder to fill with PNGs when ``directory`` is true.
"""

from __future__ import annotations

from dataclasses import dataclass

from scievals.common.extras import import_extra


@dataclass(frozen=True)
class FigureSpec:
    name: str  # file stem and caption name: report/<benchmark>/<name>.rst
    label: str  # shown in the report's navigation
    function: str  # "module:function", imported only when drawn (matplotlib is slow to load)
    inputs: tuple[str, ...] = ("summary",)
    directory: bool = False  # writes a folder of PNGs (one per case, ...)
    @property
    def draw(self):
        module, _, attribute = self.function.partition(":")
        # a missing 'report' extra (matplotlib) is one line naming it, not a traceback
        return getattr(import_extra(module), attribute)


GENERIC_FIGURES = (
    FigureSpec("model_comparison", "Model comparison", "scievals.figures.generic:model_comparison"),
)
