"""Time `python -m scievals autogkb score` on 2,000 predictions x 2,000 curated annotations.

Usage: python benchmarks/autogkb_scoring.py [--n 2000] [--seed 0] [--verify N] [--distinct]

Target (issue 12): the whole process (interpreter start, imports, reading, scoring,
printing) under 5 s on 2 cores; the reference loop needs about 384 s for this size.
Truth: the embedded ClinPGx phenotype rows replicated and shuffled (as the reference was
measured). Predictions: seeded perturbations of those rows (fields dropped, flipped, case
changed, words added or cut), so value variety is realistic. ``--verify N`` also runs the
straightforward pairwise loop (``metrics.reference_score``) on the first N x N and on the
full set when N >= n, and checks the scores are identical (bit for bit). ``--distinct``
makes Variant, Drug(s) and Phenotype different in every row (the worst case for the
distinct-value tables, where pruning does the work).
"""

from __future__ import annotations

import argparse
import json
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))

from scievals.autogkb.data import load_articles
from scievals.autogkb.metrics import FIELDS, reference_score


def perturb(row: dict, rng: random.Random, k: int) -> dict:
    out = {f: row.get(f) for f in FIELDS}
    for field in rng.sample(FIELDS, rng.randint(0, 3)):
        value = out[field] or ""
        out[field] = rng.choice([
            None, value.upper(), value + f" extra{k % 17}", " ".join(value.split()[:1]),
            {"increased": "decreased", "decreased": "increased"}.get(value, value),
        ])
    return out


def make(n: int, seed: int, distinct: bool = False) -> tuple[list[dict], list[dict]]:
    rng = random.Random(seed)
    rows = [r for a in load_articles().values() for r in a["var_pheno_ann"]]
    truths = [rows[i % len(rows)] for i in range(n)]
    rng.shuffle(truths)
    preds = [perturb(rows[rng.randrange(len(rows))], rng, k) for k in range(n)]
    if distinct:
        for side in (preds, truths):
            side[:] = [{**row, **{f: f"{row.get(f) or ''} u{k}{side is preds}"
                                  for f in ("Variant/Haplotypes", "Drug(s)", "Phenotype")}}
                       for k, row in enumerate(side)]
    return preds, truths


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--verify", type=int, default=0, help="check against the loop on N x N")
    parser.add_argument("--distinct", action="store_true", help="all free-text values distinct")
    args = parser.parse_args()
    preds, truths = make(args.n, args.seed, args.distinct)
    with tempfile.TemporaryDirectory() as tmp:
        pred_file, truth_file = Path(tmp) / "pred.json", Path(tmp) / "truth.json"
        pred_file.write_text(json.dumps(preds))
        truth_file.write_text(json.dumps(truths))
        start = time.perf_counter()
        done = subprocess.run(
            [sys.executable, "-m", "scievals", "autogkb", "score", "--pred", str(pred_file),
             "--truth", str(truth_file)],
            capture_output=True, text=True, check=True, cwd=ROOT,
            env={"PYTHONPATH": str(ROOT / "scripts"), "PATH": "/usr/bin:/bin"})
        wall = time.perf_counter() - start
    result = json.loads(done.stdout)
    label = " (distinct free text)" if args.distinct else ""
    print(f"{args.n} x {args.n}{label}: whole process {wall:.2f} s; score {result['score']!r}, "
          f"one-to-one {result['one_to_one_score']!r}")
    if args.verify:
        from scievals.autogkb.metrics import evaluate

        m = min(args.verify, args.n)
        start = time.perf_counter()
        loop = reference_score(preds[:m], truths[:m])
        loop_s = time.perf_counter() - start
        fast = result["score"] if m == args.n else evaluate(preds[:m], truths[:m]).score
        print(f"pairwise loop on {m} x {m}: {loop_s:.1f} s, score {loop!r}; "
              f"fast path {fast!r}; identical: {loop == fast}")
        return 0 if loop == fast else 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
