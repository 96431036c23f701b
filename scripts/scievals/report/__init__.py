"""Figures for the Snakemake HTML report (``snakemake --report results/report.html``).

``frames`` shapes result tables into what a figure shows (tested on numbers), ``plots``
draws with matplotlib, ``generic``/``abdev``/``gating`` are the figure functions of each
benchmark and ``registry.FIGURES`` lists them; ``rules/report.smk`` makes one job per
figure from that registry.
"""
