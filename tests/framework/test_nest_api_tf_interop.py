"""`tf.nest` against TensorFlow: the same calls give the same results (as reprs of plain
values) or the same exception classes, composites included."""
import collections
import json
import textwrap

import pytest

from tf_interop import needs_tf, run_json

CALLS = [
    "nest.flatten({'b': [1, (2, 3)], 'a': 4})", "nest.flatten(5)", "nest.flatten(None)",
    "nest.flatten([])", "nest.flatten(Point(1, [2, 3]))",
    "nest.flatten(collections.OrderedDict([('z', 1), ('a', 2)]))",
    "nest.pack_sequence_as({'b': [0, 0], 'a': 0}, [1, 2, 3])",
    "nest.pack_sequence_as(Point(0, (0,)), ['x', 'y'])", "nest.pack_sequence_as(0, [7])",
    "nest.pack_sequence_as([0, 0], [1])", "nest.pack_sequence_as(0, [1, 2])",
    "nest.map_structure(lambda x, y: x * y, [1, (2, 3)], [4, (5, 6)])",
    "nest.map_structure(lambda x: x + 1, {'a': 1, 'b': Point(2, 3)})",
    "nest.map_structure(lambda x, y: x, [1, 2], (1, 2))",
    "nest.map_structure(lambda x, y: x, [1, 2], (1, 2), check_types=False)",
    "nest.map_structure(lambda x: x, [1], bad=True)", "nest.map_structure(1, [1])",
    "nest.assert_same_structure([1, (2, 3)], [4, (5, 6)])",
    "nest.assert_same_structure([1, (2, 3)], [4, [5, 6]])",
    "nest.assert_same_structure([1, (2, 3)], [4, (5, 6)], check_types=False)",
    "nest.assert_same_structure([1, 2], [1, 2, 3])",
    "nest.assert_same_structure({'a': 1}, {'b': 1})",
    "nest.is_nested([1])", "nest.is_nested((1,))", "nest.is_nested({})", "nest.is_nested('ab')",
    "nest.is_nested(1)", "nest.is_nested(Point(1, 2))", "nest.is_nested({1, 2})",
    "[t.op.type for t in nest.flatten([sp, 1], expand_composites=True)[:3]]",
    "len(nest.flatten([sp, 1], expand_composites=True))", "len(nest.flatten([sp, 1]))",
    "type(nest.pack_sequence_as([sp, 1], nest.flatten([sp, 1], expand_composites=True), "
    "expand_composites=True)[0]).__name__",
    "type(nest.map_structure(lambda t: t, {'s': sp}, expand_composites=True)['s']).__name__",
    "nest.assert_same_structure(sp, sp, expand_composites=True)",
]

SCRIPT = textwrap.dedent("""
    def run_calls(tf, calls):
        import collections
        nest = tf.nest
        Point = collections.namedtuple("Point", ["x", "y"])
        out = []
        with tf.Graph().as_default():
            sp = tf.SparseTensor([[0, 0]], [1.], [2, 2])
            for call in calls:
                try:
                    out.append(["ok", repr(eval(call))])
                except Exception as e:  # noqa: BLE001 - the class is what is compared
                    out.append(["error", type(e).__name__])
        return out
""")


@needs_tf
def test_nest_matches_tf():
    theirs = run_json(SCRIPT + textwrap.dedent("""
        import json, sys
        import tensorflow.compat.v1 as tf
        tf.disable_v2_behavior()
        print(json.dumps(run_calls(tf, json.load(sys.stdin))))
    """), spec=CALLS)
    import trainflow.compat.v1 as tf
    env = {"collections": collections}
    exec(SCRIPT, env)  # noqa: S102 - the script above
    ours = json.loads(json.dumps(env["run_calls"](tf, CALLS)))
    assert [(c, o) for c, o, t in zip(CALLS, ours, theirs) if o != t] == []


@pytest.mark.parametrize("name", ["flatten", "pack_sequence_as", "map_structure",
                                  "assert_same_structure", "is_nested"])
def test_nest_names_are_the_face(name):
    import trainflow
    assert callable(getattr(trainflow.nest, name))
