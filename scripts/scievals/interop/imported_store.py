"""Where ``import`` keeps its tables (``results/imported/<model>__<task>__<sha256 8>.csv``),
their ids (``imported:<8 hex>``, as ``logs`` lists them) and their bounds.

Kept imports are bounded as run logs are (``run_logs`` in config.yaml): past
:data:`IMPORTED_BOUNDS` the oldest tables go after an import, never one that import wrote.
"""

from __future__ import annotations

from pathlib import Path

IMPORTED_DIR = Path("results/imported")
IMPORTED_PREFIX = "imported:"
# Kept imports are bounded as run logs are (run_logs in config.yaml): past this many tables
# or megabytes, the oldest go; never a table the current `import` wrote.
IMPORTED_BOUNDS = {"keep": 200, "max_mb": 500}


def imported_tables(imported_dir: str | Path = IMPORTED_DIR) -> list[Path]:
    """The tables ``import`` kept, by name (``<model>__<task>__<sha256 8>.csv``)."""
    folder = Path(imported_dir)
    return sorted(p for p in folder.glob("*__*__*.csv") if p.is_file()) if folder.is_dir() \
        else []


def imported_id(path: Path) -> str:
    """``imported:<8 hex>``: the kept table's digest of its log, as ``logs`` prints it."""
    return IMPORTED_PREFIX + path.stem.rpartition("__")[2]


def prune_imported(imported_dir: str | Path, written: set[Path],
                   bounds: dict = IMPORTED_BOUNDS) -> list[Path]:
    """Remove the oldest kept imports (by time written) past ``bounds``, sparing
    ``written``; the tables removed."""
    tables = sorted(imported_tables(imported_dir), key=lambda p: (p.stat().st_mtime, p.name))
    spared = {p.resolve() for p in written}
    count, total = len(tables), sum(p.stat().st_size for p in tables)
    removed = []
    for table in tables:
        if count <= bounds["keep"] and total <= bounds["max_mb"] * 1e6:
            break
        if table.resolve() in spared:
            continue
        size = table.stat().st_size
        table.unlink()
        removed.append(table)
        count, total = count - 1, total - size
    return removed


def imported_lines(imported_dir: str | Path = IMPORTED_DIR) -> list[str]:
    """``logs``' second part: one line per kept import (id, model, tasks, items)."""
    tables = imported_tables(imported_dir)
    if not tables:
        return []
    out = ["", f"{'import':<18} {'model':<30} task(s)   (kept by `python -m scievals import`)"]
    for path in tables:
        model, _, rest = path.stem.partition("__")
        task = rest.rpartition("__")[0]
        out.append(f"{imported_id(path):<18} {model[:30]:<30} {task}")
    return out
