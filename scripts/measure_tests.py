"""Measures what the README and the site state about the tests and the demo, and writes it.

    .venv/bin/python scripts/measure_tests.py              # the whole suite, then the demo
    .venv/bin/python scripts/measure_tests.py --demo-only  # the demo's accuracy only
    .venv/bin/python scripts/measure_tests.py --tests-only [PYTEST ARGS...]

The suite's count of tests (passed, skipped, failed) and its wall time, and the demo's test
accuracy with oneDNN's and XLA's convolutions, each with the machine it ran on (CPU model,
cores, load average), go to docs/_generated/measured-{tests,demo}.md (included by the site's
pages) and between the README's ``<!-- measured:tests -->`` / ``<!-- measured:demo -->``
markers. tests/docs/test_measured.py checks that the README says what the files say.
"""

from __future__ import annotations

import argparse
import datetime
import os
import platform
import re
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
GENERATED = REPO / "docs" / "_generated"


def machine() -> str:
    """``<CPU model>, <n> cores, load <1-min average>`` of this machine, now."""
    model = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            found = re.search(r"^model name\s*:\s*(.+)$", f.read(), re.M)
        model = found.group(1).strip() if found else model
    except OSError:
        pass
    return f"{model}, {os.cpu_count()} cores, load {os.getloadavg()[0]:.1f}"


def today() -> str:
    return datetime.date.today().isoformat()


def measure_tests(pytest_args: list[str]) -> str:
    start_machine = machine()
    start = time.monotonic()
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *pytest_args],
        cwd=REPO,
        capture_output=True,
        text=True,
    )
    log = Path(os.environ.get("MEASURE_LOG", "/tmp/flowjob-measure-tests.log"))
    log.write_text(proc.stdout + proc.stderr, encoding="utf-8")
    print(f"pytest's output: {log}")
    minutes = (time.monotonic() - start) / 60
    lines = [line for line in proc.stdout.splitlines() if re.search(r"\d+ (passed|failed)", line)]
    summary = lines[-1] if lines else ""
    counts = dict(
        (kind, int(n))
        for n, kind in re.findall(r"(\d+) (passed|failed|skipped|errors?|xfailed|xpassed)", summary)
    )
    if not counts:
        sys.exit(f"pytest gave no summary line (rc={proc.returncode}):\n{proc.stdout[-3000:]}")
    total = sum(counts.values())
    parts = ", ".join(f"{n:,} {kind}" for kind, n in counts.items())
    where = f"`pytest {' '.join(pytest_args)}`" if pytest_args else "The whole suite"
    return (
        f"{where}: **{total:,} tests** "
        f"({parts}) in **{minutes:.0f} minutes**, measured {today()} on {start_machine} "
        f"(at the start; {machine().rsplit(', ', 1)[1]} at the end), without the OneFlow clones "
        "(their tests skip).\n"
    )


def count_tests(pytest_args: list[str]) -> str:
    """The suite's size only (``--count-only``: no run, so no time), e.g. on a machine too
    busy to time it meaningfully."""
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "--collect-only",
            "-q",
            "-p",
            "no:cacheprovider",
            *pytest_args,
        ],
        cwd=REPO,
        capture_output=True,
        text=True,
    )
    found = re.search(r"(\d+) tests? collected", proc.stdout)
    if proc.returncode != 0 or not found:
        sys.exit(f"pytest --collect-only failed (rc={proc.returncode}):\n{proc.stdout[-3000:]}")
    return (
        f"The whole suite: **{int(found.group(1)):,} tests**, counted {today()} on {machine()}; "
        "its run time is not measured yet (run `scripts/measure_tests.py` on a quiet machine).\n"
    )


def _demo_accuracy(onednn: bool) -> str:
    env = dict(os.environ, JAX_PLATFORMS="cpu", FLOWJOB_ONEDNN="1" if onednn else "0")
    proc = subprocess.run(
        [sys.executable, str(REPO / "examples" / "mnist_demo.py"), "--logdir", "/tmp/measure-demo"],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
    )
    found = re.search(r"test accuracy: ([\d.]+%)", proc.stdout)
    if proc.returncode != 0 or not found:
        sys.exit(
            f"the demo failed (rc={proc.returncode}):\n{proc.stdout[-2000:]}{proc.stderr[-2000:]}"
        )
    return found.group(1)


def measure_demo() -> str:
    import importlib.util

    here = machine()
    xla = _demo_accuracy(onednn=False)
    if importlib.util.find_spec("flowjob_onednn") is None:
        onednn = "not measured (the oneDNN kernels are not built here)"
    else:
        onednn = f"**{_demo_accuracy(onednn=True)}**"
    return (
        f"Demo test accuracy (LeNet-5, 8 epochs, 1,000 test images): {onednn} with the oneDNN "
        f"convolution kernels, **{xla}** with XLA's (`FLOWJOB_ONEDNN=0`); measured {today()} "
        f"on {here}. Other CPUs round differently: expect a few tenths of a percent either way.\n"
    )


def write(name: str, text: str) -> None:
    GENERATED.mkdir(parents=True, exist_ok=True)
    (GENERATED / f"measured-{name}.md").write_text(text, encoding="utf-8")
    readme = REPO / "README.md"
    content = readme.read_text(encoding="utf-8")
    pattern = re.compile(rf"(<!-- measured:{name} -->\n).*?(<!-- /measured:{name} -->)", re.S)
    if not pattern.search(content):
        sys.exit(f"README.md has no <!-- measured:{name} --> markers")
    readme.write_text(pattern.sub(lambda m: m.group(1) + text + m.group(2), content), "utf-8")
    print(text, end="")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--demo-only", action="store_true")
    parser.add_argument("--tests-only", action="store_true")
    parser.add_argument("--count-only", action="store_true", help="count the tests, run none")
    args, pytest_args = parser.parse_known_args()
    if not args.demo_only:
        write("tests", (count_tests if args.count_only else measure_tests)(pytest_args))
    if not (args.tests_only or args.count_only):
        write("demo", measure_demo())
    return 0


if __name__ == "__main__":
    sys.exit(main())
