"""Writes the parity-table counts into docs/guides/migrating.md (issue 46).

``python scripts/parity_tables.py [--oneflow CLONE] [--check]`` reads OneFlow v0.4.0 from the
clone (default ``$FLOWJOB_ONEFLOW_SRC``) and rewrites the page's section between its markers;
``--check`` only says whether the page is current (exit status 1 when it is not).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from flowjob._src.compat.parity import report

PAGE = Path(__file__).resolve().parents[1] / "docs" / "guides" / "migrating.md"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--oneflow", help="OneFlow git clone (default: $FLOWJOB_ONEFLOW_SRC)")
    parser.add_argument("--check", action="store_true", help="only check the page")
    args = parser.parse_args(argv)
    page = PAGE.read_text()
    new = report.replace_section(page, report.section(args.oneflow))
    if args.check:
        if new != page:
            print(f"{PAGE} is out of date: run python scripts/parity_tables.py", file=sys.stderr)
            return 1
        return 0
    PAGE.write_text(new)
    return 0


if __name__ == "__main__":
    sys.exit(main())
