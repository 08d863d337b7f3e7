"""The runner's own logic, without a OneFlow clone: which device counts a file runs at, how an
output is classified, how a file's runs add up, and the summary RESULTS.md states."""

from __future__ import annotations

import unittest

from ._run import Result, classify, device_counts, eager_only, needs_two_nodes, run_file
from .table import FileRecord, write_results

FILE = """
import oneflow as flow
@flow.unittest.skip_unless_1n1d()
class A(flow.unittest.TestCase): ...
@flow.unittest.skip_unless_1n4d()
class B(flow.unittest.TestCase): ...
@flow.unittest.skip_unless_2n1d()
class C(flow.unittest.TestCase): ...
"""


def test_device_counts_come_from_the_skip_decorators(tmp_path):
    path = tmp_path / "test_x.py"
    path.write_text(FILE)
    assert device_counts(path) == (1, 4)
    assert needs_two_nodes(path)
    path.write_text("class A(flow.unittest.TestCase): ...\n")  # undecorated: one device
    assert device_counts(path) == (1,)
    assert not needs_two_nodes(path)


EAGER_ONLY = """
import unittest
import oneflow as flow
@unittest.skipIf(
    not flow.unittest.env.eager_execution_enabled(),
    "eager only",
)
class A(flow.unittest.TestCase):
    def test_eager_builtin_op(self):
        op = flow.builtin_op("expand_dims").Input("in").Output("out").Build()
        y = op(flow.Tensor([[1.0, 2.0]]), axis=0)[0]
        self.assertEqual(y.shape, flow.Size((1, 1, 2)))
if __name__ == "__main__":
    unittest.main()
"""


def test_eager_only_files_run_in_eager_mode(tmp_path):
    path = tmp_path / "test_eager.py"
    path.write_text(EAGER_ONLY)
    assert eager_only(path)
    result = run_file(path.name, tmp_path, timeout=300)
    assert (result.status, result.ran, result.skipped, result.eager) == ("pass", 1, 0, True)
    # A second class without the decorator runs in lazy mode: the file is not eager-only.
    lazy_class = "class B(flow.unittest.TestCase): ...\nif __name__"
    path.write_text(EAGER_ONLY.replace("if __name__", lazy_class))
    assert not eager_only(path)
    path.write_text(FILE)  # no eager decorator at all
    assert not eager_only(path)


def _unittest_output(case: type[unittest.TestCase]) -> tuple[int, str]:
    import io

    stream = io.StringIO()
    suite = unittest.defaultTestLoader.loadTestsFromTestCase(case)
    result = unittest.TextTestRunner(stream=stream, verbosity=2).run(suite)
    return (0 if result.wasSuccessful() else 1), stream.getvalue()


# Run by _unittest_output, not by pytest (__test__ = False).
class _Passes(unittest.TestCase):
    __test__ = False

    def test_a(self):
        print("INFO: a line a test prints")  # noqa: T201

    @unittest.skip("needs 2 devices")
    def test_b(self): ...


@unittest.skip("lazy mode doesn't run it")  # a quote: unittest shows the reason's repr
class _Skipped(unittest.TestCase):
    __test__ = False

    def test_a(self): ...


class _Fails(unittest.TestCase):
    __test__ = False

    def test_a(self):
        raise ValueError("bad value")

    def test_b(self):
        self.fail("no")


def test_classify_real_unittest_outputs():
    passed = classify("f.py", *_unittest_output(_Passes), 1.0, devices=2)
    assert (passed.status, passed.ran, passed.skipped, passed.devices) == ("pass", 2, 1, 2)
    skipped = classify("f.py", *_unittest_output(_Skipped), 1.0)
    assert skipped.status == "skip"
    assert skipped.skip_reason == "lazy mode doesn't run it"
    failed = classify("f.py", *_unittest_output(_Fails), 1.0)
    assert (failed.status, failed.failed) == ("fail", 2)
    assert failed.error.startswith("ValueError: bad value")
    assert classify("f.py", 0, "", 1.0).status == "empty"  # a file without unittest.main()
    crashed = classify("f.py", 1, "ImportError: no module named x\n", 1.0)
    assert (crashed.status, crashed.error) == ("fail", "ImportError: no module named x")


def _run(status: str, devices: int, ran: int = 2, skipped: int = 0) -> Result:
    return Result("f.py", status, devices, ran, skipped)


def test_a_file_passes_when_it_passes_at_every_count_with_tests():
    both = {1: _run("pass", 1), 2: _run("pass", 2)}
    assert FileRecord("f.py", both, (1, 2)).status == "pass"
    only_two = {1: _run("skip", 1, 2, 2), 2: _run("pass", 2)}
    assert FileRecord("f.py", only_two, (1, 2)).status == "pass"
    one_fails = {1: _run("pass", 1), 4: _run("fail", 4)}
    record = FileRecord("f.py", one_fails, (1, 4))
    assert record.status == "fail" and record.failure().devices == 4
    assert FileRecord("f.py", {1: _run("pass", 1)}, (1, 2)).status == "not run"
    all_skip = {1: _run("skip", 1, 1, 1)}
    assert FileRecord("f.py", all_skip, (1,)).status == "skipped upstream"
    assert FileRecord("f.py", all_skip, (1,), two_nodes=True).status == "needs 2 nodes"


def test_results_md_reports_every_count_and_the_whole_folder(tmp_path):
    records = [
        FileRecord("a.py", {1: _run("pass", 1), 2: _run("pass", 2)}, (1, 2)),
        FileRecord("b.py", {1: _run("skip", 1, 1, 1), 4: _run("fail", 4)}, (1, 4)),
        FileRecord("c.py", {1: _run("skip", 1, 1, 1)}, (1,), two_nodes=True),
    ]
    path = tmp_path / "RESULTS.md"
    write_results(path, records, ["abc123"])
    text = path.read_text()
    assert "**1 of 224 files pass at their device counts**; 1 fail;" in text
    assert "1 have tests for 2 nodes only; 221 not run at every count yet." in text
    assert "| a.py | pass 2 | pass 2 | - | - | pass |  |" in text
    assert "| b.py | skip | - | fail 2 | - | fail | at 4 device(s): unknown |" in text
    assert "| c.py | skip | - | - | not run | needs 2 nodes |" in text
