"""The sample viewer: one static HTML page with every scored item of every model.

Per benchmark and model, each item (gating case, autogkb article, waza task run, abdev
fold) with its input or prompt, the raw reply or transcript, the parse status, each
metric's value, the grader/judge rationale where there is one, and its tokens and cost;
filterable by benchmark, model, condition and outcome, searchable by text. What a
benchmark contributes comes from the function its registry entry names as ``samples``.

The page needs no server and no network: CSS and JS are inline, the items are embedded as
JSON in a ``<script type="application/json">`` block (with ``<``, ``>``, ``&`` and the
JS line separators escaped, so no reply can close the block), and the script writes
every value with ``textContent``, never as HTML.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from html import escape
from pathlib import Path

from scievals import benchmarks as registry
from scievals.common.io import write_text

TITLE = "scievals sample viewer"
# JSON text that is safe inside <script>: nothing can end the element or open a comment.
_SCRIPT_SAFE = str.maketrans({"<": "\\u003c", ">": "\\u003e", "&": "\\u0026",
                              "\u2028": "\\u2028", "\u2029": "\\u2029"})


def collect(root: str | Path, models: dict[str, Iterable[str]]) -> list[dict]:
    """Every item of ``models`` (benchmark -> model names), as plain dicts, in order."""
    items = []
    for benchmark, names in models.items():
        reference = registry.get(benchmark).samples
        if reference is None:
            continue
        read = registry.resolve(reference)
        for model in names:
            for sample in read(Path(root), model):
                items.append({"benchmark": benchmark, "model": model, **sample.as_dict()})
    return items


def embedded_json(data) -> str:
    """``data`` as JSON text that can sit inside a script element unchanged."""
    return json.dumps(data, ensure_ascii=False, allow_nan=False).translate(_SCRIPT_SAFE)


_CSS = """
body{font-family:system-ui,sans-serif;margin:0;color:#222}
header{padding:.6em 1em;background:#f3f3f3;border-bottom:1px solid #ccc}
header h1{font-size:1.2em;margin:0 0 .4em 0}
#filters label{margin-right:1em;white-space:nowrap}
main{display:flex;height:calc(100vh - 6.5em)}
#list{flex:0 0 46%;overflow:auto;border-right:1px solid #ccc}
#detail{flex:1;overflow:auto;padding:0 1em}
table{border-collapse:collapse;width:100%;font-size:.85em}
th,td{padding:2px 6px;border-bottom:1px solid #eee;text-align:left;vertical-align:top}
#items tbody tr{cursor:pointer}
#items tbody tr:hover{background:#eef4ff}
#items tbody tr.selected{background:#cfe0ff}
pre{white-space:pre-wrap;word-break:break-word;background:#fafafa;border:1px solid #ddd;
padding:.5em;max-height:40vh;overflow:auto;font-size:.85em}
.bad{color:#b00020;font-weight:bold}
"""

_JS = """
const ITEMS = JSON.parse(document.getElementById('sample-data').textContent);
const FILTERS = ['benchmark', 'model', 'condition', 'outcome'];
const el = id => document.getElementById(id);
function fmt(v, digits) {
  if (v === null || v === undefined || v === '') return '-';
  return typeof v === 'number' ? (Number.isInteger(v) ? String(v) : v.toFixed(digits)) : String(v);
}
function cell(row, text, cls) {
  const td = document.createElement('td'); td.textContent = text;
  if (cls) td.className = cls; row.appendChild(td); return td;
}
function fillSelect(name) {
  const select = el('filter-' + name);
  const values = [...new Set(ITEMS.map(i => i[name]))].sort();
  for (const v of values) {
    const o = document.createElement('option'); o.value = v; o.textContent = v === '' ? '(none)' : v;
    select.appendChild(o);
  }
  select.addEventListener('change', render);
}
function visible() {
  const text = el('filter-text').value.toLowerCase();
  return ITEMS.filter(i => FILTERS.every(f => {
      const v = el('filter-' + f).value; return v === '*' || i[f] === v; })
    && (!text || (i.item + ' ' + i.input + ' ' + i.reply).toLowerCase().includes(text)));
}
function render() {
  const body = el('items').tBodies[0]; body.replaceChildren();
  const shown = visible();
  el('count').textContent = shown.length + ' of ' + ITEMS.length + ' items';
  for (const item of shown) {
    const row = document.createElement('tr');
    row.dataset.index = ITEMS.indexOf(item);
    for (const f of ['benchmark', 'model', 'condition', 'item']) cell(row, item[f]);
    const bad = !['scored', 'passed', 'ok', '-'].includes(item.outcome);
    cell(row, item.outcome, bad ? 'bad' : '');
    cell(row, fmt(item.cost_usd, 5));
    row.addEventListener('click', () => show(item, row));
    body.appendChild(row);
  }
}
function section(title, text) {
  const h = document.createElement('h3'); h.textContent = title;
  const pre = document.createElement('pre'); pre.textContent = text || '(none)';
  el('detail').append(h, pre);
}
function show(item, row) {
  for (const r of el('items').querySelectorAll('tr.selected')) r.classList.remove('selected');
  if (row) row.classList.add('selected');
  const d = el('detail'); d.replaceChildren();
  const h = document.createElement('h2');
  h.textContent = item.benchmark + ' / ' + item.model + ' / ' + item.item;
  d.appendChild(h);
  const facts = document.createElement('table');
  const rows = [['condition', item.condition || '(none)'], ['outcome', item.outcome],
    ['parse status', item.parse_status], ['tokens in / out', fmt(item.tokens_in) + ' / ' + fmt(item.tokens_out)],
    ['cost (USD)', fmt(item.cost_usd, 6)], ['latency (s)', fmt(item.latency_s, 2)]];
  for (const [name, value] of Object.entries(item.metrics)) rows.push([name, fmt(value, 4)]);
  for (const [k, v] of rows) { const tr = document.createElement('tr'); cell(tr, k); cell(tr, v); facts.appendChild(tr); }
  d.appendChild(facts);
  section('Input / prompt', item.input);
  section('Reply', item.reply);
  section('Rationale', item.rationale);
}
FILTERS.forEach(fillSelect);
el('filter-text').addEventListener('input', render);
render();
"""


def viewer_html(items: list[dict], title: str = TITLE, note: str = "") -> str:
    """The self-contained page (see the module docstring)."""
    filters = "".join(
        f'<label>{name} <select id="filter-{name}"><option value="*">all</option></select>'
        f"</label>" for name in ("benchmark", "model", "condition", "outcome"))
    head = "".join(f"<th>{h}</th>" for h in
                   ("benchmark", "model", "condition", "item", "outcome", "cost USD"))
    return (
        f'<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>{escape(title)}'
        f"</title><style>{_CSS}</style></head><body><header><h1>{escape(title)}</h1>"
        f'<div id="filters">{filters}<label>text <input id="filter-text" type="search">'
        f'</label><span id="count"></span></div>'
        + (f"<p>{escape(note)}</p>" if note else "")
        + f'</header><main><div id="list"><table id="items"><thead><tr>{head}</tr></thead>'
        f'<tbody></tbody></table></div><div id="detail"><p>Click an item to see its input, '
        f"reply, metrics and cost.</p></div></main>"
        f'<script type="application/json" id="sample-data">{embedded_json(items)}</script>'
        f"<script>{_JS}</script></body></html>\n")


def write_viewer(out: str | Path, models: dict[str, Iterable[str]], root: str | Path = ".",
                 note: str = "") -> int:
    """Collect every item and write the page (atomically); the number of items."""
    items = collect(root, models)
    write_text(out, viewer_html(items, note=note))
    return len(items)
