"""The statistics engine: intervals, paired tests, comparisons between arms, tiers.

It stands on ``scievals.common``'s plumbing only (errors, atomic I/O, result tables), so the
workflow, the log importers and users call the same code. Modules:

- ``intervals``: confidence intervals of means, proportions and bootstrapped statistics;
- ``paired``: the paired tests between two arms on the same items (vectorised over pairs);
- ``comparisons``: every pair of arms per (dataset, metric), Holm families, significance tiers;
- ``planning``: how many items detect a difference with the test the comparisons use;
- ``api``: the documented front door (docs/python-api.md): a table of per-item scores in,
  comparisons, tiers, per-arm intervals and plans out.

This ``__init__`` imports nothing: the Snakefile's parse imports ``stats.comparisons`` for its
version string, and a package-level import of pandas or scipy here would slow every run.
"""
