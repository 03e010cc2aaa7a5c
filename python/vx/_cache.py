"""The disk half of vx's compile cache (the memory half and the key are in
_compiler.py).

The directory is `$VX_CACHE_DIR`, else `$XDG_CACHE_HOME/vx`, else
`~/.cache/vx`; one that cannot be created or written is a VxError naming
it. Each entry, `<dir>/<key>/`, holds a compiled library, its metadata, the
runtime libraries it needs and `manifest.json`, written last, with the size
and SHA-256 of every other file. An entry is built in `<dir>/.build-*` and
renamed into place, so it is whole or absent; one whose files do not match
its manifest (truncated, half-written, edited) is removed and rebuilt.

One process builds an entry while the others wait for it: an exclusive
`fcntl.flock` on `<dir>/.locks/<key>`. (Debian's python3-filelock would
take the same lock on Linux, the only system vx runs on, and would be one
more dependency for a wheel installed offline.)

The manifest's mtime is the entry's last use. After an entry is stored,
the least recently used ones are removed until all fit in
`$VX_CACHE_MAX_BYTES` (bytes, or with a K, M or G suffix; default 1G); the
entry just stored always stays.
"""

import contextlib
import fcntl
import hashlib
import json
import os
import re
import shutil
import tempfile
from typing import Callable, Iterator

from . import VxError

MANIFEST = "manifest.json"
DEFAULT_MAX_BYTES = 1 << 30
_LOCKS = ".locks"
_EVICTION_LOCK = ".eviction"
_SIZE = re.compile(r"([0-9]+)([KMG]?)", re.IGNORECASE)


def directory() -> str:
    """The cache directory, created if needed; VxError when unusable."""
    path = os.environ.get("VX_CACHE_DIR")
    if not path:
        base = os.environ.get("XDG_CACHE_HOME") or os.path.join(
            os.path.expanduser("~"), ".cache")
        path = os.path.join(base, "vx")
    path = os.path.abspath(path)
    try:
        os.makedirs(path, exist_ok=True)
        # Write access is what the cache needs; os.access would answer yes
        # for root on a read-only mount's permission bits.
        with tempfile.TemporaryFile(dir=path, prefix=".probe-"):
            pass
    except OSError as error:
        raise VxError(f"the compile cache directory {path} is unusable: "
                      f"{error.strerror or error}; set VX_CACHE_DIR to a "
                      f"writable directory") from None
    return path


def max_bytes() -> int:
    """The size limit of the cache, from VX_CACHE_MAX_BYTES."""
    text = os.environ.get("VX_CACHE_MAX_BYTES", "").strip()
    if not text:
        return DEFAULT_MAX_BYTES
    found = _SIZE.fullmatch(text)
    if not found:
        raise VxError(f"VX_CACHE_MAX_BYTES={text!r} is not a size in bytes "
                      f"(e.g. 500000000, 512M or 2G)")
    shift = {"": 0, "K": 10, "M": 20, "G": 30}[found.group(2).upper()]
    return int(found.group(1)) << shift


def _digest(path: str) -> str:
    with open(path, "rb") as source:
        return hashlib.sha256(source.read()).hexdigest()


def _is_whole(entry: str) -> bool:
    """Whether every file of the entry matches its manifest."""
    try:
        with open(os.path.join(entry, MANIFEST)) as source:
            files = json.load(source)["files"]
        return all(os.path.getsize(os.path.join(entry, name)) == size and
                   _digest(os.path.join(entry, name)) == digest
                   for name, (size, digest) in files.items())
    except (OSError, ValueError, KeyError, TypeError):
        return False


def _write_manifest(work: str) -> None:
    files = {name: [os.path.getsize(os.path.join(work, name)),
                    _digest(os.path.join(work, name))]
             for name in sorted(os.listdir(work))}
    with open(os.path.join(work, MANIFEST), "w") as output:
        json.dump({"files": files}, output)


def touch(entry: str) -> bool:
    """Marks the entry used now; False when it is gone (evicted)."""
    try:
        os.utime(os.path.join(entry, MANIFEST))
        return True
    except OSError:
        return False


def _remove(path: str) -> None:
    """Removes an entry directory, first renaming it aside so that no
    process sees it half-deleted."""
    root, name = os.path.split(path)
    aside = tempfile.mkdtemp(prefix=f".removing-{name}-", dir=root)
    try:
        os.rename(path, os.path.join(aside, name))
    except FileNotFoundError:
        pass
    shutil.rmtree(aside, ignore_errors=True)


@contextlib.contextmanager
def _locked(root: str, name: str) -> Iterator[None]:
    locks = os.path.join(root, _LOCKS)
    os.makedirs(locks, exist_ok=True)
    with open(os.path.join(locks, name), "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        yield


def entry(key: str, build: Callable[[str], None]) -> str:
    """The directory of the cache entry `key`; when it is missing or not
    whole, `build(work)` fills a new directory `work` (under the lock, so
    concurrent callers wait and reuse it), which becomes the entry."""
    root = directory()
    path = os.path.join(root, key)
    if _is_whole(path):
        touch(path)
        return path
    with _locked(root, key):
        if not _is_whole(path):
            _store(root, path, build)
    _evict(root, keep=path)
    return path


def _store(root: str, path: str, build: Callable[[str], None]) -> None:
    work = tempfile.mkdtemp(prefix=".build-", dir=root)
    try:
        build(work)
        _write_manifest(work)
        if os.path.lexists(path):
            _remove(path)
        try:
            os.rename(work, path)
        except OSError:
            # Stored meanwhile by a process holding a lock file that
            # eviction replaced.
            if not _is_whole(path):
                raise
    finally:
        shutil.rmtree(work, ignore_errors=True)


def _size(path: str) -> int:
    total = 0
    for name in os.listdir(path):
        with contextlib.suppress(OSError):
            total += os.lstat(os.path.join(path, name)).st_size
    return total


def _last_use(entry: str) -> int:
    """The manifest's mtime; an entry without one was last used when
    written."""
    manifest = os.path.join(entry, MANIFEST)
    return os.stat(manifest if os.path.exists(manifest) else entry).st_mtime_ns


def _evict(root: str, keep: str) -> None:
    """Removes least recently used entries until the cache fits its limit."""
    limit = max_bytes()
    with _locked(root, _EVICTION_LOCK):
        entries = []
        for name in os.listdir(root):
            path = os.path.join(root, name)
            if name.startswith(".") or path == keep:
                continue
            try:
                entries.append((_last_use(path), _size(path), path))
            except OSError:
                continue  # Removed meanwhile.
        total = _size(keep) + sum(size for _, size, _ in entries)
        for used, size, path in sorted(entries):
            if total <= limit:
                break
            with contextlib.suppress(OSError):
                if _last_use(path) != used:
                    continue  # Another process has just used it.
            _remove(path)
            # Its lock file too: the rename into place keeps entries whole
            # even if a waiter and a newcomer then hold different locks.
            with contextlib.suppress(OSError):
                os.remove(os.path.join(root, _LOCKS, os.path.basename(path)))
            total -= size
