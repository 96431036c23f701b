"""Side-by-side markdown review: true vs predicted hierarchy, per case and condition.

Truth lines are marked ✓ (a predicted gate matches it) or ✗ (missed); prediction
lines ✓ (matches a true gate), + (extra) and ⚠ (hallucinated marker or population).
Trees sit in an HTML table inside the markdown so both keep their indentation.
"""

from __future__ import annotations

import html

from scievals.gating import tree as T
from scievals.gating.metrics import Truth, evaluate

_SHOWN = ("hierarchy_f1", "synonym_f1", "structure_accuracy", "structure_coverage",
          "critical_gate_recall", "hallucination_rate", "depth_accuracy")


def _marked(root: dict, status: dict[str, str]) -> str:
    marks = {id(n): status.get(n["name"], "") for n, _, _ in T.walk(root)}
    return html.escape("\n".join(T.render(root, marks)))


def case_section(truth: Truth, record: dict) -> str:
    pred = record.get("hierarchy")
    scores = evaluate(pred, truth, details=True)
    info = scores["details"]
    truth_status = {n: " ✓" for n in truth.names}
    truth_status.update({n: " ✗" for n in info.get("missing", [])})
    header = (f"### {truth.case_id} — {record['condition']}"
              + (f" (sample {record['sample_index']})" if record.get("sample_index") else ""))
    metrics = ", ".join(f"{m} {scores[m]:.3f}" for m in _SHOWN)
    lines = [header, "", metrics, ""]
    if pred is None:
        lines += [(f"Prediction not parsed: {html.escape(str(record.get('parse_error')))}"
                  f" (task failure: {record.get('task_failure')})"), ""]
        right = html.escape((record.get("raw_text") or "")[:2000]) or "(empty)"
    else:
        pred_status = {n: " ✓" for n in info["matched"]}
        pred_status.update({n: " +" for n in info["extra"]})
        pred_status.update({n: pred_status.get(n, "") + " ⚠" for n in info["hallucinated"]})
        right = _marked(pred, pred_status)
        if info["hallucinated"]:
            lines += ["Hallucinated: " + "; ".join(
                f"{html.escape(k)} ({v})" for k, v in info["hallucinated"].items()), ""]
        if info["missing_critical"]:
            lines += ["Missing critical gates: " + ", ".join(info["missing_critical"]), ""]
    lines += [
        ("<table><tr><th>Truth</th><th>Prediction "
        f"({html.escape(str(record.get('parse_method') or '-'))})</th></tr>"),
        (f"<tr><td valign=\"top\"><pre>{_marked(truth.root, truth_status)}</pre></td>"
        f"<td valign=\"top\"><pre>{right}</pre></td></tr></table>"),
        "",
    ]
    return "\n".join(lines)


def render_review(model: str, truths: dict[str, Truth], records: list[dict]) -> str:
    """The review document for one model: cases in id order, then conditions."""
    ordered = sorted(records, key=lambda r: (r["case_id"], r["condition"], r.get("sample_index", 0)))
    parts = [f"# Gating review: {model}", "",
             ("✓ matched, ✗ missed (truth), + extra, ⚠ hallucinated (prediction). "
             "Scores are per prediction; tables average them per case."), ""]
    current = None
    for record in ordered:
        if record["case_id"] != current:
            current = record["case_id"]
            parts += [f"## {current}", ""]
        parts.append(case_section(truths[current], record))
    return "\n".join(parts) + "\n"
