"""CRC32C (Castagnoli) and TF's masked form, from the compiled google-crc32c library."""
import google_crc32c

_MASK_DELTA = 0xA282EAD8


def crc32c(data, crc=0):
    """CRC32C of `data` (bytes-like), continuing from `crc`."""
    if crc:
        return google_crc32c.extend(crc, bytes(data) if isinstance(data, memoryview) else data)
    return google_crc32c.value(bytes(data) if isinstance(data, memoryview) else data)


def extend(crc, data):
    """Continues a CRC32C over more bytes."""
    return google_crc32c.extend(crc, data)


def mask(crc):
    """TF's masked CRC: rotate right by 15 bits and add a constant."""
    return ((((crc >> 15) | (crc << 17)) & 0xFFFFFFFF) + _MASK_DELTA) & 0xFFFFFFFF


def unmask(masked):
    """Inverse of `mask`."""
    rot = (masked - _MASK_DELTA) & 0xFFFFFFFF
    return ((rot >> 17) | (rot << 15)) & 0xFFFFFFFF


def masked_crc32c(data):
    """The masked CRC32C that TFRecord and tensor bundles store."""
    return mask(crc32c(data))
