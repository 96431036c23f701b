"""Entry script of rule abdev_score: validate and score one prediction file."""

import sys

# This workflow's own package first, even when another copy of scievals is installed.
sys.path.insert(0, snakemake.scriptdir)
# pandas imports pyarrow when it is installed (about 0.05 CPU-s, a tenth of the job); this job
# parses CSV with pandas' own C reader and never uses it. None makes `import pyarrow` fail, and
# pandas then runs exactly as without pyarrow (benchmarks/abdev_workflow_scoring.py).
sys.modules.setdefault("pyarrow", None)

from scievals.abdev.score import score_to_tables
from scievals.common.entry import run
from scievals.common.errors import ScievalsError


def score(smk):
    try:
        _score(smk)
    except ScievalsError as exc:
        if smk.params.origin:  # an imported own file: name the user's file, not the copy
            raise exc.naming(smk.input.pred, smk.params.origin) from None
        raise


def _score(smk):
    score_to_tables(
        smk.input.pred,
        smk.input.truth,
        smk.input.source,
        model=smk.wildcards.model,
        fold_col=smk.params.fold_col,
        num_folds=smk.params.num_folds,
        bootstrap=dict(smk.params.bootstrap),
        config_hash=smk.params.config_hash,
        out_csv=smk.output.table,
        out_reference_csv=smk.output.reference,
    )


run(snakemake, score)
