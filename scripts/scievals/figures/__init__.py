"""Report figures' shared floor, below the benchmark packages: what a figure is
(:mod:`~scievals.figures.spec`), table shaping on numbers (:mod:`~scievals.figures.frames`),
matplotlib drawing (:mod:`~scievals.figures.plots`, needs the ``report`` extra) and the
model comparison every benchmark gets (:mod:`~scievals.figures.generic`). Each benchmark's
own figures live in ``scievals.<b>.figures``."""
