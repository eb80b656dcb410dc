"""16-bit PNG files, which Pillow cannot hold losslessly in colour: a reader for 16-bit
greyscale / grey+alpha / RGB / RGBA PNGs (interlaced or not, any row filter) and a
writer for uint16 images of 1-4 channels. 8-bit PNGs go through Pillow (`codecs`).

Only the PNG container and row filters are handled here; compression is zlib's.
"""
import struct
import zlib

import numpy as np

SIGNATURE = b"\x89PNG\r\n\x1a\n"
_CHANNELS_BY_COLOR_TYPE = {0: 1, 2: 3, 4: 2, 6: 4}
_COLOR_TYPE_BY_CHANNELS = {1: 0, 2: 4, 3: 2, 4: 6}
_ADAM7 = ((0, 0, 8, 8), (4, 0, 8, 8), (0, 4, 4, 8), (2, 0, 4, 4), (0, 2, 2, 4), (1, 0, 2, 2),
          (0, 1, 1, 2))


class PngError(ValueError):
    """The bytes are not a PNG this module can read."""


def read_header(data):
    """(width, height, bit_depth, color_type, interlace) from a PNG's IHDR.

    Raises:
      PngError: if `data` does not start with a PNG signature and IHDR chunk.
    """
    if len(data) < 33 or not data.startswith(SIGNATURE) or data[12:16] != b"IHDR":
        raise PngError("not a PNG file")
    width, height, depth, ctype, _, _, interlace = struct.unpack(">IIBBBBB", data[16:29])
    return width, height, depth, ctype, interlace


def _chunks(data):
    pos = len(SIGNATURE)
    while pos + 8 <= len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        crc = data[pos + 8 + length:pos + 12 + length]
        if len(body) != length or len(crc) != 4:
            raise PngError(f"truncated {kind!r} chunk at offset {pos}")
        if struct.unpack(">I", crc)[0] != zlib.crc32(kind + body) & 0xFFFFFFFF:
            raise PngError(f"bad CRC in {kind!r} chunk at offset {pos}")
        yield kind, body
        if kind == b"IEND":
            return
        pos += 12 + length


def _paeth(a, b, c):
    p = a + b - c
    pa, pb, pc = np.abs(p - a), np.abs(p - b), np.abs(p - c)
    return np.where((pa <= pb) & (pa <= pc), a, np.where(pb <= pc, b, c))


def _unfilter(raw, height, stride, bpp):
    """Undoes the per-row filters of a (sub-)image; returns uint8 [height, stride]."""
    need = height * (stride + 1)
    if len(raw) < need:
        raise PngError("image data too short")
    rows = np.frombuffer(raw, np.uint8, need).reshape(height, stride + 1)
    out = np.empty((height, stride), np.uint8)
    prev = np.zeros(stride, np.int32)
    width = stride // bpp
    for y in range(height):
        kind, line = rows[y, 0], rows[y, 1:].astype(np.int32)
        if kind == 0:
            cur = line
        elif kind == 1:
            cur = np.cumsum(line.reshape(width, bpp), axis=0).reshape(-1) & 0xFF
        elif kind == 2:
            cur = (line + prev) & 0xFF
        elif kind in (3, 4):
            cur = np.empty(stride, np.int32)
            left = np.zeros(bpp, np.int32)
            up_left = np.zeros(bpp, np.int32)
            for x in range(width):
                s = slice(x * bpp, (x + 1) * bpp)
                up = prev[s]
                pred = (left + up) >> 1 if kind == 3 else _paeth(left, up, up_left)
                left = cur[s] = (line[s] + pred) & 0xFF
                up_left = up
        else:
            raise PngError(f"bad filter type {kind} in row {y}")
        out[y] = cur
        prev = cur
    return out


def decode(data):
    """Decodes a 16-bit PNG.

    Returns:
      (uint16 array [H, W, C], has_transparency_key) where a tRNS colour key has
      already been turned into an alpha channel (as libpng's tRNS_to_alpha does).

    Raises:
      PngError: for a malformed file or one that is not 16-bit.
    """
    width, height, depth, ctype, interlace = read_header(data)
    if depth != 16 or ctype not in _CHANNELS_BY_COLOR_TYPE:
        raise PngError(f"unsupported PNG bit depth {depth} / colour type {ctype}")
    channels = _CHANNELS_BY_COLOR_TYPE[ctype]
    idat, trns = [], None
    for kind, body in _chunks(data):
        if kind == b"IDAT":
            idat.append(body)
        elif kind == b"tRNS":
            trns = body
    try:
        raw = zlib.decompress(b"".join(idat))
    except zlib.error as e:
        raise PngError(f"corrupt image data: {e}") from None
    bpp = 2 * channels
    if not interlace:
        pixels = _unfilter(raw, height, width * bpp, bpp)
    else:
        pixels = np.zeros((height, width * bpp), np.uint8)
        pos = 0
        for x0, y0, dx, dy in _ADAM7:
            w, h = -(-(width - x0) // dx), -(-(height - y0) // dy)
            if w <= 0 or h <= 0:
                continue
            sub = _unfilter(raw[pos:], h, w * bpp, bpp)
            pos += h * (w * bpp + 1)
            view = pixels.reshape(height, width, bpp)
            view[y0::dy, x0::dx] = sub.reshape(h, w, bpp)
    image = pixels.view(">u2").reshape(height, width, channels).astype(np.uint16)
    if trns is not None and ctype in (0, 2):
        key = np.frombuffer(trns, ">u2")[:channels].astype(np.uint16)
        alpha = np.where(np.all(image == key, axis=-1), 0, 65535).astype(np.uint16)
        image = np.concatenate([image, alpha[..., None]], axis=-1)
    return image


def encode(image, compression=-1):
    """Encodes a uint16 [H, W, C] image (C in 1..4) as a non-interlaced 16-bit PNG.

    Args:
      compression: zlib level 0-9, or -1 for zlib's default.
    """
    height, width, channels = image.shape
    header = struct.pack(">IIBBBBB", width, height, 16, _COLOR_TYPE_BY_CHANNELS[channels],
                         0, 0, 0)
    rows = np.ascontiguousarray(image, dtype=">u2").reshape(height, width * channels)
    raw = np.zeros((height, 1 + 2 * width * channels), np.uint8)
    raw[:, 1:] = rows.view(np.uint8).reshape(height, -1)
    body = zlib.compress(raw.tobytes(), compression)
    return SIGNATURE + _chunk(b"IHDR", header) + _chunk(b"IDAT", body) + _chunk(b"IEND", b"")


def _chunk(kind, body):
    crc = zlib.crc32(kind + body) & 0xFFFFFFFF
    return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", crc)
