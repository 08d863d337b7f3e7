"""``fit``'s progress bar and TensorBoard logging, checked against the callbacks' outputs and
TensorBoard's own event reader."""

from __future__ import annotations

import io
import re

import numpy as np
import pytest
from tensorboard.backend.event_processing import event_accumulator as ea

pytestmark = pytest.mark.usefixtures("fresh_session")


class FakeTerminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def make_model(flow):
    x = np.linspace(-1, 1, 12, dtype=np.float32).reshape(4, 3)
    y = x.sum(axis=1, keepdims=True)

    class Data(flow.model.NumpyDataModule):
        def forward(self, step_idx, optimizer_idx=0):
            return x, y

    class Lin(flow.model.Model):
        def training_step(self, batch, optimizer_idx):
            w = flow.get_variable(
                "w", shape=(3, 1), dtype=flow.float32, initializer=flow.zeros_initializer()
            )
            return flow.math.reduce_mean(flow.math.square(flow.matmul(batch[0], w) - batch[1]))

        def validation_step(self, batch):
            w = flow.get_variable(
                "w", shape=(3, 1), dtype=flow.float32, initializer=flow.zeros_initializer()
            )
            return flow.matmul(batch[0], w)

        def configure_optimizers(self):
            return flow.optimizer.SGD(flow.optimizer.PiecewiseConstantScheduler([], [0.2]))

    class Losses(flow.model.Callback):
        def __init__(self):
            self.train, self.val = {}, {}

        def on_training_step_end(self, outputs, step_idx, optimizer_idx):
            self.train[step_idx] = outputs.numpy().item()

        def on_validation_step_end(self, outputs, step_idx):
            self.val[step_idx] = float(outputs.numpy().mean())

    train = flow.model.TrainingConfig()
    train.config_data(Data())
    val = flow.model.ValidationConfig()
    val.config_data(Data())
    val.config_step_interval(4)
    return Lin(), train, val, Losses()


@pytest.mark.parametrize("tty", [True, False])
def test_progress_bar(fresh_session, tty):
    flow = fresh_session
    model, train, val, losses = make_model(flow)
    stream = FakeTerminal() if tty else io.StringIO()
    model.fit(
        training_config=train,
        validation_config=val,
        max_steps=20,
        callbacks=[losses, flow.model.ProgressBar(stream=stream, width=10)],
    )
    text = stream.getvalue()
    if tty:  # one line, redrawn: carriage returns, and a single newline at the end
        assert text.count("\n") == 1 and text.endswith("\n")
        assert text.count("\r") == 20 + 5  # every training and validation step
        last = text.rstrip("\n").split("\r")[-1].replace("\x1b[K", "")
    else:  # a line per tenth of the run (steps 2, 4, ..., 20), no carriage returns
        assert "\r" not in text
        assert len(text.splitlines()) == 10 + 5  # validation at steps 4, 8, ... prints too
        last = text.splitlines()[-1]
    m = re.fullmatch(r"step 20/20 \[#{10}\] loss (\S+) val (\S+)", last)
    assert m, last
    np.testing.assert_allclose(float(m.group(1)), losses.train[19], rtol=1e-5)
    np.testing.assert_allclose(float(m.group(2)), losses.val[19], rtol=1e-5)


def test_fit_progress_bar_flag_writes_to_stderr(fresh_session, capsys):
    model, train, _, _ = make_model(fresh_session)
    model.fit(training_config=train, max_steps=3, progress_bar=True)
    assert capsys.readouterr().err.splitlines()[-1].startswith("step 3/3 [")
    model.fit(training_config=train, max_steps=3)
    assert capsys.readouterr().err == ""


def test_tensorboard_scalars_match_callback_outputs(fresh_session, tmp_path):
    flow = fresh_session
    model, train, val, losses = make_model(flow)
    model.fit(
        training_config=train,
        validation_config=val,
        callbacks=losses,
        max_steps=9,
        summary_logdir=str(tmp_path),
    )
    acc = ea.EventAccumulator(str(tmp_path), size_guidance={ea.SCALARS: 0})
    acc.Reload()
    assert set(acc.Tags()["scalars"]) == {"train/loss", "validation/output"}
    train_events = acc.Scalars("train/loss")
    assert [e.step for e in train_events] == list(range(9))
    np.testing.assert_allclose(
        [e.value for e in train_events], [losses.train[s] for s in range(9)], rtol=1e-6
    )
    val_events = acc.Scalars("validation/output")
    assert [e.step for e in val_events] == [3, 7]
    np.testing.assert_allclose(
        [e.value for e in val_events], [losses.val[3], losses.val[7]], rtol=1e-6
    )
