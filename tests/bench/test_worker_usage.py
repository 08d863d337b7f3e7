"""A bench worker reports the kernel time and page faults of its timed steps, and oneDNN's own
time by primitive (the ResNet-50 table's columns and its table of what the oneDNN calls do)."""

from __future__ import annotations

import pytest

from bench import _harness as H
from flowjob._src import kernels

LENET = {"engine": "flowjob", "model": "lenet", "batch": 8, "warmup": 1, "conv_kernel": "onednn"}


@pytest.mark.timeout(300)
def test_lenet_worker_reports_usage_and_every_onednn_convolution_pass():
    if not kernels.onednn_available():
        pytest.skip("flowjob-onednn is not installed (scripts/_venv.sh builds it)")
    worker = H.Worker("lenet", LENET, timeout=240)
    try:
        worker.ask(cmd="warm", n=3)  # untimed: not in the usage figures
        worker.ask(cmd="run", n=2, lead=1)  # the lead-in step is untimed too
        rows = {what: (ms, n) for what, ms, n in worker.ask(cmd="onednn", n=2)["rows"]}
    finally:
        closed = worker.close()
    # LeNet has two convolutions: a step runs both forward and both weight gradients, and
    # one input gradient (the first convolution's input is the data, which needs none).
    for what, per_step in (("forward", 2), ("backward weights", 2), ("backward data", 1)):
        ms, n = rows[f"convolution, {what}"]
        assert n == per_step and ms > 0
    assert any(what.startswith("reorder") for what in rows)
    assert closed["timed_steps"] == 2
    # every step ran: the timed first call, the spec's warm-up, "warm", the lead-in, the
    # timed steps and oneDNN's
    assert closed["losses"] == 1 + 1 + 3 + 1 + 2 + 2
    assert closed["sys_s_per_step"] >= 0 and closed["faults_per_step"] >= 0
    assert closed["maxrss_mb"] > 0


def test_onednn_label_reads_the_reorder_direction_from_the_destination_tag():
    from bench._profile import onednn_label

    line = (
        "onednn_verbose,exec,cpu,reorder,jit:blk,undef,"
        "src_f32::blocked:{}::f0 dst_f32::blocked:{}::f0,,,8x64x56x56,1.5"
    )
    into = line.format("abcd", "aBcd16b").split(",")
    back = line.format("aBcd16b", "abcd").split(",")
    assert onednn_label(into) == "reorder into oneDNN's blocked layout"
    assert onednn_label(back) == "reorder back to the caller's plain layout"
