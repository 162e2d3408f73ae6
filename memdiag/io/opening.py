"""Opening an input file: compression (by name or by its first bytes), binary content and UTF-8.

Every file memdiag reads — verdict files, recipes, schemes, claims, logs, tables, lists — gets its
bytes through :func:`read_bytes` and its text through :func:`read_text` (the strict parsers of
:mod:`memdiag.io.strict` and :mod:`memdiag.io.csv_text` start here), so
``.gz``, ``.bz2``, ``.xz`` and ``.zst`` files (and compressed content under any name, found by its
magic bytes) are read wherever a file is read: every stream of a concatenated file, decompressed
in steps of :data:`CHUNK` (nothing reserves the size limit up front); a file cut inside a stream
is an error naming it. A file that is binary after decompression (an image,
a zip archive, a spreadsheet) or that is not UTF-8 is one :class:`~memdiag.errors.VerdictError`
naming the file — never a parser's traceback or an "unknown layout" guess.
"""

from __future__ import annotations

import bz2
import gzip
import io
import lzma
import os
from pathlib import Path
from typing import BinaryIO

from memdiag.errors import VerdictError, where
from memdiag.io.outputs import note_input

#: Compression suffix -> format name.
COMPRESSED: dict[str, str] = {".gz": "gzip", ".bz2": "bzip2", ".xz": "xz", ".zst": "zstd"}

#: Magic bytes -> compression format (RFC 1952; bzip2; xz; RFC 8878).
MAGIC: tuple[tuple[bytes, str], ...] = (
    (b"\x1f\x8b", "gzip"), (b"BZh", "bzip2"), (b"\xfd7zXZ\x00", "xz"), (b"\x28\xb5\x2f\xfd", "zstd"),
)

#: Magic bytes of binary files that are no verdict table, for a message that says what they are.
BINARY: tuple[tuple[bytes, str], ...] = (
    (b"PK\x03\x04", "a zip archive (or .xlsx / .docx): unpack it or export the sheet as CSV"),
    (b"\x89PNG", "a PNG image"), (b"\xff\xd8\xff", "a JPEG image"), (b"%PDF", "a PDF document"),
    (b"\xd0\xcf\x11\xe0", "an old Office document: export it as CSV"),
    (b"SQLite format 3", "an SQLite database: export the table as CSV"),
    (b"7z\xbc\xaf", "a 7-Zip archive: unpack it"),
)

#: Parquet's magic bytes (at the start and the end of the file).
PARQUET_MAGIC = b"PAR1"

#: A decompressed file larger than this is refused (a decompression bomb, not a verdict file);
#: the environment variable ``MEMDIAG_MAX_DECOMPRESSED_MIB`` raises (or lowers) it.
MAX_BYTES = 4 << 30
#: Read this much decompressed output at a time (nothing reserves more than this up front).
CHUNK = 1 << 20
#: Compressed input fed to the zstd decompressor at a time: one call can expand at most this
#: input (a 4-byte RLE block decodes to 128 KiB, so 1 KiB gives at most 32 MiB in one call).
ZSTD_CHUNK = 1 << 10


def max_bytes() -> int:
    """The decompressed-size limit in bytes (``MEMDIAG_MAX_DECOMPRESSED_MIB`` if set)."""
    value = os.environ.get("MEMDIAG_MAX_DECOMPRESSED_MIB", "")
    try:
        return int(value) << 20 if value.strip() else MAX_BYTES
    except ValueError:
        raise VerdictError(f"MEMDIAG_MAX_DECOMPRESSED_MIB={value!r} is not a whole number of MiB.") from None


def logical_name(path: Path) -> str:
    """The file name without its compression suffix, lower case: ``runs.CSV.gz`` -> ``runs.csv``.

    >>> logical_name(Path("a/Eval.JSON.zst")), logical_name(Path("b.jsonl"))
    ('eval.json', 'b.jsonl')
    """
    name = path.name.lower()
    for suffix in COMPRESSED:
        if name.endswith(suffix):
            return name[: -len(suffix)]
    return name


def stem(path: Path) -> str:
    """The file name without its compression suffix and its last suffix: ``run.json.gz`` -> ``run``.

    >>> stem(Path("runs/mem0.json.gz")), stem(Path("Mem0.CSV"))
    ('mem0', 'Mem0')
    """
    name = path.name
    for suffix in COMPRESSED:
        if name.lower().endswith(suffix):
            name = name[: -len(suffix)]
            break
    return Path(name).stem


def logical_suffix(path: Path) -> str:
    """The suffix that says what the content is, under any compression suffix (``.json``)."""
    return Path(logical_name(path)).suffix


def compression(path: Path, head: bytes) -> str | None:
    """The compression of a file: from its suffix, else from its first bytes; None when plain."""
    by_name = COMPRESSED.get(path.suffix.lower())
    if by_name is not None:
        return by_name
    for magic, name in MAGIC:
        if head.startswith(magic):
            return name
    return None


def _too_large(path: Path, limit: int) -> VerdictError:
    return VerdictError(f"{where(path)}: decompresses to more than {limit >> 20} MiB (the decompressed-size "
                        "limit); this is not a verdict file, or set MEMDIAG_MAX_DECOMPRESSED_MIB to a larger "
                        "number of MiB to read it.")


def _zstd_frames(handle: BinaryIO, path: Path, limit: int) -> bytes:
    """Every frame of a zstd file, in order; a file cut inside a frame is an error.

    zstandard's stream reader stops silently inside a cut frame, so the frames are decoded with a
    decompressor object per frame, fed :data:`ZSTD_CHUNK` bytes at a time (bounded output per call).
    """
    try:
        import zstandard
    except ImportError:  # pragma: no cover - a declared dependency
        raise VerdictError(f"{where(path)}: is zstd-compressed; install the 'zstandard' package "
                           "(pip install zstandard) or decompress it first.") from None
    out = io.BytesIO()
    factory = zstandard.ZstdDecompressor()
    frame, pending = None, b""
    while True:
        block = pending or handle.read(ZSTD_CHUNK)
        pending = b""
        if not block:
            break
        if frame is None:
            frame = factory.decompressobj()
        try:
            out.write(frame.decompress(block))
        except zstandard.ZstdError as error:
            raise VerdictError(f"{where(path)}: is not a readable zstd file ({error}). "
                               "Check that it was copied completely.") from None
        if out.tell() > limit:
            raise _too_large(path, limit)
        if frame.eof:
            pending, frame = frame.unused_data, None
    if frame is not None:
        raise VerdictError(f"{where(path)}: is a cut zstd file (it ends inside a frame). "
                           "Check that it was copied completely.")
    return out.getvalue()


def _decompress(handle: BinaryIO, kind: str, path: Path) -> bytes:
    """The whole content of a compressed file: every stream (concatenated files, as ``cat a.gz
    b.gz`` makes), read :data:`CHUNK` bytes at a time; a cut file is an error naming it."""
    limit = max_bytes()
    if kind == "zstd":
        return _zstd_frames(handle, path, limit)
    out = io.BytesIO()
    try:
        with (gzip.GzipFile(fileobj=handle) if kind == "gzip" else
              bz2.BZ2File(handle) if kind == "bzip2" else lzma.LZMAFile(handle)) as f:
            while block := f.read(CHUNK):
                out.write(block)
                if out.tell() > limit:
                    raise _too_large(path, limit)
    except EOFError:
        raise VerdictError(f"{where(path)}: is a cut {kind} file (it ends inside a compressed stream). "
                           "Check that it was copied completely.") from None
    except (OSError, lzma.LZMAError, ValueError) as error:
        raise VerdictError(f"{where(path)}: is not a readable {kind} file ({error}). "
                           "Check that it was copied completely.") from None
    return out.getvalue()


def read_bytes(path: Path, what: str | None = None) -> bytes:
    """The content of a file, decompressed when it is compressed (by suffix or magic bytes).

    ``what`` names the kind of file in the messages ("claims file"); None: a verdict file.

    Raises
    ------
    VerdictError
        A missing file, a corrupt compressed file, or one that decompresses past :func:`max_bytes`.
    """
    path = Path(path)
    if not path.is_file():
        raise VerdictError(f"{where(path)}: no such {what or 'file'}. Check the path.")
    note_input(path)
    with open(path, "rb") as handle:
        kind = compression(path, handle.read(8))
        handle.seek(0)
        return handle.read() if kind is None else _decompress(handle, kind, path)


def binary_kind(data: bytes) -> str | None:
    """What a binary (non-text) content is, or None when it may be text (or Parquet)."""
    for magic, what in BINARY:
        if data.startswith(magic):
            return what
    sample = data[:4096]
    if b"\x00" in sample and not sample.startswith((b"\xff\xfe", b"\xfe\xff")):
        return "binary data (NUL bytes)"
    return None


def decode(data: bytes, path: Path, what: str | None = None) -> str:
    """UTF-8 text (a BOM is dropped); binary content or other encodings are a VerdictError
    naming the file (``what``: the kind of file, for the message; None: a verdict file).

    >>> decode(b"\\xef\\xbb\\xbfq1", Path("ids.txt"))
    'q1'
    >>> decode(b"%PDF-1.7", Path("claims.csv"), "claims file")
    Traceback (most recent call last):
    ...
    memdiag.errors.VerdictError: claims.csv: is a PDF document, not a claims file.
    >>> decode(b"a\\nb\\xe9", Path("ids.txt"), "list of query ids")
    Traceback (most recent call last):
    ...
    memdiag.errors.VerdictError: ids.txt: not UTF-8 text (byte 3, line 2: b'\\xe9'). Save the list of query ids as UTF-8.
    """
    kind = binary_kind(data)
    if kind is not None:
        raise VerdictError(f"{where(path)}: is {kind}, not a {what or 'text file of verdicts'}.")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        line = data[:error.start].count(b"\n") + 1
        raise VerdictError(f"{where(path)}: not UTF-8 text (byte {error.start}, line {line}: "
                           f"{data[error.start:error.start + 4]!r}). Save {'the ' + what if what else 'it'} "
                           "as UTF-8.") from None


def read_text(path: Path, what: str | None = None) -> str:
    """The text of a file: decompressed, checked for binary content, decoded as UTF-8
    (``what`` names the kind of file in the messages; None: a verdict file)."""
    path = Path(path)
    return decode(read_bytes(path, what), path, what)
