"""Structure graph: OneFlow's JSON, the TensorBoard GraphDef read back with TensorBoard's
readers, and the Graphs tab of a real TensorBoard server."""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field

import numpy as np
import pytest
from google.protobuf import text_format
from tensorboard.backend.event_processing import event_accumulator
from tensorboard.compat.proto import graph_pb2, types_pb2

from flowjob._src.summary._structure_graph import Graph, graph_def, structure_graph_json
from flowjob._src.summary._writer import SummaryWriter


# -- small stand-ins with the attributes of flowjob._src.graph's JobGraph/OpNode/Blob ------------
@dataclass
class DType:
    name: str


@dataclass(eq=False)
class Blob:
    op: Op
    index: int
    shape: tuple
    dtype: DType

    @property
    def op_name(self):
        return self.op.name

    @property
    def lbn(self):
        return (
            f"{self.op.name}/out"
            if len(self.op.outputs) <= 1
            else f"{self.op.name}/out_{self.index}"
        )


@dataclass(eq=False)
class Op:
    name: str
    op_type: str
    inputs: list
    attrs: dict = field(default_factory=dict)
    namespace: tuple = ()
    device_tag: str = "cpu"
    kind: str = "device"
    outputs: list = field(default_factory=list)


@dataclass
class Job:
    name: str
    job_type: str
    ops: list = field(default_factory=list)

    def op(self, name, op_type, inputs, shapes, namespace=(), kind="device", **attrs):
        full = "-".join((*namespace, name))
        op = Op(full, op_type, list(inputs), attrs, tuple(namespace), kind=kind)
        op.outputs = [Blob(op, i, s, DType("float32")) for i, s in enumerate(shapes)]
        self.ops.append(op)
        return op.outputs


def fake_jobs():
    train = Job("TrainNet", "train")
    (x,) = train.op("images", "input", [], [(8, 784)], kind="input")
    (w,) = train.op(
        "weight",
        "variable",
        [],
        [(784, 10)],
        namespace=("dense1",),
        kind="variable",
        trainable=True,
    )
    (h,) = train.op(
        "matmul", "matmul", [x, w], [(8, 10)], namespace=("dense1",), transpose_b=False, alpha=1.0
    )
    top, idx = train.op(
        "topk",
        "top_k",
        [h],
        [(8, 2), (8, 2)],
        namespace=("head", "sel"),
        k=2,
        sorted=True,
        axes=[0, 1],
        note="hi",
        init=object(),
    )
    (loss,) = train.op("loss", "reduce_mean", [top, idx], [()], namespace=("head",))
    # Like flowjob's variables: "<ns>-<name>" but recorded without a namespace.
    (bias,) = train.op("head-bias", "variable", [], [()], kind="variable")
    train.op("my-op", "add", [loss, bias], [()])
    predict = Job("EvalNet", "predict")
    (x2,) = predict.op("images", "input", [], [(4, 784)], kind="input")
    predict.op("relu", "relu", [x2], [(4, 784)])
    return [train, predict]


def test_structure_graph_json_schema():
    doc = structure_graph_json(fake_jobs())
    assert [m["config"]["name"] for m in doc] == ["TrainNet", "EvalNet"]
    for model in doc:
        assert model["class_name"] == "Model" and model["backend"] == "oneflow"
        assert model["config"]["input_layers"] == [] and model["config"]["output_layers"] == []
    layers = {lay["name"]: lay for lay in doc[0]["config"]["layers"]}
    assert list(layers) == [
        "images",
        "dense1-weight",
        "dense1-matmul",
        "head-sel-topk",
        "head-loss",
        "head-bias",
        "my-op",
    ]
    assert layers["images"]["class_name"] == "system_op"
    assert layers["dense1-weight"]["class_name"] == "variable"
    assert layers["dense1-weight"]["config"]["variable_conf"]["shape"] == [784, 10]
    assert layers["dense1-weight"]["config"]["trainable"] is True
    mm = layers["dense1-matmul"]
    assert mm["class_name"] == "matmul"
    assert mm["inbound_nodes"] == ["images", "dense1-weight"]
    assert mm["config"]["user_conf"]["op_type_name"] == "matmul"
    assert mm["config"]["user_conf"]["input"]["in_1"]["s"] == ["dense1-weight/out"]
    assert mm["config"]["transpose_b"] is False and mm["config"]["alpha"] == 1.0
    assert layers["head-loss"]["inbound_nodes"] == ["head-sel-topk"]  # one entry per producer
    assert layers["head-sel-topk"]["config"]["axes"] == [0, 1]
    assert layers["head-sel-topk"]["config"]["init"].startswith("<object object")
    json.dumps(doc)  # everything is JSON-serialisable


def test_graph_def_nodes_edges_and_attrs():
    gd = graph_def(fake_jobs())
    nodes = {n.name: n for n in gd.node}
    assert set(nodes) == {
        "TrainNet/images",
        "TrainNet/dense1/weight",
        "TrainNet/dense1/matmul",
        "TrainNet/head/sel/topk",
        "TrainNet/head/loss",
        "TrainNet/head/bias",
        "TrainNet/my-op",
        "EvalNet/images",
        "EvalNet/relu",
    }
    assert list(nodes["TrainNet/my-op"].input) == ["TrainNet/head/loss", "TrainNet/head/bias"]
    mm = nodes["TrainNet/dense1/matmul"]
    assert mm.op == "matmul" and mm.device == "/device:CPU:0"
    assert list(mm.input) == ["TrainNet/images", "TrainNet/dense1/weight"]
    assert [[d.size for d in s.dim] for s in mm.attr["_output_shapes"].list.shape] == [[8, 10]]
    assert mm.attr["dtype"].type == types_pb2.DT_FLOAT
    assert mm.attr["transpose_b"].b is False and mm.attr["alpha"].f == 1.0
    assert mm.attr["_job_type"].s == b"train"
    loss = nodes["TrainNet/head/loss"]
    assert list(loss.input) == ["TrainNet/head/sel/topk", "TrainNet/head/sel/topk:1"]
    assert loss.attr["_output_shapes"].list.shape[0].dim == []  # scalar
    topk = nodes["TrainNet/head/sel/topk"]
    assert topk.attr["k"].i == 2 and list(topk.attr["axes"].list.i) == [0, 1]
    assert topk.attr["note"].s == b"hi" and topk.attr["sorted"].b is True
    assert b"object object" in topk.attr["init"].s
    assert nodes["EvalNet/relu"].attr["_job_type"].s == b"predict"


def read_graph(logdir) -> graph_pb2.GraphDef:
    acc = event_accumulator.EventAccumulator(str(logdir), size_guidance={"graph": 0})
    acc.Reload()
    assert acc.Tags()["graph"]
    return acc.Graph()


def test_write_structure_graph_files(tmp_path):
    jobs = fake_jobs()
    g = Graph(tmp_path)
    g.write_structure_graph(jobs=jobs)
    path = tmp_path / "graph" / "structure_graph.json"
    assert g.path == str(path)
    doc = json.loads(path.read_text(encoding="utf-8"))
    assert doc == json.loads(json.dumps(structure_graph_json(jobs)))
    assert read_graph(tmp_path) == graph_def(jobs)
    with pytest.raises(OSError, match="You must create only one structure graph log file!"):
        g.write_structure_graph(jobs=fake_jobs())
    os.remove(path)  # OneFlow allows another write once the file is gone
    g.write_structure_graph(jobs=fake_jobs()[:1])
    assert len(json.loads(path.read_text())) == 1


def test_graph_errors(tmp_path):
    with pytest.raises(ValueError, match="logdir should not be None"):
        Graph(None)
    with pytest.raises(TypeError, match="logdir must be a str or path"):
        Graph(3)


def test_real_job_graph_through_flowjob_graph(tmp_path):
    import jax.numpy as jnp

    from flowjob._src import _dtypes
    from flowjob._src import graph as fg

    job = fg.JobGraph("RealJob", "predict", None)
    with fg.tracing(job, None):
        (x,) = job.add_op(
            name="x",
            op_type="input",
            kind="input",
            lowering=None,
            inputs=[],
            attrs={},
            outputs=[((4, 3), _dtypes.float32, False)],
        ).outputs
        with fg.namespace("block"), fg.namespace("inner"):
            y = fg.apply_op("scale", lambda a, factor: a * factor, [x], attrs={"factor": 2.0})
        z = fg.apply_op("relu", lambda a: jnp.maximum(a, 0), [y])
    nodes = {n.name: n for n in graph_def([job]).node}
    assert set(nodes) == {
        "RealJob/x",
        f"RealJob/block/inner/{y.op.name.split('-')[-1]}",
        f"RealJob/{z.op.name}",
    }
    inner = nodes[f"RealJob/block/inner/{y.op.name.split('-')[-1]}"]
    assert list(inner.input) == ["RealJob/x"] and inner.attr["factor"].f == 2.0
    assert list(nodes[f"RealJob/{z.op.name}"].input) == [inner.name]
    layers = structure_graph_json([job])[0]["config"]["layers"]
    assert [lay["inbound_nodes"] for lay in layers] == [[], ["x"], [y.op.name]]


def test_structure_graph_of_real_global_functions(tmp_path, fresh_session):
    flow = fresh_session
    import flowjob.typing as tp

    @flow.global_function(type="predict")
    def ScoreJob(x: tp.Numpy.Placeholder((4, 3), dtype=flow.float)) -> tp.Numpy:
        with flow.scope.namespace("block"):
            w = flow.get_variable("w", shape=(3, 2), initializer=flow.ones_initializer())
            return flow.matmul(x, w)

    @flow.global_function(type="predict")
    def OtherJob(x: tp.Numpy.Placeholder((2,), dtype=flow.float)) -> tp.Numpy:
        return flow.math.relu(x) if hasattr(flow.math, "relu") else flow.identity(x)

    out = ScoreJob(np.ones((4, 3), np.float32))
    np.testing.assert_allclose(out, np.full((4, 2), 3.0))
    Graph(tmp_path).write_structure_graph()  # jobs from flowjob._src.graph.all_job_graphs()

    doc = json.loads((tmp_path / "graph" / "structure_graph.json").read_text())
    assert sorted(m["config"]["name"] for m in doc) == ["OtherJob", "ScoreJob"]
    score = next(m for m in doc if m["config"]["name"] == "ScoreJob")["config"]["layers"]
    by_class = {lay["class_name"]: lay for lay in score}
    assert by_class["variable"]["name"] == "block-w"
    assert by_class["variable"]["config"]["variable_conf"]["shape"] == [3, 2]
    assert sorted(by_class["matmul"]["inbound_nodes"]) == ["block-w", "x"]

    gd = read_graph(tmp_path)
    nodes = {n.name: n for n in gd.node}
    (matmul,) = [n for n in gd.node if n.op == "matmul"]
    assert matmul.name.startswith("ScoreJob/block/")
    assert sorted(matmul.input) == ["ScoreJob/block/w", "ScoreJob/x"]
    assert [d.size for d in nodes["ScoreJob/block/w"].attr["_output_shapes"].list.shape[0].dim] == [
        3,
        2,
    ]
    assert any(name.startswith("OtherJob/") for name in nodes)


def test_graphs_tab_of_a_real_tensorboard(tmp_path, tb_server):
    # The graph goes into the open writer's event file: the run shows once, with its graph.
    with SummaryWriter(tmp_path) as writer:
        writer.scalar("loss", 0.5, 1)
        Graph(tmp_path).write_structure_graph(jobs=fake_jobs())
        assert not writer.closed
        writer.scalar("loss", 0.25, 2)
    assert [p.name for p in tmp_path.rglob("events.out.tfevents.*")] == [
        os.path.basename(writer.path)
    ]
    srv = tb_server(tmp_path)
    info = srv.wait_for(lambda: srv.get_json("/data/plugin/graphs/info"), ok=lambda r: "." in r)
    assert srv.get_json("/data/runs") == ["."]
    assert info["."]["run_graph"] is True
    loss = srv.get_json("/data/plugin/scalars/scalars?run=.&tag=loss")
    assert [(s, v) for _, s, v in loss] == [(1, 0.5), (2, 0.25)]
    text = srv.get("/data/plugin/graphs/graph?run=.&conceptual=false").decode()
    served = text_format.Parse(text, graph_pb2.GraphDef())
    names = {n.name for n in served.node}
    assert {"TrainNet/dense1/matmul", "TrainNet/head/sel/topk", "EvalNet/relu"} <= names
    assert 'input: "TrainNet/head/sel/topk:1"' in text
    assert np.array_equal(sorted(names), sorted(n.name for n in graph_def(fake_jobs()).node))


def test_input_from_an_op_outside_the_job_becomes_an_external_node():
    other = Job("Other", "predict")
    (foreign,) = other.op("feed", "input", [], [(2,)], kind="input")
    job = Job("Main", "predict")
    job.op("neg", "negative", [foreign], [(2,)])
    nodes = {n.name: n for n in graph_def([job]).node}
    assert nodes["Main/feed"].op == "External"
    assert list(nodes["Main/neg"].input) == ["Main/feed"]
