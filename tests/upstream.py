"""Other projects' files that some tests run, read from a local git clone the user points at.

The repository holds none of them. ``extract`` runs ``git archive`` on the pinned revision of
the clone (a normal clone or a bare git directory) into a temporary folder that is removed at
exit. Without a clone, ``missing_line`` is the one line a skipped test shows.
"""

from __future__ import annotations

import atexit
import dataclasses
import io
import os
import shutil
import subprocess
import tarfile
import tempfile
from pathlib import Path


@dataclasses.dataclass(frozen=True)
class Upstream:
    name: str
    url: str
    revision: str  # the tag or commit the tests were written against
    env: str  # the variable that names a clone

    def clone(self, path: str | os.PathLike | None = None) -> Path | None:
        """The clone named by ``path`` or by the environment variable, or None."""
        value = path if path is not None else os.environ.get(self.env)
        return Path(value).expanduser() if value else None

    def missing_line(self) -> str:
        return (f"needs a {self.name} clone: git clone {self.url} and set {self.env}=<clone> "
                f"(revision {self.revision} is read from it)")


ONEFLOW = Upstream("OneFlow", "https://github.com/Oneflow-Inc/oneflow", "v0.4.0",
                   "FLOWJOB_ONEFLOW_SRC")
BENCHMARK = Upstream("OneFlow-Benchmark", "https://github.com/Oneflow-Inc/OneFlow-Benchmark",
                     "e64f95a6a8c14b5fa0041aa76f054f5d8787c0f4", "FLOWJOB_BENCHMARK_SRC")


class UpstreamError(RuntimeError):
    """The clone is missing, is not a git repository, or lacks the pinned revision."""


_EXTRACTED: dict[tuple[str, str, str], Path] = {}


def git(clone: Path, *args: str) -> str:
    """``git -C clone args`` (works in a normal clone and in a bare git directory)."""
    done = subprocess.run(["git", "-C", str(clone), *args], capture_output=True, timeout=300)
    if done.returncode != 0:
        raise UpstreamError(f"git {' '.join(args)} in {clone} failed: "
                            f"{done.stderr.decode(errors='replace').strip()}")
    return done.stdout.decode()


def extract(upstream: Upstream, folder: str = "",
            clone: str | os.PathLike | None = None) -> Path:
    """``folder`` (default: everything) of ``upstream.revision`` written into a temporary
    directory; returns the directory that corresponds to the clone's root (``result / folder``
    holds the files).
    Each (clone, folder) is extracted once per process."""
    root = upstream.clone(clone)
    if root is None:
        raise UpstreamError(upstream.missing_line())
    key = (str(root.resolve()), upstream.revision, folder)
    if key in _EXTRACTED:
        return _EXTRACTED[key]
    if not root.exists():
        raise UpstreamError(f"{upstream.env}={root}: no such directory; "
                            + upstream.missing_line())
    done = subprocess.run(["git", "-C", str(root), "archive", "--format=tar",
                           upstream.revision, *filter(None, [folder])],
                          capture_output=True, timeout=600)
    if done.returncode != 0:
        raise UpstreamError(f"{root} has no {upstream.revision}:{folder} "
                            f"({done.stderr.decode(errors='replace').strip()}); "
                            + upstream.missing_line())
    target = Path(tempfile.mkdtemp(prefix=f"flowjob_{upstream.name.lower()}_"))
    atexit.register(shutil.rmtree, target, ignore_errors=True)
    with tarfile.open(fileobj=io.BytesIO(done.stdout)) as tar:
        # The "data" filter (no absolute paths, links out, devices) where Python has it.
        extra = {"filter": "data"} if hasattr(tarfile, "data_filter") else {}
        tar.extractall(target, **extra)
    _EXTRACTED[key] = target
    return target


def blob_hashes(upstream: Upstream, clone: str | os.PathLike | None = None) -> dict[str, str]:
    """git blob hash -> path of every file of ``upstream.revision`` in the clone."""
    root = upstream.clone(clone)
    if root is None:
        raise UpstreamError(upstream.missing_line())
    out = git(root, "ls-tree", "-r", "--full-tree", upstream.revision)
    hashes: dict[str, str] = {}
    for line in out.splitlines():
        meta, path = line.split("\t", 1)
        _mode, kind, digest = meta.split()
        if kind == "blob":
            hashes.setdefault(digest, path)
    return hashes
