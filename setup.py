"""Stops an install on an older Python with one line, before pip resolves anything: pip does
not check ``requires-python`` of the project being installed first, and on Python 3.10 it
reports a misleading pinned-version conflict instead (numpy/scipy pins in constraints.txt
have no 3.10 wheels). Everything else is in pyproject.toml."""

import sys

if sys.version_info < (3, 11):  # noqa: UP036 - the point of this file
    sys.exit("scievals needs Python >= 3.11 (this is Python {}.{}): create the venv with "
             "python3.11 or newer, e.g. python3.11 -m venv .venv".format(*sys.version_info[:2]))

from setuptools import setup

setup()
