"""TensorFlow's counter-based Philox4x32-10 in NumPy and the samplers of its stateless
random ops (tensorflow/core/lib/random/philox_random.h, random_distributions.h,
kernels/stateless_random_ops.cc): the seed scramble of `GenerateKey`, the output
groups of `FillPhiloxRandom` (one counter step per group of outputs, truncated normal
reserving 256 samples per output), and the float conversions, Box-Muller and
rejection of TF's distributions, so that the stateless ops give TF's numbers."""
import numpy as np

_M0, _M1 = np.uint64(0xD2511F53), np.uint64(0xCD9E8D57)
_W0, _W1 = 0x9E3779B9, 0xBB67AE85
_LOW = np.uint64(0xFFFFFFFF)
_MASK32 = 0xFFFFFFFF
_TRUNCATED_RESERVED = 256


def philox(counters, key):
    """Philox4x32-10 of [n, 4] uint32 counters (as uint64) under a 2-word key: [n, 4]."""
    c = [counters[:, i].astype(np.uint64) for i in range(4)]
    k0, k1 = int(key[0]), int(key[1])
    for r in range(10):
        p0, p1 = _M0 * c[0], _M1 * c[2]
        hi0, lo0 = p0 >> np.uint64(32), p0 & _LOW
        hi1, lo1 = p1 >> np.uint64(32), p1 & _LOW
        c = [hi1 ^ c[1] ^ np.uint64(k0), lo1, hi0 ^ c[3] ^ np.uint64(k1), lo0]
        if r < 9:
            k0, k1 = (k0 + _W0) & _MASK32, (k1 + _W1) & _MASK32
    return np.stack(c, axis=1).astype(np.uint32)


def _counters(counter, start, count):
    """`count` consecutive 128-bit counters from `counter` + `start`, as [count, 4]."""
    base = sum(int(w) << (32 * i) for i, w in enumerate(counter))
    out = np.empty((count, 4), np.uint64)
    steps = np.arange(count, dtype=object) + start
    for i, step in enumerate(steps):
        value = (base + int(step)) & ((1 << 128) - 1)
        out[i] = [(value >> (32 * j)) & _MASK32 for j in range(4)]
    return out


def _stream(counter, key, start, count):
    """The uint32 outputs of `count` Philox steps from counter + start: [count, 4]."""
    if count == 0:
        return np.zeros((0, 4), np.uint32)
    return philox(_counters(counter, start, count), key)


def key_counter_from_seed(seed):
    """TF's GenerateKey: the (key, counter) a [2] seed scrambles to (as word lists)."""
    s0, s1 = (int(v) & ((1 << 64) - 1) for v in np.asarray(seed).reshape(-1)[:2])
    counter = [s0 & _MASK32, s0 >> 32, s1 & _MASK32, s1 >> 32]
    mix = philox(np.array([counter], np.uint64), (0x3EC8F720, 0x02461E29))[0]
    return [int(mix[0]), int(mix[1])], [0, 0, int(mix[2]), int(mix[3])]


def key_counter_from_tensors(key, counter):
    """The Philox key and counter words of a V2 op's uint64 key [1] and counter [2]."""
    k = int(np.asarray(key).reshape(-1)[0])
    c = [int(v) for v in np.asarray(counter).reshape(-1)[:2]]
    return [k & _MASK32, k >> 32], [c[0] & _MASK32, c[0] >> 32, c[1] & _MASK32, c[1] >> 32]


def _uint32_to_float(x):
    bits = (np.uint32(0x7F) << np.uint32(23)) | (x & np.uint32(0x7FFFFF))
    return bits.view(np.float32) - np.float32(1.0)


def _uint64_to_double(x0, x1):
    man = ((x0.astype(np.uint64) & np.uint64(0xFFFFF)) << np.uint64(32)) | x1.astype(np.uint64)
    bits = (np.uint64(1023) << np.uint64(52)) | man
    return bits.view(np.float64) - 1.0


def _words(key, counter, n, per_step):
    """The uint32 words of the outputs of a fixed-rate sampler taking `per_step`
    outputs from each Philox step: [n, 4 // per_step]."""
    steps = -(-n // per_step)
    words = _stream(counter, key, 0, steps).reshape(steps * per_step, 4 // per_step)
    return words[:n]


def _uint16_to_half(x):
    bits = (np.uint16(15) << np.uint16(10)) | (x.astype(np.uint16) & np.uint16(0x3FF))
    return bits.view(np.float16) - np.float16(1.0)


def _uint16_to_bfloat16(x):
    bits = (np.uint32(127) << np.uint32(7)) | (x & np.uint32(0x7F))
    return (bits << np.uint32(16)).view(np.float32) - np.float32(1.0)


def uniform(key, counter, n, np_dtype):
    """[n] uniform [0, 1) values of TF's UniformDistribution (half and bfloat16 from the
    low 16 bits of each word)."""
    if np.dtype(np_dtype) == np.float16:
        return _uint16_to_half(_words(key, counter, n, 4)[:, 0])
    if np.dtype(np_dtype).name == "bfloat16":
        return _uint16_to_bfloat16(_words(key, counter, n, 4)[:, 0]).astype(np_dtype)
    if np.dtype(np_dtype) == np.float64:
        w = _words(key, counter, n, 2)
        return _uint64_to_double(w[:, 0], w[:, 1])
    w = _words(key, counter, n, 4)[:, 0]
    return _uint32_to_float(w).astype(np_dtype)


def uniform_int(key, counter, n, lo, hi, np_dtype):
    """[n] integers in [lo, hi) of TF's UniformDistribution for int32 / int64."""
    span = (int(hi) - int(lo)) & ((1 << 64) - 1)
    if np.dtype(np_dtype).itemsize == 8:
        w = _words(key, counter, n, 2).astype(np.uint64)
        bits = w[:, 0] | (w[:, 1] << np.uint64(32))
        return (np.int64(lo) + (bits % np.uint64(span)).astype(np.int64)).astype(np_dtype)
    w = _words(key, counter, n, 4)[:, 0].astype(np.uint64)
    out = (np.int64(lo) + (w % np.uint64(span & _MASK32)).astype(np.int64))
    return out.astype(np_dtype)


def uniform_full_int(key, counter, n, np_dtype):
    """[n] integers over the whole range of the dtype."""
    if np.dtype(np_dtype).itemsize == 8:
        w = _words(key, counter, n, 2).astype(np.uint64)
        return (w[:, 0] | (w[:, 1] << np.uint64(32))).view(np.dtype(np_dtype))
    return _words(key, counter, n, 4)[:, 0].view(np.dtype(np_dtype))


def _box_muller_float(x0, x1):
    u1 = np.maximum(_uint32_to_float(x0), np.float32(1.0e-7))
    v1 = np.float32(2.0 * np.pi) * _uint32_to_float(x1)
    u2 = np.sqrt(np.float32(-2.0) * np.log(u1))
    return np.sin(v1) * u2, np.cos(v1) * u2


def _box_muller_double(x0, x1, x2, x3):
    u1 = np.maximum(_uint64_to_double(x0, x1), 1.0e-7)
    v1 = 2.0 * np.pi * _uint64_to_double(x2, x3)
    u2 = np.sqrt(-2.0 * np.log(u1))
    return np.sin(v1) * u2, np.cos(v1) * u2


def normal(key, counter, n, np_dtype):
    """[n] standard normal values of TF's NormalDistribution (Box-Muller)."""
    if np.dtype(np_dtype) == np.float64:
        steps = -(-n // 2)
        w = _stream(counter, key, 0, steps)
        f0, f1 = _box_muller_double(w[:, 0], w[:, 1], w[:, 2], w[:, 3])
        return np.stack([f0, f1], axis=1).reshape(-1)[:n]
    steps = -(-n // 4)
    w = _stream(counter, key, 0, steps)
    a0, a1 = _box_muller_float(w[:, 0], w[:, 1])
    b0, b1 = _box_muller_float(w[:, 2], w[:, 3])
    return np.stack([a0, a1, b0, b1], axis=1).reshape(-1)[:n].astype(np_dtype)


def truncated_normal(key, counter, n, np_dtype):
    """[n] values of TF's TruncatedNormalDistribution: per group of outputs (4 for
    float32, 2 for float64) a fresh run of Philox steps, Box-Muller pairs kept while
    |x| < 2."""
    double = np.dtype(np_dtype) == np.float64
    group = 2 if double else 4
    out = np.empty(n, np.float64 if double else np.float32)
    skip = group * _TRUNCATED_RESERVED // 4
    for g in range(-(-n // group)):
        need = min(group, n - g * group)
        words = _stream(counter, key, g * skip, skip).reshape(-1)
        got, pos = [], 0
        while len(got) < need:
            if double:
                pair = _box_muller_double(*[words[pos + i:pos + i + 1] for i in range(4)])
                pos += 4
            else:
                pair = _box_muller_float(words[pos:pos + 1], words[pos + 1:pos + 2])
                pos += 2
            got.extend(float(v[0]) for v in pair if abs(v[0]) < 2.0)
        out[g * group:g * group + need] = got[:need]
    return out.astype(np_dtype)


def multinomial(key, counter, logits, num_samples, np_dtype):
    """TF's MultinomialFunctor on the CPU in one shard: per row, the running sums of
    exp(logit - max) over the finite logits in double, each sample the first class whose
    sum exceeds a uniform double (two words of one sequential stream) times the total."""
    batch, classes = logits.shape
    words = _stream(counter, key, 0, -(-batch * num_samples * 2 // 4)).reshape(-1)
    out = np.zeros((batch, num_samples), np_dtype)
    pos = 0
    for b in range(batch):
        row = logits[b].astype(np.float64)
        finite = np.isfinite(row)
        top = row[finite].max() if finite.any() else np.finfo(logits.dtype).min
        cdf = np.cumsum(np.where(finite, np.exp(row - top), 0.0))
        total = cdf[-1] if classes else 0.0
        draws = _uint64_to_double(words[pos:pos + 2 * num_samples:2],
                                  words[pos + 1:pos + 2 * num_samples:2])
        pos += 2 * num_samples
        out[b] = np.searchsorted(cdf, draws * total, side="right")
    return out
