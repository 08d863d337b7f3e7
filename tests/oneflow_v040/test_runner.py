"""The runner's own logic, without a OneFlow clone: which device counts a file runs at, how an
output is classified, how a file's runs add up, and the summary RESULTS.md states; how the
other folders of the tree run (scripts, copies of a folder, discovery, eager mode)."""

from __future__ import annotations

import json
import os
import unittest

from .__main__ import spread
from ._run import Result, classify, device_counts, eager_only, needs_two_nodes, run_file
from .folders import Expected, folder_files, run_entry
from .table import FileRecord, load_folder_records, load_records, update_results, write_results

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
    assert "**1 of 224 files pass at their device counts** (lazy); 1 fail;" in text
    assert "1 have tests for 2 nodes only; 221 not run at every count yet." in text
    assert "| a.py | pass 2 | pass 2 | - | - | pass | not run |  |" in text
    assert "| b.py | skip | - | fail 2 | - | fail | not run | at 4 device(s): unknown |" in text
    assert "| c.py | skip | - | - | not run | needs 2 nodes | not run |" in text


# -- the other folders and the eager column ----------------------------------------------------


def _tree(root, files: dict[str, str]):
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    return root


UNITTEST_FILE = """
import os, unittest
class A(unittest.TestCase):
    def test_env(self):
        self.assertEqual(os.environ.get("ONEFLOW_TEST_ENABLE_EAGER"), EXPECTED)
if __name__ == "__main__":
    unittest.main()
"""


def test_folder_files_leave_out_helpers_and_list_scripts(tmp_path):
    root = _tree(
        tmp_path,
        {
            "modules/test_a.py": "",
            "modules/test_util.py": "",
            "modules/resnet50_model.py": "",
            "customized/ccrelu.py": "",
            "onnx/util.py": "",
            "onnx/nodes/test_conv.py": "",
            "custom_ops/test_user_sigmoid.py": "",
        },
    )
    assert folder_files(root, "modules") == ["modules/test_a.py"]
    assert folder_files(root, "customized") == ["customized/ccrelu.py"]
    assert folder_files(root, "onnx") == ["onnx/test_model.py", "onnx/test_node.py"]
    assert folder_files(root, "custom_ops") == ["custom_ops/test_user_sigmoid.py"]


def test_scripts_pass_when_they_run_to_their_end(tmp_path):
    root = _tree(
        tmp_path,
        {
            "customized/ok.py": "import oneflow as flow\nprint(flow.__name__)\n",
            "deprecated/py2.py": 'print "hello"\n',
        },
    )
    ok = run_entry("customized/ok.py", root, timeout=300)
    assert (ok.file, ok.status, ok.eager) == ("customized/ok.py", "pass", False)
    broken = run_entry("deprecated/py2.py", root, timeout=300)
    assert broken.status == "fail"
    assert broken.error.startswith("SyntaxError: Missing parentheses in call to 'print'")
    expected = Expected("broken upstream", "Python 2", r"^SyntaxError: Missing parentheses")
    assert expected.matches(broken) and not expected.matches(ok)
    assert not Expected("x", "y", r"^NameError").matches(broken)


def test_modules_run_eager_and_custom_ops_by_discovery(tmp_path):
    root = _tree(
        tmp_path,
        {
            "modules/test_m.py": UNITTEST_FILE.replace("EXPECTED", "'1'"),
            # no unittest.main(): discovery finds it all the same
            "custom_ops/test_c.py": UNITTEST_FILE.replace("EXPECTED", "None").split("if __")[0],
        },
    )
    eager = run_entry("modules/test_m.py", root, timeout=300)
    assert (eager.status, eager.ran, eager.eager) == ("pass", 1, True)
    discovered = run_entry("custom_ops/test_c.py", root, timeout=300)
    assert (discovered.status, discovered.ran) == ("pass", 1)


def test_onnx_runners_run_in_a_copy_of_their_folder(tmp_path):
    checks = """
import os, unittest
HERE = os.path.dirname(os.path.abspath(__file__))
class A(unittest.TestCase):
    def test_cwd_is_the_copy(self):
        self.assertEqual(os.getcwd(), HERE)
        self.assertTrue(os.path.exists(os.path.join(HERE, "nodes", "data.txt")))
        open("written.txt", "w").close()
if __name__ == "__main__":
    unittest.main()
"""
    root = _tree(tmp_path, {"onnx/test_node.py": checks, "onnx/nodes/data.txt": ""})
    result = run_entry("onnx/test_node.py", root, timeout=300)
    assert (result.status, result.ran) == ("pass", 1), result.output
    assert not (root / "onnx" / "written.txt").exists()  # the original folder is untouched


def test_ops_files_rerun_eagerly_into_their_own_column(tmp_path):
    (tmp_path / "test_e.py").write_text(UNITTEST_FILE.replace("EXPECTED", "'1'"))
    result = run_file("test_e.py", tmp_path, timeout=300, eager=True)
    assert (result.status, result.eager) == ("pass", True)
    result.column = "eager"
    assert result.key == "eager 1"
    lazy = Result("test_e.py", "fail", 1, 1, 0, 1, error="ValueError: lazy")
    xrt = Result("xrt/test_x.py", "pass", 1, 3, 0)
    deprecated = Result(
        "deprecated/d.py", "fail", 1, error="NameError: name 'dlnet' is not defined"
    )
    json_path, md_path = tmp_path / "results.json", tmp_path / "RESULTS.md"
    shapes = {"test_e.py": ((1,), False), "xrt/test_x.py": ((1,), False)}
    shapes["deprecated/constant_scalar.py"] = ((1,), False)
    deprecated.file = "deprecated/constant_scalar.py"
    update_results(json_path, md_path, [lazy, result, xrt, deprecated], shapes)
    stored = json.loads(json_path.read_text())
    assert sorted(stored["test_e.py"]["runs"]) == ["1", "eager 1"]
    assert [r.runs[1].status for r in load_records(stored)] == ["fail"]
    assert [r.runs[1].status for r in load_records(stored, "eager")] == ["pass"]
    assert [r.file for r in load_folder_records(stored)] == [
        "deprecated/constant_scalar.py",
        "xrt/test_x.py",
    ]
    text = md_path.read_text()
    assert "| test_e.py | fail 1 | - | - | - | fail | pass 1 (" in text
    assert "| test_x.py | pass 3 | - | - | pass |  |" in text
    # the known cause of a deprecated file is shown once its error matches
    assert "| constant_scalar.py | fail | - | - | broken upstream | calls `dlnet." in text
    assert "| xrt | `ci/test/test_xla.sh`" in text and "| 1 | 1 | 0 | 0 | 0 | 0 |" in text


def test_a_sample_spreads_over_the_folder():
    files = [f"test_{i:02}.py" for i in range(10)]
    assert spread(files, 3) == ["test_00.py", "test_03.py", "test_06.py"]
    assert spread(files, 20) == files
    assert os.path.basename(spread(files, 1)[0]) == "test_00.py"
