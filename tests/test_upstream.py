"""tests/upstream.py: other projects' files come out of a clone (normal or bare) at the pinned
revision, into a temporary folder outside the repository; without a clone, one line says how
to get one."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.upstream import Upstream, UpstreamError, blob_hashes, extract

REPO = Path(__file__).resolve().parents[1]


def _git(cwd: Path, *args: str) -> str:
    return subprocess.run(
        ["git", "-C", str(cwd), "-c", "user.name=t", "-c", "user.email=t@t", *args],
        check=True,
        capture_output=True,
        text=True,
    ).stdout


@pytest.fixture
def origin(tmp_path: Path) -> Path:
    """A repository whose tag v1 has ``pkg/a.py`` and ``pkg/sub/b.txt``; a later commit
    changes ``a.py`` (the tag's version must be the one extracted)."""
    repo = tmp_path / "origin"
    (repo / "pkg" / "sub").mkdir(parents=True)
    _git(tmp_path, "init", "-q", str(repo))
    (repo / "pkg" / "a.py").write_text("A = 1\n" * 20)
    (repo / "pkg" / "sub" / "b.txt").write_text("b\n")
    (repo / "other.txt").write_text("other\n")
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "-m", "one")
    _git(repo, "tag", "v1")
    (repo / "pkg" / "a.py").write_text("A = 2\n")
    _git(repo, "commit", "-q", "-am", "two")
    return repo


@pytest.mark.parametrize("bare", [False, True])
def test_extracts_the_pinned_revision_into_a_temporary_folder(origin, tmp_path, bare, monkeypatch):
    clone = tmp_path / ("clone.git" if bare else "clone")
    subprocess.run(
        ["git", "clone", "-q", *(["--bare"] if bare else []), str(origin), str(clone)], check=True
    )
    upstream = Upstream("Thing", "https://example.invalid/thing", "v1", "FLOWJOB_TEST_THING")
    monkeypatch.setenv("FLOWJOB_TEST_THING", str(clone))
    root = extract(upstream, "pkg")
    assert (root / "pkg" / "a.py").read_text() == "A = 1\n" * 20
    assert (root / "pkg" / "sub" / "b.txt").read_text() == "b\n"
    assert not (root / "other.txt").exists()
    assert REPO not in root.resolve().parents and clone not in root.resolve().parents
    assert extract(upstream, "pkg") == root  # once per process
    # The blob hashes are git's: those of the tag's files, big enough to mean a copy.
    hashes = blob_hashes(upstream)
    assert hashes == {_git(origin, "rev-parse", "v1:pkg/a.py").strip(): "Thing:pkg/a.py"}


def test_without_a_clone_one_line_says_how_to_get_one(monkeypatch, tmp_path):
    upstream = Upstream("Thing", "https://example.invalid/thing", "v1", "FLOWJOB_TEST_THING")
    monkeypatch.delenv("FLOWJOB_TEST_THING", raising=False)
    with pytest.raises(UpstreamError) as missing:
        extract(upstream, "pkg")
    line = str(missing.value)
    assert "\n" not in line
    assert "git clone https://example.invalid/thing" in line and "FLOWJOB_TEST_THING" in line
    with pytest.raises(UpstreamError, match="no such directory"):
        extract(upstream, "pkg", clone=tmp_path / "nowhere")


def test_a_clone_without_the_revision_is_an_error(origin):
    upstream = Upstream("Thing", "https://example.invalid/thing", "v9", "FLOWJOB_TEST_THING")
    with pytest.raises(UpstreamError, match="has no v9:pkg"):
        extract(upstream, "pkg", clone=origin)
