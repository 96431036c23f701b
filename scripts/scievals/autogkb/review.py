"""Per-article side-by-side review: curated vs predicted annotations, for one model.

Pairs come from the one-to-one (Hungarian) matching; each pair shows the ten fields with
each field's similarity, then the curated annotations nobody matched and the predictions
left over (which the reference headline may still count if they reach the threshold).
"""

from __future__ import annotations

import html

from scievals.autogkb.metrics import FIELDS, Evaluation, normalise, similarity


def _cell(value) -> str:
    return "*null*" if value is None else html.escape(str(value)).replace("|", "&#124;")


def _pair_table(truth: dict | None, pred: dict | None) -> list[str]:
    lines = ["| field | curated | predicted | similarity |", "| --- | --- | --- | --- |"]
    for f in FIELDS:
        t = truth.get(f) if truth else None
        p = pred.get(f) if pred else None
        sim = (f"{similarity(normalise(p), normalise(t)):.2f}" if truth is not None
               and pred is not None else "")
        lines.append(f"| {html.escape(f)} | {_cell(t)} | {_cell(p)} | {sim} |")
    return lines + [""]


def article_section(case: dict, record: dict | None, evaluation: Evaluation) -> list[str]:
    lines = [f"## {case['case_id']} (PMID {case['pmid']})", ""]
    if case.get("title"):
        lines += [f"*{html.escape(case['title'])}*", ""]
    lines.append(f"Reference score **{evaluation.score:.2f}**, one-to-one "
                 f"{evaluation.one_to_one_score:.2f}, precision {evaluation.precision:.2f}, "
                 f"recall {evaluation.recall:.2f}; {evaluation.n_predictions} predicted vs "
                 f"{evaluation.n_truth} curated annotations.")
    lines.append("")
    if record is None:
        lines += ["**No prediction for this article** (scored 0).", ""]
        return lines
    if record.get("parse_status") != "ok":
        lines += [f"**Parse failure** (scored 0): {html.escape(str(record.get('parse_error')))}",
                  ""]
        if record.get("raw_text"):
            lines += ["```text", record["raw_text"][:2000], "```", ""]
        return lines
    for note in record.get("parse_warnings") or []:
        lines.append(f"- note: {html.escape(note)}")
    if record.get("parse_warnings"):
        lines.append("")
    preds, truths = record.get("annotations") or [], case["truth"]
    used_p, used_t = set(), set()
    for i, j, score in evaluation.pairs:
        used_p.add(i)
        used_t.add(j)
        lines += [f"### Match: curated #{j + 1} - predicted #{i + 1} (pair score {score:.3f})", ""]
        lines += _pair_table(truths[j], preds[i])
    for j, truth in enumerate(truths):
        if j not in used_t:
            lines += [f"### Missed: curated #{j + 1}", ""] + _pair_table(truth, None)
    for i, pred in enumerate(preds):
        if i not in used_p:
            lines += [f"### Extra: predicted #{i + 1}", ""] + _pair_table(None, pred)
    return lines


def render_review(model: str, dataset: str, sections: list[list[str]]) -> str:
    head = [f"# autogkb review: {model}", "",
            (f"Dataset `{dataset}`. Pairs are the one-to-one matches at or above the "
             "threshold; the reference headline score may also count extra predictions that "
             "reach it."), ""]
    return "\n".join(head + [line for section in sections for line in section]) + "\n"
