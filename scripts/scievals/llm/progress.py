"""Progress of a batch: a tqdm bar on a terminal, a log line every ~10 % otherwise."""

from __future__ import annotations

import logging
import sys

log = logging.getLogger("scievals.llm")


class Progress:
    def __init__(self, total: int, label: str, done: int = 0, tty: bool | None = None) -> None:
        self.total = total
        self.label = label
        self.done = done
        self._next_decile = self._decile(done) + 1
        self._bar = None
        if tty is None:
            tty = sys.stderr.isatty()
        if tty and total:
            from tqdm import tqdm  # the 'llm' extra; only on a terminal

            self._bar = tqdm(total=total, initial=done, desc=label, unit="req", file=sys.stderr)

    def _decile(self, done: int) -> int:
        return (10 * done) // self.total if self.total else 10

    def update(self, n: int = 1) -> None:
        self.done += n
        if self._bar is not None:
            self._bar.update(n)
            return
        decile = self._decile(self.done)
        if decile >= self._next_decile:
            self._next_decile = decile + 1
            log.info("%s: %d/%d done (%d %%)", self.label, self.done, self.total, 10 * decile)

    def close(self) -> None:
        if self._bar is not None:
            self._bar.close()
            self._bar = None
