"""Score cache cost: keeping and restoring own files' score tables, and the score-code digest
(issue 34 items 1-3, scievals.common.score_cache, scievals.common.code_digest).

Usage (from the repository root):

    python benchmarks/score_cache_cost.py [--files 300] [--repeat 5]

In a temporary folder, ``--files`` own files' jobs each get an abdev-sized table (24 KB) and
reference table (2.8 KB), the sizes the embedded demo's tables have. Timed, in CPU seconds
of this process (the best of ``--repeat`` rounds): keeping every file's tables
(``score_cache.keep``) and restoring all of them (``score_cache.split``, what a batch job does
for the files that did not change). Then the digest of each registered benchmark's score code,
in a fresh interpreter each (the once-per-process cost a Snakefile parse or a batch job pays).

Run it against another checkout's package to compare (``PYTHONPATH=<other>/scripts``): a
package without ``scievals.common.code_digest`` prints the cache figures only.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

if not os.environ.get("PYTHONPATH"):
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "scripts"))

from scievals.common import score_cache  # noqa: E402
from scievals.common.jobs import ScoreJob  # noqa: E402

TABLE_BYTES, REFERENCE_BYTES = 24_200, 2_800
ROW = ("abdev,GDPa1-demo_cross_validation,{sha},{model},fold=0,HIC:spearman,0.3986654245981557,"
       "0.17297189351441672,0.5722889007615941,54,percentile-cluster,0.1.0,0123abc,fd467087bcbf\n")


def text(model: str, size: int) -> str:
    row = ROW.format(sha="3b" * 32, model=model)
    return (row * (size // len(row) + 1))[:size]


def jobs(folder: Path, files: int) -> list[ScoreJob]:
    (folder / "own").mkdir()
    (folder / "truth.csv").write_text("antibody_name,HIC\nx,1\n")
    out = []
    for i in range(files):
        model = f"own_{i:05d}"
        (folder / "own" / f"{model}.csv").write_text(f"antibody_name,HIC\nx,{i}\n")
        out.append(ScoreJob(
            benchmark="abdev", model=model, predictions=(folder / "own" / f"{model}.csv",),
            truth={"truth": folder / "truth.csv"},
            outputs={"table": folder / "scores" / f"{model}.csv",
                     "reference": folder / "scores" / f"{model}.reference.csv"},
            origin=f"predictions/abdev/{model}.csv"))
    return out


def one_round(files: int) -> tuple[float, float]:
    """(CPU-s to keep every file's tables, CPU-s to restore them all)."""
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        old = os.getcwd()
        os.chdir(folder)  # the cache folder is relative, as in a workflow job
        try:
            batch = jobs(folder, files)
            (folder / "scores").mkdir()
            todo, keys = score_cache.split(batch, "abdev-metrics-v4")
            assert len(todo) == files
            for job in batch:
                job.outputs["table"].write_text(text(job.model, TABLE_BYTES))
                job.outputs["reference"].write_text(text(job.model, REFERENCE_BYTES))
            start = time.process_time()
            for job, key in zip(batch, keys, strict=True):
                score_cache.keep(job, key)
            kept = time.process_time() - start
            shutil.rmtree(folder / "scores")  # as Snakemake does before it runs the job
            start = time.process_time()
            todo, _ = score_cache.split(batch, "abdev-metrics-v4")
            restored = time.process_time() - start
            assert todo == [], "every table should have come back"
        finally:
            os.chdir(old)
    return kept, restored


DIGEST = ("import time, sys; from scievals.common.code_digest import score_code_digest; "
          "t = time.process_time(); score_code_digest(sys.argv[1]); "
          "print(time.process_time() - t)")


def digest_cost(benchmark: str, repeat: int) -> float | None:
    env = dict(os.environ)
    env.setdefault("PYTHONPATH", str(Path(__file__).resolve().parents[1] / "scripts"))
    best = None
    for _ in range(repeat):
        proc = subprocess.run([sys.executable, "-c", DIGEST, benchmark], env=env,
                              capture_output=True, text=True, check=False)
        if proc.returncode != 0:
            return None
        value = float(proc.stdout)
        best = value if best is None else min(best, value)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--files", type=int, default=300)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    rounds = [one_round(args.files) for _ in range(args.repeat)]
    kept = min(r[0] for r in rounds)
    restored = min(r[1] for r in rounds)
    print(f"package: {Path(score_cache.__file__).parents[2]}")
    print(f"{args.files} own files: keep {kept:.3f} CPU-s ({kept / args.files * 1000:.2f} ms "
          f"per file), restore {restored:.3f} CPU-s ({restored / args.files * 1000:.2f} ms "
          "per file)")
    from scievals import registry

    for name in registry.NAMES:
        cost = digest_cost(name, args.repeat)
        if cost is None:
            print("no scievals.common.code_digest in this package")
            break
        print(f"score code digest of {name}: {cost * 1000:.1f} ms CPU (fresh process)")


if __name__ == "__main__":
    main()
