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
    # A plain copy: abdev_score validates every prediction file (own or baseline) against the
    # truth, and names the user's file in its errors. No Python process per own file.
    shell:
        "cp -- {input.user:q} {output.predictions:q} 2> {log:q}"


rule abdev_score:
    input:
        pred="results/abdev/predictions/{model}.csv",
        truth=rules.abdev_download.output.truth,
        source=rules.abdev_download.output.source,
    output:
        table="results/abdev/scores/{model}.csv",
        reference="results/abdev/scores/{model}.reference.csv",
    log:
        "logs/abdev_score/{model}.log",
    benchmark:
        "logs/benchmarks/abdev_score/{model}.tsv"
    wildcard_constraints:
        model=model_regex(ABDEV_MODELS.all),
    group:
        "abdev"
    conda:
        "../envs/core.yaml"
    resources:
        mem_mb=1000,
        runtime=10,
    params:
        fold_col=ABDEV["fold_col"],
        num_folds=ABDEV["num_folds"],
        bootstrap=BOOTSTRAP,
        config_hash=section_hash("abdev"),
        code_version=code_version("abdev", "score"),
        # errors in an imported own file name the user's file, not its copy
        origin=lambda wildcards: (
            f"{ABDEV['predictions_dir']}/{wildcards.model}.csv"
            if wildcards.model in ABDEV_MODELS.byo
            else ""
        ),
    script:
        "../scripts/abdev_score.py"
