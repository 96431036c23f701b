"""Figures for the Snakemake HTML report (``snakemake --report results/report.html``).

``frames`` shapes result tables into what a figure shows (tested on numbers), ``plots``
draws with matplotlib, ``generic``/``abdev``/``gating`` are the figure functions of each
benchmark, ``registry.FigureSpec`` describes one figure and each benchmark's entry in
``scievals.benchmarks.REGISTRY`` lists its figures; ``rules/report.smk`` makes one job per
figure of each enabled benchmark.
"""
