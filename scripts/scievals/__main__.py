import sys

from scievals.common import interrupts

# Before the heavy imports, so Ctrl-C at any moment ends in one line and exit code 130.
interrupts.install()
try:
    from scievals.cli import main

    code = main()
except KeyboardInterrupt:
    print("interrupted", file=sys.stderr)
    code = 130
raise SystemExit(code)
