"""The bytes of a PBN or LIN file as text, and the text back as the same bytes.

A file is read in the character set it declares (PBN 2.1: a ``%`` line such as
``%Content-type: text/x-pbn; charset=ISO-8859-1``); one that declares none is read as UTF-8
when it is valid UTF-8, else as ISO-8859-1 (PBN 2.1's default).  A UTF-8 byte-order mark is
kept aside, and bytes the character set cannot read are kept as they are.  Line ends are not
touched.  So :func:`encode` gives back the very bytes read, and text added to them is written
in the file's character set (a character it cannot hold is written in the nearest letters it
has, or ``?``).

    >>> data = b'%Content-type: text/x-pbn; charset=ISO-8859-1\\r\\n[Event "Caf\\xe9"]\\r\\n'
    >>> text, enc = decode(data)
    >>> text.splitlines()[1], enc.codec
    ('[Event "Café"]', 'iso8859-1')
    >>> encode(text, enc) == data
    True
    >>> encode("5+ \\u2665, \\u2264 15", enc)
    b'5+ H, <= 15'
    >>> try:
    ...     decode("[Event \\"Café\\"]".encode("utf-16"))
    ... except EncodingProblem as e:
    ...     print(e)
    the file is UTF-16: write it as UTF-8 or ISO-8859-1 (PBN 2.1's character sets)
"""

from __future__ import annotations

import codecs
import re
import unicodedata
from dataclasses import dataclass

__all__ = ["EncodingProblem", "FileEncoding", "decode", "encode"]

_CHARSET = re.compile(rb"^%[^\n]*?charset\s*=\s*[\"']?([A-Za-z0-9_.:-]+)", re.IGNORECASE | re.MULTILINE)
_NEAREST = {"\u2660": "S", "\u2665": "H", "\u2666": "D", "\u2663": "C", "\u2264": "<=", "\u2265": ">=",
            "\u2013": "-", "\u2014": "-", "\u2212": "-", "\u2018": "'", "\u2019": "'", "\u201c": '"',
            "\u201d": '"', "\u2026": "...", "\u2192": "->", "\u00d7": "x"}


class EncodingProblem(ValueError):
    """A file whose bytes are not text this tool reads (UTF-16, UTF-32)."""


@dataclass(frozen=True)
class FileEncoding:
    codec: str  # a Python codec name
    bom: bool = False  # a UTF-8 byte-order mark in front
    declared: bool = False  # named by the file itself


def _written(error: UnicodeEncodeError):
    """Characters the file's character set cannot hold: bytes kept from reading go back as
    they were, others in the nearest letters the set has, else '?'."""
    out = []
    for ch in error.object[error.start:error.end]:
        if 0xDC80 <= ord(ch) <= 0xDCFF:
            out.append(bytes([ord(ch) - 0xDC00]).decode("latin-1"))
            continue
        near = _NEAREST.get(ch)
        if near is None:
            near = unicodedata.normalize("NFKD", ch).encode("ascii", "ignore").decode("ascii") or "?"
        try:
            near.encode(error.encoding)
        except (UnicodeEncodeError, LookupError):
            near = "?"
        out.append(near)
    text = "".join(out)
    # bytes kept from reading must come back as bytes, not as characters of the set
    if any(0xDC80 <= ord(c) <= 0xDCFF for c in error.object[error.start:error.end]):
        return text.encode("latin-1"), error.end
    return text, error.end


codecs.register_error("canary-infer-file", _written)


def decode(data: bytes) -> tuple[str, FileEncoding]:
    """The text of a file's bytes, and how to write it back (see the module's text).

    :raises EncodingProblem: for UTF-16 or UTF-32 (a byte-order mark, or NUL bytes in every
        other place).
    """
    head = data[:4096]
    if head.startswith((codecs.BOM_UTF32_LE, codecs.BOM_UTF32_BE)):
        raise EncodingProblem("the file is UTF-32: write it as UTF-8 or ISO-8859-1 (PBN 2.1's character sets)")
    if head.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)) or (
            len(head) >= 8 and (head[1::2].count(0) > len(head) // 4 or head[0::2].count(0) > len(head) // 4)):
        raise EncodingProblem("the file is UTF-16: write it as UTF-8 or ISO-8859-1 (PBN 2.1's character sets)")
    bom = data.startswith(codecs.BOM_UTF8)
    body = data[len(codecs.BOM_UTF8):] if bom else data
    m = _CHARSET.search(body[:65536])
    if m is not None:
        try:
            codec = codecs.lookup(m.group(1).decode("ascii")).name
        except LookupError:
            codec = None
        if codec is not None and codec.startswith(("utf-16", "utf-32")):
            codec = None  # bytes that read as ASCII cannot be UTF-16
        if codec is not None:
            return body.decode(codec, errors="surrogateescape"), FileEncoding(codec, bom, True)
    try:
        return body.decode("utf-8"), FileEncoding("utf-8", bom)
    except UnicodeDecodeError:
        if bom:
            return body.decode("utf-8", errors="surrogateescape"), FileEncoding("utf-8", bom)
        return body.decode("iso8859-1"), FileEncoding("iso8859-1")


def encode(text: str, enc: FileEncoding) -> bytes:
    """``text`` in the file's character set: the bytes :func:`decode` read, and what was added."""
    data = text.encode(enc.codec, errors="canary-infer-file")
    return codecs.BOM_UTF8 + data if enc.bom else data
