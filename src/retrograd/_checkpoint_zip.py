"""The zip container of a checkpoint, read with bounds: what ``retrograd.load`` opens and how it reads entries.

Everything here is checked before data is read: the source must be a regular file (or a
seekable binary file object), the zip's central directory must describe stored (uncompressed,
unencrypted) entries whose declared sizes fit inside the file, and every entry is read
straight into the array that will hold it (no intermediate ``bytes`` of the whole entry), so
loading a checkpoint costs about the size of its tensors.  Every failure is a ``RuntimeError``
whose message starts with ``retrograd.load:``.
"""
from __future__ import annotations

import io
import os
import stat
import struct
import zipfile
import zlib

import numpy as np

ZIP_MAGIC = b"PK\x03\x04"
MAX_ENTRIES = 1 << 20
_CHUNK = 1 << 20  # bytes copied at a time from a file object that has no readinto


class CorruptCheckpoint(RuntimeError):
    """A file that is not a well-formed checkpoint (a plain ``RuntimeError`` to users; the subclass
    lets the unpickler tell container errors from its own)."""


def corrupt(msg: str) -> CorruptCheckpoint:
    return CorruptCheckpoint(f"retrograd.load: {msg}")


class EmptyFileError(RuntimeError, EOFError):
    """An empty file: PyTorch raises EOFError (its unpickler runs out of input); it is also a
    RuntimeError like every other unreadable-file error here, so either ``except`` catches it."""


def open_source(f):
    """``(binary file object, whether we opened it)`` for a path or a file object.

    A path must name a regular file: a FIFO would block forever and ``/dev/zero`` would never
    end, so both (and any other device, also behind a symlink) are refused before anything is read.
    """
    if isinstance(f, (str, bytes, os.PathLike)):
        # O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer
        flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0) | getattr(os, "O_CLOEXEC", 0)
        fd = os.open(f, flags)
        try:
            mode = os.fstat(fd).st_mode
            if not stat.S_ISREG(mode):
                kind = ("a directory" if stat.S_ISDIR(mode) else "a FIFO (named pipe)" if stat.S_ISFIFO(mode)
                        else "a character device" if stat.S_ISCHR(mode) else "a block device" if stat.S_ISBLK(mode)
                        else "a socket" if stat.S_ISSOCK(mode) else "not a regular file")
                raise corrupt(f"{os.fsdecode(f)!r} is {kind}; checkpoints are loaded from regular files only")
            if hasattr(os, "set_blocking"):
                os.set_blocking(fd, True)
            fh = os.fdopen(fd, "rb")
        except BaseException:
            os.close(fd)
            raise
        return fh, True
    if hasattr(f, "read"):
        seekable = getattr(f, "seekable", None)
        try:
            ok = bool(seekable()) if callable(seekable) else False
        except (OSError, ValueError):
            ok = False
        if not ok:
            raise corrupt("the file object is not seekable; load from a path or from a buffer such as "
                          "io.BytesIO(data)")
        if isinstance(f, io.TextIOBase):
            raise TypeError("retrograd.load: the file object must be opened in binary mode")
        fileno = getattr(f, "fileno", None)
        if callable(fileno):
            try:
                mode = os.fstat(fileno()).st_mode
            except (OSError, ValueError, io.UnsupportedOperation):
                mode = None
            if mode is not None and not stat.S_ISREG(mode):
                raise corrupt("the file object is not a regular file; checkpoints are loaded from regular files only")
        return f, False
    raise TypeError(f"retrograd.load: expected a path or a binary file object, got {type(f).__name__}")


def sniff(fh) -> bytes:
    """The first 4 bytes (and rewind)."""
    start = fh.tell()
    head = fh.read(4)
    if not isinstance(head, (bytes, bytearray)):
        raise TypeError("retrograd.load: the file object must be opened in binary mode")
    fh.seek(start)
    return bytes(head)


class Archive:
    """A checked zip archive whose entries are read into arrays or small ``bytes``."""

    def __init__(self, fh) -> None:
        self.fh = fh
        self.end = fh.seek(0, io.SEEK_END)  # (zipfile's offsets are absolute positions in fh)
        size = self.end
        try:
            zf = zipfile.ZipFile(fh)
        except (zipfile.BadZipFile, zipfile.LargeZipFile, NotImplementedError, EOFError, ValueError, OSError,
                OverflowError, KeyError, IndexError, UnicodeDecodeError) as e:
            raise corrupt(f"truncated or corrupted zip archive ({type(e).__name__}: {e})") from None
        infos = zf.infolist()
        if len(infos) > MAX_ENTRIES:
            raise corrupt(f"the archive has too many entries ({len(infos)})")
        seen: set[str] = set()
        total = 0
        for info in infos:
            name = info.filename
            if name in seen:
                raise corrupt(f"the archive names the entry {name!r} twice")
            seen.add(name)
            if info.flag_bits & 0x1:
                raise corrupt(f"entry {name!r} is encrypted")
            if info.compress_type != zipfile.ZIP_STORED:
                raise corrupt(f"entry {name!r} is compressed; checkpoints hold stored entries only "
                              "(refusing possible zip bomb)")
            if (info.file_size != info.compress_size or info.file_size < 0 or info.header_offset < 0
                    or info.header_offset + 30 + len(name) + info.compress_size > size):
                raise corrupt(f"entry {name!r} declares {info.file_size} bytes at offset {info.header_offset} "
                              f"but the archive holds {size} bytes (truncated, corrupted, or a zip bomb)")
            total += info.file_size
        if total > size:
            raise corrupt("the entries declare more data than the archive holds (zip bomb?)")
        self.infos = {i.filename: i for i in infos}

    def names(self) -> list[str]:
        return list(self.infos)

    def size_of(self, name: str) -> int:
        info = self.infos.get(name)
        if info is None:
            raise corrupt(f"missing archive entry {name!r}")
        return info.file_size

    def read_bytes(self, name: str, limit: int | None = None) -> bytes:
        """A whole (small) entry: headers, data.pkl, the byteorder record."""
        n = self.size_of(name)
        if limit is not None and n > limit:
            raise corrupt(f"entry {name!r} is {n} bytes, more than the {limit} expected")
        stream = EntryStream(self, name)
        data = stream.read_exact(n)
        stream.finish()
        return data

    def open_stream(self, name: str) -> "EntryStream":
        return EntryStream(self, name)


class EntryStream:
    """Sequential reads from one stored entry straight from the file into caller-provided buffers
    (zipfile's reader would hand out a new ``bytes`` per read), CRC-checked at the end."""

    def __init__(self, archive: Archive, name: str) -> None:
        info = archive.infos.get(name)
        if info is None:
            raise corrupt(f"missing archive entry {name!r}")
        self.name, self.info, self.fh = name, info, archive.fh
        self.left, self.crc = info.file_size, 0
        fh = self.fh
        fh.seek(info.header_offset)
        head = fh.read(30)
        if len(head) != 30 or head[:4] != ZIP_MAGIC:
            raise corrupt(f"corrupted archive entry {name!r} (bad local header)")
        flags, name_len, extra_len = struct.unpack("<H", head[6:8])[0], *struct.unpack("<HH", head[26:30])
        local_name = fh.read(name_len).decode("utf-8" if flags & 0x800 else "cp437", "replace")
        if local_name != info.orig_filename:
            raise corrupt(f"corrupted archive entry {name!r} (its local header names {local_name!r})")
        self.pos = info.header_offset + 30 + name_len + extra_len
        if self.pos + self.left > archive.end:
            raise corrupt(f"entry {name!r} is truncated (it ends past the end of the file)")

    def read_exact(self, n: int) -> bytes:
        if n > self.left:
            raise corrupt(f"entry {self.name!r} is truncated (needs {n} more bytes, holds {self.left})")
        buf = bytearray(n)
        self._readinto(memoryview(buf))
        return bytes(buf)

    def _readinto(self, view: memoryview) -> None:
        self.fh.seek(self.pos)
        readinto = getattr(self.fh, "readinto", None)
        got, n = 0, view.nbytes
        while got < n:
            if readinto is not None:
                k = readinto(view[got:])
            else:  # (a file object without readinto: bounded chunks)
                chunk = self.fh.read(min(_CHUNK, n - got))
                k = len(chunk)
                view[got:got + k] = chunk
            if not k:
                raise corrupt(f"entry {self.name!r} is truncated")
            got += k
        self.crc = zlib.crc32(view, self.crc)
        self.pos += n
        self.left -= n

    def fill(self, arr: np.ndarray) -> None:
        """Fill ``arr`` (C- or F-contiguous) from the entry: the bytes go straight into its memory."""
        if arr.size == 0:
            return
        view = memoryview(arr.reshape(-1, order="A").view(np.uint8))
        if view.nbytes > self.left:
            raise corrupt(f"entry {self.name!r} is truncated (needs {view.nbytes} more bytes, holds {self.left})")
        self._readinto(view)

    def finish(self) -> None:
        """The entry must end here, with the CRC its directory record declares."""
        if self.left:
            raise corrupt(f"entry {self.name!r} holds {self.left} bytes more than its header declares")
        if self.crc != self.info.CRC:
            raise corrupt(f"corrupted archive entry {self.name!r} (Bad CRC-32: the data was damaged)")
