"""Every test of OneFlow v0.4.0's ``oneflow/python/test/models``, how it is run and what it
needs.

The folder's test files hold module-level ``test_*(test_case)`` functions; OneFlow ran them
through ``1node_test.py`` (lazy) and ``eager_1node_test.py`` (eager), whose
``flow.unittest.register_test_cases`` makes one test-case class per file, next to the CNN
classes of ``cnns_tests.py``. A case here is one test method run alone, in its own process:
``flowjob run <entry> <Class>.<method>``.
"""

from __future__ import annotations

import dataclasses
import enum


class Need(enum.Enum):
    NOTHING = "runs on flowjob alone"
    PRIVATE_DATA = "reads OneFlow's private /dataset folder"
    TWO_MACHINES = "needs two machines"


@dataclasses.dataclass(frozen=True)
class Case:
    file: str  # the test file that defines the test
    entry: str  # the OneFlow runner script started with flowjob run
    selector: str  # <Class>.<method> given to absltest
    need: Need = Need.NOTHING
    data: str = ""  # PRIVATE_DATA: the first path it reads
    known: str = ""  # NOTHING: a flowjob cause of failure still open ("" = expected to pass)

    @property
    def name(self) -> str:
        prefix = "eager " if self.entry.startswith("eager") else ""
        return f"{prefix}{self.file}::{self.selector}"


_CNN_DATA = "/dataset/PNGS/cnns_model_for_test/{}/models/"
_BERT_DATA = "/dataset/bert_regression_test/of_random_init_L-12_H-768_A-12"
_GAN_DATA = "/dataset/gan_test/dcgan/"
CASES: tuple[Case, ...] = (
    Case("test_dqn.py", "1node_test.py", "test_dqn.test_1n1c"),
    Case("test_dqn.py", "eager_1node_test.py", "test_dqn.test_1n1c"),
    *(
        Case("cnns_tests.py", "1node_test.py", f"{cls}.test_{n}", Need.PRIVATE_DATA, data)
        for cls, data in (
            ("TestAlexNet", _CNN_DATA.format("alexnet")),
            ("TestResNet50", _CNN_DATA.format("resnet50")),
            ("TestVgg16", _CNN_DATA.format("vgg16")),
            ("TestInceptionV3", _CNN_DATA.format("inceptionv3")),
        )
        for n in ("1n1c", "1n4c")
    ),
    Case(
        "test_alexnet_model.py",
        "1node_test.py",
        "test_alexnet_model.test_1n1c",
        Need.PRIVATE_DATA,
        "/dataset/PNGS/cnns_model_for_test/alexnet/models/of_model_bk",
    ),
    *(
        Case("test_bert.py", "1node_test.py", f"test_bert.{t}", Need.PRIVATE_DATA, _BERT_DATA)
        for t in ("test_1n1c", "test_1n4c", "test_inplace")
    ),
    Case("test_bert.py", "2node_test.py", "test_bert.test_2n8c", Need.TWO_MACHINES),
    *(
        Case("test_dcgan.py", "1node_test.py", f"test_dcgan.{t}", Need.PRIVATE_DATA, _GAN_DATA)
        for t in ("test_1n1c", "test_1n4c")
    ),
    Case(
        "test_dcgan_model.py",
        "1node_test.py",
        "test_dcgan_model.test_1n1c",
        Need.PRIVATE_DATA,
        _GAN_DATA,
    ),
    *(
        Case("cnns_tests.py", "2node_test.py", f"{cls}.test_2n8c", Need.TWO_MACHINES)
        for cls in ("TestAlexNet", "TestResNet50", "TestVgg16", "TestInceptionV3")
    ),
)
