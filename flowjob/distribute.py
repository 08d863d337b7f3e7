"""``flow.distribute``: SBP annotations and the old names of the logical views."""

from .graph import auto, broadcast, consistent_strategy, mirrored_strategy, split

__all__ = ["auto", "broadcast", "split", "consistent_strategy", "mirrored_strategy",
           "parallel_cast"]


def parallel_cast(input, name=None, distribute=None, gradient_distribute=None):  # noqa: A002
    """Annotates ``input`` with an SBP distribution (``flow.distribute.split(k)`` ...)."""
    return input if distribute is None else input.with_distribute(distribute)
