"""The sample viewer with many abdev models (issue 28): page size, build time, and how soon
it is usable in headless Chromium.

Usage: python benchmarks/viewer_scale.py [--models 300] [--repeats 3]

Builds a results folder of ``--models`` abdev models on the embedded GDPa1-demo (246
antibodies, 5 folds): seeded random predictions, and per-fold Spearman rows as the score
tables hold them (scipy, no bootstrap: the viewer only reads them). Then writes the viewer
twice, as the workflow does (index page + one data file per model, loaded on demand) and
with every model inline in the page (how the viewer was before), and opens each in
headless Chromium: the time from navigation start until the first model's items are listed
(``window.scievalsTiming.firstReadyMs``), then the time to switch to the middle model and
to open the first and last model side by side (``lastRefreshMs``). Medians of
``--repeats`` fresh browser profiles; the machine's load moves them, ratios less.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd
from scipy.stats import spearmanr

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from report.browser import find_chromium, visit
from scievals.abdev.constants import DEFAULT_FOLD_COL, PROPERTY_LIST
from scievals.abdev.data import DEMO_CSV
from scievals.abdev.samples import PREDICTIONS, SCORES
from scievals.abdev.workflow import TRUTH
from scievals.report.viewer import compare_link, item_link, write_viewer


def build_root(root: Path, n_models: int) -> list[str]:
    """``n_models`` abdev models' prediction files and score tables under ``root``."""
    truth = pd.read_csv(DEMO_CSV)
    (root / TRUTH).parent.mkdir(parents=True, exist_ok=True)
    truth.to_csv(root / TRUTH, index=False)
    rng = np.random.default_rng(0)
    models = [f"team_{i:04d}" for i in range(n_models)]
    for model in models:
        pred = truth[["antibody_name", DEFAULT_FOLD_COL]].copy()
        rows = []
        for assay in PROPERTY_LIST:
            # truth plus noise of a per-model size: Spearman from near 1 down to near 0
            noise = rng.normal(0, 1 + 4 * rng.random(), len(truth)) * truth[assay].std()
            pred[assay] = truth[assay].fillna(truth[assay].mean()) + noise
            for fold, group in pred.groupby(DEFAULT_FOLD_COL):
                known = truth.loc[group.index, assay].notna()
                rho = spearmanr(group.loc[known, assay], truth.loc[group.index[known], assay])
                rows.append({"condition": f"fold={int(fold)}", "metric": f"{assay}:spearman",
                             "value": rho.statistic})
        for path, frame in ((PREDICTIONS, pred), (SCORES, pd.DataFrame(rows))):
            target = root / path.format(model=model)
            target.parent.mkdir(parents=True, exist_ok=True)
            frame.to_csv(target, index=False)
    return models


def select(name: str, value: str) -> str:
    return (f"js:(() => {{ const s = document.getElementById('{name}'); s.value = '{value}';"
            f" s.dispatchEvent(new Event('change')); return s.value === '{value}'; }})()")


def measure(page: Path, models: list[str], profile: Path) -> tuple[float, float, float]:
    """(first view ready, switch to the middle model, open first vs last side by side), ms."""
    timing = "window.scievalsTiming"
    first = visit(page.as_uri(), profile / "a", settle_s=1.0, timeout_s=300,
                  clicks=(select("filter-model", models[len(models) // 2]),),
                  probe=f"[{timing}.firstReadyMs, {timing}.lastRefreshMs,"
                        " document.getElementById('count').textContent]")
    if first.errors or not first.probe:
        sys.exit(f"viewer_scale: the page failed in Chromium: {first.errors}")
    link = compare_link("abdev", models[0], models[-1]).split("#", 1)[1]
    pair = visit(page.as_uri() + "#" + link, profile / "b", settle_s=1.0, timeout_s=300,
                 probe=f"[{timing}.lastRefreshMs, document.getElementById('count').textContent]")
    if pair.errors or not pair.probe or "paired items" not in pair.probe[1]:
        sys.exit(f"viewer_scale: the side-by-side view failed: {pair.errors} {pair.probe}")
    return first.probe[0], first.probe[1], pair.probe[0]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", type=int, default=300)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    if not find_chromium():
        sys.exit("viewer_scale: needs chromium (Debian: apt-get install -y chromium)")
    with tempfile.TemporaryDirectory(prefix="viewer-scale-") as tmp:
        root = Path(tmp) / "wf"
        models = build_root(root, args.models)
        print(f"{args.models} abdev models, 5 fold items each; links look like "
              f"{item_link('abdev', models[0], 'fold=0', 'fold=0')}")
        for label, limit in (("on demand", 0), ("all inline", 10**12)):
            out = Path(tmp) / label.replace(" ", "_") / "samples.html"
            started = time.process_time()
            write_viewer(out, {"abdev": models}, root=root, inline_limit=limit)
            build = time.process_time() - started
            data = list((out.parent / "samples").glob("*/*.js"))
            sizes = [p.stat().st_size for p in data]
            runs = [measure(out, models, Path(tmp) / f"profile-{label}-{i}".replace(" ", "_"))
                    for i in range(args.repeats)]
            ready, switch, pair = (statistics.median(r[i] for r in runs) for i in range(3))
            print(f"{label:>10}: page {out.stat().st_size / 1e3:,.0f} kB, data files "
                  f"{len(data)} x {statistics.mean(sizes) / 1e3:,.1f} kB; build "
                  f"{build:.1f} CPU-s; first view ready {ready:,.0f} ms, switch model "
                  f"{switch:,.0f} ms, side by side {pair:,.0f} ms "
                  f"(median of {args.repeats})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
