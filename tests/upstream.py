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

from tests.timeouts import scaled


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
        return (
            f"needs a {self.name} clone: git clone {self.url} and set {self.env}=<clone> "
            f"(revision {self.revision} is read from it)"
        )


ONEFLOW = Upstream(
    "OneFlow", "https://github.com/Oneflow-Inc/oneflow", "v0.4.0", "FLOWJOB_ONEFLOW_SRC"
)
BENCHMARK = Upstream(
    "OneFlow-Benchmark",
    "https://github.com/Oneflow-Inc/OneFlow-Benchmark",
    "e64f95a6a8c14b5fa0041aa76f054f5d8787c0f4",
    "FLOWJOB_BENCHMARK_SRC",
)
DOCS = Upstream(
    "oneflow-documentation",
    "https://github.com/Oneflow-Inc/oneflow-documentation",
    "v0.4.0",
    "FLOWJOB_DOCS_SRC",
)
# oneflow-onnx 0.3.4 (its setup.py's version at this commit, June 2021)
ONEFLOW_ONNX = Upstream(
    "oneflow-onnx",
    "https://github.com/Oneflow-Inc/oneflow_convert",
    "c3185d82b4d4a3ac3fb9793bf1e6791adac99b8b",
    "FLOWJOB_ONEFLOW_ONNX_SRC",
)
# OneFlow's InsightFace port before its 2021-09 rewrite (the v0.4 legacy API, April 2021)
ONEFLOW_FACE = Upstream(
    "oneflow_face",
    "https://github.com/Oneflow-Inc/oneflow_face",
    "d9a3f5f284d1e8e9eb120b29c26ac0b7466afd47",
    "FLOWJOB_ONEFLOW_FACE_SRC",
)

# The model repositories of 2020-2021 that tests/oneflow_ecosystem runs programs of, each at its
# last commit of the legacy job-function API (the newest one for all of these: none of them
# moved to the later eager or graph APIs in place).
VISION = Upstream(
    "oneflow_vision_model",
    "https://github.com/Oneflow-Inc/oneflow_vision_model",
    "e9682e6c15fbb8022cd7456f7e5fa81d73c2e147",  # 2021-10-25
    "FLOWJOB_VISION_SRC",
)
IMAGINAIRE = Upstream(
    "oneflow_imaginaire",
    "https://github.com/Oneflow-Inc/oneflow_imaginaire",
    "d24f30facec5376b2f1a2cf72bd03ef01dd43221",  # 2021-03-25
    "FLOWJOB_IMAGINAIRE_SRC",
)
NLP = Upstream(
    "oneflow_nlp_model",
    "https://github.com/Oneflow-Inc/oneflow_nlp_model",
    "7fa2d9ca39187096be0ac535bef81fa0dd9ce679",  # 2021-09-30
    "FLOWJOB_NLP_SRC",
)
COMPRESSION = Upstream(
    "Oneflow-Model-Compression",
    "https://github.com/Oneflow-Inc/Oneflow-Model-Compression",
    "1a346fa0a586ee0277814ecb56e5bee772d9bb05",  # 2021-08-16
    "FLOWJOB_COMPRESSION_SRC",
)
AUDIO = Upstream(
    "oneflow_audio_model",
    "https://github.com/Oneflow-Inc/oneflow_audio_model",
    "b5d9f88899b612addb320a156359caad9518673a",  # 2021-09-30
    "FLOWJOB_AUDIO_SRC",
)
YOLOV3 = Upstream(
    "oneflow_yolov3",
    "https://github.com/Oneflow-Inc/oneflow_yolov3",
    "179163d902bf3e409a97b25508ba52527e8f9c22",  # 2021-01-06
    "FLOWJOB_YOLOV3_SRC",
)


class UpstreamError(RuntimeError):
    """The clone is missing, is not a git repository, or lacks the pinned revision."""


_EXTRACTED: dict[tuple[str, str, str], Path] = {}


def git(clone: Path, *args: str) -> str:
    """``git -C clone args`` (works in a normal clone and in a bare git directory)."""
    done = subprocess.run(
        ["git", "-C", str(clone), *args], capture_output=True, timeout=scaled(300)
    )
    if done.returncode != 0:
        raise UpstreamError(
            f"git {' '.join(args)} in {clone} failed: "
            f"{done.stderr.decode(errors='replace').strip()}"
        )
    return done.stdout.decode()


def extract(upstream: Upstream, folder: str = "", clone: str | os.PathLike | None = None) -> Path:
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
        raise UpstreamError(
            f"{upstream.name} clone {root}: no such directory; " + upstream.missing_line()
        )
    done = subprocess.run(
        [
            "git",
            "-C",
            str(root),
            "archive",
            "--format=tar",
            upstream.revision,
            *filter(None, [folder]),
        ],
        capture_output=True,
        timeout=scaled(600),
    )
    if done.returncode != 0:
        raise UpstreamError(
            f"{root} has no {upstream.revision}:{folder} "
            f"({done.stderr.decode(errors='replace').strip()}); " + upstream.missing_line()
        )
    target = Path(tempfile.mkdtemp(prefix=f"flowjob_{upstream.name.lower()}_"))
    atexit.register(shutil.rmtree, target, ignore_errors=True)
    with tarfile.open(fileobj=io.BytesIO(done.stdout)) as tar:
        # The "data" filter (no absolute paths, links out, devices) where Python has it.
        extra = {"filter": "data"} if hasattr(tarfile, "data_filter") else {}
        tar.extractall(target, **extra)
    _EXTRACTED[key] = target
    return target


# What the committed list (tests/upstream_blob_hashes.txt) covers: OneFlow's Python package and
# tests, the files the data tests once compared with, and its license; all of OneFlow-Benchmark;
# the documentation's programs and their data.
HASHED: dict[Upstream, tuple[str, ...]] = {
    ONEFLOW: (
        "oneflow/python",
        "oneflow/core/record",
        "oneflow/user/kernels/example_generated.h",
        "LICENSE",
    ),
    BENCHMARK: (),
    DOCS: ("en/docs/code", "cn/docs/code"),
}
# Smaller blobs (empty files, one-line stubs) are the same in any project: not evidence of a copy.
MIN_BYTES = 64
HASH_LIST = Path(__file__).resolve().parent / "upstream_blob_hashes.txt"


def blob_hashes(
    upstream: Upstream, clone: str | os.PathLike | None = None, paths: tuple[str, ...] = ()
) -> dict[str, str]:
    """git blob hash -> path of the files (under ``paths``; default: all) of
    ``upstream.revision`` in the clone that have at least ``MIN_BYTES`` bytes."""
    root = upstream.clone(clone)
    if root is None:
        raise UpstreamError(upstream.missing_line())
    out = git(root, "ls-tree", "-r", "-l", "--full-tree", upstream.revision, "--", *paths)
    hashes: dict[str, str] = {}
    for line in out.splitlines():
        meta, path = line.split("\t", 1)
        _mode, kind, digest, size = meta.split()
        if kind == "blob" and int(size) >= MIN_BYTES:
            hashes.setdefault(digest, f"{upstream.name}:{path}")
    return hashes


def hash_list_lines(clones: dict[Upstream, str | os.PathLike | None]) -> list[str]:
    """The lines of ``upstream_blob_hashes.txt`` made from the clones."""
    lines = [
        "# git blob hashes of other projects' files (facts, no content): no tracked file may",
        "# have one (tests/test_provenance.py). Written by `python -m tests.upstream",
        f"# --oneflow CLONE --benchmark CLONE` from files of {MIN_BYTES} bytes or more of:",
        *(
            f"#   {u.name} {u.revision[:12]}: {', '.join(HASHED[u]) or 'everything'}"
            for u in clones
        ),
    ]
    for upstream, clone in clones.items():
        hashes = blob_hashes(upstream, clone, HASHED[upstream])
        lines += [
            f"{digest} {path}" for digest, path in sorted(hashes.items(), key=lambda kv: kv[1])
        ]
    return lines


def read_hash_list(path: Path = HASH_LIST) -> dict[str, str]:
    """blob hash -> ``name:path`` from the committed list."""
    rows = (
        line.split(" ", 1)
        for line in path.read_text().splitlines()
        if line and not line.startswith("#")
    )
    return {digest: where for digest, where in rows}


def main(argv: list[str] | None = None) -> int:
    import argparse

    parser = argparse.ArgumentParser(
        prog="python -m tests.upstream", description="rewrites tests/upstream_blob_hashes.txt"
    )
    parser.add_argument("--oneflow", required=True, help=f"a clone of {ONEFLOW.url}")
    parser.add_argument("--benchmark", required=True, help=f"a clone of {BENCHMARK.url}")
    parser.add_argument("--docs", required=True, help=f"a clone of {DOCS.url}")
    args = parser.parse_args(argv)
    lines = hash_list_lines({ONEFLOW: args.oneflow, BENCHMARK: args.benchmark, DOCS: args.docs})
    HASH_LIST.write_text("\n".join(lines) + "\n")
    print(f"{HASH_LIST}: {sum(not line.startswith('#') for line in lines)} hashes")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
