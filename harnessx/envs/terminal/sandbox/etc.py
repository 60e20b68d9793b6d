"""The sandbox's `/etc`: a small directory written once per process, never the host's.

Generated: `passwd` and `group` (root and nobody only), `hosts` (localhost), an empty
`resolv.conf`, `nsswitch.conf` (files) and `hostname`. Copied from the host when present, because
programs need them to run: the dynamic loader's configuration, `alternatives` (the targets of many
`/usr/bin` links), public CA certificates and OpenSSL's configuration (never `ssl/private`), time
zone, service and MIME tables, OS release, interpreter and terminal configuration.

A task's tools get their configuration too: for the Debian packages a task declares (its
Dockerfile's `apt-get install` lines), every file under `/etc` that those packages or the packages
they depend on ship (`dpkg -L`) is copied, so a tool finds its `/etc` as in the task's image (e.g.
`/etc/gnucobol` for `cobc`). Only world-readable entries are copied, never `ssl/private`.
Everything else (`shadow`, `fstab`, package-manager and proxy configuration, ...) stays invisible.
"""

from __future__ import annotations

import functools
import hashlib
import os
import shutil
import stat
import threading
from pathlib import Path

from harnessx.envs.terminal.sandbox.dpkg import closure, files_of
from harnessx.envs.terminal.sandbox.materials import private_dir

GENERATED = {
    "passwd": "root:x:0:0:root:/root:/bin/bash\nnobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\n",
    "group": "root:x:0:\nnogroup:x:65534:\n",
    "hosts": "127.0.0.1\tlocalhost\n::1\tlocalhost ip6-localhost ip6-loopback\n",
    "resolv.conf": "",
    "nsswitch.conf": "passwd: files\ngroup: files\nshadow: files\nhosts: files dns\nnetworks: files\n"
                     "protocols: files\nservices: files\nethers: files\nrpc: files\n",
    "hostname": "sandbox\n",
}
COPIED = ("ld.so.cache", "ld.so.conf", "ld.so.conf.d", "alternatives", "ssl", "ca-certificates",
          "ca-certificates.conf", "localtime", "timezone", "protocols", "services", "ethertypes", "mime.types",
          "magic", "magic.mime", "os-release", "debian_version", "lsb-release", "shells", "inputrc", "terminfo",
          "locale.alias", "gai.conf", "host.conf", "xml", "sgml", "fonts", "perl", "python3", "dpkg")
COPIED_PREFIXES = ("python3.", "java-")
NEVER = ("ssl/private",)  # private keys: never copied, whatever the allowlist says


def _wanted(name: str) -> bool:
    return name in COPIED or name.startswith(COPIED_PREFIXES)


def write_etc(target: Path, host_etc: Path = Path("/etc"), extra: list[str] | None = None) -> None:
    """Fill `target` with the allowed host entries (links kept as links), the `extra` entries (paths
    relative to /etc) and the generated files, which nothing copied replaces."""
    for name in sorted(os.listdir(host_etc)) if host_etc.is_dir() else []:
        if not _wanted(name):
            continue
        source, dest = host_etc / name, target / name
        try:
            if source.is_symlink():
                os.symlink(os.readlink(source), dest)
            elif source.is_dir():
                shutil.copytree(source, dest, symlinks=True,
                                ignore=lambda d, names: [n for n in names
                                                         if os.path.relpath(os.path.join(d, n), host_etc) in NEVER])
            elif source.is_file():
                shutil.copy2(source, dest)
        except OSError:  # unreadable host entry: left out
            continue
    for rel in extra or []:
        _copy_entry(host_etc, target, rel)
    for name, text in GENERATED.items():
        (target / name).write_text(text, encoding="utf-8")
    for path in [target, *target.rglob("*")]:
        if not path.is_symlink():
            path.chmod(0o755 if path.is_dir() else 0o644)


def package_etc(packages: tuple[str, ...]) -> list[str]:
    """Paths relative to /etc of the files, links and directories that `packages` (and what they
    depend on) install there."""
    found = set()
    for package in closure(packages):
        for line in files_of(package):
            if line.startswith("/etc/"):
                found.add(line[len("/etc/"):])
    return sorted(found)


def _copy_entry(host_etc: Path, target: Path, rel: str) -> None:
    """Copy one world-readable entry (a link as a link; a directory as a directory only)."""
    if any(rel == n or rel.startswith(n + "/") for n in NEVER):
        return
    source, dest = host_etc / rel, target / rel
    if any(parent.is_symlink() for parent in dest.parents if target in parent.parents):
        return  # never write through a link copied from the host (it may point outside `target`)
    try:
        st = os.lstat(source)
        if stat.S_ISLNK(st.st_mode):
            dest.parent.mkdir(parents=True, exist_ok=True)
            if not dest.is_symlink() and not dest.exists():
                os.symlink(os.readlink(source), dest)
        elif not st.st_mode & stat.S_IROTH:
            return
        elif stat.S_ISDIR(st.st_mode):
            dest.mkdir(parents=True, exist_ok=True)
        elif stat.S_ISREG(st.st_mode):
            dest.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, dest)
    except OSError:  # unreadable or vanished host entry: left out
        return


_LOCK = threading.Lock()


@functools.lru_cache(maxsize=None)
def _make(packages: tuple[str, ...]) -> Path:
    key = hashlib.sha256("\0".join(packages).encode()).hexdigest()[:12]
    path = private_dir(f"etc-{key}")
    write_etc(path, extra=package_etc(packages))
    return path


def etc_dir(packages: tuple[str, ...] = ()) -> Path:
    """This process's sandbox `/etc` for tasks declaring `packages` (made once per set)."""
    with _LOCK:
        return _make(tuple(sorted(set(packages))))
