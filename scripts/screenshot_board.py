"""Takes the README's and the site's picture of the live board: docs/images/live-board.png.

Trains the demo (examples/mnist_demo.py) into a temporary log directory, serves it with
`flowjob board`, opens the board in headless Debian chromium (Playwright) and saves a
screenshot of TensorBoard's Time Series view with the training curves.

    .venv/bin/python scripts/screenshot_board.py [--out docs/images/live-board.png]
"""

from __future__ import annotations

import argparse
import os
import re
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
CHROMIUM = "/usr/bin/chromium"
FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _serve(logdir: Path, log: Path) -> tuple[subprocess.Popen, str]:
    out = open(log, "w")  # noqa: SIM115 - closed with the process
    proc = subprocess.Popen(
        [sys.executable, "-m", "flowjob", "board", str(logdir), "--port", str(_free_port())],
        stdout=out,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline:
        found = re.search(r" at (http://127\.0\.0\.1:\d+/)", log.read_text())
        if found:
            return proc, found.group(1)
        if proc.poll() is not None:
            break
        time.sleep(0.25)
    os.killpg(proc.pid, signal.SIGTERM)
    sys.exit(f"flowjob board did not serve:\n{log.read_text()[-2000:]}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=str(REPO / "docs" / "images" / "live-board.png"))
    parser.add_argument("--epochs", type=int, default=3, help="demo epochs to train")
    args = parser.parse_args()
    if not os.path.exists(CHROMIUM):
        sys.exit(f"{CHROMIUM} is missing: apt-get install chromium")
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory() as tmp:
        logdir = Path(tmp) / "runs"
        run = logdir / "mnist_demo"  # the run's name on the board
        print("training the demo ...", flush=True)
        subprocess.run(
            [
                sys.executable,
                str(REPO / "examples" / "mnist_demo.py"),
                "--logdir",
                str(run),
                "--epochs",
                str(args.epochs),
            ],
            check=True,
            stdout=subprocess.DEVNULL,
        )
        board, url = _serve(logdir, Path(tmp) / "board.log")
        try:
            with sync_playwright() as p:
                browser = p.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
                page = browser.new_page(viewport={"width": 1400, "height": 1250})
                page.goto(url)
                try:
                    page.wait_for_selector(".group-toolbar", timeout=120_000)
                    # The curves only: the tag-type filter's "Scalars", the settings pane shut.
                    page.click("button:has-text('Scalars')")
                    page.click("button:has-text('Settings')")
                    time.sleep(10)  # the charts draw after their data arrives
                finally:
                    page.screenshot(path=args.out)
                browser.close()
        finally:
            os.killpg(board.pid, signal.SIGTERM)
            board.wait(timeout=30)
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
