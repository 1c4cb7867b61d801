"""The issues of one NexAU config and every file it references, each naming its file."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from a4a.runtime.errors import A4AError
from a4a.runtime.graph.issues import Issue


@dataclass
class Report:
    """Collects issues while a config tree loads; paths are shown relative to `root`."""

    root: Path
    issues: list[Issue] = field(default_factory=list)

    def name(self, file: Path) -> str:
        """`file` as the report shows it (relative to the config's root when inside)."""
        try:
            return str(file.resolve().relative_to(self.root))
        except ValueError:
            return str(file)

    def error(self, file: Path, path: str, code: str, message: str, hint: str) -> None:
        """Record an issue that makes the config unusable."""
        self.issues.append(Issue(code, path, message, hint, "error", self.name(file)))

    def warn(self, file: Path, path: str, code: str, message: str, hint: str) -> None:
        """Record a feature a4a drops or maps: the config still runs."""
        self.issues.append(Issue(code, path, message, hint, "warning", self.name(file)))

    def failed(self, file: Path, path: str, err: A4AError, *, warning: bool = False) -> None:
        """Record an A4AError (a file that cannot be read, say) at `path` of `file`."""
        nested = err.data.get("issues") if isinstance(err.data.get("issues"), list) else None
        if nested:
            for item in nested:
                self.issues.append(Issue(item["code"], item["path"], item["message"],
                                         item["hint"], "warning" if warning else "error",
                                         item.get("file") or self.name(file)))
            return
        add = self.warn if warning else self.error
        add(file, path, err.code, err.message, err.hint)

    @property
    def ok(self) -> bool:
        """No error so far."""
        return not any(i.severity == "error" for i in self.issues)
