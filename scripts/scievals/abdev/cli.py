"""``python -m scievals abdev ...``: validate, score, predict.

``validate`` and ``score`` follow the reference's removed CLI
(``evaluation/cli.py``): score validates first and prints the result table;
unlike it, ``score`` passes the fold column, so cross-validation scoring works.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import pandas as pd

from scievals.abdev.constants import CV_DATASET, DATASETS, DEFAULT_FOLD_COL
from scievals.common.errors import ScievalsError
from scievals.common.output import add_json_flag, print_check
from scievals.common.subcommands import benchmark_commands

# Each command imports what it needs inside its own function: `python -m scievals` imports
# every benchmark's cli module to build its parser, so imports at the top would load every
# command's modules (the scoring, scipy, scikit-learn) for any command, `--help` included.
EPILOG_SCORE = """\
Metrics (reference semantics): Spearman correlation and top-10% recall per assay
(HIC, PR_CHO and AC-SINS_pH7.4 are negated first: lower is better). With
--dataset GDPa1_cross_validation you get one row per fold, 'aggregated' (all
folds pooled) and 'average' (mean of the folds, the headline number).
--extended adds bootstrap 95% CIs and a tie-robust recall.

example:
  python -m scievals abdev score --pred preds.csv --truth GDPa1_v1.2_20250814.csv \\
      --dataset GDPa1_cross_validation --output scores.csv
"""


def default_truth() -> tuple[str | None, str]:
    """The truth a prediction file is checked against without --truth: the workflow's copy
    (what the workflow scores it against), else the embedded demo; (path, what it is)."""
    from scievals.abdev.data import DEMO_CSV
    from scievals.abdev.workflow import TRUTH

    if Path(TRUTH).is_file():
        return TRUTH, "the workflow's truth, what it scores own files against"
    if DEMO_CSV.is_file():
        return str(DEMO_CSV), ("the embedded GDPa1-demo (no workflow copy in data/raw/abdev yet); "
                               "for real GDPa1 names pass --truth GDPa1_v1.2_20250814.csv")
    return None, ""


def cmd_validate(args: argparse.Namespace) -> int:
    from scievals.abdev.validate import validate_prediction_file

    truth = args.truth
    if truth is None:
        truth, what = default_truth()
        print(f"names and folds checked against {truth} ({what})" if truth else
              "note: antibody names were not checked (no truth found; pass --truth FILE)",
              file=sys.stderr)
    report = validate_prediction_file(args.pred, truth, args.fold_col)
    return print_check(args.pred, report.errors, report.warnings, as_json=args.json)


def _warn_if_demo(truth: str, consequence: str = "these numbers say nothing about real "
                  "antibodies") -> None:
    from scievals.abdev.data import DEMO_CSV
    from scievals.common.io import sha256_file

    if DEMO_CSV.exists() and Path(truth).exists() and sha256_file(truth) == sha256_file(DEMO_CSV):
        print(
            f"note: {truth} is the embedded synthetic GDPa1-demo, not GDPa1; {consequence}",
            file=sys.stderr,
        )


def cmd_score(args: argparse.Namespace) -> int:
    from scievals.abdev.metrics import extended_table, reference_rows
    from scievals.abdev.score import merge, read_inputs
    from scievals.common.io import check_file_target, write_csv

    if args.output:
        check_file_target(args.output)
    if args.n_resamples < 0:
        raise ScievalsError("--n-resamples", f"{args.n_resamples} is negative", "use 0 (no CIs) or a positive count")
    preds, truth, report = read_inputs(args.pred, args.truth, args.fold_col,
                                       per_fold=args.dataset == CV_DATASET)
    if args.json and not report.ok:  # the shared check object of `validate --json`
        return print_check(args.pred, report.errors, report.warnings,
                           why="not scored", as_json=True)
    if not report.ok:
        print("Validation errors:", file=sys.stderr)
        for error in report.errors:
            print(f"  - {error}", file=sys.stderr)
        return 1
    if not args.json:
        for warning in report.warnings:
            print(f"warning: {warning}", file=sys.stderr)
    _warn_if_demo(args.truth)

    model_name = args.model_name or Path(args.pred).stem
    cross_validation = args.dataset == CV_DATASET
    merged, properties = merge(preds, truth, args.pred, args.truth, args.fold_col if cross_validation else None)
    rows = reference_rows(
        merged, properties, model_name, args.dataset, args.fold_col, args.num_folds, where=str(args.pred)
    )
    results = pd.DataFrame(rows)
    if args.output:
        write_csv(args.output, results)
    table = None
    if args.extended:
        if not cross_validation:
            print(f"note: --extended needs --dataset {CV_DATASET}; skipped", file=sys.stderr)
        else:
            table = extended_table(merged, properties, args.fold_col, rows, args.n_resamples, args.seed)
    if args.json:
        print(json.dumps({
            "file": str(args.pred), "valid": True, "problems": [],
            "warnings": list(report.warnings), "truth": str(args.truth),
            "dataset": args.dataset, "model": model_name, "output": args.output,
            "scores": _records(results),
            **({"extended": _records(table)} if table is not None else {}),
        }, ensure_ascii=False))
        return 0
    print(results.to_string(index=False))
    if args.output:
        print(f"\nResults saved to {args.output}")
    if table is not None:
        print()
        print(table.to_string(index=False))
    return 0


def _records(frame: pd.DataFrame) -> list[dict]:
    """A table's rows as JSON-ready dicts: numbers as numbers, NaN and None as null."""
    return [{key: (None if pd.isna(value) else value.item() if hasattr(value, "item") else value)
             for key, value in row.items()} for row in frame.to_dict(orient="records")]


def cmd_predict(args: argparse.Namespace) -> int:
    from scievals.abdev.predict import run_baseline
    from scievals.common.io import check_file_target

    check_file_target(args.out)
    predictions = run_baseline(args.model, args.truth, args.out, args.fold_col, args.seed)
    print(f"wrote {len(predictions)} out-of-fold predictions of {args.model} to {args.out}")
    return 0


def cmd_export_submission(args: argparse.Namespace) -> int:
    from scievals.abdev import submission
    from scievals.abdev.csv_files import read_csv_checked as read
    from scievals.abdev.validate import validate_prediction_file

    truth = args.truth or default_truth()[0]
    if truth is None:
        raise ScievalsError("--truth", "no truth found (no data/raw/abdev/GDPa1.csv)",
                            "run the workflow first or pass --truth GDPa1_v1.2_20250814.csv")
    predictions = args.predictions or f"results/abdev/predictions/{args.model}.csv"
    report = validate_prediction_file(predictions, truth, DEFAULT_FOLD_COL)
    if report.errors:
        raise ScievalsError(predictions, report.errors[0], "fix the predictions, then export "
                            "again (python -m scievals abdev validate --pred FILE says all)")
    truth_frame = read(truth, "truth", {"antibody_name", DEFAULT_FOLD_COL})
    pred_frame = read(predictions, "predictions")
    unknown = sorted(set(pred_frame["antibody_name"].astype(str))
                     - set(truth_frame["antibody_name"].astype(str)))
    if unknown:
        raise ScievalsError(predictions, f"{len(unknown)} antibody name(s) not in {truth}: "
                            f"{', '.join(unknown[:5])}", "use the names as GDPa1 spells them")
    out = _submission_folder(args.out, args.model)
    frame = submission.cv_frame(pred_frame, truth_frame)
    names = truth_frame["antibody_name"].astype(str).tolist()
    uploads = [(frame, names, "cv", out / f"{args.model}_cv.csv")]
    if args.heldout:
        from scievals.abdev.workflow import HELDOUT

        listed = args.heldout_names or HELDOUT
        heldout_names = read(listed, "heldout list", {"antibody_name"})[
            "antibody_name"].astype(str).tolist()
        if len(heldout_names) != submission.HELDOUT_SIZE:
            print(f"note: {listed} lists {len(heldout_names)} antibodies, not the "
                  f"leaderboard's {submission.HELDOUT_SIZE}", file=sys.stderr)
        held = submission.heldout_frame(read(args.heldout, "heldout predictions"))
        uploads.append((held, heldout_names, "heldout", out / f"{args.model}_heldout.csv"))
    submission.write_uploads(uploads)  # both checked first, then both or neither written
    props = [c for c in frame.columns if c in submission.PROPERTY_LIST]
    empty = int(frame[props].isna().all(axis=1).sum())
    print(f"wrote {uploads[0][3]}: {len(frame)} antibodies, {', '.join(props)} and "
          f"{DEFAULT_FOLD_COL}" + (f" ({empty} without a prediction: NaN, left out of the "
                                   "leaderboard's Spearman)" if empty else ""))
    _warn_if_demo(truth, "the leaderboard takes GDPa1's names only: export after a run on "
                  "GDPa1 (abdev.source: auto online, or file)")
    if args.heldout:
        print(f"wrote {uploads[1][3]}: {len(uploads[1][0])} heldout antibodies")
    return 0


def _submission_folder(out: str, model: str) -> Path:
    """``--out`` as a folder the uploads can go into, and ``--model`` as a name that cannot
    lead out of it (the model names of the workflow: letters, digits, '.', '_', '-')."""
    from scievals.common.workflow import MODEL_NAME

    if not MODEL_NAME.match(model):
        raise ScievalsError("--model", f"{model!r} is not a model name (it names the files "
                            "written into --out)", "use letters, digits, '.', '_' or '-'")
    folder = Path(out)
    if folder.exists() and not folder.is_dir():
        raise ScievalsError(out, "--out names an existing file, not a folder",
                            "give a folder for MODEL_cv.csv and MODEL_heldout.csv")
    return folder


def register(subparsers) -> None:
    from scievals.abdev.predict import BASELINES

    sub = benchmark_commands(
        subparsers, "abdev", "antibody developability benchmark (GDPa1): validate, score, predict",
        "GDPa1 antibody developability benchmark: score predictions of HIC, Tm2, Titer, PR_CHO\n"
        "and AC-SINS_pH7.4 exactly as the reference abdev-benchmark does.")

    p = sub.add_parser(
        "validate",
        help="check a prediction CSV (exit 1 on errors)",
        description="Check a prediction CSV: the reference's format checks, plus non-numeric cells, "
        "NaN predictions and, with --truth, unknown/missing antibodies and a fold column that "
        "disagrees with the truth. Errors exit 1; warnings do not.",
    )
    p.add_argument("--pred", required=True, help="prediction CSV (antibody_name + property columns)")
    p.add_argument("--truth", help="truth CSV (GDPa1) to check names and folds against (default: "
                   "the workflow's data/raw/abdev/GDPa1.csv, else the embedded demo)")
    p.add_argument("--fold-col", default=DEFAULT_FOLD_COL, help="fold column (default: %(default)s)")
    add_json_flag(p)
    p.set_defaults(func=cmd_validate)

    p = sub.add_parser(
        "score",
        help="score a prediction CSV against the truth and print the table",
        description="Validate, then score a prediction CSV against a truth CSV (reference metrics).",
        epilog=EPILOG_SCORE,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--pred", required=True, help="prediction CSV")
    p.add_argument("--truth", required=True, help="truth CSV (GDPa1_v1.2_20250814.csv or the demo)")
    p.add_argument(
        "--dataset", default="GDPa1", choices=DATASETS,
        help="GDPa1: all rows at once; GDPa1_cross_validation: per fold (default: %(default)s)",
    )
    p.add_argument("--model-name", help="model name in the table (default: the file name without .csv)")
    p.add_argument("--output", "-o", help="write the results CSV here (reference columns)")
    p.add_argument("--fold-col", default=DEFAULT_FOLD_COL, help="truth fold column (default: %(default)s)")
    p.add_argument("--num-folds", type=int, default=5, help="expected number of folds (default: %(default)s)")
    p.add_argument("--extended", action="store_true", help="also print bootstrap CIs and tie-robust recall")
    p.add_argument("--n-resamples", type=int, default=1000, help="bootstrap resamples (default: %(default)s)")
    p.add_argument("--seed", type=int, default=0, help="bootstrap seed (default: %(default)s)")
    add_json_flag(p)
    p.set_defaults(func=cmd_score)

    p = sub.add_parser(
        "predict",
        help="run a built-in baseline with the reference CV protocol",
        description="Fit a built-in baseline on 4 folds, predict the 5th, for every fold; "
        "write the out-of-fold predictions (antibody_name, fold, 5 properties).",
    )
    p.add_argument("--model", required=True, help=f"baseline name: {', '.join(sorted(BASELINES))}")
    p.add_argument("--truth", required=True, help="truth CSV with sequences, labels and folds")
    p.add_argument("--out", required=True, help="output prediction CSV")
    p.add_argument("--fold-col", default=DEFAULT_FOLD_COL, help="truth fold column (default: %(default)s)")
    p.add_argument("--seed", type=int, default=42, help="seed (default: %(default)s)")
    p.set_defaults(func=cmd_predict)

    p = sub.add_parser(
        "export-submission",
        help="write the Ginkgo AbDev leaderboard's cross-validation (and heldout) CSV",
        description="Write a model's cross-validation upload for the AbDev leaderboard "
        "(antibody_name, the properties it predicted, the truth's "
        f"{DEFAULT_FOLD_COL}; one row per GDPa1 antibody) and, given --heldout, the heldout "
        "upload; each checked against the leaderboard's column and name rules first.",
    )
    p.add_argument("--model", required=True, help="the model whose predictions to export")
    p.add_argument("--predictions", help="its out-of-fold predictions (default: "
                   "results/abdev/predictions/MODEL.csv)")
    p.add_argument("--truth", help="GDPa1 CSV with names and folds (default: the workflow's "
                   "data/raw/abdev/GDPa1.csv, else the embedded demo)")
    p.add_argument("--heldout", help="the model's predictions for the heldout antibodies")
    p.add_argument("--heldout-names", help="the heldout list (default: the workflow's "
                   "data/raw/abdev/heldout_sequences.csv)")
    p.add_argument("--out", default="results/abdev/submission",
                   help="folder for MODEL_cv.csv and MODEL_heldout.csv (default %(default)s)")
    p.set_defaults(func=cmd_export_submission)

