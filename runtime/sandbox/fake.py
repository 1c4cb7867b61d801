"""The fake sandbox that ships for tests: scripted results, recorded calls, no processes."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from a4a.runtime.errors import RunError
from a4a.runtime.sandbox.base import SandboxLimits, SandboxResult


def scripted_result(stdout: str = "", *, exit_code: int | None = 0, stderr: str = "",
                    timed_out: bool = False, limit_hit: str | None = None) -> SandboxResult:
    """A SandboxResult with the given fields and quiet defaults for the rest."""
    return SandboxResult(exit_code=exit_code, stdout=stdout, stderr=stderr, timed_out=timed_out,
                         limit_hit=limit_hit, truncated=False, duration_s=0.0)


@dataclass(frozen=True)
class SandboxCall:
    """One call the fake received."""

    code: str
    workspace: Path
    limits: SandboxLimits


class FakeSandbox:
    """Returns scripted results in order and records every call.

    Args:
        results: the results to return, one per call.
        default: returned once the script has run out; without it, running out is an error.
    """

    name = "fake"

    def __init__(self, results: Iterable[SandboxResult] = (), *,
                 default: SandboxResult | None = None) -> None:
        self._script = list(results)
        self._default = default
        self.calls: list[SandboxCall] = []

    @property
    def codes(self) -> list[str]:
        """The code of every call, in order."""
        return [call.code for call in self.calls]

    @property
    def remaining(self) -> int:
        """How many scripted results are still unused."""
        return len(self._script)

    def run_python(self, code: str, *, workspace: Path, limits: SandboxLimits) -> SandboxResult:
        """Record the call and return the next scripted result.

        Raises:
            RunError: the script ran out and there is no default (`sandbox.fake_exhausted`).
        """
        self.calls.append(SandboxCall(code, Path(workspace), limits))
        if self._script:
            return self._script.pop(0)
        if self._default is not None:
            return self._default
        raise RunError("sandbox.fake_exhausted",
                       f"FakeSandbox has no result left for call {len(self.calls)}",
                       hint="script one result per expected call, or pass default=")

    def assert_consumed(self) -> None:
        """Fail the test when scripted results were left unused.

        Raises:
            AssertionError: some scripted results were never returned.
        """
        if self._script:
            raise AssertionError(f"FakeSandbox: {len(self._script)} scripted results unused")
