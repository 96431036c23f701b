"""The gating timings are one set of figures: docs/performance.md and docs/gating.md agree."""

from __future__ import annotations

import re

from scievals.gating.paths import REPO_DIR


def _figures(pattern: str, text: str) -> tuple[str, ...]:
    found = re.search(pattern, text, re.DOTALL)
    assert found, pattern
    return found.groups()


def test_performance_and_gating_docs_give_the_same_timings():
    readme = (REPO_DIR / "docs" / "performance.md").read_text(encoding="utf-8")
    docs = (REPO_DIR / "docs" / "gating.md").read_text(encoding="utf-8")
    # benchmarks/gating_scoring.py: cold and warm seconds.
    scoring_readme = _figures(r"\| ([\d.]+) s cold, ([\d.]+) s warm \| [^|]* \| "
                              r"`benchmarks/gating_scoring.py`", readme)
    scoring_docs = _figures(r"gating_scoring.py`:.*?in ([\d.]+) s cold.*?, ([\d.]+) s warm", docs)
    assert scoring_readme == scoring_docs
    # benchmarks/workflow_default_run.py --target gating: cold run and no-op re-run.
    workflow_readme = _figures(r"\| ([\d.]+) s / ([\d.]+) s \| [^|]* \| "
                               r"`benchmarks/workflow_default_run.py --target gating", readme)
    workflow_docs = _figures(r"--target gating --cold-limit 30`:.*?([\d.]+) s cold.*?"
                             r"([\d.]+) s no-op", docs)
    assert workflow_readme == workflow_docs
