"""Regenerates ``_onerec_generated.py`` from ``onerec_example.fbs`` with flatc.

``python -m flowjob._src.data._regen_onerec`` rewrites the committed file;
``python -m flowjob._src.data._regen_onerec --output DIR`` writes it into DIR instead (the test
compares the two). Needs ``flatc`` on PATH (Debian/Ubuntu: the ``flatbuffers-compiler``
package); the committed file was made with flatc 2.0.8.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
SCHEMA = HERE / "onerec_example.fbs"
GENERATED = HERE / "_onerec_generated.py"


def generate(output: Path, flatc: str = "flatc") -> Path:
    """Runs ``flatc --python --gen-onefile`` on the schema; writes ``output/_onerec_generated.py``
    and returns its path."""
    with tempfile.TemporaryDirectory() as work:
        subprocess.run(
            [flatc, "--python", "--gen-onefile", "-o", work, str(SCHEMA)],
            check=True,
            capture_output=True,
            text=True,
        )
        made = Path(work) / f"{SCHEMA.stem}_generated.py"
        target = Path(output) / GENERATED.name
        shutil.copyfile(made, target)
    return target


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m flowjob._src.data._regen_onerec", description=__doc__
    )
    parser.add_argument(
        "--output",
        type=Path,
        default=HERE,
        help="folder to write _onerec_generated.py into (default: the package)",
    )
    parser.add_argument("--flatc", default="flatc", help="the flatc executable")
    args = parser.parse_args(argv)
    if shutil.which(args.flatc) is None:
        parser.error(
            f"{args.flatc} not found (Debian/Ubuntu: apt-get install flatbuffers-compiler)"
        )
    print(generate(args.output, args.flatc))
    return 0


if __name__ == "__main__":
    sys.exit(main())
