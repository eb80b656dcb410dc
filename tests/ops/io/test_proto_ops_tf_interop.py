"""tf.io.decode_proto / encode_proto against TensorFlow: every scalar field type, repeated
and packed fields, sub-messages, defaults and padding, batches, the text format, a
descriptor set given as bytes, TF's own message types from the default pool, and errors
(cases after TF's proto kernel tests, on a test message built here)."""
import textwrap

from expr_values import comparison_test
from tf_interop import needs_tf

pytestmark = needs_tf

# A proto2 test message with one field of each type (some repeated, one packed, one with a
# default), built as a FileDescriptorSet; both sides make the same serialized messages with
# the protobuf package.
PRELUDE = textwrap.dedent("""
    from google.protobuf import descriptor_pb2, descriptor_pool, message_factory
    _F = descriptor_pb2.FieldDescriptorProto
    _fd = descriptor_pb2.FileDescriptorProto(name='tp.proto', package='tp')
    _inner = _fd.message_type.add(name='Inner')
    _inner.field.add(name='x', number=1, type=_F.TYPE_INT32, label=_F.LABEL_OPTIONAL)
    _m = _fd.message_type.add(name='Msg')
    _e = _fd.enum_type.add(name='Color')
    _e.value.add(name='RED', number=0)
    _e.value.add(name='BLUE', number=5)
    for _i, (_n, _t, _l) in enumerate([
            ('d', 'DOUBLE', 'OPTIONAL'), ('f', 'FLOAT', 'REPEATED'), ('i64', 'INT64', 'OPTIONAL'),
            ('u64', 'UINT64', 'REPEATED'), ('i32', 'INT32', 'REPEATED'),
            ('f64', 'FIXED64', 'OPTIONAL'), ('f32', 'FIXED32', 'REPEATED'),
            ('b', 'BOOL', 'REPEATED'), ('s', 'STRING', 'REPEATED'),
            ('inner', 'MESSAGE', 'REPEATED'), ('by', 'BYTES', 'OPTIONAL'),
            ('u32', 'UINT32', 'OPTIONAL'), ('color', 'ENUM', 'OPTIONAL'),
            ('sf32', 'SFIXED32', 'OPTIONAL'), ('sf64', 'SFIXED64', 'REPEATED'),
            ('s32', 'SINT32', 'REPEATED'), ('s64', 'SINT64', 'OPTIONAL'),
            ('packed', 'INT32', 'REPEATED'), ('dflt', 'INT32', 'OPTIONAL')], 1):
        _fld = _m.field.add(name=_n, number=_i, type=getattr(_F, 'TYPE_' + _t),
                            label=getattr(_F, 'LABEL_' + _l))
        if _t == 'MESSAGE':
            _fld.type_name = '.tp.Inner'
        if _t == 'ENUM':
            _fld.type_name = '.tp.Color'
    _m.field[17].options.packed = True
    _m.field[18].default_value = '42'
    _set = descriptor_pb2.FileDescriptorSet(file=[_fd])
    DS = b'bytes://' + _set.SerializeToString()
    _pool = descriptor_pool.DescriptorPool()
    _pool.Add(_fd)
    Msg = message_factory.GetMessageClass(_pool.FindMessageTypeByName('tp.Msg'))
    Inner = message_factory.GetMessageClass(_pool.FindMessageTypeByName('tp.Inner'))
    m1 = Msg(d=1.5, f=[0.5, -2.], i64=-7, u64=[2**63 + 5], i32=[1, -2, 3], f64=9, f32=[4, 5],
             b=[True, False], s=['ab', 'c'], inner=[Inner(x=3), Inner()], by=b'xyz', u32=7,
             color=5, sf32=-3, sf64=[-9], s32=[-1, 1], s64=-123, packed=[7, 8, 9], dflt=1)
    m2 = Msg(f=[1.], i32=[4], s=['only'], packed=[1])
    m3 = Msg()
    batch = tf.constant([[m1.SerializeToString(), m2.SerializeToString()],
                         [m3.SerializeToString(), m1.SerializeToString()]])
    NAMES = ['d', 'f', 'i64', 'u64', 'i32', 'f64', 'f32', 'b', 's', 'inner', 'by', 'u32',
             'color', 'sf32', 'sf64', 's32', 's64', 'packed', 'dflt']
    TYPES = [tf.float64, tf.float32, tf.int64, tf.uint64, tf.int32, tf.uint64, tf.uint32,
             tf.bool, tf.string, tf.string, tf.string, tf.uint32, tf.int32, tf.int32,
             tf.int64, tf.int32, tf.int64, tf.int32, tf.int32]
    def dec(b, names=NAMES, types=TYPES, **kw):
        kw.setdefault('descriptor_source', DS)
        out = tf.io.decode_proto(b, 'tp.Msg', names, types, **kw)
        return [out.sizes] + list(out.values)
    def enc_bytes(*a, **kw):
        kw.setdefault('descriptor_source', DS)
        return tf.io.decode_raw(tf.io.encode_proto(*a, **kw), tf.uint8)
    ex = tf.train.Example(features=tf.train.Features(feature={
        'a': tf.train.Feature(int64_list=tf.train.Int64List(value=[1, 2]))})).SerializeToString()
    shp = tf.TensorShape([3, 7]).as_proto().SerializeToString()
""")

EXPRESSIONS = [
    "dec(m1.SerializeToString())", "dec([m1.SerializeToString(), m2.SerializeToString()])",
    "dec(batch)", "dec(batch, name='dp')", "dec(m3.SerializeToString())",
    "dec(tf.placeholder_with_default(batch, None))",
    "dec(batch, ['i32', 'i64', 'f', 'sf32', 's32'],"
    " [tf.int64, tf.int64, tf.float64, tf.int64, tf.int64])",
    "dec(batch, [], [])", "dec(batch, ['inner'], [tf.string])",
    "dec(str(m1), message_format='text')",
    "dec([str(m2), str(m3)], ['s', 'packed', 'dflt'], [tf.string, tf.int32, tf.int32],"
    " message_format='text')",
    "tf.io.decode_proto(batch, 'tp.Nope', ['d'], [tf.float64], descriptor_source=DS)",
    "dec(b'\\\\xff\\\\xff\\\\xff')",
    "tf.io.decode_proto([ex], 'tensorflow.Example', ['features'], [tf.string]).values",
    "tf.io.decode_proto(shp, 'tensorflow.TensorShapeProto', ['dim', 'unknown_rank'],"
    " [tf.string, tf.bool])",
    # encode
    "enc_bytes([[1, 2, 0]], [[[1.5]], [[1., 2.]], [[0]]], ['d', 'f', 'i64'], 'tp.Msg')",
    "enc_bytes([[1, 3], [0, 1]], [[[5, 6, 7], [0, 0, 0]], [[b'q'], [b'r']]],"
    " ['packed', 'by'], 'tp.Msg')",
    "enc_bytes([[2, 1, 1, 1]], [tf.constant([[True, False]]), [['hi']],"
    " [[Inner(x=4).SerializeToString()]], tf.constant([[5]], tf.int32)],"
    " ['b', 's', 'inner', 'color'], 'tp.Msg', name='ep')",
    "enc_bytes([[1, 1, 2]], [tf.constant([[2**40 + 1]], tf.uint64),"
    " tf.constant([[-9]], tf.int64), tf.constant([[-4, 4]], tf.int32)],"
    " ['u64', 's64', 's32'], 'tp.Msg')",
    "tf.io.decode_proto(tf.io.encode_proto(*dec(batch)[:1], dec(batch)[1:], NAMES, 'tp.Msg',"
    " descriptor_source=DS), 'tp.Msg', NAMES, TYPES, descriptor_source=DS).values",
    "tf.io.decode_raw(tf.io.encode_proto([[2]], [tf.constant([[3, 4]], tf.int64)], ['value'],"
    " 'tensorflow.Int64List'), tf.uint8)",
    "enc_bytes([[1]], [[[1.5]]], ['nope'], 'tp.Msg')",
    "enc_bytes([[3]], [[[1.5]]], ['f'], 'tp.Msg')",
    "tf.strings.length(tf.io.encode_proto([[1]], [[[1.5]]], ['d'], 'tp.Msg',"
    " descriptor_source=DS))",
    "tf.strings.length(tf.io.encode_proto(tf.ones([2, 3, 1], tf.int32),"
    " [tf.ones([2, 3, 1], tf.float64)], ['d'], 'tp.Msg', descriptor_source=DS))",
]

test_matches_tf = comparison_test(PRELUDE, EXPRESSIONS)


# TensorFlow fails these at kernel construction with InvalidArgumentError (checked against
# TF 2.21 run alone; inside the comparison script its session reports them differently).
BAD_DECODES = [(["nope"], "int32", "Unknown field: nope"),
               (["d"], "float32", "Unexpected output type"),
               (["color"], "int64", "Unexpected output type"),
               (["u32"], "int64", "Unexpected output type"),
               (["f32"], "int64", "Unexpected output type"),
               (["u64"], "int64", "Unexpected output type"),
               (["s"], "int32", "Unexpected output type")]


def test_bad_fields_and_types():
    import numpy as np
    import pytest

    import trainflow.compat.v1 as tf
    for names, dtype, message in BAD_DECODES:
        with tf.Graph().as_default():
            env = {"tf": tf, "np": np}
            exec(PRELUDE, env)  # noqa: S102 - the test's own prelude
            out = env["dec"](env["batch"], names, [getattr(tf, dtype)])
            with tf.Session() as sess, pytest.raises(tf.errors.InvalidArgumentError,
                                                     match=message):
                sess.run(out)
