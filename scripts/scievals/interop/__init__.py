"""Runs in the formats other tools use: Every Eval Ever records out (run logs, export), and
inspect_ai, lm-evaluation-harness and Every Eval Ever logs in, as arms the statistics engine
(:mod:`scievals.stats`) pairs like any other. It stands on the registry's floor + 1 (beside
``results``): an export reads what the registry says of each benchmark's metrics."""
