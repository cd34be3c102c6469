"""An uploaded bot folder, from an archive to a stored version, or refused with one line.

An upload is a .zip or a .tar.gz of a submission folder (its ``entrant.yaml`` manifest,
read by :func:`tournaments.submissions.read_manifest`, and its code), at the archive's
top or in its one top folder. It is unpacked into a staging folder under the limits
(its size, how many files, how much unpacked: a zip bomb stops at the limit, whatever
its headers claim; a .tar.gz's whole tar stream, its headers too, is held to that limit
and a little room per member as it is read), taking only plain files and folders at
safe paths: no absolute path, no ``..``, no control character, no link, device or pipe;
its manifest is read only if it is small. Its code's fingerprint
(:func:`tournaments.fingerprint.fingerprint`) names its folder; the files are synced
to disk and moved in place before its row is committed, so an accepted version
survives a kill of the service, and a refused one leaves nothing behind.
"""

from __future__ import annotations

import contextlib
import gzip
import io
import lzma
import os
import shutil
import stat
import tarfile
import tempfile
import zipfile
import zlib
from dataclasses import dataclass
from functools import partial
from pathlib import Path, PurePosixPath
from typing import IO, Callable, Iterator

from arena.config import ArenaConfig
from arena.store import ArenaStore, Entrant, Version
from tournaments.config import ConfigError
from tournaments.fingerprint import fingerprint
from tournaments.submissions import MANIFEST, SubmissionError, read_manifest

CHUNK = 1 << 16
#: What a tar stream may hold beyond its files' bytes, per member: its header, a long
#: name's or attributes' extra header, and the padding of each to 512-byte blocks.
TAR_ROOM = 4096
#: The largest manifest read: five short keys need far less, and the YAML parser is slow.
MANIFEST_BYTES = 64 * 1024
#: What a corrupt archive raises as it is read: zipfile's, tarfile's, gzip's (an OSError),
#: a decompressor's, a zip's encryption (RuntimeError) or unknown compression.
ARCHIVE_ERRORS = (zipfile.BadZipFile, tarfile.TarError, EOFError, OSError, RuntimeError,
                  NotImplementedError, zlib.error, lzma.LZMAError)


class UploadRefused(SubmissionError):
    """An upload that is not stored; the message is one line for its entrant."""


class LimitReached(UploadRefused):
    """An upload over its entrant's limits in time (versions a day, uploads an hour)."""


@dataclass(frozen=True)
class Member:
    """One plain file or folder of an archive, its path checked."""

    path: PurePosixPath
    is_dir: bool
    # Whether its mode lets its owner run it (a compiled bot, a script run as ./bot).
    executable: bool
    # Its bytes, as the archive gives them; a corrupt archive's errors as a refusal.
    chunks: Callable[[], Iterator[bytes]]


@dataclass(frozen=True)
class Accepted:
    """What became of an upload: its version, and whether it is new (the same code
    uploaded again is the version it already is)."""

    version: Version
    new: bool


def accept(arena: ArenaConfig, store: ArenaStore, entrant: Entrant, data: bytes) -> Accepted:
    """Store ``data`` as a version of ``entrant``'s, queued for its gate, or raise
    :class:`UploadRefused` having stored nothing."""
    per_day = entrant.per_day or arena.limits.versions_per_day
    if store.versions_since(entrant.name, 24) >= per_day:
        raise LimitReached(f"{per_day} versions in the last 24 hours is the limit: "
                            "try again later")
    if len(data) > arena.limits.upload_bytes:
        raise UploadRefused(f"the archive is {len(data)} bytes, over the limit of "
                            f"{arena.limits.upload_bytes}")
    arena.staging_dir.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(dir=arena.staging_dir))
    try:
        folder = staging / entrant.name
        unpack(data, folder, arena)
        root = _submission_root(folder)
        _small_manifest(root)
        try:
            manifest = read_manifest(root)
        except SubmissionError as error:
            raise UploadRefused(str(error)) from None
        try:
            spec = arena.gate_config(manifest.entry()).bots[0]
        except ConfigError as error:
            raise UploadRefused(f"{MANIFEST}: {error}") from None
        digest = fingerprint(spec)
        known = store.find_version(entrant.name, digest)
        if known is not None:
            return Accepted(known, new=False)
        final = arena.versions_dir / entrant.name / digest
        _move_synced(root, final)
        try:   # what its command names, checked where it will run, beside the others
            read_manifest(final)
        except SubmissionError as error:
            shutil.rmtree(final)
            raise UploadRefused(str(error)) from None
        entry = {**manifest.entry(), "dir": str(final)}
        return Accepted(store.add_version(entrant.name, digest, final, entry), new=True)
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def _submission_root(folder: Path) -> Path:
    """The folder holding the manifest: the archive's top, or its one top folder."""
    inside = list(folder.iterdir()) if folder.is_dir() else []
    if not (folder / MANIFEST).exists() and len(inside) == 1 and inside[0].is_dir():
        return inside[0]
    return folder


def _small_manifest(root: Path) -> None:
    """Refuse a manifest too large to read."""
    manifest = root / MANIFEST
    if manifest.is_file() and manifest.stat().st_size > MANIFEST_BYTES:
        raise UploadRefused(f"{MANIFEST} is over {MANIFEST_BYTES} bytes: it holds five "
                            "short keys")


def unpack(data: bytes, folder: Path, arena: ArenaConfig) -> None:
    """The archive's plain files and folders into ``folder``, within the limits."""
    limits = arena.limits
    folder.mkdir(parents=True)
    count = unpacked = 0
    tar_bytes = limits.unpacked_bytes + (limits.files + 1) * TAR_ROOM + tarfile.RECORDSIZE
    for member in members(data, tar_bytes):
        count += 1
        if count > limits.files:
            raise UploadRefused(f"more than {limits.files} files and folders in the archive")
        target = folder.joinpath(*member.path.parts)
        if member.is_dir:
            target.mkdir(parents=True, exist_ok=True)
            continue
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
            with target.open("xb") as sink:
                for chunk in member.chunks():
                    unpacked += len(chunk)
                    if unpacked > limits.unpacked_bytes:
                        raise UploadRefused(f"the archive unpacks to more than "
                                            f"{limits.unpacked_bytes} bytes")
                    sink.write(chunk)
        except OSError as error:   # a name twice, a file's name used as a folder's
            raise UploadRefused(f"{member.path}: cannot be unpacked: {error.strerror}") from None
        target.chmod(0o755 if member.executable else 0o644)
    if not count:
        raise UploadRefused("the archive is empty")


def members(data: bytes, tar_bytes: int) -> Iterator[Member]:
    """The archive's members, each checked as it comes; .zip or .tar.gz by their bytes.
    A .tar.gz is read as a stream, refused once it has unpacked to ``tar_bytes``."""
    if data.startswith(b"PK\x03\x04") or data.startswith(b"PK\x05\x06"):
        yield from _zip_members(data)
    elif data.startswith(b"\x1f\x8b"):
        yield from _tar_members(data, tar_bytes)
    else:
        raise UploadRefused("not a .zip or .tar.gz archive")


def _zip_members(data: bytes) -> Iterator[Member]:
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
        infos = archive.infolist()
    except (zipfile.BadZipFile, EOFError, ValueError) as error:
        raise UploadRefused(f"a corrupt .zip archive: {error}") from None
    for info in infos:
        mode = info.external_attr >> 16
        path = checked_path(info.filename)
        # Its kind, where the zip says one (a zip made off Unix says none).
        if stat.S_IFMT(mode) not in (0, stat.S_IFREG, stat.S_IFDIR):
            raise UploadRefused(f"{path}: not a plain file or folder (a link or device)")
        yield Member(path, info.is_dir(), bool(mode & stat.S_IXUSR),
                     partial(_chunks, partial(archive.open, info), "zip"))


def _tar_members(data: bytes, tar_bytes: int) -> Iterator[Member]:
    """A tar stream's members in order, read through a cap (a header may claim gigabytes
    of long name, which tarfile reads whole); a stream goes one way, so each member is
    read before the next is asked for."""
    stream = _Capped(gzip.GzipFile(fileobj=io.BytesIO(data)), tar_bytes)
    with _archive_errors("tar.gz"):
        archive = tarfile.open(fileobj=stream, mode="r|")
        for info in _tar_infos(archive):
            path = checked_path(info.name)
            if not (info.isfile() or info.isdir()):
                raise UploadRefused(f"{path}: not a plain file or folder (a link or device)")
            yield Member(path, info.isdir(), bool(info.mode & stat.S_IXUSR),
                         partial(_chunks, partial(_tar_file, archive, info), "tar.gz"))


class _Capped(io.BufferedIOBase):
    """A stream read no further than ``limit`` bytes: past it, a refusal (a gzip bomb stops
    there, whatever its tar headers say)."""

    def __init__(self, stream: io.BufferedIOBase, limit: int) -> None:
        super().__init__()
        self.stream = stream
        self.limit = self.left = limit

    def readable(self) -> bool:
        return True

    def read(self, size: int | None = -1) -> bytes:
        wanted = self.left + 1 if size is None or size < 0 else min(size, self.left + 1)
        chunk = self.stream.read(wanted)
        self.left -= len(chunk)
        if self.left < 0:
            raise UploadRefused(f"the archive's tar stream unpacks to more than "
                                f"{self.limit} bytes")
        return chunk


def _tar_infos(archive: tarfile.TarFile) -> Iterator[tarfile.TarInfo]:
    while (info := archive.next()) is not None:
        yield info


def _tar_file(archive: tarfile.TarFile, info: tarfile.TarInfo) -> IO[bytes]:
    handle = archive.extractfile(info)
    assert handle is not None   # a regular file's member always has its contents
    return handle


def _chunks(open_member: Callable[[], IO[bytes]], kind: str) -> Iterator[bytes]:
    """A member's bytes, a chunk at a time; a corrupt archive's errors (a bad checksum,
    data that ends early) as a refusal."""
    with _archive_errors(kind), open_member() as source:
        while chunk := source.read(CHUNK):
            yield chunk


@contextlib.contextmanager
def _archive_errors(kind: str) -> Iterator[None]:
    try:
        yield
    except ARCHIVE_ERRORS as error:
        raise UploadRefused(f"a corrupt .{kind} archive: {error}") from None


def checked_path(name: str) -> PurePosixPath:
    """An archive member's path, refused if it could land outside its folder."""
    path = PurePosixPath(name)
    if (not name or name.startswith("/") or "\\" in name or not name.isprintable()
            or ".." in path.parts or any(part.endswith(":") for part in path.parts[:1])):
        raise UploadRefused(f"{name[:200]!r}: an unsafe path in the archive (absolute, "
                            "with '..', a control character or a space other than ' ')")
    # ``tar -C folder .`` names the top "./" and its members "./name".
    return PurePosixPath(*[part for part in path.parts if part != "."])


def _move_synced(source: Path, target: Path) -> None:
    """Every file of ``source`` synced to disk, then the folder moved to ``target`` and
    the move synced: a kill after this leaves the whole folder there."""
    for folder, _subfolders, files in os.walk(source):
        for name in files:
            _sync(Path(folder, name))
        _sync(Path(folder))
    target.parent.mkdir(parents=True, exist_ok=True)
    if target.exists():   # left by a kill between its move and its row: not a version
        shutil.rmtree(target)
    os.replace(source, target)
    _sync(target.parent)
    _sync(target.parent.parent)


def _sync(path: Path) -> None:
    """A file's contents, or a folder's names, onto the disk."""
    descriptor = os.open(path, os.O_RDONLY)
    try:
        os.fsync(descriptor)
    finally:
        os.close(descriptor)
