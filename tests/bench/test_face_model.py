"""The benchmark's face model against MobileFaceNet's published figures (Chen et al. 2018:
0.99 million parameters, 221 million multiply-adds at 112x112)."""

from __future__ import annotations

from bench import _face


def _walk():
    size, weights, macs = _face.SIZE, 0, 0
    for _, cin, cout, k, stride, groups, _, _ in _face.layers():
        pad = 0 if k == 7 else k // 2
        size = (size + 2 * pad - k) // stride + 1
        weights += cout * cin // groups * k * k + 2 * cout  # with batch norm's scale, shift
        macs += size * size * cout * cin // groups * k * k
    return size, weights, macs


def test_mobilefacenet_matches_the_papers_size_and_multiply_adds():
    size, weights, macs = _walk()
    assert size == 1  # the 7x7 global depthwise convolution ends at 1x1
    weights += 512 * _face.EMBEDDING  # the embedding's dense layer
    macs += 512 * _face.EMBEDDING
    assert 0.985e6 < weights < 1.0e6, weights
    assert 220e6 < macs < 222e6, macs


def test_residual_blocks_add_inputs_of_their_own_width():
    shortcut_width = None
    for name, cin, cout, _, stride, _, _, residual in _face.layers():
        if name.endswith("_sep"):
            shortcut_width = cin
        if residual:
            assert residual == "shortcut" and cout == shortcut_width and stride == 1
    assert sum(1 for spec in _face.layers() if spec[7]) == 4 + 6 + 2  # MobileFaceNet's blocks
