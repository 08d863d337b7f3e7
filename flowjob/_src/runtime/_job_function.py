"""``@flow.global_function``: a Python function becomes a lazily traced, compiled job."""

from __future__ import annotations

import copy
import functools
import sys
import weakref
from collections.abc import Callable
from typing import Any

from .. import typing as tp
from .._deprecation import warn_once
from .._traceback import api_boundary, leaving
from ..errors import JobDefinitionError
from ..graph import View
from ._compiled import ReturnKind
from ._config import FunctionConfig
from ._direct import NOT_TAKEN, DirectCall
from ._eager import eager_execution_enabled
from ._eager_programs import EagerPrograms
from ._real_shape import fits_padded, real_shapes, variant_function
from ._results import LazyFutureRemoteBlobs, check_callback, convert
from ._session import default_session
from ._sharding import mirrored_pieces
from ._trace import parse_params
from ._typing_check import check_annotations


class JobFunction:
    """A job: calling it runs the compiled program on NumPy inputs.

    The body is traced once, at the first call (or when an API needs every variable); later
    calls only check and copy the inputs and dispatch the program. What the call returns
    follows the return annotation (OneFlow's table, spec 2.3). A job defined in eager mode
    (``flow.enable_eager_execution(True)``) runs its body on every call instead, op by op
    (runtime/_eager_call.py); its results come back the same way.
    """

    def __init__(
        self,
        fn: Callable[..., Any],
        job_type: str,
        config: FunctionConfig,
        definition_locals: dict[str, Any] | None = None,
    ):
        functools.update_wrapper(self, fn)
        self.fn = fn
        # Resolves string annotations (`from __future__ import annotations`) naming locals of
        # the scope where the job was defined.
        self.definition_locals = definition_locals or {}
        self.job_type = job_type
        self.config = config
        # One-device mirrored jobs with ListNumpy inputs: padded dynamic blobs when every op
        # of the body takes them, else variants traced at real shapes (_real_shape).
        self.padded_mirrored = False
        self._variants: dict[tuple, JobFunction] = {}
        self._dynamic_params: list[Any] | None = None  # parsed at the first call
        self.eager = eager_execution_enabled()  # the mode when defined, as in OneFlow
        self.eager_calls = 0  # eager predict calls so far (seeds their random ops)
        # Eager one-device mirrored calls: padded ListNumpy blobs (True), real shapes (False),
        # not known yet (None); see _eager_call.run_body.
        self.eager_padded: bool | None = None
        self.eager_programs = EagerPrograms()  # eager train steps compiled per graph structure
        # The short way of the calls (runtime/_direct.py) of the compiled job of the last
        # call, when it has one; it checks that the job is still its session's compiled job of
        # this name (not cleared or redefined). Held weakly, as the session is.
        self._direct: Callable[[], Any] = _nothing
        session = default_session()
        # The only session it may run in, held weakly: a job kept after
        # flow.clear_default_session() must not keep the cleared session's compiled
        # programs and variables alive (it cannot run in it any more).
        self._session = weakref.ref(session)
        session.register(self)

    @property
    def session(self) -> Any:
        """The session the job was defined in; None once it was cleared and dropped."""
        return self._session()

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        # api_boundary's work, written here: a job call is the hot path (bench/NOTES.md)
        try:
            direct = self._direct()
            if direct is not None and not kwargs:
                value = direct.run(args)
                if value is not NOT_TAKEN:
                    return value
            return self._call(args, kwargs)
        except Exception as exc:
            leaving(exc)
            raise

    def _call(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        if kwargs:
            raise TypeError(
                f"job {self.__name__!r} takes positional arguments only, got "
                f"keyword argument(s) {sorted(kwargs)}"
            )
        session = default_session()
        if self.eager and self._mirrored_on_devices:
            self.eager = False  # from now on a lazy job
        if self.eager:
            entry = session.eager_entry(self, args)
        else:
            if self._dynamic_params is None:
                self._dynamic_params = self.mirrored_dynamic_params()
                if self._dynamic_params:
                    self.padded_mirrored = self._traces_padded()
            if self._dynamic_params and not (
                self.padded_mirrored and fits_padded(self._dynamic_params, args)
            ):
                variant = self._variant(args)
                if variant is not None:
                    return variant(*args)
            entry = session.compiled_job(self)
            if entry.direct_output is not None:
                value = session.calls.run_direct(self, entry, args)
                if entry.warm:  # later calls take the short way
                    if entry.direct_call is None:
                        entry.direct_call = DirectCall(session, self.__name__, entry)
                    self._direct = weakref.ref(entry.direct_call)
                return value
        kind, inner = entry.return_kind, entry.return_inner
        if kind is ReturnKind.BLOCKING:
            if inner is tp.Numpy and entry.returns_one_blob:  # the common case, made short
                return session.run(self, args, entry, array=True)
            return convert(inner, session.run(self, args, entry))
        returns = entry.traced.return_tree is not None
        if kind is ReturnKind.NONE:
            session.launch(self, args, entry=entry)
            return None
        # Results that a callback may be registered on are held until it is (see launch).
        future = session.launch(self, args, hold=returns, entry=entry)
        if kind is ReturnKind.LAZY:
            return LazyFutureRemoteBlobs(self.__name__, future, session) if returns else None

        def register(callback: Callable[[Any], None]) -> None:
            check_callback(self.__name__, callback, "tp.Callback")

            def deliver(value: Any) -> None:
                callback(convert(inner, value))

            deliver.__wrapped__ = callback  # errors name the user's callback
            session.register_callback(future, deliver)

        return register

    @functools.cached_property
    def parameters(self) -> tuple[list[Any], Any]:
        """The job's placeholders (``ParamSpec``) and return annotation, read once from its
        signature (a failure is raised again at each call)."""
        return parse_params(self.__name__, self.fn, self.definition_locals)

    @functools.cached_property
    def _mirrored_on_devices(self) -> bool:
        """Whether an eager job is in the mirrored view on several devices. OneFlow's eager
        mode keeps one piece of each blob per device there; flowjob computes a job eagerly on
        one device, so such a job runs as a lazy one: its body is traced once and compiled
        (the same results, variables and gradients; its blobs have no values in the body).
        Asked at the first call, once the devices are final."""
        if self.config.logical_view.name is not View.MIRRORED:
            return False
        if mirrored_pieces(self.config.placement_scope) <= 1:
            return False
        print(
            f"INFO: job {self.__name__!r} is defined in eager mode in the mirrored view on "
            "several devices: flowjob runs it compiled, as a lazy job (values are read from "
            "its results, not in its body)",
            file=sys.stderr,
        )
        return True

    def mirrored_dynamic_params(self) -> list[Any]:
        """The parameters, for a mirrored-view job with ListNumpy ones; else []."""
        if self.config.logical_view.name is not View.MIRRORED:
            return []
        try:
            params, _ = self.parameters
        except JobDefinitionError:
            return []  # reported by the trace
        return params if any(s.defs[0].is_dynamic for s in params) else []

    def _traces_padded(self) -> bool:
        """Traces a one-device mirrored job with padded dynamic ListNumpy inputs, as OneFlow
        has them; False (nothing kept) when the body does not take them that way, or the job
        runs on several devices or was traced already."""
        session = default_session()
        if self.__name__ in session.compiled:
            return False
        self.padded_mirrored = True
        try:
            entry = session.compiled_job(self)
        except Exception:  # noqa: BLE001 - any op that refuses dynamic blobs: use variants
            entry = None
        if entry is None or entry.lowered.mesh is not None:
            session.discard_compiled(self.__name__)
            self.padded_mirrored = False
            return False
        return True

    def _variant(self, args: tuple[Any, ...]) -> JobFunction | None:
        params = self._dynamic_params or []
        shapes = real_shapes(params, args)
        if shapes is None:
            return None
        variant = self._variants.get(shapes)
        if variant is None:
            shown = "_".join("x".join(map(str, s)) for s in shapes if s is not None)
            fn = variant_function(self.fn, params, shapes, f"{self.__name__}-real_shape-{shown}")
            if fn is None:
                return None
            variant = JobFunction(fn, self.job_type, self.config, self.definition_locals)
            variant.eager = False  # a lazy job's, whatever the mode now
            variant._dynamic_params = []  # its placeholders have the real shapes
            self._variants[shapes] = variant
        return variant

    def __repr__(self) -> str:
        return f"<flowjob {self.job_type} job {self.__name__}>"


def _nothing() -> None:
    return None


@api_boundary
def global_function(type: str = "predict", function_config: FunctionConfig | None = None):  # noqa: A002
    """Declares a job: ``@flow.global_function(type="train", function_config=config)``."""
    if type not in ("train", "predict"):
        raise JobDefinitionError(f"global_function type must be 'train' or 'predict', got {type!r}")
    if function_config is not None and not isinstance(function_config, FunctionConfig):
        raise JobDefinitionError(
            f"function_config must come from flow.function_config(), got {function_config!r}"
        )
    config = copy.deepcopy(function_config) if function_config else FunctionConfig()
    job_type = type

    def decorator(fn: Callable[..., Any]) -> JobFunction:
        if not callable(fn):
            raise JobDefinitionError(f"global_function decorates a function, got {fn!r}")
        check_annotations(getattr(fn, "__name__", repr(fn)), fn)
        caller = sys._getframe(1)
        return JobFunction(fn, job_type, config, dict(caller.f_locals))

    return decorator
