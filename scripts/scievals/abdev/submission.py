"""The Ginkgo AbDev leaderboard's two uploads, from a model's predictions.

- cross-validation: ``antibody_name``, the property columns the model predicted (of HIC,
  Tm2, Titer, PR_CHO, AC-SINS_pH7.4) and ``hierarchical_cluster_IgG_isotype_stratified_fold``
  (0-4, the truth's fold: each row predicted by the model trained on the other four); one row
  per antibody of the truth (GDPa1), named as there;
- heldout: ``antibody_name`` and the property columns, one row per heldout antibody (80 in
  the leaderboard's list), written only where the model predicted them.

Both UTF-8, no duplicate names. :func:`problems` checks a frame against these rules
independently of how it was made; a file is written only when it has none.
"""

from __future__ import annotations

import math
import os
import shutil
import tempfile
from pathlib import Path

import pandas as pd

from scievals.abdev.constants import DEFAULT_FOLD_COL, PROPERTY_LIST
from scievals.common.errors import ScievalsError
from scievals.common.io import write_text

NUM_FOLDS = 5
HELDOUT_SIZE = 80  # the leaderboard's private heldout set


def predicted_properties(predictions: pd.DataFrame) -> list[str]:
    """The property columns holding at least one prediction, in the leaderboard's order."""
    return [p for p in PROPERTY_LIST
            if p in predictions.columns and pd.to_numeric(predictions[p], errors="coerce")
            .notna().any()]


def cv_frame(predictions: pd.DataFrame, truth: pd.DataFrame,
             fold_col: str = DEFAULT_FOLD_COL) -> pd.DataFrame:
    """The cross-validation upload: the truth's antibodies in its order, the predicted
    properties, the truth's fold."""
    properties = predicted_properties(predictions)
    by_name = predictions.drop_duplicates("antibody_name").set_index("antibody_name")
    frame = pd.DataFrame({"antibody_name": truth["antibody_name"].astype(str)})
    for prop in properties:
        frame[prop] = frame["antibody_name"].map(pd.to_numeric(by_name[prop], errors="coerce"))
    frame[DEFAULT_FOLD_COL] = pd.to_numeric(truth[fold_col], errors="coerce").to_numpy()
    return frame


def heldout_frame(predictions: pd.DataFrame) -> pd.DataFrame:
    properties = predicted_properties(predictions)
    frame = predictions[["antibody_name", *properties]].copy()
    frame["antibody_name"] = frame["antibody_name"].astype(str)
    return frame


def problems(frame: pd.DataFrame, names: list[str], kind: str) -> list[str]:
    """What the leaderboard would refuse in an upload ``frame`` (``kind``: cv or heldout),
    ``names`` being its list of antibodies; [] when nothing."""
    found = []
    columns = list(frame.columns)
    if not columns or columns[0] != "antibody_name":
        found.append("the first column is not antibody_name")
        return found
    props = [c for c in columns if c in PROPERTY_LIST]
    extra = [c for c in columns[1:] if c not in PROPERTY_LIST and c != DEFAULT_FOLD_COL]
    if not props:
        found.append(f"no property column (any of {', '.join(PROPERTY_LIST)})")
    if extra:
        found.append(f"columns the leaderboard does not take: {', '.join(extra)}")
    duplicated = sorted(set(frame["antibody_name"][frame["antibody_name"].duplicated()]))
    if duplicated:
        found.append(f"{len(duplicated)} duplicate antibody name(s): {', '.join(duplicated[:5])}")
    missing = sorted(set(names) - set(frame["antibody_name"]))
    unknown = sorted(set(frame["antibody_name"]) - set(names))
    if missing:
        found.append(f"{len(missing)} antibody(ies) of the list have no row: "
                     f"{', '.join(missing[:5])}")
    if unknown:
        found.append(f"{len(unknown)} name(s) not in the list: {', '.join(unknown[:5])}")
    if kind == "cv":
        if DEFAULT_FOLD_COL not in columns:
            found.append(f"no {DEFAULT_FOLD_COL} column")
        else:
            folds = pd.to_numeric(frame[DEFAULT_FOLD_COL], errors="coerce")
            if not folds.isin(range(NUM_FOLDS)).all():
                found.append(f"{DEFAULT_FOLD_COL} holds values other than 0-{NUM_FOLDS - 1}")
    elif DEFAULT_FOLD_COL in columns:
        found.append(f"a heldout upload has no {DEFAULT_FOLD_COL} column")
    for prop in props:
        values = pd.to_numeric(frame[prop], errors="coerce")
        if any(isinstance(v, float) and math.isinf(v) for v in values):
            found.append(f"{prop}: infinite values")
    return found


def csv_text(frame: pd.DataFrame) -> str:
    """The upload as text: comma-separated, folds as integers, no index."""
    out = frame.copy()
    if DEFAULT_FOLD_COL in out.columns:
        out[DEFAULT_FOLD_COL] = out[DEFAULT_FOLD_COL].astype(int)
    return out.to_csv(index=False, lineterminator="\n")


def write_upload(frame: pd.DataFrame, names: list[str], kind: str, out: str | Path) -> Path:
    """Check ``frame`` and write it (UTF-8, atomically); a ScievalsError naming the first
    problem otherwise."""
    found = problems(frame, names, kind)
    if found:
        raise ScievalsError(out, f"not a valid {kind} upload: {found[0]}"
                            + (f" (and {len(found) - 1} more)" if len(found) > 1 else ""),
                            "fix the predictions file and export again")
    text = csv_text(frame)
    text.encode("utf-8")  # a name that cannot be UTF-8 fails here, before anything is written
    write_text(out, text)
    return Path(out)


def write_uploads(uploads: list[tuple[pd.DataFrame, list[str], str, Path]]) -> list[Path]:
    """Each (frame, names, kind, path) checked, then all written or none: the files go into
    a temporary folder beside their target and are moved into place only when every one
    passed (a heldout file the leaderboard would refuse leaves no cv file behind)."""
    for frame, names, kind, path in uploads:
        found = problems(frame, names, kind)
        if found:
            raise ScievalsError(path, f"not a valid {kind} upload: {found[0]}"
                                + (f" (and {len(found) - 1} more)" if len(found) > 1 else "")
                                + "; nothing written", "fix the predictions file and export "
                                "again")
    texts = [csv_text(frame) for frame, *_ in uploads]
    for text in texts:
        text.encode("utf-8")  # a name that cannot be UTF-8 fails here, before any file
    folder = Path(uploads[0][3]).parent
    folder.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=".submission-", dir=folder))
    try:
        for text, (*_, path) in zip(texts, uploads):
            write_text(staging / Path(path).name, text)
        for _, (*_, path) in zip(texts, uploads):  # renames within one folder: no copy
            os.replace(staging / Path(path).name, path)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return [Path(path) for *_, path in uploads]
