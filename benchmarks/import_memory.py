"""Peak memory of ``python -m scievals import`` on a zip bomb and on a big valid log (issue 45
items 1 and 2; figures in docs/importing-logs.md).

Run from the repository root:

    PYTHONPATH=scripts python benchmarks/import_memory.py [--bomb-mb 600] [--samples 200000]

- bombs: a ``.eval`` whose one sample entry expands to ``--bomb-mb`` MB (zstd with an honest
  size header, zstd with a lying one, deflate; tests/support/zip_bombs.py), imported with
  the default entry cap;
- a valid inspect_ai ``.json`` log of ``--samples`` samples (each a copy of a sample of the
  real inspect_ai 0.3.285 log tests/interop/data/inspect/b.json, its events and messages
  dropped, so a sample is about 1 KB, as in the issue's 199 MB log of 1,000,000), and the
  same samples as a ``.eval`` zip.

Each import runs in its own child process (``python -m scievals import``); the table gives
the file's size, the child's peak resident set (``ru_maxrss`` of the children), its exit
code and wall time, and for the valid logs the peak as a multiple of the file.
"""

from __future__ import annotations

import argparse
import copy
import json
import os
import subprocess
import sys
import tempfile
import time
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
from support.zip_bombs import KINDS, write_bomb  # noqa: E402

TEMPLATE = ROOT / "tests/interop/data/inspect/b.json"


def big_logs(folder: Path, samples: int) -> list[Path]:
    log = json.loads(TEMPLATE.read_text())
    template = {k: v for k, v in log["samples"][0].items()
                if k not in ("events", "messages", "attachments", "store")}
    log["samples"] = []
    plain = folder / "big.json"
    head = {k: v for k, v in log.items() if k != "samples"}
    with open(plain, "w") as handle:  # written in a stream: the whole log is never held
        handle.write(json.dumps(head)[:-1] + ', "samples": [')
        for i in range(samples):
            sample = copy.deepcopy(template)
            sample["id"] = f"s{i}"
            sample["scores"]["includes"]["value"] = "C" if i % 3 else "I"
            handle.write(("," if i else "") + json.dumps(sample))
        handle.write("]}")
    zipped = folder / "big.eval"
    with zipfile.ZipFile(zipped, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("header.json", json.dumps(head))
        for i in range(samples):
            sample = copy.deepcopy(template)
            sample["id"] = f"s{i}"
            archive.writestr(f"samples/s{i}_epoch_1.json", json.dumps(sample))
    return [plain, zipped]


def child(path: Path, out: Path) -> dict:
    env = {**os.environ, "PYTHONPATH": str(ROOT / "scripts")}
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", CHILD, str(path), str(out)],
                          capture_output=True, text=True, env=env)
    wall = time.perf_counter() - start
    row = json.loads(done.stdout.strip().splitlines()[-1])
    return {**row, "wall_s": wall, "file_mb": path.stat().st_size / 1e6}


CHILD = r"""
import contextlib, io, json, resource, sys
from scievals.cli import main
err = io.StringIO()
with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
    try:
        code = main(["import", sys.argv[1], "--out", sys.argv[2]])
    except SystemExit as exc:
        code = exc.code
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(json.dumps({"code": code, "peak_mb": peak, "err": err.getvalue().strip()[:160]}))
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bomb-mb", type=int, default=600)
    parser.add_argument("--samples", type=int, default=200_000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        print("file, file MB, peak MB, peak / file, exit, wall s")
        for kind in KINDS:
            bomb = write_bomb(folder / f"{kind}.eval", kind, args.bomb_mb * 1000**2)
            row = child(bomb, folder / "out")
            print(f"bomb {kind} ({args.bomb_mb} MB expanded), {row['file_mb']:.3f}, "
                  f"{row['peak_mb']:.0f}, -, {row['code']}, {row['wall_s']:.1f}  {row['err']}")
            bomb.unlink()
        for path in big_logs(folder, args.samples):
            row = child(path, folder / "out")
            print(f"{path.name} ({args.samples:,} samples), {row['file_mb']:.0f}, "
                  f"{row['peak_mb']:.0f}, {row['peak_mb'] / row['file_mb']:.2f}, "
                  f"{row['code']}, {row['wall_s']:.1f}")


if __name__ == "__main__":
    main()
