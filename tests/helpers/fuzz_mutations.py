"""What the fuzz tests share: mutation strategies (bit flips, byte overwrites, truncations,
insertions, huge and negative length fields), TFRecord framing with checksums recomputed and
an independent reference parser, table checksum fix-ups, and the client of fuzz_worker."""
import collections
import hashlib
import json
import os
import select
import struct
import subprocess
import sys

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

from trainflow._src.formats import crc32c
from trainflow._src.formats.varint import decode_varint, encode_varint

LONG = bool(os.environ.get("TRAINFLOW_FUZZ_LONG"))
EXAMPLES = int(os.environ.get("TRAINFLOW_FUZZ_EXAMPLES", "2000" if LONG else "60"))
FUZZ_SETTINGS = settings(max_examples=EXAMPLES, deadline=None, database=None,
                         derandomize=not LONG, print_blob=True,
                         suppress_health_check=list(HealthCheck))

# Length values a corrupt file may carry: around the 31/32/63/64-bit edges, and negative.
LENGTHS = [0, 1, 127, 128, 2 ** 31 - 1, 2 ** 31, 2 ** 32 - 1, 2 ** 32, 2 ** 40, 2 ** 62,
           2 ** 63 - 1, 2 ** 64 - 1, -1, -2, -2 ** 31, -2 ** 63]
INTS = LENGTHS + [3, 5, 7, 8, 16, 100, 1000, 65536, 2 ** 20]

# One mutation: (kind, position seed, argument). Positions are reduced modulo the target.
_pos = st.integers(0, 2 ** 32)
MUTATION = st.one_of(
    st.tuples(st.just("flip"), _pos, st.integers(0, 7)),
    st.tuples(st.just("overwrite"), _pos, st.binary(min_size=1, max_size=8)),
    st.tuples(st.just("truncate"), _pos, st.none()),
    st.tuples(st.just("insert"), _pos, st.binary(min_size=1, max_size=16)),
    st.tuples(st.just("length"), _pos, st.sampled_from(LENGTHS)),
)
MUTATIONS = st.lists(MUTATION, min_size=1, max_size=3)


def proto_length_spans(buf, base=0, depth=0):
    """(start, end) of every length-delimited field's length varint in a serialized proto,
    nested messages included (a string field may be walked as one; harmless here)."""
    spans = []
    pos = 0
    try:
        while pos < len(buf):
            key, pos = decode_varint(buf, pos)
            wire = key & 7
            if wire == 0:
                _, pos = decode_varint(buf, pos)
            elif wire == 1:
                pos += 8
            elif wire == 5:
                pos += 4
            elif wire == 2:
                n, q = decode_varint(buf, pos)
                spans.append((base + pos, base + q))
                if q + n > len(buf):
                    break
                if depth < 6:
                    spans += proto_length_spans(buf[q:q + n], base + q, depth + 1)
                pos = q + n
            else:
                break
    except ValueError:
        pass
    return spans


def mutate(buf, mutations, spans=None):
    """Applies `mutations` to bytes `buf`; `length` ones rewrite one of `spans` (varint
    length fields, by default those of `buf` read as a proto)."""
    buf = bytes(buf)
    for kind, seed, arg in mutations:
        if kind == "length":
            cands = proto_length_spans(buf) if spans is None else spans
            cands = [s for s in cands if s[1] <= len(buf)]
            if cands:
                s, e = cands[seed % len(cands)]
                buf = buf[:s] + encode_varint(arg) + buf[e:]
            else:
                buf = buf[:seed % (len(buf) + 1)] + encode_varint(arg) + buf[seed % (len(buf) + 1):]
            continue
        if not buf and kind != "insert":
            continue
        i = seed % max(len(buf), 1)
        if kind == "flip":
            buf = buf[:i] + bytes([buf[i] ^ (1 << arg)]) + buf[i + 1:]
        elif kind == "overwrite":
            buf = buf[:i] + arg + buf[i + len(arg):]
        elif kind == "truncate":
            buf = buf[:i]
        elif kind == "insert":
            j = seed % (len(buf) + 1)
            buf = buf[:j] + arg + buf[j:]
    return buf


# ----------------------------------------------------------------------------- TFRecord
def _masked(data):
    return crc32c.mask(crc32c.crc32c(bytes(data)))


def frame(payloads, lengths=None):
    """A TFRecord stream of `payloads`; `lengths` may override a record's length field
    (its checksums still computed, so the reader has to look further)."""
    out = bytearray()
    for i, p in enumerate(payloads):
        n = (lengths or {}).get(i, len(p)) & ((1 << 64) - 1)
        head = struct.pack("<Q", n)
        out += head + struct.pack("<I", _masked(head)) + p + struct.pack("<I", _masked(p))
    return bytes(out)


def record_length_spans(buf):
    """(start, end) of the length fields of the records of a valid stream."""
    spans, pos = [], 0
    while pos + 12 <= len(buf):
        n = struct.unpack_from("<Q", buf, pos)[0]
        spans.append((pos, pos + 8))
        pos += 16 + n
    return spans


def mutate_records(buf, mutations):
    """Raw mutations of a TFRecord stream; `length` ones write a uint64 length field."""
    spans = record_length_spans(buf)
    plain = [m for m in mutations if m[0] != "length"]
    for kind, seed, arg in mutations:
        if kind == "length" and spans:
            s, _ = spans[seed % len(spans)]
            buf = buf[:s] + struct.pack("<Q", arg & ((1 << 64) - 1)) + buf[s + 8:]
    return mutate(buf, plain)


def fix_record_checksums(buf):
    """Recomputes every checksum the framing reaches (so mutations get past them)."""
    buf = bytearray(buf)
    pos = 0
    while pos + 12 <= len(buf):
        buf[pos + 8:pos + 12] = struct.pack("<I", _masked(buf[pos:pos + 8]))
        n = struct.unpack_from("<Q", buf, pos)[0]
        end = pos + 12 + n + 4
        if end > len(buf):
            break
        buf[end - 4:end] = struct.pack("<I", _masked(buf[pos + 12:end - 4]))
        pos = end
    return bytes(buf)


def reference_records(buf):
    """An independent reading of a TFRecord stream: (payloads, "clean" or "corrupt").
    0 to 11 bytes after the last record end the stream quietly, as TF's reader does."""
    out, pos = [], 0
    while True:
        if len(buf) - pos < 12:
            return out, "clean"
        n = struct.unpack_from("<Q", buf, pos)[0]
        if _masked(buf[pos:pos + 8]) != struct.unpack_from("<I", buf, pos + 8)[0]:
            return out, "corrupt"
        end = pos + 12 + n + 4
        if end > len(buf):
            return out, "corrupt"
        data = buf[pos + 12:end - 4]
        if _masked(data) != struct.unpack_from("<I", buf, end - 4)[0]:
            return out, "corrupt"
        out.append(bytes(data))
        pos = end


def digest(data):
    return hashlib.sha1(data).hexdigest()[:16]


# ----------------------------------------------------------------------------- tables
def table_blocks(buf):
    """(offset, size) of every block of a valid table file (data, metaindex, index)."""
    footer = buf[-48:]
    pos = 0
    handles = []
    for _ in range(2):
        off, pos = decode_varint(footer, pos)
        size, pos = decode_varint(footer, pos)
        handles.append((off, size))
    index_off, index_size = handles[1]
    block = buf[index_off:index_off + index_size]
    restarts = struct.unpack_from("<I", block, len(block) - 4)[0]
    limit = len(block) - 4 - 4 * restarts
    pos = 0
    key = b""
    while pos < limit:
        shared, pos = decode_varint(block, pos)
        unshared, pos = decode_varint(block, pos)
        vlen, pos = decode_varint(block, pos)
        key = key[:shared] + block[pos:pos + unshared]
        pos += unshared
        off, p = decode_varint(block, pos)
        size, _ = decode_varint(block, p)
        handles.append((off, size))
        pos += vlen
    return handles


def fix_table_checksums(buf, blocks):
    """Recomputes the trailer CRC of each of `blocks` that still lies inside `buf`."""
    buf = bytearray(buf)
    for off, size in blocks:
        if off + size + 5 <= len(buf):
            crc = crc32c.mask(crc32c.crc32c(bytes(buf[off:off + size + 1])))
            buf[off + size + 1:off + size + 5] = struct.pack("<I", crc)
    return bytes(buf)


# ----------------------------------------------------------------------------- worker
class Worker:
    """fuzz_worker.py in a subprocess; restarted after a hang or a death."""

    WORKER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fuzz_worker.py")

    def __init__(self):
        self.proc = None
        self._start()

    def _start(self):
        env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
        self.proc = subprocess.Popen([sys.executable, self.WORKER], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, text=True, env=env)

    def read(self, fmt, path, timeout=60.0):
        """The worker's answer for reading `path` as `fmt` (kind "hang"/"died" if none)."""
        try:
            self.proc.stdin.write(json.dumps({"format": fmt, "path": path}) + "\n")
            self.proc.stdin.flush()
        except BrokenPipeError:
            self._restart()
            return {"kind": "died"}
        ready, _, _ = select.select([self.proc.stdout], [], [], timeout)
        line = self.proc.stdout.readline() if ready else None
        if not line:
            kind = "hang" if line is None else "died"
            self._restart()
            return {"kind": kind}
        return json.loads(line)

    def _restart(self):
        self.proc.kill()
        self.proc.wait(timeout=30)
        self._start()

    def close(self):
        self.proc.stdin.close()
        try:
            self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(timeout=30)


class Tally:
    """Counts of mutated files tried and their outcomes, per format."""

    def __init__(self):
        self.counts = collections.defaultdict(collections.Counter)

    def add(self, fmt, outcome, tried=True):
        """Counts one outcome; `tried=False` for a detail (a tensor of a file counted)."""
        if tried:
            self.counts[fmt]["tried"] += 1
        self.counts[fmt][outcome] += 1

    def report(self):
        lines = []
        for fmt in sorted(self.counts):
            c = self.counts[fmt]
            rest = ", ".join(f"{k} {v}" for k, v in sorted(c.items()) if k != "tried")
            lines.append(f"  {fmt}: {c['tried']} tried: {rest}")
        return "\n".join(lines)


def set_attr(node, seed, value):
    """Sets a dtype, a shape dimension or a tensor's dimension in one attr of `node`."""
    names = sorted(node.attr)
    if not names:
        return
    attr = node.attr[names[seed % len(names)]]
    kind = attr.WhichOneof("value")
    if kind == "type":
        attr.type = value % (1 << 31) if value >= 0 else 200
    elif kind == "shape":
        dims = attr.shape.dim
        if dims:
            dims[seed % len(dims)].size = max(min(value, 2 ** 63 - 1), -(2 ** 63))
        else:
            attr.shape.dim.add().size = max(min(value, 2 ** 63 - 1), -(2 ** 63))
    elif kind == "tensor":
        t = attr.tensor
        dim = t.tensor_shape.dim[seed % len(t.tensor_shape.dim)] if t.tensor_shape.dim \
            else t.tensor_shape.dim.add()
        dim.size = max(min(value, 2 ** 63 - 1), -(2 ** 63))
    elif kind == "i":
        attr.i = max(min(value, 2 ** 63 - 1), -(2 ** 63))


def field(number, payload):
    return encode_varint(number << 3 | 2) + encode_varint(len(payload)) + payload
