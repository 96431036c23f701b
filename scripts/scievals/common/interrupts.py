"""Ctrl-C that stays Ctrl-C.

pandas' C reader turns a KeyboardInterrupt raised while it reads into a ``ParserError``
("Calling read(nbytes) on source failed"), so an interrupted ``compare`` blamed an intact
file as "not a readable CSV". The command line installs :func:`install`, whose handler
remembers the interrupt before raising it; readers that translate parser errors ask
:func:`seen` first and re-raise the interrupt instead.
"""

from __future__ import annotations

import signal
import threading

_seen = False


def _handler(signum, frame) -> None:
    global _seen
    _seen = True
    raise KeyboardInterrupt


def install() -> None:
    """Use the remembering handler (main thread only; elsewhere Python's default stays)."""
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGINT, _handler)


def seen() -> bool:
    """Whether Ctrl-C was pressed since :func:`install` (or a test's :func:`reset`)."""
    return _seen


def reset() -> None:
    global _seen
    _seen = False


def check() -> None:
    """Raise KeyboardInterrupt if Ctrl-C was pressed (a swallowed interrupt comes back)."""
    if _seen:
        raise KeyboardInterrupt
