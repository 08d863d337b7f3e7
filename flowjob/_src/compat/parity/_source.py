"""Files of a OneFlow clone at a tag, read with ``git archive`` (the work tree is never used)."""

from __future__ import annotations

import functools
import io
import os
import subprocess
import tarfile
from pathlib import Path

from ..api_coverage import DEFAULT_TAG, ENV_VAR, OneFlowSourceError


def clone_path(given: str | os.PathLike[str] | None = None) -> Path:
    """``given``, or ``$FLOWJOB_ONEFLOW_SRC``; raises ``OneFlowSourceError`` when neither."""
    path = given or os.environ.get(ENV_VAR)
    if not path:
        raise OneFlowSourceError(f"no OneFlow clone: pass its path or set {ENV_VAR}")
    return Path(path)


@functools.lru_cache(maxsize=16)
def _read(clone: str, tag: str, folder: str) -> dict[str, str]:
    try:
        done = subprocess.run(
            ["git", "-C", clone, "archive", "--format=tar", tag, folder],
            capture_output=True,
            check=True,
        )
    except (OSError, subprocess.CalledProcessError) as exc:
        detail = getattr(exc, "stderr", b"") or str(exc).encode()
        raise OneFlowSourceError(
            f"cannot read {folder} at {tag} from the OneFlow clone {clone}: "
            f"{detail.decode(errors='replace').strip()}"
        ) from exc
    files = {}
    with tarfile.open(fileobj=io.BytesIO(done.stdout)) as archive:
        for member in archive.getmembers():
            if member.isfile():
                files[member.name] = archive.extractfile(member).read().decode(errors="replace")
    return files


def read_folder(
    folder: str, clone: str | os.PathLike[str] | None = None, tag: str = DEFAULT_TAG
) -> dict[str, str]:
    """``{path: text}`` of every file under ``folder`` of the clone at ``tag`` (cached)."""
    return _read(str(clone_path(clone)), tag, folder)
