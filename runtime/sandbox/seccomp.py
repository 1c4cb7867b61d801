"""The seccomp filter of sandboxed code: refuse the memory that no limit would count.

RLIMIT_AS counts mapped memory and the tmpfs mounts have a size, but a memfd, a memfd_secret,
a System V shared memory segment or a POSIX message queue holds kernel memory that neither
sees; without a memory cgroup the only closed answer is to refuse them (EPERM). Calls of any
other ABI (i386, x32) are refused too, so the filter cannot be sidestepped by number.
"""

from __future__ import annotations

import errno
import platform
import struct

from a4a.runtime.errors import RunError

# Linux syscall numbers of the refused calls, per machine.
REFUSED: dict[str, dict[str, int]] = {
    "x86_64": {"memfd_create": 319, "memfd_secret": 447, "shmget": 29, "mq_open": 240},
    "aarch64": {"memfd_create": 279, "memfd_secret": 447, "shmget": 194, "mq_open": 180},
}
_AUDIT_ARCH = {"x86_64": 0xC000003E, "aarch64": 0xC00000B7}
_X32_BIT = 0x40000000  # x32 calls reach the x86_64 table with this bit set
_LD_W_ABS, _JEQ_K, _JGE_K, _RET_K = 0x20, 0x15, 0x35, 0x06
_ALLOW = 0x7FFF0000
_DENY = 0x00050000 | errno.EPERM  # SECCOMP_RET_ERRNO


def _insn(code: int, jt: int, jf: int, k: int) -> bytes:
    return struct.pack("=HBBI", code, jt, jf, k)


def seccomp_program(machine: str | None = None) -> bytes:
    """The classic BPF program (struct sock_filter[]) that bwrap's `--seccomp FD` loads.

    Raises:
        RunError: no filter is known for this machine (`sandbox.unavailable`); running
            without one would leave memfds uncounted.
    """
    machine = machine or platform.machine()
    if machine not in REFUSED:
        raise RunError("sandbox.unavailable", f"no seccomp filter for machine {machine!r}",
                       hint="run code tools on x86_64 or aarch64", machine=machine)
    numbers = sorted(REFUSED[machine].values())
    checks = [_insn(_JGE_K, len(numbers) + 1, 0, _X32_BIT)] if machine == "x86_64" else []
    for i, nr in enumerate(numbers):
        # jump forward to the DENY return, which follows the ALLOW return
        checks.append(_insn(_JEQ_K, len(numbers) - i, 0, nr))
    return b"".join([
        _insn(_LD_W_ABS, 0, 0, 4),  # seccomp_data.arch
        _insn(_JEQ_K, 1, 0, _AUDIT_ARCH[machine]),
        _insn(_RET_K, 0, 0, _DENY),
        _insn(_LD_W_ABS, 0, 0, 0),  # seccomp_data.nr
        *checks,
        _insn(_RET_K, 0, 0, _ALLOW),
        _insn(_RET_K, 0, 0, _DENY),
    ])
