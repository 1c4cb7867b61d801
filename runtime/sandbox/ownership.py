"""Lending a workspace to the sandbox user for one run, and taking it back.

When the runtime runs as root, sandboxed code must still run as an ordinary user: the kernel
never enforces RLIMIT_NPROC on uid 0, not even inside a user namespace. That user needs to own
the workspace to write in it, so the tree is handed over before the run and every entry gets
its previous owner back afterwards (new entries get the workspace's owner).

The walks use directory descriptors and never follow symlinks (`os.fwalk`), so a symlink
the code planted cannot redirect a chown to a file outside the workspace.
"""

from __future__ import annotations

import os
from pathlib import Path

Owners = dict[str, tuple[int, int]]


def hand_over(root: Path, uid: int, gid: int) -> Owners:
    """Give every entry of `root` to `uid:gid`; returns the previous owners by relative path."""
    st = root.stat()
    owners: Owners = {".": (st.st_uid, st.st_gid)}
    os.chown(root, uid, gid)
    for dirpath, dirnames, filenames, dirfd in os.fwalk(root, follow_symlinks=False):
        rel = os.path.relpath(dirpath, root)
        for name in (*dirnames, *filenames):
            st = os.stat(name, dir_fd=dirfd, follow_symlinks=False)
            owners[os.path.normpath(os.path.join(rel, name))] = (st.st_uid, st.st_gid)
            os.chown(name, uid, gid, dir_fd=dirfd, follow_symlinks=False)
    return owners


def take_back(root: Path, owners: Owners) -> None:
    """Restore the owners recorded by `hand_over`; entries made since get the root's owner."""
    default = owners["."]
    for dirpath, dirnames, filenames, dirfd in os.fwalk(root, follow_symlinks=False):
        rel = os.path.relpath(dirpath, root)
        for name in (*dirnames, *filenames):
            uid, gid = owners.get(os.path.normpath(os.path.join(rel, name)), default)
            # chown by root clears set-user-ID and set-group-ID bits on regular files, so
            # nothing the code marked setuid keeps the bit under its new owner.
            os.chown(name, uid, gid, dir_fd=dirfd, follow_symlinks=False)
    os.chown(root, *default)
