"""TF1's summary functions (`tf.summary.scalar`, `histogram`, `image`, `audio`, `text`,
`tensor_summary`, `merge`, `merge_all`) and the pre-1.0 names (`tf.scalar_summary`,
`tf.histogram_summary`, `tf.image_summary`, `tf.audio_summary`, `tf.merge_summary`,
`tf.merge_all_summaries`).

Each returns a scalar string tensor holding a serialized `Summary` and adds it to
`collections` (default: `GraphKeys.SUMMARIES`). Tags follow TF: the op's name
scope, so summaries made twice get `_1` suffixes, and with `family` the tag is
`family/<scope>` inside a `family/name` scope.
"""
import contextlib
import re

from trainflow._src import tf_logging
from trainflow._src.framework import dtypes
from trainflow._src.framework.graph_keys import GraphKeys
from trainflow._src.framework.op_builder import apply_op
from trainflow._src.framework.scopes import add_to_collection, get_collection, name_scope
from trainflow._src.framework.tensor_conversion import convert_to_tensor, is_tensor
from trainflow._src.ops.summary import summary_kernels
from trainflow._src.protos import summary_pb2, tensor_pb2

_INVALID_TAG_CHARACTERS = re.compile(r"[^-/\w\.]")


def _bad_color_proto():
    proto = tensor_pb2.TensorProto(dtype=dtypes.uint8.as_datatype_enum)
    proto.tensor_shape.dim.add(size=len(summary_kernels.DEFAULT_BAD_COLOR))
    proto.int_val.extend(summary_kernels.DEFAULT_BAD_COLOR)
    return proto


def clean_tag(name):
    """`name` with characters illegal in op names replaced by `_` and no leading `/`."""
    if name is not None:
        new_name = _INVALID_TAG_CHARACTERS.sub("_", name).lstrip("/")
        if new_name != name:
            tf_logging.info("Summary name %s is illegal; using %s instead." % (name, new_name))
            name = new_name
    return name


@contextlib.contextmanager
def summary_scope(name, family=None, default_name=None, values=None):
    """Opens the name scope of a summary; yields (tag, scope) as TF's summary_scope."""
    name = clean_tag(name)
    family = clean_tag(family)
    scope_base_name = name if family is None else f"{family}/{name}"
    with name_scope(scope_base_name, default_name, values) as scope:
        if family is None:
            tag = scope.rstrip("/")
        else:
            tag = f"{family}/{scope.rstrip('/')}"
        yield tag, scope


def _collect(value, collections, default_collections):
    for key in default_collections if collections is None else collections:
        add_to_collection(key, value)


def scalar(name, tensor, collections=None, family=None):
    """A summary of one scalar value (a `ScalarSummary` op)."""
    with summary_scope(name, family, values=[tensor]) as (tag, scope):
        val = apply_op("ScalarSummary", tags=tag, values=tensor, name=scope).outputs[0]
        _collect(val, collections, [GraphKeys.SUMMARIES])
    return val


def histogram(name, values, collections=None, family=None):
    """A histogram of `values` with TF's default buckets (a `HistogramSummary` op)."""
    with summary_scope(name, family, values=[values],
                       default_name="HistogramSummary") as (tag, scope):
        val = apply_op("HistogramSummary", tag=tag, values=values, name=scope).outputs[0]
        _collect(val, collections, [GraphKeys.SUMMARIES])
    return val


def image(name, tensor, max_outputs=3, collections=None, family=None):
    """PNG images from a 4-D [batch, height, width, 1|3|4] tensor (an `ImageSummary` op).

    uint8 images are kept; float images are rescaled per image into [0, 255].
    """
    with summary_scope(name, family, values=[tensor]) as (tag, scope):
        val = apply_op("ImageSummary", tag=tag, tensor=tensor, max_images=max_outputs,
                       bad_color=_bad_color_proto(), name=scope).outputs[0]
        _collect(val, collections, [GraphKeys.SUMMARIES])
    return val


def audio(name, tensor, sample_rate, max_outputs=3, collections=None, family=None):
    """WAV clips from a float [batch, frames(, channels)] tensor in [-1, 1]
    (an `AudioSummaryV2` op)."""
    with summary_scope(name, family=family, values=[tensor]) as (tag, scope):
        sample_rate = convert_to_tensor(sample_rate, dtype=dtypes.float32, name="sample_rate")
        val = apply_op("AudioSummaryV2", tag=tag, tensor=tensor, max_outputs=max_outputs,
                       sample_rate=sample_rate, name=scope).outputs[0]
        _collect(val, collections, [GraphKeys.SUMMARIES])
    return val


def tensor_summary(name, tensor, summary_description=None, collections=None,
                   summary_metadata=None, family=None, display_name=None):
    """A summary holding `tensor` itself with `summary_metadata` (a `TensorSummaryV2` op)."""
    if summary_metadata is None:
        summary_metadata = summary_pb2.SummaryMetadata()
    if summary_description is not None:
        summary_metadata.summary_description = summary_description
    if display_name is not None:
        summary_metadata.display_name = display_name
    serialized = summary_metadata.SerializeToString()
    with summary_scope(name, family, values=[tensor]) as (tag, scope):
        val = apply_op("TensorSummaryV2", tensor=tensor, tag=tag, name=scope,
                       serialized_summary_metadata=serialized).outputs[0]
        _collect(val, collections, [GraphKeys.SUMMARIES])
    return val


def text(name, tensor, collections=None):
    """A string tensor for TensorBoard's text plugin (markdown); a `TensorSummaryV2` op.

    Raises:
      ValueError: if `tensor` is not a string tensor.
    """
    if not is_tensor(tensor):
        tensor = convert_to_tensor(tensor)
    if tensor.dtype != dtypes.string:
        raise ValueError(f"Expected tensor {tensor.name} to have dtype string, got "
                         f"{tensor.dtype}")
    metadata = summary_pb2.SummaryMetadata(
        plugin_data=summary_pb2.SummaryMetadata.PluginData(plugin_name="text"))
    return tensor_summary(name=name, tensor=tensor, summary_metadata=metadata,
                          collections=collections)


def merge(inputs, collections=None, name=None):
    """One Summary holding every value of `inputs` (a `MergeSummary` op).

    Raises at run time InvalidArgumentError if two inputs share a tag.
    """
    name = clean_tag(name)
    with name_scope(name, "Merge", inputs):
        val = apply_op("MergeSummary", inputs=list(inputs), name=name).outputs[0]
        _collect(val, collections, [])
    return val


def merge_all(key=GraphKeys.SUMMARIES, scope=None, name=None):
    """Merges every summary in collection `key` (filtered by `scope`); None if none."""
    summary_ops = get_collection(key, scope=scope)
    if not summary_ops:
        return None
    return merge(summary_ops, name=name)


def get_summary_description(node_def):
    """The SummaryDescription in the `description` attr (JSON) of a TensorSummary node.

    Raises:
      ValueError: if `node_def` is not a TensorSummary node.
    """
    from google.protobuf import json_format
    if node_def.op != "TensorSummary":
        raise ValueError(f"Can't get_summary_description on {node_def.op}")
    description = summary_pb2.SummaryDescription()
    json_format.Parse(node_def.attr["description"].s.decode("utf-8", "replace"), description)
    return description


# -- the names of TensorFlow before 1.0: tags are used as given ------------------------
def scalar_summary(tags, values, collections=None, name=None):
    """`tf.scalar_summary`: scalar summaries with the given tag(s), not name-scoped."""
    with name_scope(name, "ScalarSummary", [tags, values]) as scope:
        val = apply_op("ScalarSummary", tags=tags, values=values, name=scope).outputs[0]
        _collect(val, collections, [GraphKeys.SUMMARIES])
    return val


def histogram_summary(tag, values, collections=None, name=None):
    """`tf.histogram_summary`: a histogram under the given tag."""
    with name_scope(name, "HistogramSummary", [tag, values]) as scope:
        val = apply_op("HistogramSummary", tag=tag, values=values, name=scope).outputs[0]
        _collect(val, collections, [GraphKeys.SUMMARIES])
    return val


def image_summary(tag, tensor, max_images=3, collections=None, name=None):
    """`tf.image_summary`: images under `tag/image/<i>` (or `tag/image`)."""
    with name_scope(name, "ImageSummary", [tag, tensor]) as scope:
        val = apply_op("ImageSummary", tag=tag, tensor=tensor, max_images=max_images,
                       bad_color=_bad_color_proto(), name=scope).outputs[0]
        _collect(val, collections, [GraphKeys.SUMMARIES])
    return val


def audio_summary(tag, tensor, sample_rate, max_outputs=3, collections=None, name=None):
    """`tf.audio_summary`: WAV clips under `tag/audio/<i>` (or `tag/audio`)."""
    with name_scope(name, "AudioSummary", [tag, tensor]) as scope:
        sample_rate = convert_to_tensor(sample_rate, dtype=dtypes.float32, name="sample_rate")
        val = apply_op("AudioSummaryV2", tag=tag, tensor=tensor, max_outputs=max_outputs,
                       sample_rate=sample_rate, name=scope).outputs[0]
        _collect(val, collections, [GraphKeys.SUMMARIES])
    return val


def merge_summary(inputs, collections=None, name=None):
    """`tf.merge_summary`: as `merge`, in a `MergeSummary` scope."""
    with name_scope(name, "MergeSummary", inputs):
        val = apply_op("MergeSummary", inputs=list(inputs), name=name).outputs[0]
        _collect(val, collections, [])
    return val


def merge_all_summaries(key=GraphKeys.SUMMARIES):
    """`tf.merge_all_summaries`: merges collection `key`; None if it is empty."""
    summary_ops = get_collection(key)
    if not summary_ops:
        return None
    return merge_summary(summary_ops)


__all__ = ["scalar", "histogram", "image", "audio", "tensor_summary", "text", "merge",
           "merge_all", "get_summary_description", "scalar_summary", "histogram_summary",
           "image_summary", "audio_summary", "merge_summary", "merge_all_summaries",
           "all_v2_summary_ops"]


def all_v2_summary_ops():
    """The V2-style summary ops of the default graph (its `_SUMMARY_V2` collection)."""
    return get_collection(GraphKeys._SUMMARY_COLLECTION)
