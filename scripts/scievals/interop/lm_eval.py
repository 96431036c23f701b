"""lm-evaluation-harness output (0.4.x), read as its documented JSON (lm-eval itself needs
torch: docs/importing-logs.md).

``results_<timestamp>.json`` holds the aggregates (``results`` {task: {"<metric>,<filter>":
value}}, ``higher_is_better``, ``config`` {model, model_args}, ``model_name``); with
``--log_samples`` each task also has ``samples_<task>_<timestamp>.jsonl`` beside it, one
line per document and filter: ``doc_id``, ``filter``, ``metrics`` (names) and one key per
metric holding that document's value. An item is the ``doc_id``; a metric is ``<metric>``
(``<metric>,<filter>`` for a filter other than ``none``). A metric whose per-sample value is
not a number (lm-eval's corpus-level metrics - f1, bleu, perplexity - keep a pair per
document and aggregate at the end) has no per-item score and is left out, said.
"""

from __future__ import annotations

import math
import re
from pathlib import Path

from scievals.common.errors import ScievalsError
from scievals.common.io import iter_jsonl
from scievals.interop.runs import ImportedRun, finished
from scievals.interop.runs import number as json_float

# results_<date_id>.json, or <stem>_<date_id>.json with --output_path <stem>.json; date_id is
# datetime.now().isoformat() with ":" as "-", shared by the run's samples files
RESULTS_NAME = re.compile(r"^.+_(?P<stamp>\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}(?:\.\d+)?)\.json$")


# Keys of a task's results that count samples rather than score them (lm-eval writes
# ``sample_len``; others write sample counts): not among the tool's own figures.
COUNTS = frozenset({"sample_len", "sample_count", "samples", "num_samples", "n_samples",
                    "original", "effective"})


def looks_like_lm_eval(data) -> bool:
    return (isinstance(data, dict) and isinstance(data.get("results"), dict)
            and any(k in data for k in ("n-samples", "lm_eval_version", "configs",
                                        "versions", "higher_is_better")))


def read_results(path: Path, data: dict) -> ImportedRun:
    """A ``results_<timestamp>.json`` already parsed, with its samples files."""
    match = RESULTS_NAME.match(path.name)
    if not match:
        raise ScievalsError(path, "an lm-eval results file whose name does not end in the "
                            "run's timestamp (results_<timestamp>.json)",
                            "keep lm-eval's file names: its samples files are found by the "
                            "timestamp")
    stamp = match.group("stamp")
    groups = set(data.get("groups") or {})
    tasks = [t for t in data["results"] if t not in groups]
    higher = data.get("higher_is_better") or {}
    records, notes, declared, missing = [], [], {}, []
    for task in tasks:
        samples = _samples_file(path, task, stamp)
        if samples is None:
            missing.append(task)
            continue
        corpus = set()
        for number, line in _lines(samples):
            metric_names = line.get("metrics") or []
            filt = str(line.get("filter", "none"))
            for name in metric_names:
                value = line.get(name)
                metric = name if filt == "none" else f"{name},{filt}"
                if isinstance(value, bool) or isinstance(value, (int, float)):
                    records.append((task, metric, str(line["doc_id"]), 1, json_float(value)))
                    better = (higher.get(task) or {}).get(name)
                    declared[(task, metric)] = (None, better is False)
                else:
                    corpus.add(metric)
        if corpus:
            notes.append(f"{task}: {sorted(corpus)} have no per-document number "
                         "(corpus-level metrics): left out")
    if missing:
        notes.append(f"no samples_<task>_{stamp}.jsonl for {missing}: run lm-eval with "
                     "--log_samples to compare them per item")
    reported = {}
    for task in tasks:
        for key, value in (data["results"].get(task) or {}).items():
            if (isinstance(value, (int, float)) and not isinstance(value, bool)
                    and key.partition(",")[0] not in COUNTS and math.isfinite(json_float(value))):
                reported[f"{task}/{key}"] = json_float(value)
    version = data.get("lm_eval_version")
    fmt = "lm-evaluation-harness results + samples" + (f" (lm_eval {version})" if version else "")
    return finished(path, fmt, _model(data), records, declared, reported, notes)


def _samples_file(path: Path, task: str, stamp: str) -> Path | None:
    """The task's samples file beside ``path``, where lm-eval writes it (``joinpath`` of
    ``samples_<task>_<stamp>.jsonl``: a ``/`` in the task's name is a subfolder), or None
    when it is not there or the name would lead out of the results file's folder."""
    folder = path.parent.resolve()
    try:
        candidate = (folder / f"samples_{task}_{stamp}.jsonl").resolve()
    except (OSError, ValueError):
        return None
    if folder not in candidate.parents or not candidate.is_file():
        return None
    return candidate


def _model(data: dict) -> str:
    if data.get("model_name"):
        return str(data["model_name"])
    config = data.get("config") or {}
    args = str(config.get("model_args") or "")
    found = re.search(r"(?:^|,)\s*pretrained=([^,]+)", args)
    if found:
        return found.group(1)
    return str(config.get("model") or "lm-eval model")


def _lines(path: Path):
    """(row number, record) of a samples file (one clear error for a line that is not JSON
    or not a sample)."""
    for number, line in enumerate(iter_jsonl(path), start=1):
        if not isinstance(line, dict) or "doc_id" not in line:
            raise ScievalsError(f"{path}: row {number}", "not an lm-eval sample (no doc_id)",
                                "give lm-eval's samples_<task>_<timestamp>.jsonl")
        yield number, line
