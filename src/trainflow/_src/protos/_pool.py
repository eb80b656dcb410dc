"""The descriptor pool of trainflow's protos.

The messages keep TensorFlow's full names (`tensorflow.Event`, `tensorflow.MetaGraphDef`),
so `Any` type URLs, text protos and `DESCRIPTOR.full_name` read as TensorFlow's do. They
live in this pool of their own, not protobuf's default one, so that TensorFlow's
generated modules (which register the same names there) can be imported in the same
process. The well-known types our protos import are added first.
"""
from google.protobuf import any_pb2, descriptor_pool, wrappers_pb2

POOL = descriptor_pool.DescriptorPool()
for _well_known in (any_pb2, wrappers_pb2):
    POOL.AddSerializedFile(_well_known.DESCRIPTOR.serialized_pb)
