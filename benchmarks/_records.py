"""The TFRecord files of tf.train.Example the input benchmarks read: records of an id, a
label, four floats and a name, in FILES files; the same under TensorFlow and trainflow."""
import os

FILES = 4


def write_example_files(tf, directory, n):
    """Writes n Examples (rounded down to a multiple of FILES) into FILES TFRecord files
    under `directory`; returns (their paths, the records written)."""
    paths = []
    per_file = n // FILES
    for f in range(FILES):
        path = os.path.join(directory, f"data-{f}.tfrecord")
        with tf.io.TFRecordWriter(path) as w:
            for i in range(f * per_file, (f + 1) * per_file):
                ex = tf.train.Example(features=tf.train.Features(feature={
                    "id": tf.train.Feature(int64_list=tf.train.Int64List(value=[i])),
                    "label": tf.train.Feature(int64_list=tf.train.Int64List(value=[i % 10])),
                    "x": tf.train.Feature(float_list=tf.train.FloatList(
                        value=[i * 0.5, -1.0, 2.5, 0.25])),
                    "name": tf.train.Feature(bytes_list=tf.train.BytesList(
                        value=[b"record-%06d" % i]))}))
                w.write(ex.SerializeToString())
        paths.append(path)
    return paths, per_file * FILES


def example_features(tf):
    """The parsing spec of those records."""
    return {"id": tf.FixedLenFeature([], tf.int64), "label": tf.FixedLenFeature([], tf.int64),
            "x": tf.FixedLenFeature([4], tf.float32), "name": tf.FixedLenFeature([], tf.string)}
