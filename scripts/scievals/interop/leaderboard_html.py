"""``leaderboard --html FILE``: one self-contained page (no network, no other file) with the
board's tables and a per-item side-by-side of any two arms of a task: the item's input and
target, each arm's answer and scores, from what the logs hold (:mod:`item_details`).

Tables sit in boxes that scroll sideways instead of being cut at the right; long texts wrap
with their indentation kept (``white-space: pre-wrap``). The items travel as one JSON block
(:func:`scievals.report.viewer.embedded_json`: safe inside a script element) and a few lines
of script fill the side-by-side when two arms are picked.
"""

from __future__ import annotations

import math
from html import escape

from scievals.interop.leaderboard import Board
from scievals.report.viewer import embedded_json

STYLE = """
body { font-family: system-ui, sans-serif; margin: 1.5em; color: #222; }
.scroll { overflow-x: auto; max-width: 100%; margin-bottom: 0.5em; }
table { border-collapse: collapse; font-size: 0.9em; }
th, td { border: 1px solid #ccc; padding: 0.25em 0.5em; vertical-align: top; text-align: left; }
th { background: #f3f3f3; }
td.num { text-align: right; white-space: nowrap; }
td pre { white-space: pre-wrap; margin: 0; min-width: 16em; max-width: 40em;
         font-family: ui-monospace, monospace; font-size: 0.85em; }
.footer { color: #555; font-size: 0.9em; }
.diff { background: #fff4d6; }
"""

SCRIPT = """
const DATA = JSON.parse(document.getElementById('items').textContent);
const pick = (id) => document.getElementById(id);
function options(select, names) {
  select.innerHTML = '';
  names.forEach((n) => { const o = document.createElement('option'); o.textContent = n;
                         select.appendChild(o); });
}
function cell(row, text, cls) {
  const td = document.createElement('td'); if (cls) td.className = cls;
  const pre = document.createElement('pre'); pre.textContent = text; td.appendChild(pre);
  row.appendChild(td);
}
function scores(entry) {
  if (!entry) return '-';
  return Object.entries(entry.scores).map(([m, v]) => m + ' ' + v).join('\\n');
}
function fill() {
  const task = DATA[pick('task').value];
  const a = pick('arm-a').value, b = pick('arm-b').value;
  const body = pick('side-body'); body.innerHTML = '';
  pick('head-a').textContent = 'answer: ' + a; pick('head-b').textContent = 'answer: ' + b;
  pick('score-a').textContent = 'scores: ' + a; pick('score-b').textContent = 'scores: ' + b;
  const keys = new Set([...Object.keys(task.arms[a] || {}), ...Object.keys(task.arms[b] || {})]);
  [...keys].sort().forEach((key) => {
    const ea = (task.arms[a] || {})[key], eb = (task.arms[b] || {})[key];
    const first = ea || eb;
    const tr = document.createElement('tr');
    cell(tr, first.item); cell(tr, String(first.sample));
    cell(tr, first.input || '-'); cell(tr, first.target || '-');
    const differ = scores(ea) !== scores(eb);
    cell(tr, ea ? (ea.answer || '-') : '(not in this log)');
    cell(tr, scores(ea), differ ? 'diff' : '');
    cell(tr, eb ? (eb.answer || '-') : '(not in this log)');
    cell(tr, scores(eb), differ ? 'diff' : '');
    body.appendChild(tr);
  });
}
function arms() {
  const names = Object.keys(DATA[pick('task').value].arms);
  options(pick('arm-a'), names); options(pick('arm-b'), names);
  if (names.length > 1) pick('arm-b').selectedIndex = 1;
  fill();
}
options(pick('task'), Object.keys(DATA));
pick('task').onchange = arms; pick('arm-a').onchange = fill; pick('arm-b').onchange = fill;
arms();
"""


def _number(value, digits: int = 3) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)) or str(value) == "<NA>":
        return "-"
    return f"{value:.{digits}f}" if isinstance(value, float) else str(value)


def tables_html(board: Board) -> str:
    """The board's tables as HTML, each in a box that scrolls sideways."""
    out = []
    for (task, metric), rows in board.rows.groupby(["task", "metric"], sort=False):
        out.append(f"<h3>{escape(task)} / {escape(metric)}</h3>")
        out.append('<div class="scroll"><table><tr><th>rank</th><th>arm</th><th>mean</th>'
                   "<th>95 % CI</th><th>n</th><th>tokens in</th><th>tokens out</th>"
                   "<th>cost (USD)</th><th>log</th></tr>")
        for row in rows.itertuples():
            out.append(
                f"<tr><td>{escape(str(row.rank))}</td><td>{escape(row.arm)}</td>"
                f'<td class="num">{row.value:.3f}</td>'
                f'<td class="num">[{row.ci_low:.3f}, {row.ci_high:.3f}] '
                f"({escape(row.ci_method)})</td><td class=\"num\">{row.n}</td>"
                f'<td class="num">{_number(row.tokens_in)}</td>'
                f'<td class="num">{_number(row.tokens_out)}</td>'
                f'<td class="num">{_number(row.cost_usd, 4)}</td><td>{escape(row.log)}</td></tr>')
        out.append("</table></div>")
        out.append(f'<p class="footer">{escape(board.footers[(task, metric)])}</p>')
    return "\n".join(out)


def items_data(board: Board) -> dict:
    """task -> {"arms": {label: {"item#sample": {item, sample, input, target, answer,
    scores {metric: value}}}}}: what the side-by-side shows."""
    data = {}
    for task, arms in board.arms.items():
        per_arm = {}
        for arm in arms:
            texts = board.details[(task, arm.label)].texts
            entries: dict[str, dict] = {}
            for row in arm.run.rows.itertuples():
                key = f"{row.item}#{row.sample}"
                entry = entries.get(key)
                if entry is None:
                    text = texts.get((task, str(row.item), int(row.sample)), {})
                    entry = entries[key] = {"item": str(row.item), "sample": int(row.sample),
                                            "input": text.get("input", ""),
                                            "target": text.get("target", ""),
                                            "answer": text.get("answer", ""), "scores": {}}
                entry["scores"][str(row.metric)] = float(f"{row.score:.6g}")
            per_arm[arm.label] = entries
        data[task] = {"arms": per_arm}
    return data


def page(board: Board) -> str:
    """The whole page (module docstring)."""
    notes = "".join(f"<li>{escape(n)}</li>" for n in board.notes)
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>scievals leaderboard of logs</title>
<style>{STYLE}</style></head><body>
<h1>Leaderboard of logs</h1>
<p>Means with 95 % intervals; ranks from paired tests (Holm-adjusted, 5 % level): arms the
tests do not separate share a rank (<code>1=</code>).</p>
{tables_html(board)}
{f"<h2>Notes</h2><ul>{notes}</ul>" if notes else ""}
<h2>Item by item</h2>
<p>task <select id="task"></select> arm A <select id="arm-a"></select>
arm B <select id="arm-b"></select> (scores that differ are marked)</p>
<div class="scroll"><table><thead><tr><th>item</th><th>sample</th><th>input</th>
<th>target</th><th id="head-a">answer A</th><th id="score-a">scores A</th>
<th id="head-b">answer B</th><th id="score-b">scores B</th></tr></thead>
<tbody id="side-body"></tbody></table></div>
<script type="application/json" id="items">{embedded_json(items_data(board))}</script>
<script>{SCRIPT}</script>
</body></html>
"""
