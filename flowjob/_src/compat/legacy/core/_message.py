"""A stand-in for the protobuf messages OneFlow programs build by setting fields
(``conf = InitializerConf(); conf.truncated_normal_conf.std = 0.8``)."""

from __future__ import annotations

from typing import Any


class Message:
    """Fields spring into existence when read (sub-messages) or set (values), as proto2
    messages let programs write them; ``to_dict()`` gives the nested plain dicts."""

    def __init__(self, **fields: Any) -> None:
        object.__setattr__(self, "_fields", {})
        for key, value in fields.items():
            setattr(self, key, value)

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):
            raise AttributeError(name)
        return self._fields.setdefault(name, Message())

    def __setattr__(self, name: str, value: Any) -> None:
        self._fields[name] = value

    def HasField(self, name: str) -> bool:  # noqa: N802 - protobuf's name
        return name in self._fields

    def ClearField(self, name: str) -> None:  # noqa: N802 - protobuf's name
        self._fields.pop(name, None)

    def CopyFrom(self, other: Message) -> None:  # noqa: N802 - protobuf's name
        self._fields.clear()
        self._fields.update(other.to_dict())

    def to_dict(self) -> dict[str, Any]:
        return {k: v.to_dict() if isinstance(v, Message) else v for k, v in self._fields.items()}

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.to_dict()!r})"
