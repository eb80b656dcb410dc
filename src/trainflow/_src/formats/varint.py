"""Base-128 varints, as protobuf and LevelDB write them: seven bits a byte, low bits
first, the high bit set on every byte but the last."""


def encode_varint(value):
    """The varint bytes of an int; a negative one is written as its 64-bit two's
    complement (ten bytes), as protobuf writes negative int32/int64 fields."""
    if value < 0:
        value &= 0xFFFFFFFFFFFFFFFF
    out = bytearray()
    while value >= 0x80:
        out.append((value & 0x7F) | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


def decode_varint(buf, pos, limit=None):
    """Decodes a varint from `buf` at `pos`; returns (value, new_pos).

    Raises:
      ValueError: if the varint runs past `limit` (default: the end of `buf`) or past 64 bits.
    """
    limit = len(buf) if limit is None else limit
    result = 0
    shift = 0
    while True:
        if pos >= limit or shift > 63:
            raise ValueError("truncated or overlong varint")
        byte = buf[pos]
        pos += 1
        result |= (byte & 0x7F) << shift
        if byte < 0x80:
            return result, pos
        shift += 7
