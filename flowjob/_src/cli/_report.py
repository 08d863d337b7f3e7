"""What ``flowjob doctor`` found: one line per problem, counted by severity."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class Report:
    """Collected problem lines; ``damaged`` / ``warnings`` count them by severity."""

    lines: list[str] = field(default_factory=list)
    damaged: int = 0
    warnings: int = 0

    def damage(self, path: str, why: str) -> None:
        self.damaged += 1
        self.lines.append(f"DAMAGED {path}: {why}")

    def warn(self, path: str, why: str) -> None:
        self.warnings += 1
        self.lines.append(f"WARNING {path}: {why}")

    def ok(self, path: str, what: str) -> None:
        self.lines.append(f"OK      {path}: {what}")
