"""Decoding and encoding code points as TensorFlow's Unicode ops do (ICU's converters):
an invalid sequence becomes one replacement character per maximal invalid subpart, and
each decoded character keeps the byte offset where it starts."""
import bisect
import codecs

import numpy as np

from trainflow._src.framework import errors
from trainflow._src.ops.string.unicode_script_data import CODES, STARTS

_CONT = (0x80, 0xBF)
# UTF-8 lead byte -> the allowed range of each continuation byte (Unicode's table 3-7).
_UTF8 = {}
for _b in range(0xC2, 0xE0):
    _UTF8[_b] = (_CONT,)
_UTF8[0xE0] = ((0xA0, 0xBF), _CONT)
for _b in list(range(0xE1, 0xED)) + [0xEE, 0xEF]:
    _UTF8[_b] = (_CONT, _CONT)
_UTF8[0xED] = ((0x80, 0x9F), _CONT)
_UTF8[0xF0] = ((0x90, 0xBF), _CONT, _CONT)
for _b in range(0xF1, 0xF4):
    _UTF8[_b] = (_CONT, _CONT, _CONT)
_UTF8[0xF4] = ((0x80, 0x8F), _CONT, _CONT)
INVALID = -1


def _utf8(data):
    """(code point or INVALID, byte start) of each character of `data`."""
    out, i, n = [], 0, len(data)
    while i < n:
        b = data[i]
        if b < 0x80:
            out.append((b, i))
            i += 1
            continue
        ranges = _UTF8.get(b)
        if ranges is None:
            out.append((INVALID, i))
            i += 1
            continue
        cp, j = b & (0x1F if len(ranges) == 1 else 0x0F if len(ranges) == 2 else 0x07), i + 1
        for lo, hi in ranges:
            if j >= n or not lo <= data[j] <= hi:
                break
            cp = (cp << 6) | (data[j] & 0x3F)
            j += 1
        else:
            out.append((cp, i))
            i = j
            continue
        out.append((INVALID, i))
        i = j
    return out


def _utf16(data, big):
    out, i, n = [], 0, len(data)
    order = "big" if big else "little"
    while i < n:
        if i + 2 > n:
            out.append((INVALID, i))
            break
        unit = int.from_bytes(data[i:i + 2], order)
        if 0xD800 <= unit < 0xDC00 and i + 4 <= n:
            low = int.from_bytes(data[i + 2:i + 4], order)
            if 0xDC00 <= low < 0xE000:
                out.append((0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00), i))
                i += 4
                continue
        out.append((INVALID if 0xD800 <= unit < 0xE000 else unit, i))
        i += 2
    return out


def _utf32(data, big):
    out, n = [], len(data)
    order = "big" if big else "little"
    for i in range(0, n, 4):
        if i + 4 > n:
            out.append((INVALID, i))
            break
        cp = int.from_bytes(data[i:i + 4], order)
        out.append((INVALID if cp > 0x10FFFF or 0xD800 <= cp < 0xE000 else cp, i))
    return out


def _incremental(data, codec):
    """Any other codec Python has (Shift-JIS, GB18030, Big5 ...), a byte at a time so each
    character keeps its start."""
    decoder = codecs.getincrementaldecoder(codec)("strict")
    out, start = [], 0
    for i in range(len(data)):
        try:
            text = decoder.decode(data[i:i + 1])
        except UnicodeDecodeError:
            out.append((INVALID, start))
            decoder.reset()
            start = i + 1
            continue
        out.extend((ord(ch), start) for ch in text)
        if text:
            start = i + 1
    if start < len(data):
        out.append((INVALID, start))
    return out


def _with_bom(data, width):
    """UTF-16 / UTF-32 without a byte order: a leading BOM picks it and is dropped (ICU
    counts its bytes into the first character, which starts at 0); big-endian without
    one."""
    bom_be = b"\xfe\xff" if width == 2 else b"\x00\x00\xfe\xff"
    bom_le = b"\xff\xfe" if width == 2 else b"\xff\xfe\x00\x00"
    decode = _utf16 if width == 2 else _utf32
    for bom, big in ((bom_be, True), (bom_le, False)):
        if data.startswith(bom):
            return [(cp, start + width if i else 0)
                    for i, (cp, start) in enumerate(decode(data[width:], big))]
    return decode(data, True)


_DECODERS = {
    "UTF8": _utf8, "UTF16": lambda d: _with_bom(d, 2), "UTF16BE": lambda d: _utf16(d, True),
    "UTF16LE": lambda d: _utf16(d, False), "UTF32": lambda d: _with_bom(d, 4),
    "UTF32BE": lambda d: _utf32(d, True), "UTF32LE": lambda d: _utf32(d, False),
}


def _canonical(name):
    text = name.decode() if isinstance(name, bytes) else str(name)
    return text, text.upper().replace("-", "").replace("_", "")


def decoder(encoding):
    """A function bytes -> [(code point or INVALID, byte start)] for `encoding`.

    Raises:
      InvalidArgumentError: for an encoding no converter exists for.
    """
    text, key = _canonical(encoding)
    if key in _DECODERS:
        return _DECODERS[key]
    try:
        info = codecs.lookup(text)
    except LookupError:
        raise errors.InvalidArgumentError(
            None, None, f"Could not create converter for input encoding: {text}") from None
    if not getattr(info, "_is_text_encoding", True):
        raise errors.InvalidArgumentError(
            None, None, f"Could not create converter for input encoding: {text}")
    return lambda data: _incremental(data, info.name)


def decode(data, encoding_decoder, errors_mode, replacement_char, replace_control):
    """The (code points, byte starts) of one string, with TF's error handling.

    Raises:
      InvalidArgumentError: for an invalid sequence when errors_mode is 'strict'.
    """
    chars, starts = [], []
    for cp, start in encoding_decoder(data):
        if cp == INVALID:
            if errors_mode == "strict":
                raise errors.InvalidArgumentError(None, None,
                                                  "Invalid formatting on input string")
            if errors_mode == "ignore":
                continue
            cp = replacement_char
        elif replace_control and cp < 0x20:
            if errors_mode == "ignore":  # TF elides every replacement under 'ignore'
                continue
            cp = replacement_char
        chars.append(cp)
        starts.append(start)
    return chars, starts


def _valid(cp):
    return 0 <= cp <= 0x10FFFF and not 0xD800 <= cp < 0xE000


def encode(code_points, encoding, errors_mode, replacement_char):
    """The bytes of `code_points` in `encoding` (UTF-8, UTF-16-BE or UTF-32-BE).

    Raises:
      InvalidArgumentError: for an invalid code point when errors_mode is 'strict'.
    """
    text, key = _canonical(encoding)
    chars = []
    for cp in code_points:
        cp = int(cp)
        if not _valid(cp):
            if errors_mode == "strict":
                raise errors.InvalidArgumentError(
                    None, None, "Code point is out of range for Unicode, or is a surrogate.")
            if errors_mode == "ignore":
                continue
            cp = replacement_char
        chars.append(chr(cp))
    codec = {"UTF8": "utf-8", "UTF16BE": "utf-16-be", "UTF32BE": "utf-32-be"}.get(key)
    if codec is None:
        raise errors.InvalidArgumentError(None, None, f"Unknown output encoding: {text}")
    return "".join(chars).encode(codec, "surrogatepass")


def script(code_point):
    """ICU's script code of one code point (-1 for a value that is none)."""
    if not 0 <= code_point <= 0x10FFFF:
        return -1
    return CODES[bisect.bisect_right(STARTS, code_point) - 1]


def as_bytes(value):
    return value if isinstance(value, bytes) else str(value).encode("utf-8")


def string_array(values, shape):
    out = np.empty(len(values), dtype=object)
    out[:] = values
    return out.reshape(shape)
