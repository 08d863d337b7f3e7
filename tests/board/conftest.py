"""Fixtures for the TensorBoard-plugin tests: a real headless Chromium driven by Playwright.

The browser is Debian's ``chromium`` package (installed here with apt-get when
``/usr/bin/chromium`` is missing; the tests run as root), never Playwright's own download.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.timeouts import scaled

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def _install_chromium() -> None:
    apt = shutil.which("apt-get")
    if apt is None:
        pytest.fail(f"{CHROMIUM} is missing and apt-get is not available to install it")
    env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
    for cmd in ([apt, "update", "-q"], [apt, "install", "-y", "-q", "chromium"]):
        proc = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=scaled(900))
        if proc.returncode != 0:
            pytest.fail(
                f"{' '.join(cmd)} failed (rc={proc.returncode}):\n"
                f"{proc.stdout[-2000:]}\n{proc.stderr[-2000:]}"
            )


@pytest.fixture(scope="session")
def chromium() -> Path:
    """Path of Debian's chromium, installed on first use."""
    if not CHROMIUM.exists():
        _install_chromium()
    assert CHROMIUM.exists(), f"apt-get installed chromium but {CHROMIUM} is missing"
    return CHROMIUM


@pytest.fixture(scope="module")
def browser(chromium):
    """A headless Chromium (Playwright's sync API), closed after the module."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=str(chromium), args=CHROMIUM_ARGS)
        try:
            yield b
        finally:
            b.close()
