"""Smoke runs: a benchmark's items cut to a few before any model sees them.

``limit: N`` at the top of the config caps every benchmark that has items to send to a
model; ``<benchmark>: {limit: N}`` caps one, and an id list (``gating: {cases: [...]}``,
``autogkb: {articles: [...]}``) picks the items by id. The curate step applies the
selection (waza's predict step: the first N tasks of each suite), so predict jobs send
requests for the kept items only, and the
dataset label of every table row says "limited to N items": a limited run is never read
as a full result, and history and ``compare`` see a different dataset, not changed numbers.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import TypeVar

from scievals.common import notices
from scievals.common.errors import ScievalsError
from scievals.common.names import named_with_hints

T = TypeVar("T")


def selection(config: dict, benchmark: str, ids_key: str) -> dict | None:
    """The item selection of one benchmark (``{"limit": N or None, "ids": [...] or None}``),
    or None for a full run. The section's own ``limit`` wins over the top-level one."""
    limit = item_limit(config, benchmark)
    ids = (config.get(benchmark) or {}).get(ids_key)
    if limit is None and not ids:
        return None
    return {"limit": limit, "ids": list(ids) if ids else None, "key": f"{benchmark}.{ids_key}"}


def item_limit(config: dict, benchmark: str) -> int | None:
    """The item limit of one benchmark (its section's, else the top-level one), or None."""
    section = config.get(benchmark) or {}
    return section.get("limit", config.get("limit"))


def limited_params(chosen: dict | None) -> dict:
    """The curate rule's ``selection`` param, present only in a limited run (so adding this
    feature changed no param of a full run's jobs, and a full run after a limited one
    re-curates because the param went away)."""
    return {"selection": chosen} if chosen else {}


def select(items: Sequence[T], chosen: dict | None, item_id: Callable[[T], str]) -> list[T]:
    """``items`` (in their order) kept by the selection: the listed ids, then the first
    ``limit`` of them. An id that names no item is an error naming the known ones."""
    kept = list(items)
    if not chosen:
        return kept
    if chosen.get("ids"):
        known = [item_id(item) for item in items]
        unknown = [i for i in chosen["ids"] if i not in set(known)]
        if unknown:
            shown = ", ".join(named_with_hints(unknown, known))
            raise ScievalsError(f"config: {chosen['key']}", f"unknown id(s) {shown}",
                                f"use ids of the curated items (known: {', '.join(known[:12])}"
                                + (", ..." if len(known) > 12 else "") + ")")
        wanted = set(chosen["ids"])
        kept = [item for item in kept if item_id(item) in wanted]
    if chosen.get("limit") is not None:
        kept = kept[: chosen["limit"]]
    return kept


def limited_label(dataset: str, chosen: dict | None, n_kept: int, n_all: int) -> str:
    """The dataset label of a limited run: ``<dataset> (limited to N items)``; unchanged when
    nothing was cut (a selection that keeps every item is a full run)."""
    if not chosen or n_kept >= n_all:
        return dataset
    return f"{dataset} (limited to {n_kept} item{'s' if n_kept != 1 else ''})"


def unlimited_label(dataset: str) -> tuple[str, str]:
    """(the dataset label without its "limited to N items" part, that part or ""): the
    inverse of :func:`limited_label`, so a smoke run's items pair with a full run's."""
    match = LIMITED_LABEL.search(dataset)
    if not match:
        return dataset, ""
    return dataset[:match.start()], match.group(1)


LIMITED_LABEL = re.compile(r" \((limited to \d+ items?)\)$")


def limited_summary(chosen: dict | None, n_kept: int, n_all: int) -> dict | None:
    """What the curation report records about the cut (None for a full run)."""
    if not chosen or n_kept >= n_all:
        return None
    return {"kept": n_kept, "of": n_all, "limit": chosen.get("limit"), "ids": chosen.get("ids")}


def say_limited(benchmark: str, scope: str) -> None:
    """The end of the run reminds that these results are a smoke run's (``scope``: on what,
    e.g. "2 of 15 cases"); a notice of the job that cut the items, so every run that reuses
    them says it again."""
    notices.record("limited", benchmark, f"a smoke run on {scope}: not a full result (every "
                   "table says 'limited to ...'); drop the limit for one")
