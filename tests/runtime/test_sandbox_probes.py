"""Escape probes: hostile snippets run in the bubblewrap sandbox, each asserted contained.

Most probes print `BLOCKED <label>` when the sandbox refused an action and `ESCAPED <label>`
when it succeeded; the test then also checks the host side where there is one (files
unchanged, no connection arrived, no process left behind). No test asserts on duration.
"""

from __future__ import annotations

import dataclasses
import json
import os
import re
import socket
import subprocess
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from a4a.runtime.errors import UserError
from a4a.runtime.sandbox import (
    DISK,
    FILE_SIZE,
    MEMORY,
    TIMEOUT,
    Sandbox,
    SandboxLimits,
    SandboxResult,
)
from tests.runtime.sandbox_support import (
    SECRET,
    assert_blocked,
    no_connection,
    probe,
    real_sandbox,
    wait_gone,
)

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def sandbox() -> Sandbox:
    return real_sandbox()


@pytest.fixture(autouse=True)
def _secret_in_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    """A canary secret in the runtime's environment; it must never reach the code."""
    monkeypatch.setenv("A4A_PROBE_SECRET", SECRET)
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)


# -- probes that the sandbox must refuse ----------------------------------------------------
# (label, code) with `{outside}`, `{home}`, `{root}`, `{prefix}` and `{testpid}` filled in.

REFUSED = [
    ("read-etc-shadow", "attempt('shadow', lambda: read('/etc/shadow'))"),
    ("read-etc-passwd", "attempt('passwd', lambda: read('/etc/passwd'))"),
    ("read-root-home", "attempt('root', lambda: read('/root/.bash_history'))"),
    ("read-ssh-keys", "attempt('ssh', lambda: os.listdir('{home}/.ssh'))"),
    ("list-home", "attempt('home', lambda: os.listdir('/home'))"),
    ("read-host-file", "attempt('outside', lambda: read('{outside}'))"),
    ("dotdot-traversal", "attempt('dotdot', lambda: read('../' * 12 + '{outside}'))"),
    ("read-repo", "attempt('repo', lambda: read('{root}/pyproject.toml'))"),
    ("read-venv", "attempt('venv', lambda: os.listdir('{root}/.venv'))"),
    ("docker-socket", "attempt('docker', lambda: read('/var/run/docker.sock'))"),
    ("host-pid-environ", "attempt('testpid', lambda: read('/proc/{testpid}/environ'))"),
    ("write-usr", "attempt('usr', lambda: write('/usr/a4a-probe'))"),
    ("write-etc", "attempt('etc', lambda: write('/etc/a4a-probe'))"),
    ("write-root-dir", "attempt('slash', lambda: write('/a4a-probe'))"),
    ("write-repo", "attempt('repo', lambda: write('{root}/a4a-probe'))"),
    ("write-python-prefix", "attempt('prefix', lambda: write('{prefix}/a4a-probe'))"),
    ("write-dev", "attempt('dev', lambda: write('/dev/a4a-probe'))"),
    ("write-sys", "attempt('sys', lambda: write('/sys/kernel/uevent_helper', b'/x'))"),
    ("write-proc-sys", "attempt('sysctl', lambda: write('/proc/sys/kernel/hostname', b'x'))"),
    ("sysrq-trigger", "attempt('sysrq', lambda: write('/proc/sysrq-trigger', b'h'))"),
    ("hard-link-outside", "attempt('link', lambda: os.link('{prefix}/bin/python3', 'py'))"),
    ("tcp-public-ip", "s = socket.socket(); s.settimeout(5)\n"
                      "attempt('tcp', lambda: s.connect(('1.1.1.1', 80)))"),
    ("udp-public-ip", "s = socket.socket(type=socket.SOCK_DGRAM)\n"
                      "attempt('udp', lambda: s.sendto(b'x', ('8.8.8.8', 53)))"),
    ("dns-lookup", "attempt('dns', lambda: socket.getaddrinfo('example.com', 443))"),
    ("tcp6-public-ip", "s = socket.socket(socket.AF_INET6); s.settimeout(5)\n"
                       "attempt('tcp6', lambda: s.connect(('2606:4700:4700::1111', 80)))"),
    ("setuid-root", "attempt('setuid', lambda: os.setuid(0))"),
    ("setgroups", "attempt('setgroups', lambda: os.setgroups([0]))"),
    ("chroot", "attempt('chroot', lambda: os.chroot('/tmp'))"),
    ("ptrace-pid1", "attempt('ptrace', lambda: libc('ptrace', 16, 1, None, None))"),
    ("mount-tmpfs", "os.makedirs('m', exist_ok=True)\n"
                    "attempt('mount', lambda: libc('mount', b'none', b'm', b'tmpfs', 0, None))"),
    ("umount-root", "attempt('umount', lambda: libc('umount2', b'/usr', 2))"),
    ("unshare-userns", "attempt('userns', lambda: libc('unshare', 0x10000000))"),
    ("unshare-mountns", "attempt('mountns', lambda: libc('unshare', 0x00020000))"),
    ("setns-host", "attempt('setns', lambda: libc('setns', os.open('/proc/1/ns/mnt', 0), 0))"),
    ("setuid-binary", "attempt('mount-bin', lambda: subprocess.run(['/usr/bin/mount', '-t', "
                      "'tmpfs', 'none', '/tmp'], capture_output=True, check=True))"),
    ("mknod-disk", "attempt('mknod', lambda: os.mknod('disk', 0o60600, os.makedev(8, 0)))"),
    ("sethostname", "attempt('hostname', lambda: socket.sethostname('pwned'))"),
    ("bpf-map", "import platform, struct\n"
                "attr = ctypes.create_string_buffer(struct.pack('4I', 2, 4, 4, 1), 64)\n"
                "nr = {{'x86_64': 321, 'aarch64': 280}}[platform.machine()]\n"
                "attempt('bpf', lambda: libc('syscall', nr, 0, attr, 64))"),
    ("tiocsti", "import fcntl, termios\n"
                "attempt('tty', lambda: os.open('/dev/tty', os.O_RDWR))\n"
                "attempt('tiocsti', lambda: fcntl.ioctl(0, termios.TIOCSTI, b'x'))"),
]


def _fill(code: str, outside: Path) -> str:
    return code.format(outside=outside, home=Path.home(), root=ROOT, testpid=os.getpid(),
                       prefix=os.path.realpath(sys.base_prefix))


@pytest.mark.parametrize(("label", "code"), REFUSED, ids=[label for label, _ in REFUSED])
def test_refused(sandbox: Sandbox, workspace: Path, outside: Path, label: str,
                 code: str) -> None:
    prefix = Path(os.path.realpath(sys.base_prefix))
    before = {p: p.exists() for p in (Path("/usr/a4a-probe"), Path("/etc/a4a-probe"),
                                      Path("/a4a-probe"), ROOT / "a4a-probe",
                                      prefix / "a4a-probe")}
    result = probe(sandbox, workspace, _fill(code, outside))
    assert_blocked(result, code.count("attempt("))
    assert {p: p.exists() for p in before} == before
    assert outside.read_text() == SECRET


# -- the environment ------------------------------------------------------------------------

def test_environment_is_minimal(sandbox: Sandbox, workspace: Path) -> None:
    result = probe(sandbox, workspace, "print(sorted(os.environ))")
    assert result.stdout.strip() == "['HOME', 'LANG', 'PATH', 'PWD']"


def test_no_process_environment_holds_the_secret(sandbox: Sandbox, workspace: Path) -> None:
    body = (
        "seen = []\n"
        "for pid in ['self', '1', str(os.getppid())] + [p for p in os.listdir('/proc')"
        " if p.isdigit()]:\n"
        "    try:\n"
        "        data = read(f'/proc/{pid}/environ')\n"
        "    except OSError as exc:\n"
        "        seen.append((pid, type(exc).__name__))\n"
        "    else:\n"
        "        seen.append((pid, data.decode(errors='replace')))\n"
        "print(seen)\n"
    )
    result = probe(sandbox, workspace, body)
    assert result.exit_code == 0
    assert "('self'," in result.stdout  # the probe did read something


def test_only_the_sandbox_processes_are_visible(sandbox: Sandbox, workspace: Path) -> None:
    result = probe(sandbox, workspace, "print(len([p for p in os.listdir('/proc')"
                                       " if p.isdigit()]))")
    assert 0 < int(result.stdout) <= 5


# -- writes that escape through the workspace -----------------------------------------------

def test_symlink_to_the_host_cannot_be_written_through(sandbox: Sandbox, workspace: Path,
                                                       outside: Path) -> None:
    owner = outside.stat().st_uid
    body = (f"os.symlink('{outside}', 'link')\n"
            f"os.symlink('{outside.parent}', 'dirlink')\n"
            "attempt('file', lambda: write('link', b'pwned'))\n"
            "attempt('dir', lambda: write('dirlink/new.txt', b'pwned'))\n")
    assert_blocked(probe(sandbox, workspace, body), 2)
    assert outside.read_text() == SECRET
    assert sorted(p.name for p in outside.parent.iterdir()) == ["secret.txt"]
    assert outside.stat().st_uid == owner
    assert (workspace / "link").is_symlink()


def test_setuid_file_in_the_workspace_loses_its_bit(sandbox: Sandbox, workspace: Path) -> None:
    body = "write('tool', b'#!/bin/sh\\n')\nos.chmod('tool', 0o6755)\n"
    result = probe(sandbox, workspace, body)
    assert result.exit_code == 0, result.stderr
    tool = (workspace / "tool").stat()
    # Owned by the runtime's user afterwards; as root, a kept set-user-ID bit would hand
    # root to whoever runs the file on the host.
    assert tool.st_uid == os.geteuid()
    if os.geteuid() == 0:
        assert not tool.st_mode & 0o4000


def test_tmp_is_private_and_fresh_each_run(sandbox: Sandbox, workspace: Path) -> None:
    name = f"/tmp/a4a-probe-{uuid.uuid4().hex}"
    first = probe(sandbox, workspace, f"write('{name}', b'one')\nprint(os.listdir('/tmp'))")
    assert first.exit_code == 0, first.stderr
    assert not Path(name).exists()
    second = probe(sandbox, workspace, f"print(os.path.exists('{name}'), os.listdir('/tmp'))")
    assert second.stdout.strip() == "False []"


def test_workspace_persists_what_was_written(sandbox: Sandbox, workspace: Path) -> None:
    (workspace / "given.txt").write_text("from the host")
    first = probe(sandbox, workspace, "write('made.txt', read('given.txt') + b'!')")
    assert first.exit_code == 0, first.stderr
    second = probe(sandbox, workspace, "print(read('made.txt').decode())")
    assert second.stdout == "from the host!\n"
    made = workspace / "made.txt"
    assert made.read_text() == "from the host!"
    assert (made.stat().st_uid, workspace.stat().st_uid) == (os.geteuid(), os.geteuid())
    assert (workspace / "given.txt").stat().st_uid == os.geteuid()


def test_tmp_cannot_fill_host_memory(sandbox: Sandbox, workspace: Path) -> None:
    body = ("def fill():\n"
            "    for i in range(64):\n"
            "        write(f'/tmp/f{i}', b'0' * (8 << 20))\n"
            "attempt('tmpfill', fill)\n")
    result = probe(sandbox, workspace, body, SandboxLimits(timeout_s=20, memory_mb=96))
    assert_blocked(result)
    assert "No space left" in result.stdout


# -- the network ----------------------------------------------------------------------------

@pytest.fixture
def listener() -> Iterator[socket.socket]:
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(8)
    server.setblocking(False)
    yield server
    server.close()


def test_host_loopback_is_unreachable(sandbox: Sandbox, workspace: Path,
                                      listener: socket.socket) -> None:
    port = listener.getsockname()[1]
    body = ("s = socket.socket(); s.settimeout(5)\n"
            f"attempt('loopback', lambda: s.connect(('127.0.0.1', {port})))\n")
    assert_blocked(probe(sandbox, workspace, body))
    assert no_connection(listener)


def test_host_abstract_unix_socket_is_unreachable(sandbox: Sandbox, workspace: Path) -> None:
    name = f"\0a4a-probe-{uuid.uuid4().hex}"
    server = socket.socket(socket.AF_UNIX)
    server.bind(name)
    server.listen(1)
    server.setblocking(False)
    try:
        body = ("s = socket.socket(socket.AF_UNIX)\n"
                f"attempt('abstract', lambda: s.connect({name!r}))\n")
        assert_blocked(probe(sandbox, workspace, body))
        assert no_connection(server)
    finally:
        server.close()


def test_only_loopback_interface_exists(sandbox: Sandbox, workspace: Path) -> None:
    result = probe(sandbox, workspace, "print([n for _, n in socket.if_nameindex()])")
    assert result.stdout.strip() == "['lo']"


# -- resources ------------------------------------------------------------------------------

def test_fork_bomb_is_contained(sandbox: Sandbox, workspace: Path) -> None:
    body = ("children = 0\n"
            "def bomb():\n"
            "    global children\n"
            "    while True:\n"
            "        if os.fork() == 0:\n"
            "            signal.pause()\n"
            "        children += 1\n"
            "attempt('fork', bomb)\n"
            "print('children', children)\n")
    result = probe(sandbox, workspace, body, SandboxLimits(timeout_s=20, max_processes=16))
    assert_blocked(result)
    assert int(result.stdout.split("children")[-1]) < 16


def test_recursive_fork_bomb_is_killed(sandbox: Sandbox, workspace: Path) -> None:
    marker = f"8{os.getpid()}.5"
    body = (f"os.execv('/bin/sh', ['sh', '-c', 'f() {{ f | f & }}; f; sleep {marker}'])\n")
    result = probe(sandbox, workspace, body, SandboxLimits(timeout_s=2, max_processes=32))
    assert result.timed_out or result.exit_code is not None
    assert wait_gone(marker) == []


def test_thread_bomb_is_contained(sandbox: Sandbox, workspace: Path) -> None:
    body = ("import threading\n"
            "def bomb():\n"
            "    while True:\n"
            "        threading.Thread(target=signal.pause, daemon=True).start()\n"
            "attempt('threads', bomb)\n")
    assert_blocked(probe(sandbox, workspace, body,
                         SandboxLimits(timeout_s=20, max_processes=32)))


def test_memory_bomb_is_contained(sandbox: Sandbox, workspace: Path) -> None:
    body = "hog = []\nwhile True:\n    hog.append(bytearray(16 << 20))\n"
    result = probe(sandbox, workspace, body, SandboxLimits(timeout_s=20, memory_mb=128))
    assert result.exit_code == 1
    assert result.limit_hit == MEMORY


def test_cpu_spin_is_killed(sandbox: Sandbox, workspace: Path) -> None:
    result = probe(sandbox, workspace, "while True:\n    pass\n",
                   SandboxLimits(timeout_s=30, cpu_s=1))
    assert result.exit_code != 0
    assert result.limit_hit in ("cpu", TIMEOUT)


def test_cpu_spin_ignoring_sigxcpu_is_killed(sandbox: Sandbox, workspace: Path) -> None:
    body = "signal.signal(signal.SIGXCPU, signal.SIG_IGN)\nwhile True:\n    pass\n"
    result = probe(sandbox, workspace, body, SandboxLimits(timeout_s=30, cpu_s=1))
    assert result.exit_code != 0
    assert result.limit_hit in ("cpu", TIMEOUT)


def test_infinite_output_is_truncated(sandbox: Sandbox, workspace: Path) -> None:
    body = "while True:\n    print('y' * 1000)\n"
    result = probe(sandbox, workspace, body, SandboxLimits(timeout_s=1, max_output_bytes=4096))
    assert result.truncated
    assert len(result.stdout.encode()) == 4096


def test_huge_file_write_is_cut(sandbox: Sandbox, workspace: Path) -> None:
    body = "with open('big.bin', 'wb') as f:\n    f.write(b'0' * (64 << 20))\n"
    result = probe(sandbox, workspace, body, SandboxLimits(timeout_s=20, max_file_mb=4))
    assert result.exit_code == 1
    assert result.limit_hit == FILE_SIZE
    assert (workspace / "big.bin").stat().st_size <= 4 << 20


def test_fd_exhaustion_is_contained(sandbox: Sandbox, workspace: Path) -> None:
    body = ("fds = []\n"
            "def grab():\n"
            "    while True:\n"
            "        fds.append(os.open('/dev/null', os.O_RDONLY))\n"
            "attempt('fds', grab)\nprint('fds', len(fds))\n")
    result = probe(sandbox, workspace, body)
    assert_blocked(result)
    assert int(result.stdout.split("fds")[-1]) < 256


def test_sleep_past_timeout_is_killed(sandbox: Sandbox, workspace: Path) -> None:
    marker = f"9{os.getpid()}.75"
    result = probe(sandbox, workspace, f"os.execv('/bin/sleep', ['sleep', '{marker}'])",
                   SandboxLimits(timeout_s=1))
    assert result.timed_out
    assert result.exit_code is None
    assert result.limit_hit == TIMEOUT
    assert wait_gone(marker) == []


def test_background_child_dies_with_the_run(sandbox: Sandbox, workspace: Path) -> None:
    marker = f"6{os.getpid()}.125"
    body = (f"subprocess.Popen(['/bin/sleep', '{marker}'], start_new_session=True,"
            " stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)\n"
            "if os.fork() == 0:\n"
            "    os.setsid()\n"
            f"    os.execv('/bin/sleep', ['sleep', '{marker}'])\n"
            "print('parent done')\n")
    result = probe(sandbox, workspace, body)
    assert result.stdout.strip() == "parent done"
    assert not result.timed_out
    assert wait_gone(marker) == []


# -- signals --------------------------------------------------------------------------------

def test_kill_everything_hurts_no_host_process(sandbox: Sandbox, workspace: Path) -> None:
    # A host process of the very uid the code runs as: `kill -9 -1` must not reach it.
    kwargs = {"user": 65534, "group": 65534, "extra_groups": []} if os.geteuid() == 0 else {}
    victim = subprocess.Popen(["/bin/sleep", "60"], **kwargs)
    try:
        result = probe(sandbox, workspace, "os.kill(-1, signal.SIGKILL)\nprint('alive')")
        assert isinstance(result, SandboxResult)
        assert victim.poll() is None
    finally:
        victim.kill()
        victim.wait()


def test_signals_to_the_parent_stay_inside(sandbox: Sandbox, workspace: Path) -> None:
    # The code's parent is the sandbox's own bwrap; killing it only ends the run. The
    # runtime's PID does not exist in the sandbox's PID namespace.
    body = (f"attempt('testpid', lambda: os.kill({os.getpid()}, signal.SIGKILL))\n"
            "print('ppid', os.getppid(), flush=True)\n"  # the kill ends us at once
            "os.kill(os.getppid(), signal.SIGKILL)\n")
    result = probe(sandbox, workspace, body)
    assert "BLOCKED testpid ProcessLookupError" in result.stdout
    assert int(result.stdout.split("ppid")[-1]) <= 5


def test_pid1_of_the_sandbox_cannot_be_killed_into_a_leak(sandbox: Sandbox,
                                                          workspace: Path) -> None:
    marker = f"5{os.getpid()}.5"
    body = (f"subprocess.Popen(['/bin/sleep', '{marker}'])\n"
            "attempt('pid1', lambda: os.kill(1, signal.SIGKILL))\n")
    probe(sandbox, workspace, body)
    assert wait_gone(marker) == []


def test_sandbox_uid_is_unprivileged(sandbox: Sandbox, workspace: Path) -> None:
    result = probe(sandbox, workspace, "print(os.getuid(), os.geteuid(), os.getgroups())\n"
                                       "print(read('/proc/self/status').decode())")
    uid_line = result.stdout.splitlines()[0]
    assert uid_line.startswith("65534 65534")
    assert "CapEff:\t0000000000000000" in result.stdout
    assert "NoNewPrivs:\t1" in result.stdout


def test_the_standard_library_works(sandbox: Sandbox, workspace: Path) -> None:
    body = ("import json, sqlite3, hashlib, decimal, zlib\n"
            "db = sqlite3.connect(':memory:'); db.execute('create table t(x)')\n"
            "print(json.dumps({'sha': hashlib.sha256(b'a').hexdigest()[:8]}))\n")
    result = probe(sandbox, workspace, body)
    assert result.stdout.strip() == '{"sha": "ca978112"}', result.stderr


def test_a_killed_run_still_gives_the_workspace_back(sandbox: Sandbox,
                                                    workspace: Path) -> None:
    result = probe(sandbox, workspace, "write('partial.txt')\nimport time; time.sleep(600)",
                   SandboxLimits(timeout_s=1))
    assert result.timed_out
    assert (workspace / "partial.txt").stat().st_uid == os.geteuid()
    assert workspace.stat().st_uid == os.geteuid()


# -- limits that hold: disk, inodes, memory no rlimit counts --------------------------------

SMALL_DISK = SandboxLimits(timeout_s=20, workspace_mb=8, max_files=200, max_file_mb=4)


def _host_usage(root: Path) -> tuple[int, int]:
    """Bytes allocated (hard links once) and entries under `root`, links not followed."""
    seen, used, entries = set(), 0, 0
    for path in root.rglob("*"):
        st = path.lstat()
        entries += 1
        if (st.st_dev, st.st_ino) not in seen:
            seen.add((st.st_dev, st.st_ino))
            used += st.st_blocks * 512
    return used, entries


FILLS = [
    ("disk-fill", "def fill():\n"
                  "    for i in range(64):\n"
                  "        write(f'f{i}', b'0' * (1 << 20))\n"),
    ("disk-fill-appends", "def fill():\n"
                          "    for i in range(16):\n"
                          "        with open(f'f{i}', 'ab') as f:\n"
                          "            for _ in range(4):\n"
                          "                f.write(b'1' * (1 << 20)); f.flush()\n"),
    ("inode-flood-files", "def fill():\n"
                          "    for i in range(100000):\n"
                          "        os.close(os.open(f'e{i}', os.O_CREAT | os.O_WRONLY))\n"),
    ("inode-flood-dirs", "def fill():\n"
                         "    for i in range(100000):\n"
                         "        os.mkdir(f'd{i}')\n"),
    ("inode-flood-symlinks", "def fill():\n"
                             "    for i in range(100000):\n"
                             "        os.symlink('x' * 200, f's{i}')\n"),
    ("inode-flood-tmp", "def fill():\n"
                        "    for i in range(100000):\n"
                        "        os.close(os.open(f'/tmp/e{i}', os.O_CREAT | os.O_WRONLY))\n"),
    ("tmp-fill-past-memory", "def fill():\n"
                             "    for i in range(64):\n"
                             "        write(f'/tmp/f{i}', b'0' * (4 << 20))\n"),
]


@pytest.mark.parametrize(("label", "code"), FILLS, ids=[label for label, _ in FILLS])
def test_filling_stops_at_the_cap(sandbox: Sandbox, workspace: Path, label: str,
                                  code: str) -> None:
    limits = dataclasses.replace(SMALL_DISK, memory_mb=64)
    result = probe(sandbox, workspace, code + f"attempt('{label}', fill)\n", limits)
    assert_blocked(result)
    assert "No space left on device" in result.stdout
    used, entries = _host_usage(workspace)
    assert used <= 8 << 20
    assert entries <= 200


def test_a_full_workspace_reads_as_the_disk_limit(sandbox: Sandbox, workspace: Path) -> None:
    body = "for i in range(64):\n    write(f'f{i}', b'0' * (1 << 20))\n"
    result = probe(sandbox, workspace, body, SMALL_DISK)
    assert result.exit_code == 1
    assert result.limit_hit == DISK


MULTIPLIERS = [
    # (label, code, a file that must read back, how many bytes it holds)
    ("sparse-files", "for i in range(40):\n"
                     "    with open(f's{i}', 'wb') as f:\n"
                     "        f.truncate(4 << 20); f.seek(1 << 20); f.write(b'x')\n",
     "s39", 4 << 20),
    ("hard-links", "write('big', b'0' * (3 << 20))\n"
                   "for i in range(150):\n"
                   "    os.link('big', f'link{i}')\n", "link149", 3 << 20),
]


@pytest.mark.parametrize(("label", "code", "name", "size"), MULTIPLIERS,
                         ids=[m[0] for m in MULTIPLIERS])
def test_copy_back_never_multiplies_bytes_on_the_host(sandbox: Sandbox, workspace: Path,
                                                     label: str, code: str, name: str,
                                                     size: int) -> None:
    result = probe(sandbox, workspace, code, SMALL_DISK)
    assert result.exit_code == 0, result.stderr
    assert (workspace / name).stat().st_size == size
    assert _host_usage(workspace)[0] <= 8 << 20
    if label == "hard-links":
        assert (workspace / name).stat().st_ino == (workspace / "big").stat().st_ino
    else:
        assert (workspace / name).read_bytes()[1 << 20] == ord("x")


def test_a_workspace_over_the_cap_is_refused_untouched(sandbox: Sandbox,
                                                       workspace: Path) -> None:
    (workspace / "big.bin").write_bytes(b"1" * (9 << 20))
    with pytest.raises(UserError) as info:
        sandbox.run_python("write('big.bin', b'pwned')", workspace=workspace,
                           limits=SMALL_DISK)
    assert info.value.code == "sandbox.workspace_too_large"
    assert "workspace_mb" in info.value.hint
    assert (workspace / "big.bin").read_bytes() == b"1" * (9 << 20)


MEMORY_NO_RLIMIT_COUNTS = [
    ("memfd", "attempt('memfd', lambda: os.memfd_create('hog'))"),
    ("memfd-syscall", "import platform\n"
                      "nr = {{'x86_64': 319, 'aarch64': 279}}[platform.machine()]\n"
                      "attempt('memfd', lambda: libc('syscall', nr, b'hog', 0))"),
    ("memfd-x32-abi", "import platform\n"
                      "nr = {{'x86_64': 0x40000000 | 319, 'aarch64': 279}}[platform.machine()]\n"
                      "attempt('memfd', lambda: libc('syscall', nr, b'hog', 0))"),
    ("memfd-secret", "attempt('secret', lambda: libc('syscall', 447, 0))"),
    ("sysv-shm", "attempt('shmget', lambda: libc('shmget', 0, 64 << 20, 0o1600))"),
    ("posix-shm", "attempt('devshm', lambda: write('/dev/shm/hog', b'0' * 4096))\n"
                  "from multiprocessing import shared_memory\n"
                  "attempt('shared_memory', lambda: shared_memory.SharedMemory("
                  "create=True, size=1 << 20))"),
    ("mqueue", "lib = ctypes.CDLL('librt.so.1', use_errno=True)\n"
               "attempt('mq_open', lambda: (lib.mq_open(b'/hog', 0o102, 0o600, None) != -1"
               " or (_ for _ in ()).throw(OSError(ctypes.get_errno(), 'mq_open'))))"),
]


@pytest.mark.parametrize(("label", "code"), MEMORY_NO_RLIMIT_COUNTS,
                         ids=[label for label, _ in MEMORY_NO_RLIMIT_COUNTS])
def test_memory_no_rlimit_counts_is_refused(sandbox: Sandbox, workspace: Path, label: str,
                                            code: str) -> None:
    result = probe(sandbox, workspace, code.format())
    assert_blocked(result, code.count("attempt("))


def test_memfd_cannot_hold_memory_past_the_limit(sandbox: Sandbox, workspace: Path) -> None:
    body = ("held = 0\n"
            "def hog():\n"
            "    global held\n"
            "    chunk = b'0' * (4 << 20)\n"
            "    for i in range(40):\n"
            "        fd = os.memfd_create(f'm{i}')\n"
            "        for _ in range(4):\n"
            "            os.write(fd, chunk); held += len(chunk)\n"
            "attempt('memfd-hog', hog)\n"
            "print('held', held >> 20)\n")
    result = probe(sandbox, workspace, body, SandboxLimits(timeout_s=20, memory_mb=128))
    assert_blocked(result)
    assert int(result.stdout.split("held")[-1]) < 128


# -- what the code can read about the host --------------------------------------------------

def test_proc_net_shows_only_the_sandbox_loopback(sandbox: Sandbox, workspace: Path,
                                                  listener: socket.socket) -> None:
    port = f":{listener.getsockname()[1]:04X} "
    body = ("import json\n"
            "out = {}\n"
            "for pid in ['1', '2', 'self', 'net']:\n"
            "    base = '/proc/net' if pid == 'net' else f'/proc/{pid}/net'\n"
            "    for name in ('tcp', 'tcp6', 'udp', 'unix', 'dev'):\n"
            "        try:\n"
            "            out[base + '/' + name] = read(base + '/' + name).decode()\n"
            "        except OSError as exc:\n"
            "            out[base + '/' + name] = type(exc).__name__\n"
            "print(json.dumps(out))\n")
    result = probe(sandbox, workspace, body)
    assert result.exit_code == 0, result.stderr
    seen = json.loads(result.stdout)  # what sandboxed code prints is data, never code
    assert port not in "".join(seen.values())
    for name, text in seen.items():
        if name.endswith("/tcp") and text.startswith("  sl"):
            assert len(text.splitlines()) == 1, (name, text)  # no socket at all
        if name.endswith("/dev") and "Inter-" in text:
            assert [line.split(":")[0].strip() for line in text.splitlines()[2:]] == ["lo"]
    assert seen["/proc/1/net/tcp"].startswith("  sl")  # the probe did read it


def _host_paths(workspace: Path) -> list[str]:
    home = str(Path.home())
    paths = [str(workspace), str(workspace.parent), str(ROOT), home,
             os.path.realpath(sys.base_prefix), os.path.realpath(sys.executable)]
    return [p for p in paths if p not in ("/", "/usr") and not p.startswith("/usr/")]


READS = [
    ("cmdlines", "for pid in [p for p in os.listdir('/proc') if p.isdigit()]:\n"
                 "    attempt(pid, lambda: read(f'/proc/{pid}/cmdline'))\n", False),
    ("environs", "for pid in [p for p in os.listdir('/proc') if p.isdigit()]:\n"
                 "    attempt(pid, lambda: read(f'/proc/{pid}/environ'))\n", False),
    ("mountinfo", "for pid in ['self', '1', '2']:\n"
                  "    attempt(pid, lambda: read(f'/proc/{pid}/mountinfo'))\n"
                  "    attempt(pid, lambda: read(f'/proc/{pid}/mounts'))\n", True),
    ("proc-links", "for pid in [p for p in os.listdir('/proc') if p.isdigit()]:\n"
                   "    for link in ('cwd', 'root', 'exe'):\n"
                   "        attempt(pid, lambda: os.readlink(f'/proc/{pid}/{link}'))\n", False),
    ("fd-links", "for pid in [p for p in os.listdir('/proc') if p.isdigit()]:\n"
                 "    attempt(pid, lambda: [os.readlink(f'/proc/{pid}/fd/{fd}')"
                 " for fd in os.listdir(f'/proc/{pid}/fd')"
                 " if os.path.lexists(f'/proc/{pid}/fd/{fd}')])\n", False),
    ("interpreter", "attempt('sys', lambda: (sys.executable, sys.prefix, sys.path,"
                    " os.getcwd(), sorted(os.environ.items())))\n", True),
]


@pytest.mark.parametrize(("label", "code", "must_read"), READS,
                         ids=[label for label, _, _ in READS])
def test_nothing_readable_names_a_host_path(sandbox: Sandbox, workspace: Path, label: str,
                                            code: str, must_read: bool) -> None:
    result = probe(sandbox, workspace, code)
    assert result.exit_code == 0, result.stderr
    assert "ESCAPED" in result.stdout  # something was read
    if must_read:
        assert "BLOCKED self" not in result.stdout
    found = [p for p in _host_paths(workspace)
             if re.search(rf"(?<![\w/.-]){re.escape(p)}(?![\w.-])", result.stdout)]
    assert found == [], result.stdout


def test_mountinfo_roots_are_the_system_and_the_sandbox_own(sandbox: Sandbox,
                                                            workspace: Path) -> None:
    result = probe(sandbox, workspace, "print(read('/proc/self/mountinfo').decode())")
    roots = {line.split()[3] for line in result.stdout.splitlines() if line.strip()}
    disk = {line.split()[3] for line in result.stdout.splitlines()
            if " - ext" in line or " - xfs" in line or " - btrfs" in line or " - overlay" in line}
    assert disk, result.stdout
    assert disk <= {"/usr", "/etc/ld.so.cache"} | set(_python_prefix_roots()), disk
    assert str(workspace) not in roots


def _python_prefix_roots() -> list[str]:
    # A runtime whose Python version has no /usr/bin/pythonX.Y binds its own prefix.
    system = Path(f"/usr/bin/python{sys.version_info[0]}.{sys.version_info[1]}")
    return [] if system.exists() else [os.path.realpath(sys.base_prefix)]


def test_the_stage_cannot_be_traced_or_read(sandbox: Sandbox, workspace: Path) -> None:
    # The stage is PID 1; it holds the host workspace's descriptor during the run.
    body = ("attempt('ptrace', lambda: libc('ptrace', 16, 1, None, None))\n"
            "attempt('fds', lambda: os.listdir('/proc/1/fd'))\n"
            "attempt('mem', lambda: read('/proc/1/mem'))\n"
            "attempt('signal', lambda: os.kill(1, signal.SIGSTOP) or read('/proc/1/stat')"
            ".split()[2] == b'T' or (_ for _ in ()).throw(OSError('ignored')))\n"
            "print('own fds', sorted(os.listdir('/proc/self/fd')))\n")
    result = probe(sandbox, workspace, body)
    assert_blocked(result, 4)
    assert "own fds ['0', '1', '2', '3']" in result.stdout


# -- the copy back never follows what the code made -----------------------------------------

def test_a_directory_swapped_for_a_host_link_is_not_followed(sandbox: Sandbox,
                                                             workspace: Path,
                                                             outside: Path) -> None:
    (workspace / "sub").mkdir()
    (workspace / "sub" / "kept.txt").write_text("k")
    body = (f"import shutil; shutil.rmtree('sub'); os.symlink('{outside.parent}', 'sub')\n"
            f"os.symlink('{outside}', 'secret-link')\n")
    result = probe(sandbox, workspace, body)
    assert result.exit_code == 0, result.stderr
    assert (workspace / "sub").is_symlink()
    assert sorted(p.name for p in outside.parent.iterdir()) == ["secret.txt"]
    assert outside.read_text() == SECRET


def test_special_and_deep_entries_are_dropped_with_a_note(sandbox: Sandbox,
                                                          workspace: Path) -> None:
    body = ("os.mkfifo('pipe')\n"
            "socket.socket(socket.AF_UNIX).bind('sock')\n"
            "os.makedirs('/'.join(['d'] * 80))\n"
            "write('plain.txt')\n")
    result = probe(sandbox, workspace, body)
    assert result.exit_code == 0, result.stderr
    assert sorted(p.name for p in workspace.iterdir()) == ["d", "plain.txt"]
    assert "[sandbox] not kept" in result.stderr
    depth = len((workspace / "d").relative_to(workspace).parts)
    deepest = max(len(p.relative_to(workspace).parts) for p in workspace.rglob("*"))
    assert depth == 1 and deepest <= 64
