"""The sample viewer: every scored item of every model, for error analysis.

Per benchmark and model, each item (gating case, autogkb article, waza task run, abdev
fold) with its input or prompt, the raw reply or transcript, the expected answer beside
it, the parse status, each metric's value, the item's headline score, the grader/judge
rationale where there is one, and its tokens and cost. Two views: the items of one model
(filter by condition, outcome and text; sort by any column, the score included), and two
models side by side on the same items with the per-item score difference (the paired
comparison made visible). Every view and item has a stable link
(:mod:`scievals.common.sample_links`). What a benchmark contributes comes from the
function its registry entry names as ``samples``.

Scale: the page itself carries only an index (benchmark, model, conditions, item count);
each (benchmark, model)'s items are a separate ``samples/<benchmark>/<n>.js`` beside the
page, loaded when that model is opened by adding a ``<script src>`` (a file:// page cannot
``fetch()`` in Chromium, a script element can). When all items together stay under
``inline_limit`` bytes they are also embedded in the page (as inert JSON blocks, parsed on
demand), so the page works alone too: inside Snakemake's HTML report, or copied elsewhere.

Safety: data sits in the page as JSON with ``<``, ``>``, ``&`` and the JS line separators
escaped (no reply can close a script element), the script writes every value with
``textContent`` or as a form value, never as HTML, and links are ``#`` fragments built
from ``encodeURIComponent``.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Mapping
from html import escape
from pathlib import Path

from scievals import registry
from scievals.common.io import write_text
from scievals.common.sample_links import PAGE

TITLE = "scievals sample viewer"
DATA_CALLBACK = "scievalsSamples"  # what each per-model data file calls
RUNS_CALLBACK = "scievalsRuns"  # what the kept runs' index calls (scievals.interop.runlogs)
# Up to this many bytes of items in all, they are embedded in the page too (the default
# run's four benchmarks are about 0.35 MB); above, the page loads them from files only.
INLINE_LIMIT = 4_000_000
# The kept run logs' index (scievals.interop.runlogs), relative to results/report/samples.html.
RUNS_INDEX = "../runs/index.js"
# JSON text that is safe inside <script>: nothing can end the element or open a comment.
_SCRIPT_SAFE = str.maketrans({"<": "\\u003c", ">": "\\u003e", "&": "\\u0026",
                              "\u2028": "\\u2028", "\u2029": "\\u2029"})

def item_groups(root: str | Path, models: Mapping[str, Iterable[str]]) -> Iterator[tuple]:
    """((benchmark, model), that model's items as plain dicts), one model at a time, in the
    order of ``models`` (benchmark -> model names)."""
    for benchmark, names in models.items():
        reference = registry.get(benchmark).samples
        if reference is None:
            continue
        read = registry.resolve(reference)
        for model in names:
            yield (benchmark, model), [{"benchmark": benchmark, "model": model,
                                        **sample.as_dict()} for sample in read(Path(root), model)]


def collect(root: str | Path, models: Mapping[str, Iterable[str]]) -> list[dict]:
    """Every item of ``models`` (benchmark -> model names), as plain dicts, in order."""
    return [item for _, items in item_groups(root, models) for item in items]


def embedded_json(data) -> str:
    """``data`` as JSON text that can sit inside a script element unchanged."""
    return json.dumps(data, ensure_ascii=False, allow_nan=False).translate(_SCRIPT_SAFE)


def _entries(groups: Iterable[tuple], folder: str) -> Iterator[tuple[dict, str]]:
    """(index entry, items as JSON text) per (benchmark, model): the entry is what the page
    knows before the model is loaded, its ``file`` where the items are."""
    numbers: dict[str, int] = {}
    for (benchmark, model), items in groups:
        number = numbers[benchmark] = numbers.get(benchmark, -1) + 1
        yield {"key": f"{benchmark}/{model}", "benchmark": benchmark, "model": model,
               "file": f"{folder}/{benchmark}/{number:04d}.js", "n": len(items),
               "conditions": sorted({i["condition"] for i in items}),
               "score_name": next((i["score_name"] for i in items if i.get("score_name")),
                                  "")}, embedded_json(items)


def _data_file(entry: dict, text: str) -> str:
    return f"{DATA_CALLBACK}({embedded_json(entry['key'])}, {text});\n"


def data_script(key: str, items: list[dict]) -> str:
    """A data file's text: the call that hands ``items`` to the page under ``key`` (the
    kept run logs' viewer files, scievals.interop.runlogs, are these too)."""
    return _data_file({"key": key}, embedded_json(items))


def _page(index: list[dict], inline: list[str] | None, note: str, title: str,
          runs_index: str = "") -> str:
    blocks = "".join(f'<script type="application/json" id="data-{n}">{text}</script>'
                     for n, text in enumerate(inline or []))
    return viewer_html(index, blocks, note=note, title=title, runs_index=runs_index)


def viewer_files(groups: Mapping[tuple[str, str], list[dict]], page: str = PAGE,
                 note: str = "", inline_limit: int = INLINE_LIMIT,
                 title: str = TITLE, runs_index: str = "") -> dict[str, str]:
    """Relative path -> text of the page and its per-model data files for ``groups``
    ((benchmark, model) -> items; see the module docstring); the data folder is the page's
    name without ``.html``; ``runs_index``: the kept runs' index relative to the page."""
    entries = list(_entries(groups.items(), Path(page).stem))
    files = {entry["file"]: _data_file(entry, text) for entry, text in entries}
    texts = [text for _, text in entries]
    inline = texts if sum(map(len, texts)) <= inline_limit else None
    files[page] = _page([entry for entry, _ in entries], inline, note, title, runs_index)
    return files


def write_viewer(out: str | Path, models: Mapping[str, Iterable[str]], root: str | Path = ".",
                 note: str = "", inline_limit: int = INLINE_LIMIT,
                 runs_index: str = "") -> int:
    """Write the page and its data folder beside it, one model at a time (so memory does not
    grow with the models; each file atomically; data files of models no longer there are
    removed); the number of items. The page reads the kept runs from ``runs_index``
    (relative to it; the workflow's page: RUNS_INDEX), written empty here until the first
    run log fills it."""
    out = Path(out)
    if runs_index and not (out.parent / runs_index).exists():
        write_text(out.parent / runs_index, f"{RUNS_CALLBACK}([]);\n")
    folder = out.parent / out.stem
    stale = set(folder.glob("*/*.js")) if folder.is_dir() else set()
    index: list[dict] = []
    inline: list[str] | None = []
    size = 0
    for entry, text in _entries(item_groups(root, models), out.stem):
        path = out.parent / entry["file"]
        path.parent.mkdir(parents=True, exist_ok=True)
        write_text(path, _data_file(entry, text))
        stale.discard(path)
        index.append(entry)
        size += len(text)
        inline = inline if inline is not None and size <= inline_limit else None
        if inline is not None:
            inline.append(text)
    write_text(out, _page(index, inline, note, TITLE, runs_index))
    for path in stale:
        path.unlink()
    return sum(entry["n"] for entry in index)


_CSS = """
body{font-family:system-ui,sans-serif;margin:0;color:#222}
header{padding:.5em 1em;background:#f3f3f3;border-bottom:1px solid #ccc}
header h1{font-size:1.15em;margin:0 0 .3em 0;display:inline-block;margin-right:1em}
header .tabs button{margin-right:.3em}
header .tabs button.on{font-weight:bold;background:#cfe0ff}
.bar{margin-top:.3em}
.bar label{margin-right:.8em;white-space:nowrap}
.bar select{max-width:32em}
main{display:flex;height:calc(100vh - 7.5em)}
#list{flex:0 0 44%;overflow:auto;border-right:1px solid #ccc}
#detail{flex:1;overflow:auto;padding:0 1em}
table{border-collapse:collapse;width:100%;font-size:.85em}
th,td{padding:2px 6px;border-bottom:1px solid #eee;text-align:left;vertical-align:top}
th.sortable{cursor:pointer;text-decoration:underline dotted}
th.sorted-asc::after{content:" \\25B2"}
th.sorted-desc::after{content:" \\25BC"}
td.num{text-align:right;font-variant-numeric:tabular-nums}
#items tbody tr{cursor:pointer}
#items tbody tr:hover{background:#eef4ff}
#items tbody tr.selected{background:#cfe0ff}
.columns{display:flex;gap:.8em}
.columns>div{flex:1;min-width:0}
pre{white-space:pre-wrap;word-break:break-word;background:#fafafa;border:1px solid #ddd;
padding:.5em;max-height:45vh;overflow:auto;font-size:.82em}
pre{tab-size:4}
pre>div{min-height:1.2em}
.bad{color:#b00020;font-weight:bold}
.pos{color:#0a6b2d}.neg{color:#b00020}
#status{margin-left:1em;color:#555}
"""

_JS = """
'use strict';
const INDEX = JSON.parse(document.getElementById('sample-index').textContent);
const RUNS_INDEX = document.body.dataset.runsIndex || '';
const DATA = {};
const WAITING = {};
const el = id => document.getElementById(id);
const state = {view: 'items', run: '', runB: '', benchmark: '', model: '', modelB: '',
               condition: '*', outcome: '*', text: '', item: null, sort: null, desc: false};
for (const e of INDEX) e.run = e.run || '';
let ROWS = [];

window.scievalsSamples = function (key, items) {
  DATA[key] = items;
  for (const done of WAITING[key] || []) done(items);
  delete WAITING[key];
};
function entry(run, benchmark, model) {
  return INDEX.find(e => e.run === run && e.benchmark === benchmark && e.model === model);
}
// The kept run logs (results/runs/index.js, scievals.interop.runlogs): loaded once at the
// start; their entries join the index under their run id (a page without them, inside the
// HTML report say, shows the current results only).
const RUNS_BASE = RUNS_INDEX.replace(/index\\.js$/, '');
const RUN_LIMITED = {};
const RUN_MODELS = {};  // run -> benchmark -> its models, for the run menu's labels
window.scievalsRuns = function (entries) {
  for (const e of entries) {
    if (entry(e.run, e.benchmark, e.model)) continue;
    // one entry per model, its records' files as parts (an index of an older version: one
    // entry per record, its own file)
    const parts = (e.parts || [{key: e.key, file: e.file}])
      .map(p => ({key: p.key, file: RUNS_BASE + p.file}));
    INDEX.push(Object.assign({}, e, {parts: parts, file: parts[0].file}));
    RUN_LIMITED[e.run] = RUN_LIMITED[e.run] || e.limited;
    const models = (RUN_MODELS[e.run] = RUN_MODELS[e.run] || {});
    (models[e.benchmark] = models[e.benchmark] || []).push(e.model);
  }
};
function loadRuns() {
  return new Promise(resolve => {
    // only where a relative file can be (not inside the report's data: page)
    if (!RUNS_INDEX || !/^(file|https?):$/.test(location.protocol)) { resolve(); return; }
    const s = document.createElement('script');
    s.src = RUNS_INDEX; s.onload = () => resolve(); s.onerror = () => resolve();
    document.head.appendChild(s);
  });
}
// A kept run in the menu: its id, full or limited, and its benchmarks with their models.
const RUN_LABEL_CHARS = 110;
function runLabel(run) {
  if (run === '') return 'current results';
  const what = Object.entries(RUN_MODELS[run] || {})
    .map(([b, models]) => b + ': ' + models.join(', ')).join('; ');
  const label = run + (RUN_LIMITED[run] ? ' (limited) ' : ' (full) ') + what;
  return label.length > RUN_LABEL_CHARS ? label.slice(0, RUN_LABEL_CHARS - 1) + '\u2026'
    : label;
}
function loadFile(key, file) {
  if (DATA[key]) return Promise.resolve(DATA[key]);
  return new Promise((resolve, reject) => {
    const first = !WAITING[key];
    (WAITING[key] = WAITING[key] || []).push(resolve);
    if (!first) return;
    const s = document.createElement('script');
    s.src = file;
    s.onerror = () => reject(new Error('could not load ' + file +
      ' (the page reads its items from the folder beside it)'));
    document.head.appendChild(s);
  });
}
function load(e) {
  if (!e) return Promise.resolve([]);
  if (DATA[e.key]) return Promise.resolve(DATA[e.key]);
  const block = el('data-' + INDEX.indexOf(e));
  if (block) { DATA[e.key] = JSON.parse(block.textContent); return Promise.resolve(DATA[e.key]); }
  if (!e.parts) return loadFile(e.key, e.file);
  // a kept run's model: its records (one per condition) together
  return Promise.all(e.parts.map(p => loadFile(p.key, p.file)))
    .then(lists => (DATA[e.key] = [].concat(...lists)));
}
function fmt(v, digits) {
  if (v === null || v === undefined || v === '') return '-';
  if (typeof v !== 'number') return String(v);
  return digits === undefined ? String(v) : v.toFixed(digits);
}
function cell(row, text, cls) {
  const td = document.createElement('td'); td.textContent = text;
  if (cls) td.className = cls; row.appendChild(td); return td;
}
function options(select, values, keep, allLabel) {
  select.replaceChildren();
  if (allLabel) values = ['*', ...values];
  for (const v of values) {
    const o = document.createElement('option'); o.value = v;
    o.textContent = v === '*' ? allLabel : (v === '' ? '(none)' : v);
    select.appendChild(o);
  }
  select.value = values.includes(keep) ? keep : values[0];
  return select.value;
}
function setHash(hash, replace) {
  // the address always links to what is shown; a page the browser will not let change its
  // address (inside a report's data: URL, say) still works, without the link
  try { history[replace ? 'replaceState' : 'pushState'](null, '', hash); } catch (err) { }
}
function enc(parts) { return parts.map(encodeURIComponent).join('/'); }
// a kept run is one more part in front: run:<id> (and runb:<id> for B); current results none
function runParts(compare) {
  return [...(state.run ? ['run:' + state.run] : []),
          ...(compare && state.runB ? ['runb:' + state.runB] : [])];
}
function linkFor(item) {
  return '#' + enc([...runParts(false), item.benchmark, item.model, item.condition, item.item]);
}
function pairLink(r) {
  return '#' + enc(['compare', ...runParts(true), r.A.benchmark, state.model, state.modelB,
                    r.condition, r.item]);
}
function currentHash() {
  const cond = state.condition === '*' ? [] : [state.condition];
  const item = state.item && state.condition !== '*' ? [state.item] : [];
  if (state.view === 'compare')
    return '#' + enc(['compare', ...runParts(true), state.benchmark, state.model, state.modelB,
                      ...cond, ...item]);
  return '#' + enc([...runParts(false), state.benchmark, state.model, ...cond, ...item]);
}
function readHash() {
  const raw = location.hash.replace(/^#/, '');
  if (!raw) return;
  let parts;
  try { parts = raw.split('/').map(decodeURIComponent); } catch (err) { return; }
  const compare = parts[0] === 'compare';
  if (compare) parts.shift();
  state.run = ''; state.runB = '';
  while (parts.length && /^runb?:/.test(parts[0])) {
    const cut = parts[0].indexOf(':');
    state[parts[0].slice(0, cut) === 'run' ? 'run' : 'runB'] = parts[0].slice(cut + 1);
    parts.shift();
  }
  if (!compare) state.runB = state.run;
  if (compare) parts.unshift('compare');
  if (parts[0] === 'compare') {
    state.view = 'compare';
    [state.benchmark, state.model, state.modelB] = parts.slice(1, 4);
    state.condition = parts.length > 4 ? parts[4] : '*';
    state.item = parts.length > 5 ? parts.slice(5).join('/') : null;
  } else {
    state.view = 'items';
    [state.benchmark, state.model] = parts;
    state.condition = parts.length > 2 ? parts[2] : '*';
    state.item = parts.length > 3 ? parts.slice(3).join('/') : null;
  }
}
function runOptions(select, keep) {
  const runs = [...new Set(INDEX.map(e => e.run))];
  select.replaceChildren();
  for (const r of runs) {
    const o = document.createElement('option'); o.value = r; o.textContent = runLabel(r);
    select.appendChild(o);
  }
  select.value = runs.includes(keep) ? keep : runs[0];
  el('run-box').hidden = runs.length < 2;
  return select.value;
}
function syncControls() {
  state.run = runOptions(el('filter-run'), state.run);
  state.runB = runOptions(el('filter-run-b'), state.view === 'compare' ? state.runB : state.run);
  const benchmarks = [...new Set(INDEX.filter(e => e.run === state.run).map(e => e.benchmark))];
  state.benchmark = options(el('filter-benchmark'), benchmarks, state.benchmark);
  const modelsOf = run => INDEX.filter(e => e.run === run && e.benchmark === state.benchmark)
    .map(e => e.model);
  const models = modelsOf(state.run), modelsB = modelsOf(state.runB);
  state.model = options(el('filter-model'), models, state.model);
  const other = state.runB !== state.run;  // across runs, the same model is the natural B
  state.modelB = options(el('filter-model-b'), modelsB, modelsB.includes(state.modelB)
    ? state.modelB : modelsB.find(m => other ? m === state.model : m !== state.model)
      || modelsB.find(m => m !== state.model) || modelsB[0]);
  const conds = new Set();
  const wantedEntries = state.view === 'compare'
    ? [entry(state.run, state.benchmark, state.model),
       entry(state.runB, state.benchmark, state.modelB)]
    : [entry(state.run, state.benchmark, state.model)];
  for (const e of wantedEntries) {
    if (e) e.conditions.forEach(c => conds.add(c));
  }
  state.condition = options(el('filter-condition'), [...conds].sort(), state.condition, 'all');
  el('model-b').hidden = state.view !== 'compare';
  el('run-b').hidden = state.view !== 'compare';
  el('outcome-box').hidden = state.view === 'compare';
  for (const b of document.querySelectorAll('.tabs button'))
    b.classList.toggle('on', b.dataset.view === state.view);
}
const COLUMNS = {
  items: [['item', 'item'], ['condition', 'condition'], ['outcome', 'outcome'],
          ['score', 'score', 1], ['cost USD', 'cost_usd', 1]],
  compare: [['item', 'item'], ['condition', 'condition'], ['score A', 'a', 1],
            ['score B', 'b', 1], ['B - A', 'diff', 1]],
};
function header() {
  const tr = el('items').tHead.rows[0]; tr.replaceChildren();
  for (const [label, key, numeric] of COLUMNS[state.view]) {
    const th = document.createElement('th'); th.textContent = label;
    th.className = 'sortable' + (state.sort === key ? (state.desc ? ' sorted-desc' : ' sorted-asc') : '');
    th.dataset.key = key; if (numeric) th.dataset.numeric = '1';
    th.addEventListener('click', () => {
      state.desc = state.sort === key ? !state.desc : !!numeric;
      state.sort = key; render();
    });
    tr.appendChild(th);
  }
}
function sortRows(rows) {
  if (!state.sort) return rows;
  const key = state.sort, sign = state.desc ? -1 : 1;
  return rows.slice().sort((x, y) => {
    const a = x[key], b = y[key];
    const na = a === null || a === undefined, nb = b === null || b === undefined;
    if (na || nb) return na === nb ? 0 : (na ? 1 : -1);  // missing values last either way
    return (typeof a === 'number' ? a - b : String(a).localeCompare(String(b))) * sign;
  });
}
function textMatch(item, text) {
  return !text || (item.item + ' ' + item.input + ' ' + item.reply + ' ' + item.expected)
    .toLowerCase().includes(text);
}
function setStatus(text) { el('status').textContent = text; }
// A link naming a benchmark or model this page lacks: said, instead of another model shown.
function missingInHash() {
  if (!INDEX.some(e => e.benchmark === state.benchmark))
    return 'no benchmark ' + state.benchmark + ' in this viewer';
  const modelsOf = run => INDEX.filter(e => e.run === run && e.benchmark === state.benchmark)
    .map(e => e.model);
  const named = state.view === 'compare' ? [[state.run, state.model], [state.runB, state.modelB]]
    : [[state.run, state.model]];
  const gone = named.filter(([run, m]) => !modelsOf(run).includes(m));
  return gone.length ? 'no model ' + gone.map(([run, m]) => m + (run ? ' @ ' + run : ''))
    .join(', ') + ' of ' + state.benchmark + ' in this viewer (its models: '
    + modelsOf(gone[0][0]).join(', ') + ')' : '';
}
async function refresh(fromHash) {
  const started = performance.now();
  const missing = fromHash ? missingInHash() : '';
  syncControls();
  if (missing) {
    ROWS = []; render(); setStatus(missing);
    const d = el('detail'); d.replaceChildren(heading(missing));
    document.body.dataset.ready = '1'; return;
  }
  // Back to a view without an item: the item of the view left (another benchmark's) goes
  if (!state.item) el('detail').replaceChildren();
  if (!fromHash) setHash(currentHash(), true);
  const wanted = state.view === 'compare' ? [[state.run, state.model], [state.runB, state.modelB]]
    : [[state.run, state.model]];
  setStatus('loading ' + wanted.map(w => w[1]).join(' and ') + ' ...');
  let loaded;
  try {
    loaded = await Promise.all(wanted.map(([r, m]) => load(entry(r, state.benchmark, m))));
  } catch (err) { setStatus(String(err.message)); console.error(err.message); return; }
  setStatus('');
  if (state.view === 'compare') ROWS = pairs(loaded[0], loaded[1]);
  else {
    ROWS = loaded[0];
    const outcomes = [...new Set(ROWS.map(i => i.outcome))].sort();
    state.outcome = options(el('filter-outcome'), outcomes, state.outcome, 'all');
  }
  render();
  if (state.item) {
    const item = ROWS.find(i => i.item === state.item && i.condition === state.condition);
    if (!item) setStatus('no item ' + state.item + ' here');
    else {
      if (state.view === 'compare') showPair(item); else show(item);
      mark(el('items').tBodies[0].rows[visibleRows.indexOf(item)]);
    }
  }
  // for benchmarks/viewer_scale.py: when the first view was ready, how long the last took
  window.scievalsTiming = {firstReadyMs: (window.scievalsTiming || {}).firstReadyMs
    || performance.now(), lastRefreshMs: performance.now() - started};
  document.body.dataset.ready = '1';
}
// Items pair on (condition, item); an arm with one condition that the other lacks (a
// baseline's "baseline" against an LLM's prompt conditions) pairs with each condition of the
// other on the item alone, as the comparisons pair a baseline (pairNote says so on the page).
let pairNote = '';
function pairs(itemsA, itemsB) {
  const conds = items => [...new Set(items.map(i => i.condition))];
  const cA = conds(itemsA), cB = conds(itemsB);
  const across = (cA.length === 1 || cB.length === 1) && !cA.some(c => cB.includes(c));
  const aSingle = across && cA.length === 1;
  pairNote = !across ? '' : aSingle
    ? ' (A has one condition, ' + cA[0] + ', paired with each condition of B)'
    : ' (B has one condition, ' + cB[0] + ', paired with each condition of A)';
  const key = i => across ? i.item : i.condition + '\\u0000' + i.item;
  const lookup = new Map((aSingle ? itemsA : itemsB).map(i => [key(i), i]));
  const out = [];
  for (const x of (aSingle ? itemsB : itemsA)) {
    const y = lookup.get(key(x));
    if (!y) continue;
    const a = aSingle ? y : x, b = aSingle ? x : y;
    const diff = a.score !== null && b.score !== null ? b.score - a.score : null;
    out.push({item: x.item, condition: x.condition, a: a.score, b: b.score, diff: diff,
              A: a, B: b});
  }
  return out;
}
function visible() {
  const text = el('filter-text').value.toLowerCase();
  return ROWS.filter(r => (state.condition === '*' || r.condition === state.condition)
    && (state.view === 'compare' ? textMatch(r.A, text) || textMatch(r.B, text)
        : (state.outcome === '*' || r.outcome === state.outcome) && textMatch(r, text)));
}
let visibleRows = [];
function render() {
  header();
  const body = el('items').tBodies[0]; body.replaceChildren();
  const shown = visibleRows = sortRows(visible());
  const noun = state.view === 'compare' ? ' paired items' : ' items';
  let summary = shown.length + ' of ' + ROWS.length + noun
    + (state.view === 'compare' ? pairNote : '');
  if (state.view === 'compare') {
    const d = shown.map(r => r.diff).filter(v => v !== null);
    if (d.length) summary += '; mean B - A ' + fmt(d.reduce((s, v) => s + v, 0) / d.length, 4)
      + ' (B higher on ' + d.filter(v => v > 0).length + ', lower on '
      + d.filter(v => v < 0).length + ')';
  }
  el('count').textContent = summary;
  for (const r of shown) {
    const row = document.createElement('tr');
    cell(row, r.item); cell(row, r.condition);
    if (state.view === 'compare') {
      cell(row, fmt(r.a, 4), 'num'); cell(row, fmt(r.b, 4), 'num');
      cell(row, fmt(r.diff, 4), 'num ' + (r.diff > 0 ? 'pos' : r.diff < 0 ? 'neg' : ''));
      row.addEventListener('click', () => {
        state.item = r.item; setHash(pairLink(r), false); showPair(r); mark(row);
      });
    } else {
      const bad = !['scored', 'passed', 'ok', '-'].includes(r.outcome);
      cell(row, r.outcome, bad ? 'bad' : '');
      cell(row, fmt(r.score, 4), 'num'); cell(row, fmt(r.cost_usd, 5), 'num');
      row.addEventListener('click', () => {
        state.item = r.item; setHash(linkFor(r), false); show(r); mark(row);
      });
    }
    body.appendChild(row);
  }
}
function mark(row) {
  for (const r of el('items').querySelectorAll('tr.selected')) r.classList.remove('selected');
  if (row) row.classList.add('selected');
}
// Long lines wrap inside the pane (nothing is cut at its right edge) and keep their
// indentation: each line is a block whose wrapped part is indented two more than the
// line's own leading spaces (kept in the text, so a copy keeps them), so a tree's levels
// (the expected tree beside a reply) stay readable in a narrow pane.
function pre(title, text) {
  const box = document.createElement('div');
  const h = document.createElement('h3'); h.textContent = title;
  const p = document.createElement('pre');
  for (const line of String(text || '(none)').split('\\n')) {
    const width = line.match(/^[ \\t]*/)[0].replace(/\\t/g, '    ').length + 2;
    const div = document.createElement('div');
    div.style.paddingLeft = width + 'ch'; div.style.textIndent = -width + 'ch';
    div.textContent = line;
    p.appendChild(div);
  }
  box.append(h, p); return box;
}
function columns(...boxes) {
  const div = document.createElement('div'); div.className = 'columns'; div.append(...boxes);
  return div;
}
function factTable(rows) {
  const t = document.createElement('table');
  for (const r of rows) {
    const tr = document.createElement('tr');
    r.forEach((v, i) => cell(tr, v, i ? 'num' : '')); t.appendChild(tr);
  }
  return t;
}
function heading(text, href) {
  const h = document.createElement('h2'); h.textContent = text;
  if (href) {
    const a = document.createElement('a'); a.href = href; a.textContent = ' (link)';
    a.className = 'permalink'; h.appendChild(a);
  }
  return h;
}
function show(item) {
  const d = el('detail'); d.replaceChildren();
  d.appendChild(heading(item.benchmark + ' / ' + item.model + ' / ' + item.item, linkFor(item)));
  const rows = [['condition', item.condition || '(none)'], ['outcome', item.outcome],
    ['score' + (item.score_name ? ' (' + item.score_name + ')' : ''), fmt(item.score, 4)],
    ['parse status', item.parse_status],
    ['tokens in / out', fmt(item.tokens_in) + ' / ' + fmt(item.tokens_out)],
    ['cost (USD)', fmt(item.cost_usd, 6)], ['latency (s)', fmt(item.latency_s, 2)]];
  d.appendChild(factTable(rows));
  d.appendChild(columns(pre('Expected', item.expected), pre('Reply', item.reply)));
  d.appendChild(factTable(Object.entries(item.metrics).map(([n, v]) => [n, fmt(v, 4)])));
  d.appendChild(pre('Input / prompt', item.input));
  d.appendChild(pre('Rationale', item.rationale));
}
function showPair(r) {
  const d = el('detail'); d.replaceChildren();
  const runNote = run => run ? ' @ ' + run : '';
  const conditions = r.A.condition === r.B.condition ? r.condition || '(none)'
    : 'A ' + (r.A.condition || '(none)') + ', B ' + (r.B.condition || '(none)');
  d.appendChild(heading(r.A.benchmark + ' / ' + r.item + ': ' + r.A.model + runNote(state.run)
    + ' (A) vs ' + r.B.model + runNote(state.runB) + ' (B), condition ' + conditions,
    pairLink(r)));
  const rows = [['', 'A', 'B', 'B - A'],
    ['score' + (r.A.score_name ? ' (' + r.A.score_name + ')' : ''), fmt(r.a, 4), fmt(r.b, 4),
     fmt(r.diff, 4)], ['outcome', r.A.outcome, r.B.outcome, '']];
  const names = [...new Set([...Object.keys(r.A.metrics), ...Object.keys(r.B.metrics)])];
  for (const n of names) {
    const a = r.A.metrics[n], b = r.B.metrics[n];
    const both = typeof a === 'number' && typeof b === 'number';
    rows.push([n, fmt(a, 4), fmt(b, 4), both ? fmt(b - a, 4) : '-']);
  }
  d.appendChild(factTable(rows));
  d.appendChild(columns(pre('Expected', r.A.expected),
                        pre('Reply A: ' + r.A.model, r.A.reply),
                        pre('Reply B: ' + r.B.model, r.B.reply)));
  d.appendChild(pre('Input / prompt', r.A.input));
  d.appendChild(columns(pre('Rationale A', r.A.rationale), pre('Rationale B', r.B.rationale)));
}
function control(id, key) {
  el(id).addEventListener('change', () => {
    state[key] = el(id).value; state.item = null; refresh(false);
  });
}
control('filter-run', 'run'); control('filter-run-b', 'runB');
control('filter-benchmark', 'benchmark'); control('filter-model', 'model');
control('filter-model-b', 'modelB'); control('filter-condition', 'condition');
el('filter-outcome').addEventListener('change', () => { state.outcome = el('filter-outcome').value; render(); });
el('filter-text').addEventListener('input', render);
for (const b of document.querySelectorAll('.tabs button'))
  b.addEventListener('click', () => { state.view = b.dataset.view; state.sort = null; state.item = null;
                                      el('detail').replaceChildren(); refresh(false); });
// an edited address, and Back/Forward over the items opened (pushState fires no hashchange)
window.addEventListener('hashchange', () => { readHash(); refresh(true); });
window.addEventListener('popstate', () => { readHash(); refresh(true); });
loadRuns().then(() => {
  if (INDEX.length) { readHash(); refresh(!!location.hash); }
  else { el('count').textContent = 'no items'; document.body.dataset.ready = '1'; }
});
"""


def viewer_html(index: list[dict], data_blocks: str = "", title: str = TITLE,
                note: str = "", runs_index: str = "") -> str:
    """The page: the index and any embedded data blocks (see the module docstring);
    ``runs_index`` is where the kept runs' index is, relative to the page ("" for none)."""
    def select(name: str, label: str) -> str:
        return f'<label>{label} <select id="filter-{name}"></select></label>'

    return (
        f'<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>{escape(title)}'
        f"</title><style>{_CSS}</style></head>"
        f'<body data-runs-index="{escape(runs_index)}"><header><h1>{escape(title)}</h1>'
        '<span class="tabs"><button data-view="items">Items of one model</button>'
        '<button data-view="compare">Two models side by side</button></span>'
        f'<div class="bar"><span id="run-box" hidden>{select("run", "run")}'
        f'<span id="run-b" hidden>{select("run-b", "vs run B")}</span></span>'
        f'{select("benchmark", "benchmark")}'
        f'{select("model", "model")}<span id="model-b" hidden>'
        f'{select("model-b", "vs model B")}</span>{select("condition", "condition")}'
        f'<span id="outcome-box">{select("outcome", "outcome")}</span>'
        '<label>text <input id="filter-text" type="search"></label>'
        '<span id="count"></span><span id="status"></span></div>'
        + (f"<p>{escape(note)}</p>" if note else "")
        + '</header><main><div id="list"><table id="items"><thead><tr></tr></thead>'
        '<tbody></tbody></table></div><div id="detail"><p>Click an item to see its expected '
        "answer beside the reply, its input, metrics and cost; click a column heading to sort."
        "</p></div></main>"
        f'<script type="application/json" id="sample-index">{embedded_json(index)}</script>'
        f"{data_blocks}<script>{_JS}</script></body></html>\n")
