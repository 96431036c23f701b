"""evaluate_model against a plain transcription of the reference (specs/abdev.md section 3).

The production code takes shortcuts for speed (column-stacked ranks instead of
``spearmanr``, reading only the needed truth columns). This test recomputes every CV row
the slow, literal way on random files full of ties and NaNs and demands exact equality.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scievals.abdev.constants import ASSAY_HIGHER_IS_BETTER, PROPERTY_LIST
from scievals.abdev.score import evaluate_model
from scipy import stats

FOLD = "fold_col"


def literal_reference(preds_path, truth_path) -> list[dict]:
    """The reference's steps, one by one, with no shortcuts."""
    truth = pd.read_csv(truth_path)
    preds = pd.read_csv(preds_path)
    props = [c for c in preds.columns if c in PROPERTY_LIST]
    merged = pd.merge(
        truth[["antibody_name", FOLD] + PROPERTY_LIST], preds[["antibody_name"] + props],
        on="antibody_name", how="left", suffixes=("_true", "_pred"),
    )

    def one(pred, true, assay):
        mask = ~(pred.isna() | true.isna())
        pred, true = pred[mask], true[mask]
        rho = stats.spearmanr(pred, true, nan_policy="omit").correlation
        if not ASSAY_HIGHER_IS_BETTER[assay]:
            pred, true = pred * -1, true * -1
        k = int(len(true) * 0.1)
        top_true = np.argsort(np.array(true).flatten())[-k:]
        top_pred = np.argsort(np.array(pred).flatten())[-k:]
        return rho, len(set(top_true) & set(top_pred)) / k

    rows = []
    for assay in props:
        pred, true = merged[f"{assay}_pred"], merged[f"{assay}_true"]
        folds = []
        for fold in sorted(merged[FOLD].unique()):
            sel = merged[FOLD] == fold
            folds.append(one(pred[sel], true[sel], assay))
            rows.append((assay, str(fold), *folds[-1]))
        rows.append((assay, "aggregated", *one(pred, true, assay)))
        rows.append((assay, "average", np.mean([f[0] for f in folds]), np.mean([f[1] for f in folds])))
    return rows


@pytest.mark.parametrize("seed", range(8))
def test_cv_rows_equal_the_literal_reference(tmp_path, seed):
    rng = np.random.default_rng(seed)
    n = 120
    names = [f"ab{i:03d}" for i in range(n)]
    truth = {"antibody_name": names, FOLD: rng.integers(0, 5, n)}
    preds = {"antibody_name": names}
    for assay in PROPERTY_LIST:
        values = rng.integers(0, 12, n).astype(float)  # few distinct values: heavy ties
        values[rng.random(n) < 0.15] = np.nan
        truth[assay] = values
        guess = values + rng.normal(0, 3, n).round(1)
        guess[rng.random(n) < 0.05] = np.nan
        preds[assay] = guess
    order = rng.permutation(n)[: n - 6]  # some antibodies missing, rows shuffled
    truth_path, preds_path = tmp_path / "truth.csv", tmp_path / "preds.csv"
    pd.DataFrame(truth).to_csv(truth_path, index=False)
    pd.DataFrame(preds).iloc[order].to_csv(preds_path, index=False)

    got = evaluate_model(preds_path, truth_path, "m", "GDPa1_cross_validation", fold_col=FOLD)
    got_rows = [(r["assay"], r["fold"], r["spearman"], r["top_10_recall"]) for r in got]
    expected = literal_reference(preds_path, truth_path)
    assert [r[:2] for r in got_rows] == [r[:2] for r in expected]
    for mine, theirs in zip(got_rows, expected):
        assert mine[2] == theirs[2] or (np.isnan(mine[2]) and np.isnan(theirs[2])), mine
        assert mine[3] == theirs[3], mine
