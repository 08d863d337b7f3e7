"""``flow.model.Model.fit`` against a NumPy re-implementation of the same training run.

The model is linear regression ``pred = x @ w`` (``w`` starts at zero) trained with plain SGD
on an MSE loss, so every loss, validation output and variable value has a closed-form NumPy
reference computed step by step here.
"""

from __future__ import annotations

import numpy as np
import pytest

pytestmark = pytest.mark.usefixtures("fresh_session")

LR = 0.1
BATCH = 8
RNG = np.random.default_rng(0)
X = RNG.normal(size=(4 * BATCH, 3)).astype(np.float32)
Y = (X @ np.array([[1.5], [-2.0], [0.5]], np.float32)).astype(np.float32)
X_VAL = RNG.normal(size=(BATCH, 3)).astype(np.float32)
Y_VAL = (X_VAL @ np.array([[1.5], [-2.0], [0.5]], np.float32)).astype(np.float32)


def batch_of(step_idx: int) -> tuple[np.ndarray, np.ndarray]:
    i = step_idx % 4
    return X[i * BATCH : (i + 1) * BATCH], Y[i * BATCH : (i + 1) * BATCH]


def reference(steps: int, optimizers: int = 1, w0: np.ndarray | None = None):
    """Per step: the training losses (one per optimizer), then w and the validation MSE."""
    w = np.zeros((3, 1), np.float64) if w0 is None else w0.astype(np.float64)
    losses, weights, vals = [], [], []
    for s in range(steps):
        x, y = (a.astype(np.float64) for a in batch_of(s))
        for _ in range(optimizers):
            err = x @ w - y
            losses.append(np.mean(err**2))
            w = w - LR * 2.0 / err.size * x.T @ err
        weights.append(w.copy())
        vals.append(np.mean((X_VAL @ w - Y_VAL) ** 2))
    return np.array(losses), weights, np.array(vals)


def make_classes(flow, optimizers: int = 1):
    class TrainData(flow.model.NumpyDataModule):
        def __init__(self):
            super().__init__()
            self.calls: list[tuple[int, int]] = []

        def forward(self, step_idx, optimizer_idx=0):
            self.calls.append((step_idx, optimizer_idx))
            return batch_of(step_idx)

    class ValData(flow.model.NumpyDataModule):
        def forward(self, step_idx, optimizer_idx=0):
            return X_VAL, Y_VAL

    class Linear(flow.model.Model):
        def forward(self, x):
            w = flow.get_variable(
                "w", shape=(3, 1), dtype=flow.float32, initializer=flow.zeros_initializer()
            )
            return flow.matmul(x, w)

        def training_step(self, batch, optimizer_idx):
            x, y = batch
            loss = flow.math.reduce_mean(flow.math.square(self(x) - y))
            return loss, flow.identity(x)

        def validation_step(self, batch):
            x, y = batch
            return flow.math.reduce_mean(flow.math.square(self(x) - y))

        def configure_optimizers(self):
            opts = [
                flow.optimizer.SGD(flow.optimizer.PiecewiseConstantScheduler([], [LR]), momentum=0)
                for _ in range(optimizers)
            ]
            return opts[0] if optimizers == 1 else opts

    class Recorder(flow.model.Callback):
        def __init__(self):
            self.events: list[tuple] = []

        def on_training_step_end(self, outputs, step_idx, optimizer_idx):
            loss, x = outputs
            self.events.append(
                ("train", step_idx, optimizer_idx, loss.numpy().item(), x.numpy().copy())
            )

        def on_validation_step_end(self, outputs, step_idx):
            self.events.append(("val", step_idx, outputs.numpy().item()))

    return TrainData, ValData, Linear, Recorder


def configs(flow, train_data, val_data=None, interval=3):
    train = flow.model.TrainingConfig()
    train.config_data(train_data)
    val = None
    if val_data is not None:
        val = flow.model.ValidationConfig()
        val.config_data(val_data)
        val.config_step_interval(interval)
    return train, val


def test_fit_trains_and_calls_back_in_order(fresh_session):
    flow = fresh_session
    TrainData, ValData, Linear, Recorder = make_classes(flow)
    data, rec = TrainData(), Recorder()
    train, val = configs(flow, data, ValData(), interval=3)
    Linear().fit(training_config=train, validation_config=val, callbacks=rec, max_steps=10)

    losses, _, vals = reference(10)
    kinds = [(e[0], e[1]) for e in rec.events]
    expected = []
    for s in range(10):
        expected.append(("train", s))
        if (s + 1) % 3 == 0:
            expected.append(("val", s))
    assert kinds == expected  # validation after steps 2, 5, 8 only
    got = np.array([e[3] for e in rec.events if e[0] == "train"])
    np.testing.assert_allclose(got, losses, rtol=1e-5)
    assert got[-1] < got[0] / 5  # the loss falls
    got_val = [e[2] for e in rec.events if e[0] == "val"]
    np.testing.assert_allclose(got_val, vals[[2, 5, 8]], rtol=1e-5)


def test_numpy_data_module_batches_are_numpy_slices(fresh_session):
    flow = fresh_session
    TrainData, _, Linear, Recorder = make_classes(flow)
    data, rec = TrainData(), Recorder()
    train, _ = configs(flow, data)
    Linear().fit(training_config=train, callbacks=[rec], max_steps=6)
    # Step 0's batch is read once, when the job is built (it fixes the placeholders).
    assert data.calls == [(s, 0) for s in range(6)]
    for _, step, _, _, fed in rec.events:
        i = step % 4
        np.testing.assert_array_equal(fed, X[i * BATCH : (i + 1) * BATCH])


def test_several_optimizers_run_in_turn(fresh_session):
    flow = fresh_session
    TrainData, _, Linear, Recorder = make_classes(flow, optimizers=2)
    data, rec = TrainData(), Recorder()
    train, _ = configs(flow, data)
    Linear().fit(training_config=train, callbacks=rec, max_steps=3)
    assert [(e[1], e[2]) for e in rec.events] == [(s, i) for s in range(3) for i in range(2)]
    assert data.calls == [(s, i) for s in range(3) for i in range(2)]
    losses, _, _ = reference(3, optimizers=2)
    np.testing.assert_allclose([e[3] for e in rec.events], losses, rtol=1e-5)


def test_checkpoints_saved_by_step_load_back(fresh_session, tmp_path):
    flow = fresh_session
    TrainData, _, Linear, Recorder = make_classes(flow)
    train, _ = configs(flow, TrainData())
    ck = flow.model.CheckpointConfig()
    ck.config_save(dirpath=str(tmp_path / "ckpt"), step_interval=3)
    Linear().fit(training_config=train, checkpoint_config=ck, max_steps=7)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["ckpt-2", "ckpt-5"]
    _, weights, _ = reference(7)

    # A fresh session: the saved variable holds the weights after steps 0..5.
    flow.clear_default_session()

    @flow.global_function(type="predict")
    def read_w() -> flow.typing.Numpy:
        return flow.get_variable(
            "w", shape=(3, 1), dtype=flow.float32, initializer=flow.zeros_initializer()
        )

    flow.load_variables(flow.checkpoint.get(str(tmp_path / "ckpt-5")))
    np.testing.assert_allclose(read_w(), weights[5], rtol=1e-5)

    # config_load: fit starts from the checkpoint (fit clears the session itself).
    rec = Recorder()
    train, _ = configs(flow, TrainData())
    ck = flow.model.CheckpointConfig()
    ck.config_load(dirpath=str(tmp_path / "ckpt-2"))
    Linear().fit(training_config=train, checkpoint_config=ck, callbacks=rec, max_steps=2)
    losses, _, _ = reference(2, w0=weights[2])
    np.testing.assert_allclose([e[3] for e in rec.events], losses, rtol=1e-5)


def test_plain_data_module_builds_data_inside_the_job(fresh_session):
    flow = fresh_session
    x_all, y_all = batch_of(0)

    class ConstData(flow.model.DataModule):
        def forward(self, step_idx=0, optimizer_idx=0):
            return (
                flow.constant_like(flow.zeros((BATCH, 3)), 0) + x_all,
                flow.constant_like(flow.zeros((BATCH, 1)), 0) + y_all,
            )

    _, _, Linear, Recorder = make_classes(flow)
    rec = Recorder()
    train, _ = configs(flow, ConstData())
    Linear().fit(training_config=train, callbacks=rec, max_steps=3)
    w = np.zeros((3, 1))
    for _, _, _, loss, _ in rec.events:
        err = x_all @ w - y_all
        np.testing.assert_allclose(loss, np.mean(err**2), rtol=1e-5)
        w = w - LR * 2.0 / err.size * x_all.T @ err


def test_invalid_configs_are_skipped_with_a_warning(fresh_session):
    flow = fresh_session
    _, ValData, Linear, Recorder = make_classes(flow)
    rec = Recorder()
    train = flow.model.TrainingConfig()  # no data
    _, val = configs(flow, None, ValData(), interval=2)
    with pytest.warns(UserWarning, match="TrainingConfig data is not a flow.model.DataModule"):
        Linear().fit(training_config=train, validation_config=val, callbacks=rec, max_steps=4)
    # Validation alone ran, on the untrained (zero) weights.
    assert [(e[0], e[1]) for e in rec.events] == [("val", 1), ("val", 3)]
    np.testing.assert_allclose(rec.events[0][2], np.mean(Y_VAL**2), rtol=1e-5)
    with pytest.warns(UserWarning, match="does nothing"):
        Linear().fit(max_steps=2)
    with pytest.raises(flow.model.ModelError, match="callbacks"):
        Linear().fit(training_config=configs(flow, ValData())[0], callbacks=[object()])


def test_step_error_names_the_step(fresh_session):
    flow = fresh_session
    TrainData, _, Linear, _ = make_classes(flow)

    class Failing(flow.model.Callback):
        def on_training_step_end(self, outputs, step_idx, optimizer_idx):
            if step_idx == 2:
                raise RuntimeError("boom")

    train, _ = configs(flow, TrainData())
    with pytest.raises(RuntimeError, match="boom") as info:
        Linear().fit(training_config=train, callbacks=Failing(), max_steps=5)
    assert any("step_idx 2 training failed" in n for n in info.value.__notes__)
