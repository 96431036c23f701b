"""Entry script of the <benchmark>_comparisons rules: paired comparisons of every arm."""

import sys

# This workflow's own package first, even when another copy of scievals is installed.
sys.path.insert(0, snakemake.scriptdir)

# scievals.common.entry first: it sets up the job's start-up (garbage collector, pyarrow).
from scievals.common.entry import run  # isort: skip

from scievals import registry
from scievals.common import notices
from scievals.stats.comparisons import comparison_table, write_comparisons


def comparisons(smk):
    bench = registry.get(smk.params.benchmark)
    # A named input of one file comes back as a string: every input is a list here.
    inputs = {name: [value] if isinstance(value, str) else list(value)
              for name, value in smk.input.items()}
    metrics = registry.resolve(bench.comparisons)(
        inputs, list(smk.params.models), bench.headline_metrics, dict(smk.params.section),
        dict(smk.params.bootstrap), bench.ranges())
    notes: list[str] = []
    table = comparison_table(bench.name, metrics, smk.params.bootstrap,
                             ranking=bench.headline_metrics[0] if bench.headline_metrics
                             else None,
                             all_pairs=bool(smk.params.all_pairs),
                             max_family_arms=int(smk.params.max_family_arms), notes=notes)
    for note in notes:
        notices.record("other", bench.name, note)
    write_comparisons(smk.output[0], table)


run(snakemake, comparisons)
