"""Ranks that leave early or run another program (issue 48, items 3, 8 and 9): each case is
named to every rank within 10 s by a ``RankFailedError`` (rank, host, what happened), every
process ends with its own status, and none ends in a C++ abort or JAX's fatal-error line."""

from __future__ import annotations

import os
import re
import subprocess
import sys

import pytest

from tests.distributed.rank_helpers import (
    HOST,
    LIMIT,
    PROGRAM,
    assert_clean,
    assert_no_crash,
    first_line_at,
    start,
)
from tests.subprocess_env import cpu_child_env
from tests.timeouts import scaled

NAMED_WITHIN = 10.0  # seconds from a rank's departure to the others' error


@pytest.mark.parametrize(
    "scenario,status,what",
    [
        ("exit0", 0, r"ended its program after 5 job call\(s\)"),
        ("exit3", 3, r"ended its program after 5 job call\(s\)"),
        ("short", 0, r"ended its program after 5 job call\(s\)"),
        ("os-exit", 0, r"ended without a word: its process \(pid \d+\) is gone"),
    ],
)
def test_a_rank_that_leaves_early_is_named_to_every_rank(scenario, status, what, tmp_path, cleanup):
    """``sys.exit(0)``/``sys.exit(3)``/``os._exit(0)`` in rank 1 at step 5, or the end of its
    loop after 5 steps while rank 0 goes on."""
    ranks = start(scenario, tmp_path)
    cleanup.extend(ranks)
    other, leaving = ranks
    assert leaving.finish() == status, leaving.text[-3000:]
    assert_no_crash(leaving)
    other.finish()
    assert_clean(other)
    assert other.proc.returncode == 1
    assert re.search(
        rf"RankFailedError: rank 0 of 2 \(host {HOST}\) stops because rank 1 of 2 \(host "
        rf"{HOST}\) {what}",
        other.text,
    ), other.text[-3000:]
    left = first_line_at(leaving, r"^step 4 ")
    assert other.ended - left < scaled(NAMED_WITHIN)


def test_a_rank_exiting_with_a_status_under_launch_sets_the_launchers_status(tmp_path):
    """``flowjob launch`` (``flowjob run`` knows the program's status): rank 1's
    ``sys.exit(3)`` is its failure, named to rank 0; the launcher exits 3, not 134."""
    done = subprocess.run(
        [sys.executable, "-m", "flowjob", "launch", "--nproc", "2", "--heartbeat-timeout", "5",
         str(PROGRAM), "exit3", str(tmp_path)],
        env=cpu_child_env(), capture_output=True, text=True, timeout=scaled(LIMIT),
    )  # fmt: skip
    out = done.stdout + done.stderr
    assert done.returncode == 3, out[-3000:]
    assert (
        f"[rank 0] flowjob: flowjob.errors.RankFailedError: rank 0 of 2 (host {HOST}) stops "
        f"because rank 1 of 2 (host {HOST}) failed: SystemExit: its program exited with status 3"
    ) in out, out[-3000:]
    for crash in ("Check failure", "Aborted", "Terminating process because"):
        assert crash not in out


@pytest.mark.parametrize(
    "scenario,says",
    [
        (
            "extra-op",
            "job 'train' differs between the ranks at its op #5: rank 0 of 2 (host {h}) has no "
            "op there (4 ops in all); rank 1 of 2 (host {h}) has double Double_0",
        ),
        (
            "other-first",
            "the ranks' programs differ: after 0 job call(s), rank {me} of 2 (host {h}) is at "
            "the first call of job '{mine}' and rank {other} of 2 (host {h}) at the first call "
            "of job '{theirs}'",
        ),
    ],
)
def test_ranks_running_different_programs_are_named_before_any_step(
    scenario, says, tmp_path, cleanup
):
    """Rank 1's train job has one op more; rank 1's first call is to another job."""
    ranks = start(scenario, tmp_path)
    cleanup.extend(ranks)
    jobs = ["train", "predict"]
    for me, rank in enumerate(ranks):
        rank.finish()
        assert_clean(rank)
        assert rank.proc.returncode == 1
        said = says.format(h=HOST, me=me, other=1 - me, mine=jobs[me], theirs=jobs[1 - me])
        assert f"RankFailedError: {said}" in rank.text, rank.text[-3000:]
        assert "step 0" not in rank.text


@pytest.mark.parametrize("alone", [0, 1])
def test_a_save_called_by_one_rank_is_refused_on_every_rank(alone, tmp_path, cleanup):
    """``checkpoint.save`` called by rank ``alone`` only, at step 3: no rank waits for the
    sync timeout, no checkpoint is written, every rank says which save it was."""
    ranks = start("save-alone", tmp_path, FAILING_RANK=str(alone))
    cleanup.extend(ranks)
    path = tmp_path / f"alone-{alone}"
    for rank in ranks:
        rank.finish()
        assert_clean(rank)
        assert rank.proc.returncode == 1
        assert (
            f"rank {alone} of 2 (host {HOST}) waits in checkpoint.save({str(path)!r}) after 3 "
            f"job call(s), while rank {1 - alone} of 2 (host {HOST}) went on to job call 4"
        ) in rank.text, rank.text[-3000:]
        assert rank.ended - first_line_at(rank, r"^step 2 ") < scaled(NAMED_WITHIN)
    assert not os.path.exists(path)


@pytest.mark.parametrize("failing", [1, 0])
def test_a_rank_failing_before_it_joins_is_known_to_the_others_at_once(failing, tmp_path, cleanup):
    """A restart where only one rank has the checkpoint: the other fails before the first
    job call (before joining); the rank waiting to join learns it at once, not after
    ``FLOWJOB_INIT_TIMEOUT`` (300 s by default)."""
    ranks = start("restart", tmp_path, FAILING_RANK=str(failing))
    cleanup.extend(ranks)
    failed, waiting = ranks[failing], ranks[1 - failing]
    assert failed.finish() == 1
    assert_no_crash(failed)
    waiting.finish()
    assert_clean(waiting)
    assert (
        f"stops because rank {failing} of 2 (host {HOST}) failed: failed before joining: "
        "FileNotFoundError: checkpoint.get:"
    ) in waiting.text, waiting.text[-3000:]
    said = first_line_at(failed, "failed before joining the others")
    assert waiting.ended - said < scaled(NAMED_WITHIN)


def test_ranks_started_with_different_numbers_of_processes_are_told_so(tmp_path, cleanup):
    """Rank 1 started with ``FLOWJOB_NUM_PROCESSES=3``, rank 0 with 2: both name the setting
    and both values, not "rank 2 of 3 (host unknown host) stopped responding"."""
    ranks = start("train", tmp_path, sizes={1: 3})
    cleanup.extend(ranks)
    for rank, (mine, theirs) in zip(ranks, [((0, 2), (1, 3)), ((1, 3), (0, 2))]):
        rank.finish()
        assert_clean(rank)
        assert (
            f"FLOWJOB_NUM_PROCESSES differs between the ranks: {mine[1]} in rank {mine[0]} of "
            f"{mine[1]} (host {HOST}), {theirs[1]} in rank {theirs[0]} (host {HOST})"
        ) in rank.text, rank.text[-3000:]
        assert "stopped responding" not in rank.text
        assert "unknown host" not in rank.text


def test_two_processes_started_as_rank_0_are_named_as_such(tmp_path, cleanup):
    """Both processes have ``FLOWJOB_PROCESS_ID=0``: the second is refused at once naming the
    first; the first's notices and its final error name the second."""
    ranks = start("train", tmp_path, ranks=[0, 0], FLOWJOB_INIT_TIMEOUT="10")
    cleanup.extend(ranks)
    for rank in ranks:
        rank.finish()
        assert_clean(rank)
    texts = [r.text for r in ranks]
    second = next(i for i, t in enumerate(texts) if "ConfigError: two processes are rank 0" in t)
    first = ranks[1 - second]
    pid = str(first.proc.pid)
    assert (
        f"process {pid} on this machine is rank 0 already (FLOWJOB_PROCESS_ID=0 twice)"
        in (texts[second])
    )
    assert (
        f"process {ranks[second].proc.pid} was started as rank 0 too (FLOWJOB_PROCESS_ID=0 twice)"
    ) in first.text, first.text[-3000:]
    assert "RankFailedError: rank 0 of 2 gave up after" in first.text
