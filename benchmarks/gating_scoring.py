"""Time scoring 1,000 predicted gating hierarchies against their truths (target < 2 s).

Usage: python benchmarks/gating_scoring.py [--n 1000] [--seed 0]

Predictions are seeded perturbations of the embedded verified/staging OMIP cases
(gates dropped, renamed, re-parented, hallucinated markers added, case and
spelling varied), so the name caches see realistic variety. Prints the cold time
(caches cleared, Truth objects built inside the timing) and the warm time.
"""

from __future__ import annotations

import argparse
import copy
import json
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "scripts"))

from scievals.gating import markers, metrics, normalize, panel
from scievals.gating.cases import validation_problems
from scievals.gating.metrics import Truth, evaluate
from scievals.gating.paths import OMIP_STAGING_DIR, OMIP_VERIFIED_DIR
from scievals.gating.tree import clean_tree, walk

EXTRA = ["CCR7+", "CD38+", "PD-1+", "Tregs", "Plasmablasts", "HLA-DR+ CD14-", "Ki67+ cells",
         "Time gate", "Beads", "CD161+ MAIT"]


def perturb(root: dict, rng: random.Random, k: int) -> dict:
    tree = copy.deepcopy(root)
    nodes = [n for n, _, _ in walk(tree)]
    for n in nodes:
        r = rng.random()
        if r < 0.15:
            n["children"] = n["children"][: max(0, len(n["children"]) - 1)]
        elif r < 0.35:
            n["name"] = n["name"].upper() if rng.random() < 0.5 else n["name"] + f" (v{k % 97})"
        elif r < 0.45 and n["children"]:
            n["children"].append(copy.deepcopy(rng.choice(n["children"])))
    for _ in range(rng.randint(0, 4)):
        rng.choice(nodes)["children"].append({"name": rng.choice(EXTRA) + f" {k % 13}",
                                              "markers": [], "children": []})
    return tree


def load_cases() -> list[dict]:
    cases = []
    for folder in (OMIP_VERIFIED_DIR, OMIP_STAGING_DIR):
        for path in sorted(folder.glob("*.json")):
            case = json.loads(path.read_text())
            if not validation_problems(case):
                cases.append(case)
    return cases


def clear_caches() -> None:
    for func in (normalize.norm, normalize.norm_reference, normalize.sem,
                 markers.marker_references, panel.marker_keys, markers.hallucinated,
                 metrics._reference_flag):
        func.cache_clear()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    cases = load_cases()
    pairs = []
    for k in range(args.n):
        case = cases[k % len(cases)]
        pairs.append((clean_tree(perturb(clean_tree(case), rng, k)), case))
    n_gates = sum(sum(1 for _ in walk(p)) for p, _ in pairs)

    clear_caches()
    start = time.perf_counter()
    truths = {}
    for pred, case in pairs:
        cid = case["test_case_id"]
        if cid not in truths:
            truths[cid] = Truth.from_case(case)
        evaluate(pred, truths[cid])
    cold = time.perf_counter() - start

    start = time.perf_counter()
    for pred, case in pairs:
        evaluate(pred, truths[case["test_case_id"]])
    warm = time.perf_counter() - start
    print(f"scored {args.n} hierarchies ({n_gates} predicted gates, {len(truths)} truths)")
    print(f"cold: {cold:.3f} s ({1000 * cold / args.n:.2f} ms each); warm: {warm:.3f} s")
    print(f"target < 2 s: {'met' if cold < 2 else 'MISSED'}")


if __name__ == "__main__":
    main()
