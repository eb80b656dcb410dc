"""8-bit PNG files as TensorFlow's summary kernels write them (libpng defaults).

libpng picks a row filter per row: of None, Sub, Up, Average and Paeth, the one
whose filtered bytes, read as signed, have the smallest sum of magnitudes (the
first on ties; the row above the first is zeros). The rows are deflated at
zlib's default level with the Z_FILTERED strategy and memory level 9 (as TF sets
it); for small images the zlib header names the smallest window that holds the
data. One IDAT chunk per 8192 compressed bytes. With the same zlib, the files are
TensorFlow's byte for byte.
"""
import struct
import zlib

import numpy as np

_SIGNATURE = b"\x89PNG\r\n\x1a\n"
_COLOR_TYPES = {1: 0, 2: 4, 3: 2, 4: 6}
_IDAT_SIZE = 8192


def _chunk(kind, body):
    return (struct.pack(">I", len(body)) + kind + body
            + struct.pack(">I", zlib.crc32(kind + body) & 0xFFFFFFFF))


def _paeth_predictor(a, b, c):
    pa = np.abs(b - c)
    pb = np.abs(a - c)
    pc = np.abs(a + b - 2 * c)
    return np.where((pa <= pb) & (pa <= pc), a, np.where(pb <= pc, b, c))


def _filtered_rows(image):
    """The filter byte and filtered bytes of every row, chosen as libpng chooses.

    Every filter reads the unfiltered rows, so all rows and all five filters are
    computed at once; the cost of a filtered row is the sum of its bytes'
    magnitudes read as signed bytes (libpng's heuristic).
    """
    h, w, depth = image.shape
    rows = image.reshape(h, w * depth)
    left = np.zeros_like(rows)
    left[:, depth:] = rows[:, :-depth]
    above = np.zeros_like(rows)
    above[1:] = rows[:-1]
    upper_left = np.zeros_like(rows)
    upper_left[1:, depth:] = rows[:-1, :-depth]
    encoded = np.empty((5,) + rows.shape, np.uint8)
    encoded[0] = rows
    np.subtract(rows, left, out=encoded[1])      # uint8 arithmetic wraps mod 256
    np.subtract(rows, above, out=encoded[2])
    average = ((left.astype(np.uint16) + above) >> 1).astype(np.uint8)
    np.subtract(rows, average, out=encoded[3])
    wide = [v.astype(np.int16) for v in (left, above, upper_left)]
    np.subtract(rows, _paeth_predictor(*wide).astype(np.uint8), out=encoded[4])
    costs = np.abs(encoded.view(np.int8).astype(np.int16)).sum(axis=2, dtype=np.int64)
    best = np.argmin(costs, axis=0)  # the first filter on ties
    out = np.empty((h, 1 + w * depth), np.uint8)
    out[:, 0] = best
    out[:, 1:] = encoded[best, np.arange(h)]
    return out.tobytes()


def _zlib_stream(raw):
    compressor = zlib.compressobj(6, zlib.DEFLATED, 15, 9, zlib.Z_FILTERED)
    data = bytearray(compressor.compress(raw) + compressor.flush())
    if len(raw) <= 16384:
        # Name the smallest window (256 bytes up) that holds the data, as libpng does.
        cinfo = 7
        while cinfo > 0 and len(raw) <= 1 << (cinfo + 7):
            cinfo -= 1
        data[0] = 0x08 | (cinfo << 4)
        flags = data[1] & 0xE0
        data[1] = flags + 0x1F - ((data[0] << 8) + flags) % 0x1F
    return bytes(data)


def encode_png(image):
    """A PNG file of a uint8 [height, width, channels] image, channels 1 to 4."""
    h, w, depth = image.shape
    header = struct.pack(">IIBBBBB", w, h, 8, _COLOR_TYPES[depth], 0, 0, 0)
    stream = _zlib_stream(_filtered_rows(np.ascontiguousarray(image, np.uint8)))
    idats = [_chunk(b"IDAT", stream[i:i + _IDAT_SIZE])
             for i in range(0, len(stream), _IDAT_SIZE)]
    return _SIGNATURE + _chunk(b"IHDR", header) + b"".join(idats) + _chunk(b"IEND", b"")
