"""``programs/gan.py`` (this project's GAN program on the Benchmark DCGAN's API surface) through
``flowjob run``: two train jobs share the generator's and the discriminator's variables and
each trains only its own half. The generated points must move toward the data's statistics
(mean (2, -1), std (0.5, 0.3)), starting from an untrained generator around the origin."""

from __future__ import annotations

import re

import numpy as np

FLOAT = r"(-?\d+\.\d+|nan)"
REPORT = re.compile(
    rf"^step (\d+) dloss {FLOAT} gloss {FLOAT} mean {FLOAT} {FLOAT} "
    rf"std {FLOAT} {FLOAT}$",
    re.M,
)


def test_alternating_trainable_jobs_move_the_generator_toward_the_data(run_program):
    out = run_program("gan.py", "--steps", 300, "--report_every", 50)
    rows = np.array([[float(v) for v in row] for row in REPORT.findall(out)])
    assert rows[:, 0].tolist() == [0, 50, 100, 150, 200, 250, 300], out[-2000:]
    assert np.isfinite(rows[1:, 1:3]).all(), rows
    data_mean = np.array([2.0, -1.0])
    distance = np.linalg.norm(rows[:, 3:5] - data_mean, axis=1)
    assert distance[0] > 1.5, rows  # untrained: near the origin
    # a GAN circles around its target: judge the last four reports together
    assert distance[-4:].mean() < 0.3 * distance[0], distance
    # the discriminator is not winning outright: both losses stay near the game's balance
    assert 0.5 < rows[-1, 1] < 2.0 and 0.3 < rows[-1, 2] < 3.0, rows[-1]
    # generated points spread (no collapse to one point), on the data's scale
    assert (rows[-1, 5:7] > 0.05).all() and (rows[-1, 5:7] < 2.0).all(), rows[-1]
