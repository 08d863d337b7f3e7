"""Running a OneFlow program as ``__main__`` with the oneflow alias active."""

from __future__ import annotations

import builtins
import contextlib
import io
import os
import sys
import types
from collections.abc import Sequence

from ._finder import aliased
from ._legacy_libraries import legacy_library_names
from ._sync import synchronous_jobs


def _exit_status(exc: SystemExit) -> int:
    """What the interpreter would exit with for ``SystemExit(code)``."""
    code = exc.code
    if code is None:
        return 0
    if isinstance(code, int):
        return code
    print(code, file=sys.stderr)
    return 1


def _report(exc: BaseException) -> None:
    """Prints the traceback as ``python script.py`` would: from the script's frame on."""
    tb = exc.__traceback__
    while tb is not None and tb.tb_frame.f_code.co_filename == __file__:
        tb = tb.tb_next
    # The default hook prints exc.__traceback__, whatever tb it is given.
    sys.excepthook(type(exc), exc.with_traceback(tb), tb)


def _run_code(code: types.CodeType, namespace: dict) -> None:
    exec(code, namespace)


def run_script(script: str, args: Sequence[str] = (), *, sync: bool = False) -> int:
    """Runs the Python program ``script`` written for OneFlow, on flowjob; returns its exit status.

    For the run: ``import oneflow`` (and ``oneflow.typing``, ``oneflow.compatible.single_client``
    and their submodules) gives flowjob, ``sys.argv == [script, *args]``, ``__name__`` is
    ``"__main__"``, the script's directory leads ``sys.path`` and the NumPy and Pillow
    spellings removed since 2021 (``np.float``, ``np.product``, ``PIL.Image.ANTIALIAS``...)
    exist. After the program returns, the default session is synced so pending callbacks run
    and their errors set the exit status.
    ``sync``: every job call completes, with its handlers and callbacks, before the program
    goes on (see ``flowjob._src.compat._sync``).
    """
    path = os.path.abspath(script)
    if not os.path.isfile(path):
        print(f"flowjob run: can't open file {script!r}: no such file", file=sys.stderr)
        return 2
    with io.open_code(path) as f:
        source = f.read()
    try:
        code = compile(source, path, "exec", dont_inherit=True)
    except SyntaxError as exc:
        _report(exc)
        return 1

    main = types.ModuleType("__main__")
    main.__dict__.update(
        __file__=path,
        __builtins__=builtins,
        __spec__=None,
        __loader__=None,
        __package__=None,
        __cached__=None,
    )
    saved_main, saved_argv, saved_path = sys.modules.get("__main__"), sys.argv, list(sys.path)
    sys.modules["__main__"] = main
    sys.argv = [script, *args]
    sys.path.insert(0, os.path.dirname(path))
    try:
        with (
            aliased(),
            legacy_library_names(),
            synchronous_jobs() if sync else contextlib.nullcontext(),
        ):
            return _run_main(code, main)
    finally:
        sys.argv, sys.path[:] = saved_argv, saved_path
        if saved_main is not None:
            sys.modules["__main__"] = saved_main


def _run_main(code: types.CodeType, main: types.ModuleType) -> int:
    import flowjob

    status = 0
    try:
        try:
            _run_code(code, main.__dict__)
        finally:
            # Like OneFlow's exit-time session close: every pending callback runs first.
            flowjob.sync_default_session()
    except SystemExit as exc:
        status = _exit_status(exc)
    except KeyboardInterrupt as exc:
        _report(exc)
        status = 130
    except BaseException as exc:  # noqa: BLE001 - reported like the interpreter would
        _report(exc)
        status = 1
    # A rank of several processes: a failing status is told to the other ranks now (an exit
    # hook could not read it).
    from .. import processes

    processes.program_exits(status)
    return status
