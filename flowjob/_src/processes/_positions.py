"""Where each rank is in its program, and the rules that tell ranks whose programs differ.

Every rank counts the job calls it dispatches. Two moments are published for the others
(under ``flowjob/live/``, read by every rank's watch on each poll):

- ``at/<rank>``: the rank waits at a *meeting* every rank must attend (the first call of a
  job, a ``checkpoint.save``), named by a token ``"<calls>.<n>\\t<what>"``: how many job calls
  it had made, the how-manieth meeting since that call, and what it is;
- ``done/<rank>``: the rank's program ended, after ``<calls>`` job calls.

Ranks running the same program pass the same points in the same order. A rank that made
more job calls than another had made when that one stopped (at a meeting it has not held
itself, or at the end of its program) is past a point the other never passes: their
programs differ, and waiting would hang in a collective or in the meeting.
"""

from __future__ import annotations

import dataclasses

GUIDE = (
    "every rank must run the same program: the same job calls, in the same order, and "
    "checkpoint.save on every rank (rank 0 writes)"
)


def token(calls: int, index: int, what: str) -> str:
    """The token of a meeting.

    Examples:
        >>> token(5, 0, "checkpoint.save('/tmp/c')")
        "5.0\\tcheckpoint.save('/tmp/c')"
    """
    return f"{calls}.{index}\t{what}"


@dataclasses.dataclass(frozen=True)
class Position:
    """A peer's published moment: ``kind`` is ``"at"`` (a meeting) or ``"done"``."""

    kind: str
    calls: int
    what: str
    token: str

    @classmethod
    def parse(cls, kind: str, value: str) -> Position | None:
        """The position a ``flowjob/live/<kind>/<rank>`` value says, None if it says none.

        Examples:
            >>> Position.parse("at", "5.0\\tcheckpoint.save('c')").calls
            5
            >>> Position.parse("done", "7").what
            ''
        """
        if kind not in ("at", "done") or not value:
            return None
        head, _, what = value.partition("\t")
        count = head.partition(".")[0]
        if not count.isdigit():
            return None
        return cls(kind, int(count), what, value)

    def describe(self) -> str:
        if self.kind == "done":
            return f"ended its program after {self.calls} job call(s)" + (
                f" ({self.what})" if self.what else ""
            )
        return f"waits in {self.what} after {self.calls} job call(s)"


def divergence(
    peer: str, position: Position, me: str, calls: int, meeting: str | None, met: set[str]
) -> str:
    """Why this rank (``me``) and ``peer`` (at ``position``) cannot both go on, or "" while
    they can. ``calls``: the job calls this rank has made; ``meeting``: the token of the
    meeting it waits in (None if none); ``met``: the tokens of the meetings it has held.

    Examples:
        >>> done = Position.parse("done", "5")
        >>> divergence("rank 1", done, "rank 0", 7, None, set())[:70]
        'rank 1 ended its program after 5 job call(s), while rank 0 went on to '
        >>> divergence("rank 1", done, "rank 0", 5, None, set())
        ''
    """
    if position.kind == "at" and position.token in met:
        return ""  # a meeting this rank held too: the peer is only behind
    if calls > position.calls:
        return f"{peer} {position.describe()}, while {me} went on to job call {calls}: {GUIDE}"
    if position.kind == "done" and meeting is not None and calls == position.calls:
        what = meeting.partition("\t")[2]
        return f"{peer} {position.describe()}, while {me} waits for it in {what}: {GUIDE}"
    return ""
