"""Built-in abdev models (``provider: baseline``), run with the reference CV protocol.

For each fold ``f`` a model is fitted on the antibodies whose truth fold is not
``f`` (per property, rows without a measurement are dropped) and predicts the
antibodies of fold ``f``. The result is the out-of-fold prediction file the
reference writes (``antibody_name, <fold_col>, HIC, Tm2, Titer, PR_CHO,
AC-SINS_pH7.4``), one row per truth antibody in truth order.

- ``random``: uniform in the training fold's [min, max] per property (the
  reference's ``random_predictor``), seeded per fold.
- ``ridge_descriptors``: standardised ridge regression on sequence descriptors
  of VH and VL computed with Biopython's ProtParam (GRAVY, charge at pH 7.4,
  pI, length, aromaticity, instability, residue-class composition) plus
  one-hot isotype and light-chain type when the truth has them. The penalty is
  chosen by efficient leave-one-out inside each training set (``RidgeCV``).
"""

from __future__ import annotations

import functools
import logging
import os
from collections.abc import Callable

import numpy as np
import pandas as pd
from Bio.SeqUtils.ProtParam import ProteinAnalysis

from scievals.abdev.constants import PROPERTY_LIST
from scievals.abdev.data import load_truth
from scievals.common.errors import ScievalsError
from scievals.common.io import write_csv

log = logging.getLogger(__name__)

# Bump when a baseline's predictions change: re-runs abdev_predict_baseline (and scoring).
BASELINE_VERSION = "abdev-baselines-v1"

STANDARD_AA = set("ACDEFGHIKLMNPQRSTVWY")
RESIDUE_CLASSES = {
    "hydrophobic": "AILMFVW",
    "positive": "KR",
    "negative": "DE",
    "polar": "STNQ",
    "aromatic": "FWY",
    "glycine_proline": "GP",
    "histidine": "H",
}
RIDGE_ALPHAS = np.logspace(-2, 4, 13)


def _folds(truth: pd.DataFrame, fold_col: str) -> list:
    if fold_col not in truth.columns:
        raise ScievalsError(
            "truth", f"fold column {fold_col!r} not found", f"columns are {list(truth.columns)[:10]}..."
        )
    if truth[fold_col].isna().any():
        raise ScievalsError("truth", f"fold column {fold_col!r} has empty cells", "give every antibody a fold")
    return sorted(truth[fold_col].unique())


def _cross_validate(
    truth: pd.DataFrame,
    fold_col: str,
    fit_predict: Callable[[pd.DataFrame, pd.Series, pd.DataFrame, object], np.ndarray],
) -> pd.DataFrame:
    """Out-of-fold predictions: ``fit_predict(train_rows, train_y, test_rows, fold)`` per fold and property."""
    out = truth[["antibody_name", fold_col]].copy()
    for prop in PROPERTY_LIST:
        out[prop] = np.nan
    for fold in _folds(truth, fold_col):
        test = truth[fold_col] == fold
        for prop in PROPERTY_LIST:
            train = (~test) & truth[prop].notna()
            if train.sum() < 2:
                raise ScievalsError(
                    "truth", f"{prop}: fewer than 2 labelled training antibodies outside fold {fold}",
                    "use a truth file with labels in several folds",
                )
            out.loc[test, prop] = fit_predict(truth[train], truth.loc[train, prop], truth[test], fold)
    return out


def predict_random(truth_df: pd.DataFrame, fold_col: str, seed: int = 42) -> pd.DataFrame:
    """Uniform random predictions within each training fold's range, per property."""

    def fit_predict(train, y, test, fold):
        rng = np.random.default_rng([seed, _fold_key(fold), PROPERTY_LIST.index(y.name)])
        return rng.uniform(float(y.min()), float(y.max()), size=len(test))

    return _cross_validate(truth_df, fold_col, fit_predict)


def _fold_key(fold) -> int:
    """A stable non-negative integer for a fold label (no ``hash()``: PYTHONHASHSEED varies)."""
    try:
        return int(fold)
    except (TypeError, ValueError):
        return int.from_bytes(str(fold).encode("utf-8")[:8].ljust(8, b"\0"), "little")


@functools.lru_cache(maxsize=4096)
def _chain_descriptors(sequence: str) -> tuple[float, ...]:
    analysis = ProteinAnalysis(sequence)
    n = len(sequence)
    composition = [sum(sequence.count(a) for a in letters) / n for letters in RESIDUE_CLASSES.values()]
    return (
        float(n),
        analysis.gravy(),
        analysis.charge_at_pH(7.4),
        analysis.isoelectric_point(),
        analysis.aromaticity(),
        analysis.instability_index(),
        *composition,
    )


DESCRIPTOR_NAMES = ["length", "gravy", "charge_pH7.4", "pI", "aromaticity", "instability"] + [
    f"frac_{name}" for name in RESIDUE_CLASSES
]


def sequence_descriptors(truth_df: pd.DataFrame) -> pd.DataFrame:
    """Descriptor matrix (one row per antibody) from VH/VL sequences and subtypes."""
    columns = {}
    for chain, col in (("vh", "vh_protein_sequence"), ("vl", "vl_protein_sequence")):
        if col not in truth_df.columns:
            raise ScievalsError("truth", f"column {col!r} is missing", "the descriptor model needs VH and VL sequences")
        rows = []
        for i, seq in enumerate(truth_df[col]):
            if not isinstance(seq, str) or not seq:
                raise ScievalsError(f"truth line {i + 2}", f"{col} is empty", "give every antibody its sequence")
            seq = seq.strip().upper()
            bad = set(seq) - STANDARD_AA
            if bad:
                raise ScievalsError(
                    f"truth line {i + 2} ({truth_df['antibody_name'].iloc[i]})",
                    f"{col} has non-standard letters {sorted(bad)}",
                    "use the 20 standard one-letter amino-acid codes",
                )
            rows.append(_chain_descriptors(seq))
        for j, name in enumerate(DESCRIPTOR_NAMES):
            columns[f"{chain}_{name}"] = [r[j] for r in rows]
    frame = pd.DataFrame(columns, index=truth_df.index)
    frame["fv_charge_pH7.4"] = frame["vh_charge_pH7.4"] + frame["vl_charge_pH7.4"]
    frame["fv_gravy"] = (
        frame["vh_gravy"] * frame["vh_length"] + frame["vl_gravy"] * frame["vl_length"]
    ) / (frame["vh_length"] + frame["vl_length"])
    for col, levels in (("hc_subtype", ["IgG1", "IgG2", "IgG4"]), ("lc_subtype", ["Kappa", "Lambda"])):
        if col in truth_df.columns:
            for level in levels:
                frame[f"{col}_{level}"] = (truth_df[col] == level).astype(float)
    return frame


def predict_ridge_descriptors(truth_df: pd.DataFrame, fold_col: str, seed: int = 42) -> pd.DataFrame:
    """Standardised RidgeCV on ProtParam descriptors, per property and fold.

    ``seed`` is accepted for a uniform signature; the fit is deterministic.
    """
    # Not at the top: scikit-learn takes ~0.6 CPU-s to import and only this baseline uses it
    # (the random baseline's job and every score job import this module too).
    from sklearn.linear_model import RidgeCV
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    features = sequence_descriptors(truth_df)

    def fit_predict(train, y, test, fold):
        model = make_pipeline(StandardScaler(), RidgeCV(alphas=RIDGE_ALPHAS))
        model.fit(features.loc[train.index].to_numpy(), y.to_numpy(dtype=float))
        return model.predict(features.loc[test.index].to_numpy())

    return _cross_validate(truth_df, fold_col, fit_predict)


BASELINES: dict[str, Callable[[pd.DataFrame, str, int], pd.DataFrame]] = {
    "random": predict_random,
    "ridge_descriptors": predict_ridge_descriptors,
}


def run_baseline(name: str, truth_path, out_csv, fold_col: str, seed: int = 42) -> pd.DataFrame:
    """Run baseline ``name`` on the truth file and write its out-of-fold predictions atomically."""
    if name not in BASELINES:
        raise ScievalsError(
            f"model {name!r}", "is not a built-in abdev baseline", f"known baselines: {sorted(BASELINES)}"
        )
    truth = load_truth(truth_path, fold_col)
    predictions = BASELINES[name](truth, fold_col, seed)
    write_csv(out_csv, predictions)
    log.info("abdev baseline %s: wrote %d predictions to %s", name, len(predictions), os.fspath(out_csv))
    return predictions


# The job of abdev_predict_baseline: scievals.common.entry.run_stage imports this module
# for it alone, so the job loads its own stage's code and nothing else.
def stage_predict(smk) -> None:
    """Out-of-fold predictions of one baseline model."""
    run_baseline(smk.wildcards.model, smk.input.truth, smk.output.predictions,
                 smk.params.fold_col, smk.params.seed)
