"""One WSGI helper shared by the board's wrappers of TensorBoard's app."""

from __future__ import annotations

from collections.abc import Callable

__all__ = ["whole_answer"]


def whole_answer(app: Callable, environ: dict) -> tuple[str, list[tuple[str, str]], bytes]:
    """``app``'s answer to ``environ`` collected whole: status, headers and body, the app's
    iterable closed as WSGI requires (so a wrapper may rewrite or keep the body before
    passing it on)."""
    captured: dict = {}
    chunks: list[bytes] = []

    def start_response(status, headers, exc_info=None):
        captured["status"], captured["headers"] = status, headers
        return chunks.append  # the legacy write() callable

    result = app(environ, start_response)
    try:
        chunks.extend(result)
    finally:
        if hasattr(result, "close"):
            result.close()
    return captured["status"], list(captured["headers"]), b"".join(chunks)
