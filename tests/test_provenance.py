"""The repository holds only what this project wrote: no tracked file is byte for byte a file of
OneFlow, OneFlow-Benchmark or OneFlow's documentation (git blob hashes: the committed list
always, the clones' whole trees when ``FLOWJOB_ONEFLOW_SRC`` / ``FLOWJOB_BENCHMARK_SRC`` /
``FLOWJOB_DOCS_SRC`` name them), and none carries a
copyright notice or license header of another project."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

from tests.timeouts import scaled
from tests.upstream import (
    BENCHMARK,
    DOCS,
    HASH_LIST,
    HASHED,
    ONEFLOW,
    Upstream,
    blob_hashes,
    hash_list_lines,
    read_hash_list,
)

REPO = Path(__file__).resolve().parents[1]
# A copyright line ("Copyright 2020 The ... Authors", "# Copyright (c) 2019 ...") at the start
# of a line, after comment characters.
COPYRIGHT = re.compile(r"^\W{0,6}(?:Copyright|COPYRIGHT|©)\s*(?:\([cC]\)\s*)?\d{4}", re.M)
# Phrases of license headers and notices that other projects put at the top of their files.
LICENSE_PHRASES = (
    "The OneFlow Authors",
    "Licensed under the Apache License",
    "WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND",
    "Permission is hereby granted, free of charge",
    "Redistribution and use in source and binary forms",
    "GNU General Public License",
    "SPDX-License-Identifier",
)
THIS_FILE = Path(__file__).resolve().relative_to(REPO).as_posix()  # it lists the phrases


def tracked_blobs() -> dict[str, str]:
    """path -> git blob hash of every tracked file (``git ls-files -s``)."""
    try:
        out = subprocess.run(
            ["git", "-C", str(REPO), "ls-files", "-s", "-z"],
            capture_output=True,
            check=True,
            timeout=scaled(60),
        ).stdout.decode()
    except (OSError, subprocess.CalledProcessError):
        pytest.skip("not a git checkout: the tracked files cannot be listed")
    blobs = {}
    for entry in filter(None, out.split("\0")):
        meta, path = entry.split("\t", 1)
        mode, digest, _stage = meta.split()
        if mode != "160000":  # submodules are commits, not files
            blobs[path] = digest
    return blobs


def copies_of(upstream_hashes: dict[str, str]) -> list[str]:
    return sorted(
        f"{path} is {upstream_hashes[digest]}"
        for path, digest in tracked_blobs().items()
        if digest in upstream_hashes
    )


def test_no_tracked_file_has_a_listed_upstream_hash():
    listed = read_hash_list()
    assert len(listed) > 500  # the list itself is there and read
    assert copies_of(listed) == []


@pytest.mark.parametrize("upstream", [ONEFLOW, BENCHMARK, DOCS], ids=lambda u: u.name)
def test_no_tracked_file_is_a_file_of_the_clone(upstream: Upstream):
    if upstream.clone() is None:
        pytest.skip(upstream.missing_line())
    hashes = blob_hashes(upstream)  # the whole tree at the pinned revision
    assert len(hashes) > 50
    assert copies_of(hashes) == []


def test_committed_hash_list_is_what_the_clones_give():
    missing = [u for u in HASHED if u.clone() is None]
    if missing:
        pytest.skip(missing[0].missing_line())
    made = hash_list_lines({u: None for u in HASHED})
    assert HASH_LIST.read_text().splitlines() == made, "rerun python -m tests.upstream"


def test_no_foreign_copyright_or_license_header():
    found = []
    for path in tracked_blobs():
        file = REPO / path
        if path == THIS_FILE or not file.is_file():
            continue
        try:
            text = file.read_text(encoding="utf-8")
        except UnicodeDecodeError:  # binary data (arrays, images) carries no header
            continue
        found += [
            f"{path}: {m.group(0).strip()}"
            for m in COPYRIGHT.finditer(text)
            if "flowjob" not in text[m.start() : text.find("\n", m.start())]
        ]
        found += [f"{path}: {phrase!r}" for phrase in LICENSE_PHRASES if phrase in text]
    assert found == []


def test_the_checks_find_a_copy():
    """The header patterns match OneFlow's own header lines (written here, not copied)."""
    # Assembled at run time so that a plain grep for OneFlow's header finds no tracked file.
    owner = "The OneFlow" + " Authors"
    header = "\n".join(
        [
            '"""',
            f"Copyright 2020 {owner}. All rights reserved.",
            "",
            'Licensed under the Apache License, Version 2.0 (the "License");',
        ]
    )
    assert COPYRIGHT.search(header)
    assert [p for p in LICENSE_PHRASES if p in header] == list(LICENSE_PHRASES[:2])
