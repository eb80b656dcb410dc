"""The string hashes TF's hash-bucket ops use: FarmHash Fingerprint64 (the _fast op,
from the pyfarmhash package), SipHash-2-4 with a 128-bit key (the _strong op) and
TF's legacy Hash64, a MurmurHash64A with seed 0xDECAFCAFFE (StringToHashBucket)."""
import struct

_M64 = 0xFFFFFFFFFFFFFFFF


def fingerprint64(data):
    """FarmHash's Fingerprint64 of `data` (bytes)."""
    import farmhash
    return farmhash.fingerprint64(data)


def _rotl(x, b):
    return ((x << b) | (x >> (64 - b))) & _M64


def siphash24(k0, k1, data):
    """SipHash-2-4 of `data` with the key (k0, k1) (two uint64)."""
    v0 = k0 ^ 0x736F6D6570736575
    v1 = k1 ^ 0x646F72616E646F6D
    v2 = k0 ^ 0x6C7967656E657261
    v3 = k1 ^ 0x7465646279746573

    def rounds(n):
        nonlocal v0, v1, v2, v3
        for _ in range(n):
            v0 = (v0 + v1) & _M64
            v1 = _rotl(v1, 13) ^ v0
            v0 = _rotl(v0, 32)
            v2 = (v2 + v3) & _M64
            v3 = _rotl(v3, 16) ^ v2
            v0 = (v0 + v3) & _M64
            v3 = _rotl(v3, 21) ^ v0
            v2 = (v2 + v1) & _M64
            v1 = _rotl(v1, 17) ^ v2
            v2 = _rotl(v2, 32)

    n = len(data)
    full = n - n % 8
    for (m,) in struct.iter_unpack("<Q", data[:full]):
        v3 ^= m
        rounds(2)
        v0 ^= m
    last = (n & 0xFF) << 56
    for i, byte in enumerate(data[full:]):
        last |= byte << (8 * i)
    v3 ^= last
    rounds(2)
    v0 ^= last
    v2 ^= 0xFF
    rounds(4)
    return v0 ^ v1 ^ v2 ^ v3


def hash64(data, seed=0xDECAFCAFFE):
    """TF's Hash64 (tensorflow/core/lib/hash): MurmurHash64A."""
    m = 0xC6A4A7935BD1E995
    r = 47
    n = len(data)
    h = (seed ^ (n * m)) & _M64
    full = n - n % 8
    for (k,) in struct.iter_unpack("<Q", data[:full]):
        k = (k * m) & _M64
        k ^= k >> r
        k = (k * m) & _M64
        h ^= k
        h = (h * m) & _M64
    tail = data[full:]
    if tail:
        for i in range(len(tail) - 1, -1, -1):
            h ^= tail[i] << (8 * i)
        h = (h * m) & _M64
    h ^= h >> r
    h = (h * m) & _M64
    h ^= h >> r
    return h
