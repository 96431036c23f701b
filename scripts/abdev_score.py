"""Entry script of the abdev score rules: validate and score one prediction file
(abdev_score) or a batch of the user's own files (abdev_score_own_<k>)."""

import sys

# This workflow's own package first, even when another copy of scievals is installed.
sys.path.insert(0, snakemake.scriptdir)
# pandas imports pyarrow when it is installed (about 0.05 CPU-s, a tenth of the job); this job
# parses CSV with pandas' own C reader and never uses it. None makes `import pyarrow` fail, and
# pandas then runs exactly as without pyarrow (benchmarks/abdev_workflow_scoring.py).
sys.modules.setdefault("pyarrow", None)

from scievals.abdev.score import ScoreTarget, score_files
from scievals.common.entry import run


def score(smk):
    # Parallel lists, one item per model; an origin is the user's file a prediction was copied
    # from ("" for predictions the workflow made).
    targets = [
        ScoreTarget(model, pred, table, reference, origin)
        for model, pred, table, reference, origin in zip(
            smk.params.models, smk.input.pred, smk.output.table, smk.output.reference,
            smk.params.origins, strict=True,
        )
    ]
    score_files(
        targets,
        smk.input.truth,
        smk.input.source,
        fold_col=smk.params.fold_col,
        num_folds=smk.params.num_folds,
        bootstrap=dict(smk.params.bootstrap),
        config_hash=smk.params.config_hash,
    )


run(snakemake, score)
