"""A bench variant's ``conv_kernel`` names the convolution kernel policy its worker traces
with (the LeNet and ResNet-50 tables compare the measured choice with each kernel forced)."""

from __future__ import annotations

from bench._worker import _patch_flowjob
from flowjob._src import kernels


def test_conv_kernel_spec_sets_the_policy_the_lowering_reads(monkeypatch):
    monkeypatch.setenv("FLOWJOB_CONV_KERNEL", "measure")
    _patch_flowjob({"conv_kernel": "onednn"})
    assert kernels.policy() == "onednn"
    _patch_flowjob({"conv_kernel": "xla"})
    assert kernels.policy() == "xla"


def test_without_conv_kernel_the_policy_is_left_alone(monkeypatch):
    monkeypatch.setenv("FLOWJOB_CONV_KERNEL", "measure")
    _patch_flowjob({})
    assert kernels.policy() == "measure"
