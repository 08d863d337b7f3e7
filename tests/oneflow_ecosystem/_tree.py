"""Copies a folder of a pinned revision out of a clone, file by file.

``tests.upstream.extract`` runs ``git archive``, which stops at the first object a clone lacks;
clones of model repositories are often partial (large images, checkpoints and data files left
out by a shallow or filtered clone, or stored with Git LFS). A program needs its Python files,
not those: here a missing object is skipped and reported.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from tests.timeouts import scaled
from tests.upstream import Upstream, UpstreamError, git


def copy_folder(
    upstream: Upstream, folder: str, target: Path, clone: str | os.PathLike | None = None
) -> list[str]:
    """Writes the files under ``folder`` ("" for all) of ``upstream.revision`` into ``target``
    at their paths in the repository; returns the paths whose contents the clone lacks.
    Symbolic links and submodules are not copied."""
    root = upstream.clone(clone)
    if root is None:
        raise UpstreamError(upstream.missing_line())
    if not root.exists():
        raise UpstreamError(f"{upstream.name} clone {root}: no such directory")
    listing = git(
        root, "ls-tree", "-r", "-z", "--full-tree", upstream.revision, "--", folder or "."
    )
    entries = []
    for item in filter(None, listing.split("\0")):
        meta, path = item.split("\t", 1)
        mode, kind, digest = meta.split()
        if kind == "blob" and mode != "120000":
            entries.append((digest, path))
    if not entries:
        raise UpstreamError(
            f"{upstream.name} {upstream.revision[:12]} has no files under {folder!r}"
        )
    done = subprocess.run(
        ["git", "-C", str(root), "cat-file", "--batch"],
        input="".join(f"{digest}\n" for digest, _ in entries).encode(),
        capture_output=True,
        timeout=scaled(300),
    )
    if done.returncode != 0:
        raise UpstreamError(
            f"git cat-file in {root} failed: {done.stderr.decode(errors='replace')}"
        )
    out, pos, missing = done.stdout, 0, []
    for _digest, path in entries:
        end = out.index(b"\n", pos)
        header = out[pos:end].split()
        pos = end + 1
        if header[-1] == b"missing":
            missing.append(path)
            continue
        size = int(header[2])
        dest = target / path
        dest.parent.mkdir(parents=True, exist_ok=True)
        dest.write_bytes(out[pos : pos + size])
        pos += size + 1  # the contents and their closing newline
    return missing
