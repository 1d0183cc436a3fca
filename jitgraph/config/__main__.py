"""``python -m jitgraph.config [FLAG ...]``: print every flag, or the named ones.

Each flag is shown with its allowed values, doc, current value and where the value came from.
An unknown flag name prints the closest known names to stderr and exits with status 1.
"""

from __future__ import annotations

import sys

from jitgraph.config import config
from jitgraph.config.core import closest
from jitgraph.config.sources import normalize_key


def main(argv: list[str] | None = None) -> int:
    """Entry point; returns the exit status."""
    args = sys.argv[1:] if argv is None else argv
    if any(a in ("-h", "--help") for a in args):
        print(__doc__.strip())
        return 0
    if not args:
        print(config)
        return 0
    status = 0
    for name in args:
        if name in config:
            print(config.describe(normalize_key(name)))
            continue
        near = closest(normalize_key(name), list(config.flag_names()), n=5)
        hint = f" Closest flags: {', '.join(near)}." if near else ""
        print(f"jitgraph.config: unknown flag {name!r}.{hint}", file=sys.stderr)
        status = 1
    return status


if __name__ == "__main__":
    sys.exit(main())
