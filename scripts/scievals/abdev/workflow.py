"""abdev's rules (rules/stages.smk builds them from :func:`stages`; rules/abdev.smk adds the
plain-copy import of own files and their batched score rules).

No curate step (GDPa1 is used as published) and no LLM predictor yet.
"""

from __future__ import annotations

from scievals.abdev.data import SOURCE_KEYS
from scievals.common.workflow import BenchmarkModels, Stage, stage

RAW_DIR = "data/raw/abdev"
TRUTH = f"{RAW_DIR}/GDPa1.csv"
HELDOUT = f"{RAW_DIR}/heldout_sequences.csv"
SOURCE = f"{RAW_DIR}/source.json"
# The truth's sequence clusters, made once by the download job (scievals.abdev.clusters).
CLUSTERS = f"{RAW_DIR}/sequence_clusters.csv"
PREDICTIONS = "results/abdev/predictions/{model}.csv"
TABLE = "results/abdev/scores/{model}.csv"
REFERENCE = "results/abdev/scores/{model}.reference.csv"
# What every score job reads besides the predictions, and the settings it scores with.
SCORE_TRUTH = {"truth": TRUTH, "clusters": CLUSTERS, "source": SOURCE}


def score_settings(section: dict) -> dict:
    return {"fold_col": section["fold_col"], "num_folds": section["num_folds"]}


def stages(config: dict, models: BenchmarkModels) -> dict[str, Stage]:
    section = config["abdev"]
    return {
        "download": stage(
            "abdev", "download",
            output={"truth": TRUTH, "heldout": HELDOUT, "clusters": CLUSTERS, "source": SOURCE},
            # Verified copies by sha256: a later offline run reuses the real data.
            params={"cfg": {k: section[k] for k in SOURCE_KEYS}, "store": f"{RAW_DIR}/verified"},
        ),
        "predict_baseline": stage(
            "abdev", "predict_baseline",
            input={"truth": TRUTH},
            output={"predictions": PREDICTIONS},
            params={"fold_col": section["fold_col"], "seed": section["seed"]},
        ),
        # The models the workflow predicts; own files are scored in batches (rules/abdev.smk).
        "score": stage(
            "abdev", "score",
            input={"predictions": PREDICTIONS, **SCORE_TRUTH},
            output={"table": TABLE, "reference": REFERENCE},
            params=score_settings(section),
            models="configured",
        ),
    }
