# abdev: antibody developability on GDPa1 (download -> baseline predictions -> CV scoring).
# Models: the baselines named in config["abdev"]["models"] plus every <model>.csv in
# config["abdev"]["predictions_dir"] (bring your own, in the reference out-of-fold format).

ABDEV = config["abdev"]
ABDEV_BASELINES = ABDEV["models"]
ABDEV_BYO = byo_prediction_models(ABDEV["predictions_dir"], ".csv", ABDEV_BASELINES)
ABDEV_MODELS = ABDEV_BASELINES + ABDEV_BYO
ABDEV_DOWNLOAD = {
    k: ABDEV[k]
    for k in (
        "source",
        "url",
        "sha256",
        "heldout_url",
        "heldout_sha256",
        "hf_url",
        "download_timeout_s",
    )
}
get_abdev_prediction = prediction_getter(
    ABDEV_BYO, ABDEV["predictions_dir"], "results/abdev/predictions", ".csv"
)

SCORE_TABLES["abdev"] = lambda: expand(
    "results/abdev/scores/{model}.csv", model=ABDEV_MODELS
)


rule abdev_download:
    output:
        truth="data/raw/abdev/GDPa1.csv",
        heldout="data/raw/abdev/heldout_sequences.csv",
        source="data/raw/abdev/source.json",
    log:
        "logs/abdev_download.log",
    localrule: True
    conda:
        "../envs/scievals.yaml"
    params:
        cfg=ABDEV_DOWNLOAD,
    script:
        "../scripts/abdev_download.py"


rule abdev_predict:
    input:
        truth=rules.abdev_download.output.truth,
    output:
        "results/abdev/predictions/{model}.csv",
    log:
        "logs/abdev_predict/{model}.log",
    benchmark:
        "logs/benchmarks/abdev_predict/{model}.tsv"
    wildcard_constraints:
        model="|".join(ABDEV_BASELINES) or "^$",
    group:
        "abdev"
    conda:
        "../envs/scievals.yaml"
    resources:
        mem_mb=1000,
        runtime=10,
    params:
        fold_col=ABDEV["fold_col"],
        seed=ABDEV["seed"],
    script:
        "../scripts/abdev_predict.py"


rule abdev_score:
    input:
        pred=get_abdev_prediction,
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
        model="|".join(ABDEV_MODELS) or "^$",
    group:
        "abdev"
    conda:
        "../envs/scievals.yaml"
    resources:
        mem_mb=1000,
        runtime=10,
    params:
        fold_col=ABDEV["fold_col"],
        num_folds=ABDEV["num_folds"],
        bootstrap=BOOTSTRAP,
        config_hash=section_hash("abdev", ABDEV_BASELINES),
    script:
        "../scripts/abdev_score.py"
