"""The summary ops (ScalarSummary, HistogramSummary, ImageSummary, AudioSummaryV2,
AudioSummary, TensorSummaryV2, TensorSummary, MergeSummary): registrations and
NumPy kernels.

Each kernel returns a serialized `Summary` proto (a scalar DT_STRING), built as
TensorFlow's C++ kernel builds it; none of them is differentiable.
"""
import numpy as np

from trainflow._src.framework import dtypes, errors
from trainflow._src.framework.op_def import REAL_NUMBER_TYPES
from trainflow._src.framework.registry import NotDifferentiable, register_op
from trainflow._src.framework.shape_inference import scalar_shapes
from trainflow._src.ops.summary import histogram, media, png
from trainflow._src.protos import summary_pb2, tensor_pb2
from trainflow._src.formats.tensor_proto import make_ndarray

DEFAULT_BAD_COLOR = (255, 0, 0, 255)


def _invalid(message):
    return errors.InvalidArgumentError(None, None, message)


def _shape_str(shape):
    return "[" + ",".join(str(d) for d in shape) + "]"


def _text(value):
    if isinstance(value, bytes):
        return value.decode("utf-8", errors="replace")
    return str(value)


def _scalar_string(tensor, message):
    array = np.asarray(tensor, dtype=object)
    if array.ndim != 0:
        raise _invalid(message)
    return _text(array.item())


def _single_tag(tags):
    return f" (tag '{_text(tags.reshape(-1)[0])}')" if tags.size == 1 else ""


def _serialized(summary):
    return np.array(summary.SerializeToString(), dtype=object)


# -- ScalarSummary ----------------------------------------------------------------------
def _scalar_summary(tags, values):
    tags = np.asarray(tags, dtype=object)
    values = np.asarray(values)
    if tags.shape != values.shape:
        raise _invalid(f"tags and values are not the same shape: {_shape_str(tags.shape)} != "
                       f"{_shape_str(values.shape)}{_single_tag(tags)}")
    summary = summary_pb2.Summary()
    floats = values.reshape(-1).astype(np.float32).tolist()
    for tag, value in zip(tags.reshape(-1).tolist(), floats):
        summary.value.add(tag=_text(tag), simple_value=value)
    return _serialized(summary)


# -- HistogramSummary -------------------------------------------------------------------
def _histogram_summary(tag, values, *, ctx=None):
    tag = np.asarray(tag, dtype=object)
    if tag.ndim != 0:
        raise _invalid("tags must be scalar")
    flat = np.asarray(values).reshape(-1).astype(np.float64)
    finite = np.isfinite(flat)
    if not finite.all():
        name = ctx.op.name if ctx is not None and ctx.op is not None else _text(tag.item())
        if np.isnan(flat[np.argmin(finite)]):  # the first bad value decides, as in TF
            raise _invalid(f"Nan in summary histogram for: {name}")
        raise _invalid(f"Infinity in Histogram for: {name}")
    summary = summary_pb2.Summary()
    value = summary.value.add(tag=_text(tag.item()))
    histogram.fill_histogram_proto(value.histo, flat)
    return _serialized(summary)


# -- ImageSummary -----------------------------------------------------------------------
def _bad_color_array(bad_color):
    if bad_color is None:
        return np.array(DEFAULT_BAD_COLOR, np.uint8)
    if hasattr(bad_color, "DESCRIPTOR"):
        bad_color = make_ndarray(bad_color)
    bad_color = np.asarray(bad_color)
    if bad_color.dtype != np.uint8:
        raise _invalid("bad_color must be uint8, got " + dtypes.as_dtype(bad_color.dtype).name)
    if bad_color.ndim != 1:
        raise _invalid(f"bad_color must be a vector, got shape {_shape_str(bad_color.shape)}")
    return bad_color


def _image_summary(tag, tensor, *, max_images, bad_color):
    tag = np.asarray(tag, dtype=object)
    if tag.ndim != 0:
        raise _invalid("Tags must be a scalar")
    tensor = np.asarray(tensor)
    if tensor.ndim != 4 or tensor.shape[3] not in (1, 3, 4):
        raise _invalid(f"Tensor must be 4-D with last dim 1, 3, or 4, not "
                       f"{_shape_str(tensor.shape)}")
    batch, h, w, depth = tensor.shape
    if h == 0 or w == 0:
        raise _invalid("input tensor must have non-zero dims. Found: ["
                       + ", ".join(map(str, tensor.shape)) + "].")
    base = _text(tag.item())
    if tensor.dtype != np.uint8:
        colors = _bad_color_array(bad_color)
        if colors.shape[0] < depth:
            raise _invalid(f"expected depth <= bad_color.size, got depth = {depth}, "
                           f"bad_color.size = {colors.shape[0]}")
    summary = summary_pb2.Summary()
    for i in range(min(max_images, batch)):
        image = tensor[i]
        if tensor.dtype != np.uint8:
            image = media.normalize_float_image(image, colors)
        value = summary.value.add(tag=f"{base}/image/{i}" if max_images > 1
                                  else f"{base}/image")
        value.image.height = h
        value.image.width = w
        value.image.colorspace = depth
        value.image.encoded_image_string = png.encode_png(image)
    return _serialized(summary)


# -- AudioSummaryV2 / AudioSummary ------------------------------------------------------
def _audio(tag, tensor, sample_rate, max_outputs):
    tag = np.asarray(tag, dtype=object)
    if tag.ndim != 0:
        raise _invalid("Tag must be a scalar")
    tensor = np.asarray(tensor, np.float32)
    if tensor.ndim not in (2, 3):
        raise _invalid(f"Tensor must be 3-D or 2-D, got: {_shape_str(tensor.shape)}")
    if not sample_rate > 0:
        raise _invalid("sample_rate must be > 0")
    batch, frames = tensor.shape[:2]
    channels = 1 if tensor.ndim == 2 else tensor.shape[2]
    samples = tensor.reshape(batch, frames, channels)
    rate = max(int(np.rint(np.float32(sample_rate))), 1)
    base = _text(tag.item())
    summary = summary_pb2.Summary()
    for i in range(min(max_outputs, batch)):
        if samples.size == 0 and frames > 0:  # TF hands its WAV encoder no samples
            raise _invalid("audio is null")
        if not 0 < channels < 1 << 16:
            raise _invalid(f"num_channels must be in (0, 2^16), got: {channels}")
        value = summary.value.add(tag=f"{base}/audio/{i}" if max_outputs > 1
                                  else f"{base}/audio")
        value.audio.sample_rate = float(np.float32(sample_rate))
        value.audio.num_channels = channels
        value.audio.length_frames = frames
        value.audio.content_type = "audio/wav"
        value.audio.encoded_audio_string = media.encode_wav(samples[i], rate)
    return _serialized(summary)


def _audio_summary_v2(tag, tensor, sample_rate, *, max_outputs):
    rate = np.asarray(sample_rate)
    if rate.size != 1:
        raise _invalid("sample_rate must be rank-0 or contain a single value")
    return _audio(tag, tensor, rate.reshape(()).item(), max_outputs)


def _audio_summary_v1(tag, tensor, *, sample_rate, max_outputs):
    return _audio(tag, tensor, sample_rate, max_outputs)


# -- TensorSummaryV2 --------------------------------------------------------------------
def tensor_to_proto(array, dtype):
    """A TensorProto of `array` as TF's kernel stores it: strings in string_val, other
    types as raw little-endian tensor_content."""
    proto = tensor_pb2.TensorProto(dtype=dtype.as_datatype_enum)
    proto.tensor_shape.SetInParent()
    for d in array.shape:
        proto.tensor_shape.dim.add(size=d)
    if dtype == dtypes.string:
        proto.string_val.extend(v if isinstance(v, bytes) else str(v).encode()
                                for v in array.reshape(-1).tolist())
    elif array.size:
        proto.tensor_content = np.ascontiguousarray(
            array, dtype=array.dtype.newbyteorder("<")).tobytes()
    return proto


def _tensor_summary_v2(tag, tensor, serialized_summary_metadata, *, T):  # noqa: N803
    tag_text = _scalar_string(tag, "tag must be scalar")
    summary = summary_pb2.Summary()
    value = summary.value.add(tag=tag_text)
    value.tensor.CopyFrom(tensor_to_proto(np.asarray(tensor), T))
    meta = np.asarray(serialized_summary_metadata, dtype=object).reshape(-1)
    if meta.size:
        value.metadata.ParseFromString(meta[0])
    return _serialized(summary)


def _tensor_summary_v1(tensor, *, T, ctx=None):  # noqa: N803 - TF's attr name
    summary = summary_pb2.Summary()
    value = summary.value.add(node_name=ctx.op.name if ctx is not None else "")
    value.tensor.CopyFrom(tensor_to_proto(np.asarray(tensor), T))
    return _serialized(summary)


# -- MergeSummary -----------------------------------------------------------------------
def _merge_summary(inputs):
    merged = summary_pb2.Summary()
    seen = set()
    part = summary_pb2.Summary()
    for serialized in inputs:
        for text in np.asarray(serialized, dtype=object).reshape(-1).tolist():
            try:
                part.ParseFromString(text)
            except Exception:  # noqa: BLE001 - protobuf's DecodeError and friends
                raise _invalid("Could not parse one of the summary inputs") from None
            for value in part.value:
                if value.tag:
                    if value.tag in seen:
                        raise _invalid(f"Duplicate tag {value.tag} found in summary inputs ")
                    seen.add(value.tag)
            merged.value.extend(part.value)
    return _serialized(merged)


_SUMMARY_OUT = ["summary: string"]
register_op("ScalarSummary", inputs=["tags: string", "values: T"], outputs=_SUMMARY_OUT,
            attrs=[f"T: {REAL_NUMBER_TYPES}"], shape_fn=scalar_shapes, kernel=_scalar_summary)
register_op("HistogramSummary", inputs=["tag: string", "values: T"], outputs=_SUMMARY_OUT,
            attrs=[f"T: {REAL_NUMBER_TYPES} = DT_FLOAT"], shape_fn=scalar_shapes,
            kernel=_histogram_summary)
register_op("ImageSummary", inputs=["tag: string", "tensor: T"], outputs=_SUMMARY_OUT,
            attrs=["max_images: int >= 1 = 3", "T: {uint8, float, half, double} = DT_FLOAT",
                   "bad_color: tensor = unknown"],
            shape_fn=scalar_shapes, kernel=_image_summary)
register_op("AudioSummaryV2", inputs=["tag: string", "tensor: float", "sample_rate: float"],
            outputs=_SUMMARY_OUT, attrs=["max_outputs: int >= 1 = 3"], shape_fn=scalar_shapes,
            kernel=_audio_summary_v2)
register_op("AudioSummary", inputs=["tag: string", "tensor: float"], outputs=_SUMMARY_OUT,
            attrs=["sample_rate: float", "max_outputs: int >= 1 = 3"],
            shape_fn=scalar_shapes, kernel=_audio_summary_v1)
register_op("TensorSummaryV2",
            inputs=["tag: string", "tensor: T", "serialized_summary_metadata: string"],
            outputs=_SUMMARY_OUT, attrs=["T: type"], shape_fn=scalar_shapes,
            kernel=_tensor_summary_v2)
# The pre-V2 op: the value names its node, and description/labels stay in the GraphDef.
register_op("TensorSummary", inputs=["tensor: T"], outputs=_SUMMARY_OUT,
            attrs=["T: type", "description: string = ''", "labels: list(string) = []",
                   "display_name: string = ''"],
            shape_fn=scalar_shapes, kernel=_tensor_summary_v1)
register_op("MergeSummary", inputs=["inputs: N * string"], outputs=_SUMMARY_OUT,
            attrs=["N: int >= 1"], shape_fn=scalar_shapes, kernel=_merge_summary)

for _op_type in ("ScalarSummary", "HistogramSummary", "ImageSummary", "AudioSummaryV2",
                 "AudioSummary", "TensorSummaryV2", "TensorSummary", "MergeSummary"):
    NotDifferentiable(_op_type)
