"""Hook of the multi-turn-refactor suite: fail (exit 3) when a fixture is missing."""

import sys
from pathlib import Path

missing = [name for name in sys.argv[1:] if not Path(name).is_file()]
if missing:
    print(f"missing fixture(s): {', '.join(missing)}")
    sys.exit(3)
print(f"fixtures present: {', '.join(sys.argv[1:])}")
