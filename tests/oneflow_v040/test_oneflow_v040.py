"""OneFlow v0.4.0's own op tests, each file run unchanged through ``flowjob run`` at 1 device
and at the device counts of its multi-device classes (2, 4 virtual CPU devices).

Marked ``oneflow_suite`` and skipped unless ``FLOWJOB_ONEFLOW_SUITE=1`` (they take minutes;
a file whose reference, TensorFlow or OpenCV from the ``oneflow-tests`` extra, is not
installed skips naming it), and skipped without a OneFlow clone
(``FLOWJOB_ONEFLOW_SRC``), from which the files are read. A file with a known cause in
``suite.py`` is an expected failure (xfail) and fails once it passes; a file that runs no test
at any device count (skipped upstream, or 2-node classes only) is skipped with the reason.

The other folders of the tree (``modules/``, ``tensor/``, ``xrt/``, ``onnx/``,
``custom_ops/``, ``customized/``, ``demos/``, ``deprecated/``; ``folders.py``) run as
OneFlow's CI ran them, one test per file (``test_oneflow_folder_file``); a file with an
expected outcome in ``suite.EXPECTED`` (private data, broken upstream) must fail with the
error named there (xfail), and fails the test once it passes.
"""

import pytest

from tests.third_party import install_hint, missing_import, skip_if_missing_module

from ._run import device_counts, needs_two_nodes, oneflow_test_files, run_file
from .folders import FOLDERS, run_entry
from .suite import CPU_ONLY, EXPECTED, KNOWN_FAILURES, STANDINS, TOTAL_FILES
from .table import FileRecord

pytestmark = pytest.mark.oneflow_suite


def test_whole_folder_is_run(oneflow_ops):
    assert len(oneflow_test_files(oneflow_ops)) == TOTAL_FILES


def test_oneflow_file(oneflow_file, oneflow_ops):
    name = oneflow_file
    path = oneflow_ops / name
    # a file whose reference (TensorFlow, OpenCV...) is not installed cannot judge flowjob
    absent = missing_import(path.read_text(encoding="utf-8"), beside=[oneflow_ops])
    if absent is not None and absent not in KNOWN_FAILURES.get(name, ""):
        pytest.skip(f"{name} imports {absent}, which is not installed: {install_hint(absent)}")
    runs = {
        n: run_file(name, oneflow_ops, timeout=600, cpu_only=name in CPU_ONLY, devices=n)
        for n in device_counts(path)
    }
    record = FileRecord(name, runs, tuple(runs), needs_two_nodes(path))
    known = KNOWN_FAILURES.get(name)
    status = record.status
    if status == "fail":
        bad = record.failure()
        if not known:
            skip_if_missing_module(bad.output, name, beside=[oneflow_ops])
        if known:
            pytest.xfail(f"{name} at {bad.devices} device(s): {known}: {bad.error}")
        pytest.fail(f"{name} at {bad.devices} device(s): {bad.error}\n{bad.output[-4000:]}")
    if status == "pass" and known:
        pytest.fail(f"{name} passes now: remove its known cause from suite.py ({known})")
    if status != "pass":
        reasons = sorted({r.skip_reason for r in runs.values() if r.skip_reason})
        pytest.skip(f"{name}: {status} ({'; '.join(reasons) or 'no test runs'})")


def test_oneflow_folder_file(oneflow_entry, oneflow_tree):
    entry = oneflow_entry
    path = oneflow_tree / entry
    folder = FOLDERS[entry.split("/", 1)[0]]
    # scripts are run whatever they import (a deprecated one is not even Python 3)
    script = folder.kind == "script"
    absent = None if script else missing_import(path.read_text("utf-8"), beside=[path.parent])
    if absent is not None:
        pytest.skip(f"{entry} imports {absent}, which is not installed: {install_hint(absent)}")
    counts = device_counts(path) if folder.devices else (1,)
    standin = STANDINS.get(entry)
    prepare = standin.prepare if standin else None
    runs = {n: run_entry(entry, oneflow_tree, 600, devices=n, prepare=prepare) for n in counts}
    record = FileRecord(entry, runs, counts)
    expected = EXPECTED.get(entry)
    bad = record.failure()
    if record.status == "fail":
        if expected is not None and expected.matches(bad):
            pytest.xfail(f"{entry}: {expected.kind}: {expected.cause}: {bad.error}")
        skip_if_missing_module(bad.output, entry, beside=[path.parent])
        pytest.fail(f"{entry} at {bad.devices} device(s): {bad.error}\n{bad.output[-4000:]}")
    if record.status == "pass" and expected is not None:
        pytest.fail(f"{entry} passes now: remove its expected outcome from suite.py")
    if record.status != "pass":
        reasons = sorted({r.skip_reason for r in runs.values() if r.skip_reason})
        pytest.skip(f"{entry}: {record.status} ({'; '.join(reasons) or 'no test runs'})")
