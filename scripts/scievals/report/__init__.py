"""The Snakemake HTML report (``snakemake --report results/report.html``): what
``rules/report.smk`` needs at DAG-build time (:mod:`scievals.report.workflow`).

The figures themselves live below the registry: :mod:`scievals.figures` holds
``FigureSpec``, the table shaping (``frames``), the drawing (``plots``) and the generic
model comparison; each benchmark draws its own figures in ``scievals.<b>.figures``, which
its registry entry names. The leaderboard page comes from :mod:`scievals.results`.
"""
