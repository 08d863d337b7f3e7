"""FunctionConfig.function_desc reads back OneFlow's generic flags."""

import pytest

import flowjob as flow


def test_function_desc_reads_the_flags_that_were_set():
    config = flow.FunctionConfig()
    config.enable_inplace()
    config.enable_fuse_add_to_output(False)
    assert config.function_desc.enable_inplace is True
    assert config.function_desc.enable_fuse_add_to_output is False
    with pytest.raises(AttributeError, match="has not set enable_qat"):
        _ = config.function_desc.enable_qat
