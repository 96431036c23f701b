"""What a log holds of each item beside its score: the input, the target and the answer, and
the tokens and cost it spent; for ``leaderboard`` (its cost columns and the HTML page's
side-by-side). The scores themselves come from the readers (:mod:`importing`); this reads
the same files once more for the text (only for the HTML page: the tokens and cost are
summed by the readers as they read the scores, :attr:`ImportedRun.usage`; streamed, and ``.eval`` entries under the same size
cap as the scores: :func:`scievals.interop.inspect_logs._entry`), from the fields each
format documents:

- inspect_ai: ``EvalSample.input`` (a string or chat messages), ``target``,
  ``output.completion``, ``model_usage`` {model: {input_tokens, output_tokens,
  total_cost?}};
- lm-evaluation-harness samples: the request's prompt (``arguments``), ``target``,
  ``filtered_resps``; no tokens or cost (lm-eval does not log them);
- Every Eval Ever instance rows (ours included): ``input.raw``, ``input.reference``,
  ``output.raw``, ``token_usage``, our ``metadata.cost_usd``.

A table kept by ``import`` holds scores only: no text. Texts are cut at :data:`MAX_TEXT`
characters so a page of 10,000 items stays readable.
"""

from __future__ import annotations

import json
import zipfile
from dataclasses import dataclass, field
from pathlib import Path

from scievals.common.errors import ScievalsError
from scievals.common.io import iter_jsonl
from scievals.interop import inspect_logs, json_stream, lm_eval
from scievals.interop.runs import ImportedRun, Usage, add_model_usage, add_row_usage

MAX_TEXT = 4000


@dataclass
class Details:
    """Per (dataset, item, sample): {input, target, answer}; per dataset: its Usage."""

    texts: dict[tuple[str, str, int], dict[str, str]] = field(default_factory=dict)
    usage: dict[str, Usage] = field(default_factory=dict)
    note: str = ""


def _text(value) -> str:
    """A field as text: strings as they are, chat messages as ``role: content`` lines,
    anything else as JSON; cut at MAX_TEXT."""
    if value is None:
        text = ""
    elif isinstance(value, str):
        text = value
    elif isinstance(value, list) and all(isinstance(m, dict) and "role" in m for m in value):
        text = "\n".join(f"{m['role']}: {_content(m.get('content'))}" for m in value)
    elif isinstance(value, list) and all(isinstance(v, str) for v in value):
        text = "\n".join(value)
    else:
        text = json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= MAX_TEXT else text[:MAX_TEXT] + " [...]"


def _content(content) -> str:
    if isinstance(content, list):  # content parts: keep the text ones
        return " ".join(str(p.get("text", "")) for p in content if isinstance(p, dict))
    return str(content or "")


def read_details(run: ImportedRun, texts: bool = True) -> Details:
    """The texts and usage of ``run``'s log (module docstring); empty with a note when the
    log holds none or cannot be read again. ``texts`` False: the usage only (the texts of
    10,000 items are not held for a table that shows none)."""
    if not texts and run.usage is not None:  # summed by the reader: no second read
        return Details(usage=run.usage)
    if not texts and run.format.startswith("lm-evaluation-harness"):
        return Details()  # lm-eval logs no tokens or cost
    found = _read(run)
    if not texts:
        found.texts = {}
    return found


def _read(run: ImportedRun) -> Details:
    try:
        if run.format.startswith("inspect_ai .eval"):
            return _inspect(_eval_samples(run.path), _task(run))
        if run.format.startswith("inspect_ai .json"):
            return _inspect(_json_samples(run.path), _task(run))
        if run.format.startswith("lm-evaluation-harness"):
            return _lm_eval(run)
        if run.format.startswith("Every Eval Ever"):
            return _eee(run.path)
    except (ScievalsError, OSError, ValueError) as exc:
        return Details(note=f"{run.path}: texts not read ({exc})")
    return Details(note=f"{run.path}: {run.format} holds scores only (no input or answer)")


def _eval_samples(path: Path):
    with zipfile.ZipFile(path) as archive:
        for name in sorted(n for n in archive.namelist()
                           if n.startswith("samples/") and n.endswith(".json")):
            yield inspect_logs._entry(path, archive, name)


def _json_samples(path: Path):
    """A ``.json`` log's samples streamed as the scores were (json_stream), read whole only
    when it is not strict JSON."""
    if json_stream.head(path)[0] is not None:
        yield from json_stream.items(path)
        return
    yield from json.loads(path.read_text(encoding="utf-8")).get("samples") or []


def _task(run: ImportedRun) -> str:
    return str(run.rows["dataset"].iloc[0])  # an inspect log holds one task


def _inspect(samples, task: str) -> Details:
    found = Details()
    for sample in samples:
        if not isinstance(sample, dict) or "id" not in sample:
            continue
        epoch = sample.get("epoch", 1)
        output = sample.get("output") or {}
        texts = {"input": _text(sample.get("input")), "target": _text(sample.get("target")),
                 "answer": _text(output.get("completion") if isinstance(output, dict)
                                 else None)}
        found.texts[(task, str(sample["id"]), epoch)] = texts
        add_model_usage(found.usage.setdefault(task, Usage()), sample)
    return found


def _lm_eval(run: ImportedRun) -> Details:
    match = lm_eval.RESULTS_NAME.match(run.path.name)
    found = Details()
    for task in sorted(set(run.rows["dataset"])):
        samples = run.path.with_name(f"samples_{task}_{match.group('stamp')}.jsonl")
        for line in iter_jsonl(samples):
            if not isinstance(line, dict) or "doc_id" not in line:
                continue
            found.texts[(task, str(line["doc_id"]), 1)] = {
                "input": _text(_prompt(line.get("arguments"))),
                "target": _text(line.get("target")),
                "answer": _text(line.get("filtered_resps"))}
    return found


def _prompt(arguments):
    """The first request's prompt: lm-eval writes ``{"gen_args_0": {"arg_0": prompt, ...}}``
    (0.4.x) or ``[[prompt, kwargs], ...]``."""
    if isinstance(arguments, dict) and arguments:
        first = next(iter(arguments.values()))
        return first.get("arg_0") if isinstance(first, dict) else first
    if isinstance(arguments, list) and arguments:
        first = arguments[0]
        return first[0] if isinstance(first, list) and first else first
    return arguments


def _eee(path: Path) -> Details:
    data = json.loads(path.read_text(encoding="utf-8"))
    detail = data.get("detailed_evaluation_results") or {}
    name = Path(detail.get("file_path") or f"{path.stem}_samples.jsonl").name
    found, seen = Details(), {}
    for row in iter_jsonl(path.parent / name):
        if not isinstance(row, dict):
            continue
        key = (str(row.get("evaluation_name", "")), str(row.get("sample_id", "")))
        seen[key] = seen.get(key, 0) + 1
        output = row.get("output") or {}
        reference = (row.get("input") or {}).get("reference")
        found.texts[(*key, seen[key])] = {
            "input": _text((row.get("input") or {}).get("raw")),
            "target": _text(reference[0] if isinstance(reference, list) and len(reference) == 1
                            else reference),
            "answer": _text(output.get("raw") if isinstance(output, dict) else None)}
        add_row_usage(found.usage.setdefault(key[0], Usage()), row)
    return found
