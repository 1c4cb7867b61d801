"""The sandbox for code tools: bubblewrap, an explicit unsafe fallback, and a fake.

Typical use: `get_sandbox().run_python(code, workspace=ws, limits=SandboxLimits())`; see
`base.py` for the data and the protocol, `bubblewrap.py` for how the isolation is built.
"""

from a4a.runtime.sandbox.base import (
    CPU,
    DISK,
    FILE_SIZE,
    MEMORY,
    PROCESSES,
    TIMEOUT,
    Sandbox,
    SandboxLimits,
    SandboxResult,
)
from a4a.runtime.sandbox.bubblewrap import BubblewrapSandbox
from a4a.runtime.sandbox.factory import get_sandbox
from a4a.runtime.sandbox.fake import FakeSandbox, SandboxCall, scripted_result
from a4a.runtime.sandbox.local import UnsafeLocalSandbox

__all__ = [
    "CPU",
    "DISK",
    "FILE_SIZE",
    "MEMORY",
    "PROCESSES",
    "TIMEOUT",
    "BubblewrapSandbox",
    "FakeSandbox",
    "Sandbox",
    "SandboxCall",
    "SandboxLimits",
    "SandboxResult",
    "UnsafeLocalSandbox",
    "get_sandbox",
    "scripted_result",
]
