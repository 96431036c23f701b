# abdev: antibody developability on GDPa1 (download -> baseline predictions -> CV scoring).
# Models: the baselines named in config["abdev"]["models"] plus every <model>.csv in
# config["abdev"]["predictions_dir"] (bring your own, in the reference out-of-fold format).
# No curate step (GDPa1 is used as published) and no LLM predictor yet.

from scievals.abdev.data import SOURCE_KEYS as ABDEV_SOURCE_KEYS

ABDEV = config["abdev"]
ABDEV_MODELS = MODELS["abdev"]


rule abdev_download:
    output:
        truth="data/raw/abdev/GDPa1.csv",
        heldout="data/raw/abdev/heldout_sequences.csv",
        source="data/raw/abdev/source.json",
    log:
        "logs/abdev_download.log",
    localrule: True
    conda:
        "../envs/core.yaml"
    params:
        cfg={k: ABDEV[k] for k in ABDEV_SOURCE_KEYS},
        # Verified copies by sha256: a later offline run reuses the real data.
        store="data/raw/abdev/verified",
    script:
        "../scripts/abdev_download.py"


rule abdev_predict_baseline:
    input:
        truth=rules.abdev_download.output.truth,
    output:
        predictions="results/abdev/predictions/{model}.csv",
    log:
        "logs/abdev_predict/{model}.log",
    benchmark:
        "logs/benchmarks/abdev_predict/{model}.tsv"
    wildcard_constraints:
        model=model_regex(ABDEV_MODELS.baselines),
    group:
        "abdev"
    conda:
        "../envs/core.yaml"
    resources:
        mem_mb=1000,
        runtime=10,
    params:
        fold_col=ABDEV["fold_col"],
        seed=ABDEV["seed"],
        code_version=code_version("abdev", "predict_baseline"),
    script:
        "../scripts/abdev_predict_baseline.py"


rule abdev_import:
    input:
        user=f"{ABDEV['predictions_dir']}/{{model}}.csv",
    output:
        predictions="results/abdev/predictions/{model}.csv",
    log:
        "logs/abdev_import/{model}.log",
    wildcard_constraints:
        model=model_regex(ABDEV_MODELS.byo),
    localrule: True
    conda:
        "../envs/core.yaml"
    # A plain copy: the score jobs validate every prediction file (own or baseline) against the
    # truth, and name the user's file in their errors. No Python process per own file.
    shell:
        "cp -- {input.user:q} {output.predictions:q} 2> {log:q}"


# Scoring: one abdev_score job per model the workflow predicts, and one abdev_score_own_<k>
# job per batch of the user's own files (byo_score_jobs batches at most). A score job is
# mostly Python and pandas start-up, which a batch pays once; a file's batch is fixed by its
# name, so adding or editing a file re-scores only its batch (docs/abdev.md, "Speed").
ABDEV_SCORE_INPUT = dict(
    truth=rules.abdev_download.output.truth,
    source=rules.abdev_download.output.source,
)
ABDEV_SCORE_PARAMS = dict(
    fold_col=ABDEV["fold_col"],
    num_folds=ABDEV["num_folds"],
    bootstrap=BOOTSTRAP,
    config_hash=section_hash("abdev"),
)


rule abdev_score:
    input:
        pred=["results/abdev/predictions/{model}.csv"],
        **ABDEV_SCORE_INPUT,
    output:
        table=["results/abdev/scores/{model}.csv"],
        reference=["results/abdev/scores/{model}.reference.csv"],
    log:
        "logs/abdev_score/{model}.log",
    benchmark:
        "logs/benchmarks/abdev_score/{model}.tsv"
    wildcard_constraints:
        model=model_regex(ABDEV_MODELS.configured),
    group:
        "abdev"
    conda:
        "../envs/core.yaml"
    resources:
        mem_mb=1000,
        runtime=10,
    params:
        **ABDEV_SCORE_PARAMS,
        code_version=code_version("abdev", "score"),
        models=lambda wildcards: [wildcards.model],
        origins=[""],
    script:
        "../scripts/abdev_score.py"


for _batch, _models in byo_batches(ABDEV_MODELS.byo, ABDEV["byo_score_jobs"]).items():

    rule:
        name:
            f"abdev_score_own_{_batch}"
        input:
            pred=expand("results/abdev/predictions/{model}.csv", model=_models),
            **ABDEV_SCORE_INPUT,
        output:
            table=expand("results/abdev/scores/{model}.csv", model=_models),
            reference=expand("results/abdev/scores/{model}.reference.csv", model=_models),
        log:
            f"logs/abdev_score_own/{_batch}.log",
        benchmark:
            f"logs/benchmarks/abdev_score_own/{_batch}.tsv"
        group:
            "abdev"
        conda:
            "../envs/core.yaml"
        resources:
            mem_mb=1000,
            runtime=10,
        params:
            **ABDEV_SCORE_PARAMS,
            code_version=code_version("abdev", "score"),
            models=_models,
            # errors in an own file name the user's file, not its copy
            origins=[f"{ABDEV['predictions_dir']}/{m}.csv" for m in _models],
        script:
            "../scripts/abdev_score.py"
