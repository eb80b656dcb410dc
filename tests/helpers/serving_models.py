"""Small SavedModels for the tests of `trainflow serve` and `trainflow saved-model`, written
with trainflow's SavedModelBuilder: y = a * x + b with variables a and b, and signatures of
every kind TF Serving answers (predict, classify, regress; several inputs; strings)."""


def export_model(path, a=0.5, b=2.0):
    """Writes the SavedModel (tag "serve") to `path`. Signatures:
    - serving_default (predict): x float [None] -> y = a * x + b
    - multi (predict): x2 float [None, 2], k int32 [None] -> total = a * sum(x2), twice = 2k
    - strings (predict): s string [None] -> echo_bytes (s as it is), echo (s again)
    - classify_x_to_y (classify): Examples with x -> classes ["lo", "hi"], scores [y, 2y]
    - regress_x_to_y (regress): Examples with x -> outputs y
    - stuck (predict): x -> the dequeue of an empty queue (a run that never ends by itself)
    """
    import trainflow.compat.v1 as tf
    sm = tf.saved_model
    with tf.Graph().as_default():
        va = tf.Variable(a, name="a")
        vb = tf.Variable(b, name="b")
        x = tf.placeholder(tf.float32, [None], name="x")
        y = tf.add(va * x, vb, name="y")
        x2 = tf.placeholder(tf.float32, [None, 2], name="x2")
        k = tf.placeholder(tf.int32, [None], name="k")
        total = tf.multiply(tf.reduce_sum(x2, 1), va, name="total")
        twice = tf.multiply(k, 2, name="twice")
        s = tf.placeholder(tf.string, [None], name="s")
        echo = tf.identity(s, name="echo")
        serialized = tf.placeholder(tf.string, [None], name="tf_example")
        feats = tf.parse_example(serialized, {"x": tf.FixedLenFeature([1], tf.float32)})
        ex_y = tf.add(va * feats["x"], vb, name="ex_y")
        classes = tf.tile(tf.constant([["lo", "hi"]]), tf.stack([tf.shape(ex_y)[0], 1]),
                          name="classes")
        scores = tf.concat([ex_y, 2.0 * ex_y], 1, name="scores")
        stuck = tf.FIFOQueue(1, tf.float32, shapes=[[]], name="empty_queue").dequeue()
        info = sm.utils.build_tensor_info
        sigs = {
            "serving_default": sm.signature_def_utils.predict_signature_def({"x": x}, {"y": y}),
            "multi": sm.signature_def_utils.predict_signature_def(
                {"x2": x2, "k": k}, {"total": total, "twice": twice}),
            "strings": sm.signature_def_utils.build_signature_def(
                {"s": info(s)}, {"echo_bytes": info(echo), "echo": info(echo)},
                sm.signature_constants.PREDICT_METHOD_NAME),
            "classify_x_to_y": sm.signature_def_utils.classification_signature_def(
                serialized, classes, scores),
            "regress_x_to_y": sm.signature_def_utils.regression_signature_def(
                serialized, ex_y),
            "stuck": sm.signature_def_utils.predict_signature_def({"x": x}, {"waits": stuck}),
        }
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            builder = sm.builder.SavedModelBuilder(path)
            builder.add_meta_graph_and_variables(sess, [sm.tag_constants.SERVING],
                                                 signature_def_map=sigs)
            builder.save()
    return path
