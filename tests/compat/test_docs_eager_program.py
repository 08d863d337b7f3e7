"""The documentation's eager program (``extended_topics/eager_mlp_mnist.py``, v0.4.0), unchanged,
through ``python -m flowjob run``: it turns eager execution on, defines its train job inside
``main`` on every step and prints the loss every 20 steps. On the bundled MNIST subset (40
steps) its loss falls, and the same program switched to lazy mode (the reference: flowjob's
compiled path) prints the same losses. Needs an oneflow-documentation clone
(``FLOWJOB_DOCS_SRC``); skips without one.
"""

from __future__ import annotations

import re

import numpy as np

FLOAT = r"-?\d+\.\d+(?:e[-+]?\d+)?"
SWITCH = "flow.enable_eager_execution(True)"


def losses(stdout: str) -> list[float]:
    return [float(line) for line in stdout.splitlines() if re.fullmatch(FLOAT, line.strip())]


def test_eager_mlp_mnist_trains_like_the_lazy_run(documentation, flowjob_run, tmp_path):
    program = documentation / "extended_topics" / "eager_mlp_mnist.py"
    text = program.read_text()
    assert text.count(SWITCH) == 1
    eager = flowjob_run(program, timeout=600)
    assert eager.returncode == 0, eager.stderr[-3000:]
    lazy_copy = tmp_path / "lazy_mlp_mnist.py"
    lazy_copy.write_text(text.replace(SWITCH, "flow.enable_eager_execution(False)"))
    lazy = flowjob_run(lazy_copy, timeout=600)
    assert lazy.returncode == 0, lazy.stderr[-3000:]
    eager_losses, lazy_losses = losses(eager.stdout), losses(lazy.stdout)
    assert len(eager_losses) == 2, eager.stdout  # steps 0 and 20 of 40
    assert eager_losses[1] < 0.5 * eager_losses[0]
    np.testing.assert_allclose(eager_losses, lazy_losses, rtol=1e-4)
