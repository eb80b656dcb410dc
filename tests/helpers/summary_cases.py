"""One program, run under TensorFlow and under trainflow: every summary op on a table
of inputs (dtypes, shapes, edge values, bad arguments). Prints one JSON object:
case id -> {"hex": serialized Summary} or {"error": [class name, first line]}.

Standard library and NumPy only, so TensorFlow's python runs it as it is:
    python tests/helpers/summary_cases.py tensorflow.compat.v1
"""
import importlib
import json
import sys

import numpy as np


def _inputs():
    rs = np.random.RandomState(7)
    ramp = np.linspace(-1.5, 2.0, 4 * 5 * 6 * 3).reshape(4, 5, 6, 3)
    nan_img = rs.rand(2, 3, 3, 3).astype(np.float32)
    nan_img[0, 1, 1, 2] = np.nan
    nan_img[1, 0, 0, 0] = np.inf
    halves = (np.arange(-8, 9) + 0.5) / 32768.0
    return {
        # scalar summaries
        "scalar_f32": ("scalar", np.float32(0.1)),
        "scalar_f64": ("scalar", np.float64(1.0 / 3.0)),
        "scalar_i64": ("scalar", np.int64(2 ** 40 + 1)),
        "scalar_f16": ("scalar", np.float16(0.3)),
        "scalar_vec_tags": ("scalar_tags", (np.array([b"a", b"b"], object),
                                            np.array([1.5, -2.0], np.float32))),
        "scalar_shape_mismatch": ("scalar_tags", (np.array(b"a", object),
                                                  np.array([1.0, 2.0], np.float32))),
        # histograms
        "histo_f32_normal": ("histogram", rs.randn(1000).astype(np.float32)),
        "histo_f64_scales": ("histogram", rs.randn(300) * 10.0 ** rs.randint(-15, 15, 300)),
        "histo_int32": ("histogram", rs.randint(-50, 50, (7, 9)).astype(np.int32)),
        "histo_uint8": ("histogram", rs.randint(0, 255, 64).astype(np.uint8)),
        "histo_f16": ("histogram", rs.randn(50).astype(np.float16)),
        "histo_zeros": ("histogram", np.zeros(5, np.float32)),
        "histo_empty": ("histogram", np.zeros(0, np.float32)),
        "histo_nan": ("histogram", np.array([1.0, np.nan], np.float32)),
        "histo_inf": ("histogram", np.array([1.0, -np.inf, np.nan], np.float32)),
        # images
        "image_uint8_batch5": ("image", (rs.randint(0, 256, (5, 3, 4, 3)).astype(np.uint8), 3)),
        "image_f32_positive": ("image", (rs.rand(2, 5, 4, 1).astype(np.float32) * 7, 3)),
        "image_f32_signed": ("image", (ramp.astype(np.float32), 4)),
        "image_f64_signed": ("image", (ramp, 2)),
        "image_f16_signed": ("image", (ramp.astype(np.float16), 1)),
        "image_f32_rgba": ("image", (rs.randn(1, 3, 5, 4).astype(np.float32), 3)),
        "image_uint8_large_noise": ("image", (rs.randint(0, 256, (1, 90, 160, 3))
                                              .astype(np.uint8), 1)),
        "image_f32_large_smooth": ("image", (np.sin(np.arange(2 * 120 * 130 * 4)
                                                    .reshape(2, 120, 130, 4) / 700.0)
                                             .astype(np.float32), 2)),
        "image_f32_zero": ("image", (np.zeros((1, 2, 2, 3), np.float32), 3)),
        "image_f32_tiny": ("image", (np.full((1, 2, 2, 1), 1e-7, np.float32), 3)),
        "image_f32_nonfinite": ("image", (nan_img, 3)),
        "image_empty_batch": ("image", (np.zeros((0, 2, 2, 1), np.float32), 3)),
        "image_zero_width": ("image", (np.zeros((1, 2, 0, 3), np.float32), 3)),
        "image_uint8_zero_height": ("image", (np.zeros((2, 0, 3, 1), np.uint8), 3)),
        "image_empty_batch_zero_height": ("image", (np.zeros((0, 0, 2, 1), np.float32), 3)),
        "image_bad_rank": ("image", (np.zeros((2, 2, 1), np.float32), 3)),
        "image_bad_depth": ("image", (np.zeros((1, 2, 2, 2), np.float32), 3)),
        # audio
        "audio_mono": ("audio", (rs.uniform(-1, 1, (2, 30)).astype(np.float32), 16000.0, 3)),
        "audio_stereo_one": ("audio", (rs.uniform(-1, 1, (3, 10, 2)).astype(np.float32),
                                       44100.0, 1)),
        "audio_clip_round": ("audio", (np.concatenate([halves, [1.5, -1.5, 1.0, -1.0, 0.0]])
                                       .astype(np.float32).reshape(1, -1), 8000.0, 3)),
        "audio_rate_fraction": ("audio", (np.zeros((1, 4), np.float32), 22050.5, 3)),
        "audio_rate_fraction2": ("audio", (np.zeros((1, 4), np.float32), 8001.5, 3)),
        "audio_no_frames": ("audio", (np.zeros((2, 0), np.float32), 8000.0, 3)),
        "audio_no_clips": ("audio", (np.zeros((0, 5), np.float32), 8000.0, 3)),
        "audio_no_channels": ("audio", (np.zeros((1, 5, 0), np.float32), 8000.0, 3)),
        "audio_no_channels_no_frames": ("audio", (np.zeros((1, 0, 0), np.float32), 8000.0, 3)),
        "audio_nan_sample": ("audio", (np.array([[np.nan, np.inf, -np.inf, 0.5]], np.float32),
                                       100.0, 3)),
        "audio_rate_tiny": ("audio", (np.zeros((1, 4), np.float32), 0.4, 3)),
        "audio_bad_rank": ("audio", (np.zeros(4, np.float32), 8000.0, 3)),
        "audio_bad_rate": ("audio", (np.zeros((1, 4), np.float32), 0.0, 3)),
        # tensor and text summaries
        "tensor_f32": ("tensor", rs.randn(2, 3).astype(np.float32)),
        "tensor_i64": ("tensor", np.arange(5, dtype=np.int64)),
        "tensor_bool": ("tensor", np.array([True, False, True])),
        "tensor_empty": ("tensor", np.zeros((0, 2), np.float64)),
        "tensor_strings": ("tensor", np.array([[b"x", b"yz"]], object)),
        "text_scalar": ("text", np.array(b"# title\n*hi*", object)),
        "text_matrix": ("text", np.array([[b"a", b"b"], [b"c", b"d"]], object)),
        "tensor_v1_f32": ("tensor_v1", rs.randn(2, 2).astype(np.float32)),
        "tensor_v1_strings": ("tensor_v1", np.array([b"a", b"bc"], object)),
        # raw ops with bad arguments
        "raw_histogram_tags": ("raw", ("HistogramSummary", {
            "tag": np.array([b"a", b"b"], object), "values": np.ones(1, np.float32)})),
        "raw_image_tags": ("raw", ("ImageSummary", {
            "tag": np.array([b"a", b"b"], object), "tensor": np.zeros((1, 2, 2, 1), np.float32)})),
        "raw_audio_tags": ("raw", ("AudioSummaryV2", {
            "tag": np.array([b"a", b"b"], object), "tensor": np.zeros((1, 2), np.float32),
            "sample_rate": np.float32(1.0)})),
        "raw_audio_rates": ("raw", ("AudioSummaryV2", {
            "tag": np.array(b"a", object), "tensor": np.zeros((1, 2), np.float32),
            "sample_rate": np.ones(2, np.float32)})),
        "raw_tensor_tags": ("raw", ("TensorSummaryV2", {
            "tag": np.array([b"a", b"b"], object), "tensor": np.zeros(1, np.float32),
            "serialized_summary_metadata": np.array(b"", object)})),
        "raw_image_short_bad_color": ("raw", ("ImageSummary", {
            "tag": np.array(b"a", object), "tensor": np.full((1, 2, 2, 4), np.nan, np.float32)},
            {"bad_color": np.array([9, 8, 7], np.uint8)})),
        "raw_image_own_bad_color": ("raw", ("ImageSummary", {
            "tag": np.array(b"a", object), "tensor": np.array(
                [[[[np.inf, 0.5]], [[0.25, 1.0]]]], np.float32)[..., :1]},
            {"bad_color": np.array([9, 8, 7], np.uint8)})),
        "raw_image_matrix_bad_color": ("raw", ("ImageSummary", {
            "tag": np.array(b"a", object), "tensor": np.zeros((1, 2, 2, 1), np.float32)},
            {"bad_color": np.zeros((2, 2), np.uint8)})),
        # merge
        "merge_ok": ("merge", ["m1", "m2"]),
        "merge_duplicate": ("merge", ["m1", "m1"]),
    }


def case_ids():
    """The ids of the cases, in order."""
    return list(_inputs())


def _raw_op(tf, op_type, **kwargs):
    """TensorFlow's tf.raw_ops.<op_type>, or trainflow's apply_op."""
    if hasattr(tf, "raw_ops"):
        return getattr(tf.raw_ops, op_type)(**kwargs)
    from trainflow._src.framework.op_builder import apply_op
    return apply_op(op_type, **kwargs).outputs[0]


def _build(tf, kind, value):
    if kind == "scalar":
        return tf.summary.scalar("s", tf.constant(value))
    if kind == "scalar_tags":
        if not hasattr(tf, "raw_ops"):  # trainflow: its pre-1.0 `scalar_summary` builder
            from trainflow._src.ops.summary.summary_ops import scalar_summary
            return scalar_summary(tf.constant(value[0]), tf.constant(value[1]))
        return tf.raw_ops.ScalarSummary(tags=tf.constant(value[0]), values=tf.constant(value[1]))
    if kind == "histogram":
        return tf.summary.histogram("h", tf.constant(value))
    if kind == "image":
        return tf.summary.image("img", tf.placeholder_with_default(value[0], None),
                                max_outputs=value[1])
    if kind == "audio":
        return tf.summary.audio("snd", tf.placeholder_with_default(value[0], None),
                                value[1], max_outputs=value[2])
    if kind == "tensor":
        return tf.summary.tensor_summary("t", tf.constant(value), display_name="shown",
                                         summary_description="about t")
    if kind == "raw":
        op_type, inputs, attrs = value if len(value) == 3 else value + ({},)
        attrs = {k: tf.make_tensor_proto(v) for k, v in attrs.items()}
        return _raw_op(tf, op_type, **{k: tf.constant(v) for k, v in inputs.items()}, **attrs)
    if kind == "tensor_v1":  # the pre-V2 op, reached as a raw op
        args = dict(tensor=tf.constant(value), description='{"typeHint": "x"}',
                    labels=["a"], display_name="shown", name="tsum")
        return _raw_op(tf, "TensorSummary", **args)
    if kind == "text":
        return tf.summary.text("txt", tf.constant(value))
    if kind == "merge":
        parts = {"m1": tf.summary.scalar("m1", tf.constant(1.0)),
                 "m2": tf.summary.histogram("m2", tf.constant([1.0, 2.0]))}
        return tf.summary.merge([parts[n] for n in value])
    raise ValueError(kind)


def run_cases(module):
    """{case: {"hex": ...} or {"error": [class, first line]}} under TF1-style `module`."""
    tf = importlib.import_module(module)
    if hasattr(tf, "disable_v2_behavior"):
        tf.disable_v2_behavior()
    results = {}
    for case, (kind, value) in _inputs().items():
        with tf.Graph().as_default():
            try:
                op = _build(tf, kind, value)
                with tf.Session() as sess:
                    results[case] = {"hex": sess.run(op).hex()}
            except Exception as e:  # noqa: BLE001 - the error is the result
                lines = [line for line in getattr(e, "message", str(e)).splitlines()
                         if line.strip() and not line.strip().startswith("[[")]
                results[case] = {"error": [type(e).__name__, lines[-1]]}
    return results


if __name__ == "__main__":
    print(json.dumps(run_cases(sys.argv[1])))
