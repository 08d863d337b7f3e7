"""The benchmark's ResNet-50 description against torchvision's published figures."""

from __future__ import annotations

from bench import _resnet


def test_resnet50_has_torchvisions_parameter_count_and_multiply_adds():
    convs = _resnet.convs("resnet50")
    assert len(convs) == 53  # 1 stem + 16 blocks x 3 + 4 projection shortcuts
    params = sum(cout * cin // g * k * k + 2 * cout for _, cin, cout, k, _, g, _ in convs)
    params += 2048 * 1000 + 1000
    assert params == 25_557_032  # torchvision.models.resnet50: 25,557,032 parameters
    macs = _resnet.flops("resnet50", 1) / 6  # train FLOPs = 3 x 2 x multiply-adds
    assert 4.08e9 < macs < 4.12e9  # torchvision: 4.09 G multiply-adds at 224x224


def test_resnext_block_grouped_and_dense_variants_differ_only_in_groups():
    g32, g1 = _resnet.convs("block_g32"), _resnet.convs("block_g1")
    assert [c[:5] for c in g32] == [c[:5] for c in g1]
    assert [c[5] for c in g32] == [1, 32, 1] and [c[5] for c in g1] == [1, 1, 1]
    # only the 3x3 convolution's multiply-adds differ: 28x28 outputs, 256 -> 256, /32
    dense_3x3 = 6 * 8 * 28 * 28 * 256 * 256 * 9
    assert _resnet.flops("block_g1", 8) - _resnet.flops("block_g32", 8) == dense_3x3 * 31 / 32
