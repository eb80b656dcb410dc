"""The CTC ops against live TensorFlow (skipped without $TRAINFLOW_TF_PYTHON): losses and
gradients of random batches (repeated labels, null labels, sequence lengths, each flag),
the greedy and beam-search decoders (paths and log probabilities), ctc_loss_v2 with
dense and sparse labels and a moved blank, collapse_repeated and ctc_unique_labels, and
the errors TensorFlow raises, message for message, and a GraphDef of the ops (with the
loss gradient) that TensorFlow imports and runs to the same values.

One program text builds every case; it runs under TensorFlow's python and here, each
with its own `tf`, so both sides build the same graphs.
"""
import json

import numpy as np
import pytest

from tf_interop import needs_tf, run_graph_def, run_json

# Builds one case: `tf`, `np` and the case's `spec` are bound; it returns a dict of
# name -> fetch (a tensor, or a list of them).
_BUILD = r'''
def sparse(labels):
    idx = [[b, i] for b, row in enumerate(labels) for i in range(len(row))]
    val = [v for row in labels for v in row]
    width = max([len(r) for r in labels] + [1])
    return tf.SparseTensor(np.array(idx, np.int64).reshape(-1, 2), np.array(val, np.int32),
                           [len(labels), width])


def build(spec):
    kind = spec["kind"]
    x = tf.constant(np.array(spec["x"], np.float32).reshape(spec.get("shape", np.shape(spec["x"]))))
    if kind == "loss":
        kw = spec["flags"]
        loss = tf.nn.ctc_loss(sparse(spec["labels"]), x, spec["seq"], **kw)
        dy = tf.constant(np.array(spec["dy"], np.float32))
        return {"loss": loss, "grad": tf.gradients(loss, x, grad_ys=dy)[0]}
    if kind == "loss_batch_major":
        xb = tf.transpose(x, [1, 0, 2])
        loss = tf.nn.ctc_loss(sparse(spec["labels"]), xb, spec["seq"], time_major=False)
        return {"loss": loss, "grad": tf.gradients(loss, x)[0]}
    if kind == "raw_loss":
        from_indices = np.array(spec["indices"], np.int64).reshape(-1, 2)
        st = tf.SparseTensor(from_indices, np.array(spec["values"], np.int32),
                             [len(spec["seq"]), 10])
        loss = tf.nn.ctc_loss(st, x, spec["seq"], **spec["flags"])
        return {"loss": loss, "grad": tf.gradients(loss, x)[0]}
    if kind == "greedy":
        (d,), lp = tf.nn.ctc_greedy_decoder(x, spec["seq"], merge_repeated=spec["merge"],
                                            **spec.get("extra", {}))
        return {"decoded": [d.indices, d.values, d.dense_shape], "log_prob": lp}
    if kind == "beam":
        ds, lp = tf.nn.ctc_beam_search_decoder(x, spec["seq"], beam_width=spec["beam"],
                                               top_paths=spec["top"],
                                               merge_repeated=spec["merge"])
        return {"decoded": [t for d in ds for t in (d.indices, d.values, d.dense_shape)],
                "log_prob": lp}
    if kind == "v2_dense":
        labels = tf.constant(np.array(spec["labels"], np.int32))
        loss = tf.nn.ctc_loss_v2(labels, x, spec["label_length"], spec["seq"],
                                 blank_index=spec["blank"])
        return {"loss": loss, "grad": tf.gradients(loss, x)[0]}
    if kind == "v2_sparse":
        loss = tf.nn.ctc_loss_v2(sparse(spec["labels"]), x, None, spec["seq"],
                                 blank_index=spec["blank"])
        return {"loss": loss, "grad": tf.gradients(loss, x)[0]}
    if kind == "collapse":
        labels = tf.constant(np.array(spec["labels"], np.int32))
        out, n = tf.nn.collapse_repeated(labels, spec["seq"])
        return {"labels": out, "length": n}
    if kind == "unique":
        y, idx = tf.nn.ctc_unique_labels(tf.constant(np.array(spec["labels"], np.int64)))
        return {"y": y, "idx": idx}
    raise ValueError(kind)


def core_message(message):
    """The kernel's own words: without TF's "Node: ..." preamble and the node suffix."""
    if "\nNode: " in message:
        message = message.split("\nNode: ", 1)[1].split("\n", 1)[1]
    return message.split("\n\t [[")[0].strip()


def run_all(specs):
    out = []
    for spec in specs:
        with tf.Graph().as_default():
            fetches = build(spec)
            with tf.Session() as sess:
                try:
                    values = sess.run(fetches)
                except tf.errors.OpError as e:
                    out.append({"error": type(e).__name__, "message": core_message(e.message)})
                    continue
        out.append({k: ([np.asarray(a).tolist() for a in v] if isinstance(v, list)
                        else np.asarray(v).tolist()) for k, v in values.items()})
    return out
'''

_TF_MAIN = r'''
import json, sys
import numpy as np
import tensorflow.compat.v1 as tf
tf.disable_v2_behavior()
''' + _BUILD + r'''
print(json.dumps(run_all(json.loads(sys.stdin.read()))))
'''


def _labels(rng, batch, num_classes, max_len, repeats):
    out = []
    for _ in range(batch):
        n = rng.randint(1, max_len + 1)
        row = rng.randint(0, num_classes - 1, size=n)
        if repeats and n > 1:
            row[1::2] = row[0::2][:len(row[1::2])]
        out.append(row.tolist())
    return out


def _loss_specs(rng):
    specs = []
    flags = [{}, {"preprocess_collapse_repeated": True}, {"ctc_merge_repeated": False},
             {"preprocess_collapse_repeated": True, "ctc_merge_repeated": False},
             {"ignore_longer_outputs_than_inputs": True}]
    for i in range(15):
        t, b, k = rng.randint(4, 14), rng.randint(1, 5), rng.randint(3, 8)
        labels = _labels(rng, b, k, 4, repeats=i % 2 == 0)
        need = [len(row) for row in labels]
        seq = [int(rng.randint(n, t + 1)) for n in need]
        if i % 5 == 4:  # one entry with more labels than frames: skipped by the flag
            labels[0] = labels[0] + [0] * (t + 1 - len(labels[0]))
            seq[0] = t
        x = rng.randn(t, b, k) * rng.choice([1.0, 3.0])
        dy = rng.rand(b) + 0.5
        specs.append({"kind": "loss", "x": x.tolist(), "labels": labels, "seq": seq,
                      "flags": flags[i % len(flags)], "dy": dy.tolist()})
    # frames past a sequence's end hold NaN: they must not reach the loss or gradient
    x = rng.randn(6, 2, 5)
    x[4:, 1] = np.nan
    specs.append({"kind": "loss", "x": x.tolist(), "labels": [[0, 1, 1], [2, 3]],
                  "seq": [6, 4], "flags": {}, "dy": [1.0, 1.0]})
    # no valid alignment: inf loss and the softmax as gradient
    specs.append({"kind": "loss", "x": rng.randn(3, 2, 4).tolist(),
                  "labels": [[1, 1, 1], [0]], "seq": [3, 3], "flags": {}, "dy": [1.0, 2.0]})
    specs.append({"kind": "loss_batch_major", "x": rng.randn(5, 3, 4).tolist(),
                  "labels": [[0, 1], [2], [1, 1]], "seq": [5, 4, 5]})
    # labels >= num_classes - 1 end a sequence
    specs.append({"kind": "raw_loss", "x": rng.randn(4, 2, 4).tolist(),
                  "indices": [[0, 0], [0, 1], [0, 2], [1, 0]], "values": [0, 1, 3, 2],
                  "seq": [4, 4], "flags": {}})
    return specs


_ERRORS = [  # indices, values, seq, x shape, flags
    ([[0, 0], [1, 0]], [0, 1], [3, 4], (3, 2, 4), {}),
    ([[0, 0], [1, 0]], [0, 1], [3, -1], (3, 2, 4), {}),
    ([[0, 0], [0, 1], [0, 2], [1, 0]], [0, 1, 2, 1], [2, 3], (3, 2, 4), {}),
    ([[0, 0], [0, 1], [0, 2], [1, 0]], [1, 1, 1, 1], [2, 3], (3, 2, 4),
     {"preprocess_collapse_repeated": True}),
    ([[0, 0], [0, 2]], [0, 1], [3, 3], (3, 2, 4), {}),
    ([[0, 0], [1, 0]], [0, -1], [3, 3], (3, 2, 4), {}),
    ([[0, 0], [0, 1], [0, 2], [1, 0]], [3, 0, 3, 1], [3, 3], (3, 2, 4), {}),
    ([[1, 0], [0, 0]], [0, 1], [3, 3], (3, 2, 4), {}),
    ([[0, 0], [0, 0]], [0, 1], [3, 3], (3, 2, 4), {}),
    ([[0, 0], [2, 0]], [0, 1], [3, 3], (3, 2, 4), {}),
    ([], [], [], (3, 0, 4), {}),
]


def _error_specs(rng):
    return [{"kind": "raw_loss", "x": rng.randn(*shape).tolist(), "shape": shape, "indices": idx,
             "values": val, "seq": seq, "flags": flags}
            for idx, val, seq, shape, flags in _ERRORS]


def _decoder_specs(rng):
    specs = []
    for i in range(12):
        t, b, k = rng.randint(1, 10), rng.randint(1, 4), rng.randint(2, 7)
        x = rng.randn(t, b, k) * rng.choice([0.5, 2.0, 4.0])
        seq = rng.randint(0, t + 1, size=b).tolist()
        specs.append({"kind": "greedy", "x": x.tolist(), "seq": seq, "merge": bool(i % 2)})
        beam = int(rng.randint(1, 9))
        specs.append({"kind": "beam", "x": x.tolist(), "seq": [t] * b, "beam": beam,
                      "top": int(rng.randint(1, min(beam, k) + 1)), "merge": bool(i % 3)})
    x = rng.randn(5, 2, 4)
    specs.append({"kind": "greedy", "x": x.tolist(), "seq": [5, 3], "merge": True,
                  "extra": {"blank_index": 0}})
    specs.append({"kind": "greedy", "x": x.tolist(), "seq": [6, 3], "merge": True})
    specs.append({"kind": "beam", "x": x.tolist(), "seq": [5, 3], "beam": 2, "top": 3,
                  "merge": True})
    specs.append({"kind": "beam", "x": x[:1].tolist(), "seq": [1, 1], "beam": 5, "top": 4,
                  "merge": True})
    specs.append({"kind": "beam", "x": rng.randn(30, 2, 12).tolist(), "seq": [30, 17],
                  "beam": 40, "top": 5, "merge": False})
    return specs


def _v2_specs(rng):
    specs = []
    for blank in (0, 2, -1):
        x = rng.randn(7, 3, 5)
        real = [c for c in range(5) if c != blank % 5]  # the non-blank classes
        labels = [[real[1], real[3], real[3]], [real[2], real[0], real[0]],
                  [real[3], real[0], real[1]]]
        specs.append({"kind": "v2_dense", "x": x.tolist(), "labels": labels,
                      "label_length": [3, 1, 2], "seq": [7, 6, 5], "blank": blank})
        specs.append({"kind": "v2_sparse", "x": x.tolist(),
                      "labels": [[real[1], real[3]], [real[2]], [real[3], real[0]]],
                      "seq": [7, 6, 5], "blank": blank})
    specs.append({"kind": "collapse", "x": [0.0],
                  "labels": [[1, 1, 2, 2, 1], [1, 2, 3, 4, 5], [3, 3, 3, 0, 0]],
                  "seq": [5, 4, 3]})
    specs.append({"kind": "unique", "x": [0.0], "labels": [[3, 4, 4, 3], [1, 1, 2, 0]]})
    return specs


def _ours(specs):
    import trainflow.compat.v1 as tf
    env = {"tf": tf, "np": np}
    exec(_BUILD, env)
    return env["run_all"](specs)


def _compare(specs, ours, theirs):
    for spec, mine, want in zip(specs, ours, theirs):
        label = json.dumps({k: v for k, v in spec.items() if k not in ("x", "dy")})[:300]
        assert ("error" in mine) == ("error" in want), (label, mine, want)
        if "error" in want:
            assert mine["error"] == want["error"], label
            assert mine["message"] == want["message"], (label, mine, want)
            continue
        for name, value in want.items():
            got = mine[name]
            if name == "decoded":
                assert len(got) == len(value), label
                for g, w in zip(got, value):
                    np.testing.assert_array_equal(np.asarray(g).reshape(np.shape(w)),
                                                  np.asarray(w), err_msg=label)
            else:
                np.testing.assert_allclose(np.asarray(got, np.float64),
                                           np.asarray(value, np.float64),
                                           rtol=2e-5, atol=2e-6, err_msg=f"{label} {name}")


_GROUPS = {"loss": _loss_specs, "errors": _error_specs, "decoders": _decoder_specs,
           "v2_and_helpers": _v2_specs}


@needs_tf
@pytest.mark.parametrize("group", sorted(_GROUPS))
def test_ctc_matches_tensorflow(group):
    specs = _GROUPS[group](np.random.RandomState(sorted(_GROUPS).index(group) + 7))
    theirs = run_json(_TF_MAIN, spec=specs)
    _compare(specs, _ours(specs), theirs)


@needs_tf
def test_our_graph_def_runs_in_tensorflow():
    import trainflow.compat.v1 as tf
    x = np.random.RandomState(0).randn(6, 2, 5).astype(np.float32)
    g = tf.Graph()
    with g.as_default():
        xt = tf.placeholder(tf.float32, [6, 2, 5], name="x")
        labels = tf.SparseTensor(np.array([[0, 0], [0, 1], [1, 0]], np.int64),
                                 np.array([1, 2, 3], np.int32), [2, 2])
        loss = tf.nn.ctc_loss(labels, xt, [6, 5])
        grad = tf.gradients(loss, xt)[0]
        (greedy,), greedy_lp = tf.nn.ctc_greedy_decoder(xt, [6, 5])
        beams, beam_lp = tf.nn.ctc_beam_search_decoder(xt, [6, 5], beam_width=3, top_paths=2)
        names = [t.name for t in (loss, grad, greedy.values, greedy_lp, beams[1].values,
                                  beam_lp)]
        with tf.Session() as sess:
            ours = sess.run(names, {xt: x})
    theirs = run_graph_def(g.as_graph_def(), names, [{"x:0": x.tolist()}])[0]
    for mine, want, name in zip(ours, theirs, names):
        np.testing.assert_allclose(np.asarray(mine, np.float64), np.asarray(want, np.float64),
                                   rtol=1e-5, atol=1e-6, err_msg=name)
