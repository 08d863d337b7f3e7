"""tests/third_party.py: which program failures are a missing third-party module (a skip)."""

from __future__ import annotations

from tests.third_party import install_hint, missing_module

TRACEBACK = 'Traceback (most recent call last):\n  File "x.py", line 1\n{}\n'


def test_a_program_that_died_of_a_missing_module_names_it():
    out = TRACEBACK.format("ModuleNotFoundError: No module named 'no_such_dist.sub'")
    assert missing_module(out) == "no_such_dist.sub"
    assert install_hint("cv2") == "pip install -e '.[oneflow-tests]'"
    assert install_hint("sklearn.metrics") == "pip install scikit-learn"


def test_failures_that_judge_flowjob_are_no_skip(tmp_path):
    def died(line: str) -> str:
        return TRACEBACK.format(line)

    # OneFlow's and flowjob's own names, and an installed module, are real failures
    assert missing_module(died("ModuleNotFoundError: No module named 'oneflow.python.x'")) is None
    assert missing_module(died("ModuleNotFoundError: No module named 'numpy.nope'")) is None
    # a module of the program's own folder that is missing is a real failure
    (tmp_path / "helpers").mkdir()
    out = died("ModuleNotFoundError: No module named 'helpers'")
    assert missing_module(out) == "helpers"
    assert missing_module(out, beside=[tmp_path]) is None
    # the program caught it and died of something else later
    out = died("ModuleNotFoundError: No module named 'nope'") + died("ValueError: bad shape")
    assert missing_module(out) is None
    assert missing_module("") is None
