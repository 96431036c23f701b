"""Shared fixtures for the abdev tests: the committed demo and baseline predictions on it."""

from __future__ import annotations

import pandas as pd
import pytest
from scievals.abdev.constants import DEFAULT_FOLD_COL, PROPERTY_LIST
from scievals.abdev.data import DEMO_CSV
from scievals.abdev.predict import predict_random, predict_ridge_descriptors


@pytest.fixture(scope="session")
def demo_truth() -> pd.DataFrame:
    return pd.read_csv(DEMO_CSV)


@pytest.fixture(scope="session")
def baseline_files(tmp_path_factory, demo_truth) -> dict:
    """Out-of-fold predictions of both baselines on the demo, written once per session."""
    folder = tmp_path_factory.mktemp("abdev_baselines")
    files = {}
    for name, fn in (("random", predict_random), ("ridge_descriptors", predict_ridge_descriptors)):
        path = folder / f"{name}.csv"
        fn(demo_truth, DEFAULT_FOLD_COL, 42).to_csv(path, index=False)
        files[name] = path
    return files


@pytest.fixture
def write_pair(tmp_path):
    """Write a truth and a prediction CSV from column dicts; return (pred_path, truth_path).

    Truth columns among the five properties that are not given are filled with
    ``1.0`` (the reference reads all five from the truth).
    """

    def write(truth: dict, preds: dict) -> tuple:
        truth = dict(truth)
        n = len(truth["antibody_name"])
        for prop in PROPERTY_LIST:
            truth.setdefault(prop, [1.0] * n)
        truth_path = tmp_path / "truth.csv"
        pred_path = tmp_path / "preds.csv"
        pd.DataFrame(truth).to_csv(truth_path, index=False)
        pd.DataFrame(preds).to_csv(pred_path, index=False)
        return pred_path, truth_path

    return write
