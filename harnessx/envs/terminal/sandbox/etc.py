"""The sandbox's `/etc`: a small directory written once per process, never the host's.

Generated: `passwd` and `group` (root and nobody only), `hosts` (localhost), an empty
`resolv.conf`, `nsswitch.conf` (files) and `hostname`. Copied from the host when present, because
programs need them to run: the dynamic loader's configuration, `alternatives` (the targets of many
`/usr/bin` links), public CA certificates and OpenSSL's configuration (never `ssl/private`), time
zone, service and MIME tables, OS release, interpreter and terminal configuration. Everything else
(`shadow`, `hostname`, `fstab`, package-manager and proxy configuration, ...) stays invisible.
"""

from __future__ import annotations

import functools
import os
import shutil
import tempfile
import threading
from pathlib import Path

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


def write_etc(target: Path, host_etc: Path = Path("/etc")) -> None:
    """Fill `target` with the generated files and the allowed host entries (links kept as links)."""
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
    for name, text in GENERATED.items():
        (target / name).write_text(text, encoding="utf-8")
    for path in [target, *target.rglob("*")]:
        if not path.is_symlink():
            path.chmod(0o755 if path.is_dir() else 0o644)


_LOCK = threading.Lock()


@functools.lru_cache(maxsize=1)
def _make() -> Path:
    path = Path(tempfile.mkdtemp(prefix="harnessx-etc-"))
    write_etc(path)
    return path


def etc_dir() -> Path:
    """This process's sandbox `/etc` (made once)."""
    with _LOCK:
        return _make()
