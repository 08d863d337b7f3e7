"""Saved models: written by OneFlow's builders, run in a new process without model source."""

from __future__ import annotations

import json

import jax
import numpy as np
import pytest
from export_zoo import (
    BATCH,
    ONEDNN_TOL,
    assert_within_scale,
    define_jobs,
    make_inputs,
    run_python,
    xla_outputs,
)

import flowjob as flow
import flowjob.typing as tp
from flowjob._src.export import ExportError

# The saved program is the job's own StableHLO with XLA's kernels (no oneDNN custom call
# leaves the process). Against the job computed with the same kernels only XLA's fusion
# choices can differ between the two compilations (float32 sums reassociated), hence
# float32-rounding tolerances; against the job's own kernels, see ``ONEDNN_TOL``.
RTOL, ATOL = 1e-5, 1e-5


def assert_like_job(got, xla, job, name):
    """``got`` (a saved model's output) is the job's: to float32 rounding with the same
    kernels, within ``ONEDNN_TOL`` of the output's scale with the job's own kernels."""
    np.testing.assert_allclose(got, xla, rtol=RTOL, atol=ATOL, err_msg=name)
    assert_within_scale(got, job, ONEDNN_TOL, name)


CHILD = """
import importlib.util, json, sys
import numpy as np
import flowjob

for name in ("export_models", "models", "export_test_models", "conftest"):
    assert importlib.util.find_spec(name) is None, name + " is importable"
data = dict(np.load("inputs.npz"))
names = json.loads(open("names.json").read())
out = {}
for graph in names:
    fn = flowjob.saved_model.load("saved", graph_name=graph)
    args = {k.split("/", 1)[1]: v for k, v in data.items() if k.startswith(graph + "/")}
    out[graph] = np.asarray(fn(**args))
    sess = flowjob.serving.InferenceSession()
    sess.load_saved_model("saved", graph_name=graph)
    sess.launch()
    assert sess.list_jobs() == [graph]
    assert set(sess.list_inputs()) == set(args), sess.list_inputs()
    result = sess.run(graph, **args)
    assert len(result) == len(sess.list_outputs()) == 1
    out[graph + "/serving"] = result[0]
    sess.close()
np.savez("outputs.npz", **out)
print("loaded", sorted(sys.modules.get("flowjob").__dict__)[:0])
"""


@pytest.fixture(scope="module")
def saved(zoo, tmp_path_factory):
    root = tmp_path_factory.mktemp("saved_model")
    builder = flow.saved_model.ModelBuilder(str(root / "saved")).ModelName("zoo").Version(3)
    for job in zoo.jobs.values():
        builder.AddFunction(job).Finish()
    builder.Save()
    return root


def test_layout_and_signature(saved, zoo):
    version = saved / "saved" / "3"
    meta = json.loads((version / "saved_model.json").read_text())
    assert meta["name"] == "zoo" and meta["version"] == 3
    assert meta["default_graph_name"] == "lenet"
    assert (version / meta["checkpoint_dir"]).is_file()
    bert = meta["graphs"]["bert"]["signatures"]["default"]
    assert bert["inputs"] == {
        "ids": {"lbn": "ids/out", "shape": [BATCH, 8], "dtype": "int32"},
        "mask": {"lbn": "mask/out", "shape": [BATCH, 8], "dtype": "int32"},
    }
    [(_, out)] = bert["outputs"].items()
    assert out["shape"] == [BATCH, 32] and out["dtype"] == "float32"
    assert (version / bert["program"]).stat().st_size > 0
    # the variables file holds exactly the variables of the four jobs
    stored = flow.checkpoint.get(str(version / meta["checkpoint_dir"]))
    assert set(stored) == zoo.variables
    for name, blob in stored.items():
        np.testing.assert_array_equal(blob.numpy(), flow.get_all_variables()[name].numpy())


def test_outputs_in_new_process_without_model_source(saved, zoo):
    np.savez(
        saved / "inputs.npz",
        **{f"{g}/{k}": v for g, args in zoo.inputs.items() for k, v in args.items()},
    )
    (saved / "names.json").write_text(json.dumps(list(zoo.jobs)))
    run_python(CHILD, saved)
    outputs = np.load(saved / "outputs.npz")
    for name, expected in zoo.expected.items():
        assert np.abs(expected).max() > 0.1, name  # a non-trivial output is compared
        assert_like_job(outputs[name], zoo.expected_xla[name], expected, name)
        np.testing.assert_array_equal(outputs[name + "/serving"], outputs[name])


def test_polymorphic_batch(saved, zoo):
    """A program saved at batch 4 runs at batches 1 and 7 where the job allows it, matching
    the same job traced at those batch sizes."""
    meta = json.loads((saved / "saved" / "3" / "saved_model.json").read_text())
    polymorphic = {
        g: d["signatures"]["default"]["batch_polymorphic"] for g, d in meta["graphs"].items()
    }
    # every zoo model, convolutions included, gets a free batch dimension
    assert all(polymorphic.values()), polymorphic
    for batch in (1, 7):
        jobs = define_jobs(batch, suffix=f"_b{batch}")
        inputs = make_inputs(batch, seed=batch)
        xla = xla_outputs(batch, inputs, suffix=f"_b{batch}_xla")
        for name in (name for name, free in polymorphic.items() if free):
            fn = flow.saved_model.load(saved / "saved", graph_name=name)
            got = np.asarray(fn(**inputs[name]))
            expected = jobs[name](*inputs[name].values())
            assert_like_job(got, xla[name], expected, name)
    for name in (name for name, free in polymorphic.items() if not free):
        # the graph keeps its batch size, says why in its metadata and on a call
        assert meta["graphs"][name]["signatures"]["default"]["batch_note"]
        fn = flow.saved_model.load(saved / "saved", graph_name=name)
        x = zoo.inputs[name]["x"]
        with pytest.raises(ExportError, match=rf"input 'x' has shape \(1, {x.shape[1]}, "):
            fn(x[:1])


def test_batch_mixing_job_keeps_its_batch(zoo, tmp_path):
    @flow.global_function()
    def centered(x: tp.Numpy.Placeholder((4, 3))) -> tp.Numpy:
        # mixes rows: a program at another batch size would compute something else
        return x - flow.math.reduce_mean(x, axis=0, keepdims=True)

    strict = flow.saved_model.ModelBuilder(str(tmp_path / "strict")).Version(1)
    strict.BatchPolymorphic(True).AddFunction(centered)
    with pytest.raises(ExportError, match="rows are not computed independently"):
        strict.Save()
    assert not (tmp_path / "strict" / "1").exists()
    builder = flow.saved_model.ModelBuilder(str(tmp_path / "m")).Version(1)
    builder.AddFunction(centered)
    builder.Save()
    fn = flow.saved_model.load(tmp_path / "m")
    assert not fn.signature.batch_polymorphic
    x = np.arange(12, dtype=np.float32).reshape(4, 3)
    np.testing.assert_allclose(fn(x), x - x.mean(0), rtol=RTOL, atol=ATOL)
    # a plain JAX function: jit-able, and float64 input is cast as a job call casts it
    np.testing.assert_allclose(
        jax.jit(fn)(x.astype(np.float64)), x - x.mean(0), rtol=RTOL, atol=ATOL
    )


def test_signature_builder_names_inputs_and_outputs(zoo, tmp_path):
    lbns = {}

    @flow.global_function()
    def two_outputs(x: tp.Numpy.Placeholder((2, 3))) -> tp.Numpy:
        y = flow.math.sigmoid(x, name="probs")
        lbns["x"], lbns["probs"] = x.logical_blob_name, y.logical_blob_name
        return flow.math.reduce_sum(y, axis=1, name="total")

    builder = flow.saved_model.ModelBuilder(str(tmp_path / "m"))
    graph = builder.ModelName("two").Version(2).AddFunction(two_outputs)
    graph.AddSignature("both").Input("features", "x/out").Output("probs", "probs/out").Output(
        "total", "total/out"
    )
    builder.Save()
    assert lbns == {"x": "x/out", "probs": "probs/out"}
    sess = flow.serving.InferenceSession()
    sess.load_saved_model(str(tmp_path / "m"))
    sess.launch()
    assert sess.list_inputs() == ("features",)
    assert sess.list_outputs() == ("probs", "total")
    assert sess.input_info("features") == {"shape": (2, 3), "dtype": flow.float32}
    x = np.array([[0.0, 1.0, -2.0], [3.0, 0.5, 0.0]], np.float32)
    probs, total = sess.run("two_outputs", features=x)
    np.testing.assert_allclose(probs, 1 / (1 + np.exp(-x)), rtol=1e-6)
    np.testing.assert_allclose(total, probs.sum(1), rtol=1e-6)
    with pytest.raises(
        ExportError,
        match=r"expected inputs \['features'\], missing "
        r"\['features'\], unknown \['x'\]",
    ):
        sess.run("two_outputs", x=x)


def test_versions_and_errors(zoo, tmp_path):
    mlp = zoo.jobs["mlp"]
    for version in (1, 10, 2):
        flow.saved_model.ModelBuilder(str(tmp_path / "m")).ModelName("mlp").Version(
            version
        ).AddFunction(mlp).Finish().OwnerModelBuilder().Save()
    sess = flow.serving.InferenceSession()
    sess.load_saved_model(str(tmp_path / "m"), flow.serving.ModelVersionPolicy.LATEST)
    assert sess.checkpoint_path.endswith("10/variables.safetensors")
    sess.load_saved_model(str(tmp_path / "m"), model_version=2)
    with pytest.raises(ExportError, match="already exists"):
        flow.saved_model.ModelBuilder(str(tmp_path / "m")).Version(2).AddFunction(
            mlp
        ).OwnerModelBuilder().Save()
    with pytest.raises(ExportError, match="model version is not set"):
        flow.saved_model.ModelBuilder(str(tmp_path / "n")).AddFunction(
            mlp
        ).OwnerModelBuilder().Save()
    with pytest.raises(ExportError, match=r"no blob 'nope/out' in the job"):
        flow.saved_model.ModelBuilder(str(tmp_path / "n")).Version(1).AddFunction(mlp).AddSignature(
            "s"
        ).Output("y", "nope/out").OwnerGraphBuilder().Finish()
    with pytest.raises(ExportError, match="version 5 has no saved_model.json"):
        flow.saved_model.load(tmp_path / "m", version=5)
    with pytest.raises(ExportError, match="is a train job"):

        @flow.global_function(type="train")
        def train_job(x: tp.Numpy.Placeholder((2, 3))) -> tp.Numpy:
            loss = flow.math.reduce_sum(flow.get_variable("w_train", (3,)) * x)
            flow.optimizer.SGD(flow.optimizer.PiecewiseConstantScheduler([], [0.1])).minimize(loss)
            return loss

        flow.saved_model.ModelBuilder(str(tmp_path / "t")).Version(1).AddFunction(
            train_job
        ).Finish()
