"""The signature table against a OneFlow v0.4.0 clone, the comparison rules on their own, and
the fixed rows called the way OneFlow programs called them."""

from __future__ import annotations

import inspect
import os

import numpy as np
import pytest

import flowjob as flow
import flowjob.typing as tp
from flowjob._src.compat.parity import _signature_reasons as known
from flowjob._src.compat.parity import signatures
from flowjob._src.compat.parity.signatures import KEYWORD_ONLY, POSITIONAL, Param
from tests.parity_tables.table_checks import assert_rows_pass_or_are_known, needs_clone


@needs_clone
def test_every_exported_signature_matches_or_has_a_known_reason():
    rows = signatures.table()
    assert_rows_pass_or_are_known(rows, known, 500)


E = inspect.Parameter.empty


def test_compare_reads_names_order_defaults_and_varargs():
    of = [
        Param("x", POSITIONAL),
        Param("axis", POSITIONAL, "None"),
        Param("name", POSITIONAL, "None"),
    ]
    assert (
        signatures.compare(
            of,
            [
                Param("x", POSITIONAL),
                Param("axis", POSITIONAL, None),
                Param("name", POSITIONAL, None),
            ],
        )
        == []
    )
    renamed = signatures.compare(
        of,
        [
            Param("input", POSITIONAL),
            Param("axis", POSITIONAL, None),
            Param("name", POSITIONAL, None),
        ],
    )
    assert renamed == [
        "positional 0 is 'x' in OneFlow, 'input' in flowjob",
        "flowjob's 'input' is required and OneFlow has no such one",
    ]
    stricter = signatures.compare(
        of, [Param("x", POSITIONAL), Param("axis", POSITIONAL), Param("name", POSITIONAL, None)]
    )
    assert stricter == ["'axis' has the default None in OneFlow, none in flowjob"]
    other_default = signatures.compare(
        [Param("k", POSITIONAL, "[1.0, 2]")], [Param("k", POSITIONAL, (1.0, 2.0))]
    )
    assert other_default == []  # lists and tuples by items, numbers by value
    assert signatures.compare([Param("k", POSITIONAL, "3")], [Param("k", POSITIONAL, 4)]) != []
    extra = signatures.compare([], [Param("extra", KEYWORD_ONLY)])
    assert extra == ["flowjob's 'extra' is required and OneFlow has no such one"]
    star = signatures.compare([Param("args", "*")], [])
    assert star == ["OneFlow takes *args, flowjob does not"]


def test_optimizers_take_oneflows_positional_order_and_train_step_lbn():
    sched = flow.optimizer.PiecewiseConstantScheduler([], [0.1])
    opt = flow.optimizer.SGD(sched, None, 0.5, None, None, None, ["w"])
    assert opt.momentum == 0.5 and list(opt.variables) == ["w"]
    lamb = flow.optimizer.LAMB(sched, 0.9, 0.999, 1e-6, None, 0.01)
    assert lamb.weight_decay == 0.01
    with pytest.warns(Warning, match="train_step_lbn"):
        flow.optimizer.Adam(sched, train_step_lbn="System-Train-TrainStep")


def test_reductions_take_oneflows_input_names(fresh_session):
    @flow.global_function()
    def job(x: tp.Numpy.Placeholder((2, 3))) -> tuple[tp.Numpy, tp.Numpy, tp.Numpy]:
        return (
            flow.math.reduce_mean(input_blob=x, axis=1),
            flow.math.reduce_max(x=x, axis=0),
            flow.math.reduce_prod(x=x),
        )

    x = np.arange(6, dtype=np.float32).reshape(2, 3) + 1
    mean, top, prod = job(x)
    np.testing.assert_allclose(mean, x.mean(1))
    np.testing.assert_allclose(top, x.max(0))
    np.testing.assert_allclose(prod, [x.prod()])


def test_save_takes_obj_and_save_dir(tmp_path):
    value = np.arange(3, dtype=np.float32)
    flow.save(obj={"w": value}, save_dir=str(tmp_path / "a"))
    flow.save({"w": value}, str(tmp_path / "b"))
    for sub in ("a", "b"):
        np.testing.assert_array_equal(flow.checkpoint.get(str(tmp_path / sub))["w"].numpy(), value)
    assert sorted(os.listdir(tmp_path / "a")) == ["snapshot_done", "w"]


def test_renamed_parameters_are_accepted_by_keyword():
    assert flow.convert_oneflow_dtype_to_numpy_dtype(oneflow_dtype=flow.int8) is np.int8
    with pytest.raises(OSError, match="cannot load the op library 'x.so'"):
        flow.config.load_library(val="x.so")
    with pytest.raises(ValueError, match="logdir should not be None"):
        flow.summary.Graph()
    decoder = inspect.signature(flow.data.OFRecordRawDecoder)
    assert list(decoder.parameters)[5:] == ["auto_zero_padding", "name", "truncate"]
