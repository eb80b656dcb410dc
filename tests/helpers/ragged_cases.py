"""Expressions over ragged tensors, tf.ragged and the tf.strings ops with ragged results,
evaluated by TensorFlow and by trainflow (expr_values' script). A RaggedTensor result is
compared as its flat values and nested row splits (`R`)."""

PRELUDE = """
def R(x):
    if isinstance(x, (list, tuple)):
        return [R(v) for v in x]
    if isinstance(x, tf.RaggedTensor):
        return [x.flat_values] + list(x.nested_row_splits)
    return x


def B(x):  # binary strings, compared as their bytes
    return R(tf.strings.unicode_decode(x, "ISO-8859-1"))

rt = tf.ragged.constant([[1, 2], [3], [], [4, 5, 6]])
rf = tf.ragged.constant([[1.5, 2.0], [], [3.25]])
r3 = tf.ragged.constant([[[1, 2], [3]], [], [[4, 5, 6], [], [7]]])
ri = tf.ragged.constant([[[1, 2], [3, 4]], [[5, 6]]], ragged_rank=1)
words = tf.constant(["h\\u00e9llo", "", "a\\u20acb", "x y"])
"""

RAGGED = [
    # factories
    "R(tf.ragged.constant([[1, 2], [3]]))",
    "R(tf.ragged.constant([[1, 2], [3]], dtype=tf.float64))",
    "R(tf.ragged.constant([[1, 2], [3]], row_splits_dtype=tf.int32))",
    "R(tf.ragged.constant([[[1, 2], [3]], [[4]]]))",
    "R(tf.ragged.constant([[[1, 2], [3, 4]], []], ragged_rank=1))",
    "R(tf.ragged.constant([[[1, 2], [3, 4]], []], inner_shape=(2,)))",
    "R(tf.ragged.constant([[], []]))",
    "R(tf.ragged.constant([['a', 'bc'], ['d']]))",
    "R(tf.ragged.constant([1, [2]]))",
    "R(tf.ragged.constant([[1, 2], [3]], ragged_rank=2))",
    "R(tf.RaggedTensor.from_row_splits([1, 2, 3, 4], [0, 2, 2, 4]))",
    "R(tf.RaggedTensor.from_row_splits([1, 2, 3], [0, 2, 4]))",
    "R(tf.RaggedTensor.from_row_splits([1, 2, 3], [1, 2, 3]))",
    "R(tf.RaggedTensor.from_row_lengths([1, 2, 3, 4], [2, 0, 2]))",
    "R(tf.RaggedTensor.from_row_lengths([1, 2, 3], [2, 2]))",
    "R(tf.RaggedTensor.from_row_lengths([1, 2, 3], [4, -1]))",
    "R(tf.RaggedTensor.from_value_rowids([1, 2, 3, 4], [0, 0, 2, 2]))",
    "R(tf.RaggedTensor.from_value_rowids([1, 2, 3, 4], [0, 0, 2, 2], nrows=5))",
    "R(tf.RaggedTensor.from_value_rowids([1, 2], [1, 0]))",
    "R(tf.RaggedTensor.from_value_rowids([1, 2], [0, 3], nrows=2))",
    "R(tf.RaggedTensor.from_row_starts([1, 2, 3, 4], [0, 1, 1]))",
    "R(tf.RaggedTensor.from_row_limits([1, 2, 3, 4], [1, 1, 4]))",
    "R(tf.RaggedTensor.from_nested_row_splits([1, 2, 3], [[0, 1, 2], [0, 2, 3]]))",
    "R(tf.RaggedTensor.from_nested_row_lengths([1, 2, 3], [[1, 1], [2, 1]]))",
    "R(tf.RaggedTensor.from_nested_value_rowids([1, 2, 3], [[0, 2], [0, 0, 1]], [3, 2]))",
    "R(tf.RaggedTensor.from_uniform_row_length([1, 2, 3, 4, 5, 6], 2))",
    "R(tf.RaggedTensor.from_tensor([[1, 0, 0], [2, 3, 0]]))",
    "R(tf.RaggedTensor.from_tensor([[1, 0, 0], [2, 3, 0]], padding=0))",
    "R(tf.RaggedTensor.from_tensor([[1, 0, 0], [2, 3, 0]], lengths=[1, 5]))",
    "R(tf.RaggedTensor.from_tensor([[[1, 0], [0, 0]], [[2, 3], [4, 0]]], padding=[0, 0]))",
    "R(tf.RaggedTensor.from_tensor([[[1, 2], [3, 4]], [[5, 6], [7, 8]]], ragged_rank=2))",
    "R(tf.RaggedTensor.from_tensor([[1, 0], [2, 3]], lengths=[1, 2], padding=0))",
    "R(tf.RaggedTensor.from_sparse(tf.SparseTensor([[0, 0], [0, 1], [2, 0]], [1, 2, 3], [4, 5])))",
    "R(tf.RaggedTensor.from_sparse(tf.SparseTensor([[0, 1]], [1], [2, 2])))",
    "R(tf.ragged.range([3, 0, 5]))",
    "R(tf.ragged.range([1, 5], [4, 2], [1, -1]))",
    "R(tf.ragged.range(0.5, [2.0, 3.0], 0.75))",
    "R(tf.ragged.range([1, 2], [4, 5], row_splits_dtype=tf.int32))",
    "R(tf.ragged.range(tf.constant([1, 2], tf.int64), 5))",
    "R(tf.ragged.range([1], [4], [0]))",
    "tf.ragged.row_splits_to_segment_ids([0, 2, 2, 5])",
    "tf.ragged.row_splits_to_segment_ids(tf.constant([0, 1, 3], tf.int32))",
    "tf.ragged.segment_ids_to_row_splits([0, 0, 2, 2, 2, 3])",
    "tf.ragged.segment_ids_to_row_splits([0, 0, 2], num_segments=5)",
    "tf.ragged.segment_ids_to_row_splits(tf.constant([1, 1], tf.int32), out_type=tf.int32)",
    # properties and conversions
    "[rt.row_lengths(), rt.value_rowids(), rt.nrows(), rt.row_starts(), rt.row_limits()]",
    "[rt.bounding_shape(), r3.bounding_shape(), ri.bounding_shape(), rt.nrows(tf.int32)]",
    "R(r3.row_lengths(axis=2))", "R(list(r3.nested_row_lengths()))",
    "R(list(r3.nested_value_rowids()))", "R(ri.row_lengths(axis=-1))",
    "rt.to_tensor()", "rt.to_tensor(default_value=-1)", "rt.to_tensor(shape=[2, 5])",
    "rt.to_tensor(shape=[6, 2], default_value=7)", "r3.to_tensor()", "ri.to_tensor(9)",
    "rf.to_tensor(shape=[None, 4])", "r3.to_tensor(shape=[2, 1, 2])",
    "tf.ragged.constant([[], []]).to_tensor()",
    "rt.to_sparse()", "r3.to_sparse()", "ri.to_sparse()",
    "R(rt.with_values(rt.values * 10))", "R(r3.with_flat_values(tf.cast(r3.flat_values, "
    "tf.float32)))", "R(rt.with_row_splits_dtype(tf.int32))",
    # indexing
    "rt[0]", "rt[-1]", "rt[2]", "R(rt[1:3])", "R(rt[:2])", "R(rt[-2:])", "R(rt[3:1])",
    "R(r3[2])", "r3[2][0]", "r3[2, 0]", "R(ri[:, :, 1])", "ri[1, 0]", "rt[tf.constant(3)]",
    "rt[4]", "R(rt[:, 0])", "R(rt[:, :2])", "R(rt[:, 1:])", "R(rt[:, -2:])", "R(rt[:, :-1])",
    "R(rt[1:, 5:])", "R(rt[:, 1:2])", "R(r3[:, 1:])", "R(r3[:, :, :1])", "R(r3[:, 1:, 1:])",
    "R(ri[:, 1:, 0])", "R(rt[:, tf.constant(1):])", "R(rf[:, :tf.constant(-1)])",
    "R(rt[:, ::2])", "R(r3[:, :, 0])", "R(rt[::2])", "R(rt[::-1])", "R(r3[1::-1, 1:])",
    "R(rt[:, ::-1])", "R(rt[:, -2::-1])", "R(rt[:, 1:0:-1])", "R(rt[:, :-3:-2])",
    "R(rf[:, 5:-9:-1])",
    # arithmetic
    "R(rt + 1)", "R(rt * rt)", "R(1 - rt)", "R(-rt)", "R(rf / 2.0)", "R(rt > 2)",
    "R(ri + [10, 20])", "R(abs(-rf))", "R(rf ** 2)", "R(rt // 2)", "R(rt % 2)",
    "R(tf.ragged.map_flat_values(tf.square, rt))",
    "R(tf.ragged.map_flat_values(tf.add, rt, rt))",
    "R(tf.ragged.map_flat_values(tf.multiply, r3, 3))",
    "R(tf.ragged.map_flat_values(tf.add, rt, tf.ragged.constant([[1, 1], [1], [1], "
    "[1, 1, 1]])))",
    "R(tf.ragged.map_flat_values(tf.add, rt, tf.ragged.constant([[1], [1, 1], [1], "
    "[1, 1, 1]])))",
    # tf.ragged ops
    "R(tf.ragged.boolean_mask(rt, [True, False, True, True]))",
    "R(tf.ragged.boolean_mask(rt, tf.ragged.constant([[True, False], [True], [], "
    "[False, True, True]])))",
    "R(tf.ragged.boolean_mask([[1, 2, 3], [4, 5, 6]], [[True, False, True], "
    "[False, False, True]]))",
    "tf.ragged.boolean_mask([[1, 2, 3], [4, 5, 6]], [True, False])",
    "R(tf.ragged.boolean_mask([[[1, 2], [3, 4]], [[5, 6], [7, 8]]], [[[True, False], "
    "[True, True]], [[False, False], [False, True]]]))",
    "R(tf.ragged.boolean_mask(r3, [[True, False], [], [False, True, True]]))",
    "R(tf.ragged.stack([rt, tf.ragged.constant([[7]])]))",
    "R(tf.ragged.stack([rt, rt], axis=1))", "R(tf.ragged.stack([rt, rt], axis=-1))",
    "tf.ragged.stack([[1, 2], [3, 4]])", "R(tf.ragged.stack([[1, 2], [3, 4, 5]]))",
    "R(tf.ragged.stack([rt, [[9, 9], [9, 9], [9, 9], [9, 9]]]))",
    "R(tf.ragged.stack([r3, r3], axis=2))", "R(tf.ragged.stack([rt]))",
    "R(tf.ragged.stack_dynamic_partitions([1, 2, 3, 4, 5], [2, 0, 2, 1, 0], 3))",
    "R(tf.ragged.stack_dynamic_partitions(['a', 'b'], 1, 3))",
    "R(tf.ragged.stack_dynamic_partitions([[1, 2], [3, 4], [5, 6]], [[0, 1], [1, 1], "
    "[2, 0]], 3))",
    "R(tf.ragged.stack_dynamic_partitions(rt, [1, 0, 1, 0], 2))",
    "R(tf.ragged.stack_dynamic_partitions([1, 2], [0, 3], 2))",
    "R(tf.ragged.cross([tf.ragged.constant([['a'], ['b', 'c']]), tf.constant([['d'], "
    "['e']])]))",
    "R(tf.ragged.cross([tf.constant([[1, 2], [3, 4]]), tf.SparseTensor([[0, 0], [1, 0], "
    "[1, 1]], ['x', 'y', 'z'], [2, 2]), tf.ragged.constant([[7], [8, 9]])]))",
    "R(tf.ragged.cross_hashed([tf.ragged.constant([['a'], ['b', 'c']]), tf.constant([['d'], "
    "['e']])], num_buckets=100))",
    "R(tf.ragged.cross_hashed([tf.ragged.constant([[1, 2], [3]]), tf.ragged.constant([['u'], "
    "['v', 'w']])]))",
    "R(tf.ragged.cross_hashed([tf.ragged.constant([[1, 2], [3]])], num_buckets=7, "
    "hash_key=123))",
    "list(tf.ragged_fill_empty_rows([0, 0, 2], [1., 2., 3.], 4, 9.))",
    "list(tf.ragged_fill_empty_rows(tf.constant([], tf.int64), tf.constant([], tf.int32), 2, "
    "5))",
    "list(tf.ragged_fill_empty_rows_grad([0, 1, 3], [1., 2., 3., 4., 5.]))",
    "tf.gradients(tf.ragged_fill_empty_rows([0, 2], tf.constant([1., 2.]), 4, "
    "tf.constant(0.5)).output_values * [1., 2., 3., 4.], [])",
    # gradients through the conversions
    "tf.gradients(tf.reduce_sum(tf.RaggedTensor.from_row_splits(tf.constant([1., 2., 3.]), "
    "[0, 2, 3]).to_tensor() * [[1., 2.], [3., 4.]]), [])",
]

STRINGS = [
    "R(tf.strings.unicode_decode(words, 'UTF-8'))",
    "R(tf.strings.unicode_decode(words[0], 'UTF-8'))",
    "R(tf.strings.unicode_decode([['ab', 'c'], ['', 'd']], 'UTF-8'))",
    "R(tf.strings.unicode_decode(tf.ragged.constant([['ab'], ['c', 'de']]), 'UTF-8'))",
    "R(tf.strings.unicode_decode_with_offsets(words, 'UTF-8'))",
    "R(tf.strings.unicode_decode_with_offsets([b'a\\xff\\xe2\\x82b', b'\\x00A\\xd8'], "
    "'UTF-8'))",
    "R(tf.strings.unicode_decode([b'a\\xff\\xe2\\x82b'], 'UTF-8', errors='ignore'))",
    "R(tf.strings.unicode_decode([b'a\\xffb'], 'UTF-8', replacement_char=63))",
    "R(tf.strings.unicode_decode([b'a\\xffb'], 'UTF-8', errors='strict'))",
    "R(tf.strings.unicode_decode([b'a\\x01b\\x7f'], 'UTF-8', replace_control_characters=True))",
    "R(tf.strings.unicode_decode_with_offsets([b'a\\xff\\xe2\\x82b', b'\\x00A\\xd8\\x00'], "
    "'UTF-16-BE'))",
    "R(tf.strings.unicode_decode([b'\\x00\\x00\\x00A\\x00\\x11\\x00\\x00\\x01'], 'UTF-32-BE'))",
    "R(tf.strings.unicode_decode([b'a\\xe9\\xff'], 'ISO-8859-1'))",
    "R(tf.strings.unicode_decode([b'a\\xe9'], 'US-ASCII'))",
    "R(tf.strings.unicode_decode(['ab'], 'UTF-8', input_encoding_bogus=1))",
    "R(tf.strings.unicode_split(words, 'UTF-8'))",
    "R(tf.strings.unicode_split(words[2], 'UTF-8'))",
    "R(tf.strings.unicode_split_with_offsets(words, 'UTF-8'))",
    "R(tf.strings.unicode_split([b'a\\xffb'], 'UTF-8'))",
    "tf.strings.unicode_encode(tf.ragged.constant([[104, 233], [8364], []]), 'UTF-8')",
    "B(tf.strings.unicode_encode([[104, 233], [8364, 65]], 'UTF-16-BE'))",
    "B(tf.strings.unicode_encode([104, 233], 'UTF-32-BE'))",
    "tf.strings.unicode_encode([[[104], [105]], [[106], [107]]], 'UTF-8')",
    "R(tf.strings.unicode_encode(tf.ragged.constant([[[104, 105]], [[106], []]]), 'UTF-8'))",
    "tf.strings.unicode_encode([[104, -5, 55296, 1114112, 65]], 'UTF-8')",
    "tf.strings.unicode_encode([[104, -5, 65]], 'UTF-8', errors='ignore')",
    "tf.strings.unicode_encode([[104, -5, 65]], 'UTF-8', errors='strict')",
    "tf.strings.unicode_encode([[104, -5, 65]], 'UTF-32-BE', replacement_char=66)",
    "B(tf.strings.unicode_transcode(words, 'UTF-8', 'UTF-16-BE'))",
    "B(tf.strings.unicode_transcode([b'a\\xffb', b'\\xe2\\x82\\xac'], 'UTF-8', 'UTF-32-BE'))",
    "tf.strings.unicode_transcode([b'a\\x01b'], 'UTF-8', 'UTF-8', "
    "replace_control_characters=True)",
    "tf.strings.unicode_transcode([[b'\\x00a']], 'UTF-16-BE', 'UTF-8')",
    "tf.strings.unicode_script([72, 1046, 12354, 32, 1575, -1, 1114112, 888, 769, 48, 19968, "
    "44032, 3585, 2325, 128512, 917505, 65533])",
    "tf.strings.unicode_script([[97, 945], [1488, 4352]])",
    "tf.strings.ngrams(tf.constant([['a', 'b', 'c'], ['d', 'e', 'f']]), 2)",
    "R(tf.strings.ngrams(tf.ragged.constant([['a', 'b', 'c'], ['d']]), (1, 2), separator='-', "
    "pad_values=('<', '>'), padding_width=1))",
    "tf.strings.ngrams(['a', 'b'], 3, pad_values='P', preserve_short_sequences=True)",
    "tf.strings.ngrams(['a', 'b'], 4, preserve_short_sequences=True)",
    "tf.strings.ngrams(['a', 'b', 'c'], (2, 3), pad_values=('L', 'R'), padding_width=2)",
    "tf.strings.ngrams(['a', 'b', 'c'], 2, pad_values='P')",
    "R(tf.strings.ngrams(tf.ragged.constant([[['a', 'b'], ['c']], [['d', 'e', 'f']]]), 2))",
    "tf.strings.ngrams([['a', 'b', 'c'], ['d', 'e', 'f']], 2, separator='')",
    "R(tf.strings.ngrams(tf.ragged.constant([['a'], [], ['b', 'c']]), 2, pad_values='_', "
    "preserve_short_sequences=True))",
    "tf.strings.ngrams(['a'], 0)", "tf.strings.ngrams(['a'], 2, padding_width=1)",
    "B(tf.strings.bytes_split(words))", "tf.strings.bytes_split('abc')",
    "R(tf.strings.bytes_split([['ab'], ['c']]))",
    "R(tf.strings.bytes_split(tf.ragged.constant([['ab', ''], ['c']])))",
    "R(tf.string_split(['a b', 'c'], result_type='RaggedTensor'))",
    "R(tf.string_split(['a b'], result_type='Other'))",
    "R(tf.strings.split(['a b', 'c'], result_type='RaggedTensor'))",
    "R(tf.strings.split([['a b'], ['c']], result_type='RaggedTensor'))",
    "R(tf.strings.split('a  b', sep=' ', result_type='RaggedTensor'))",
    "tf.strings.split([['a b c'], ['d']], maxsplit=1)", "tf.strings.split('a b')",
    "tf.strings.split(['d', 'a b', 'a  b  ', '', 'a b c'], maxsplit=2)",
    "R(tf.strings.split(tf.ragged.constant([['a b'], ['c d', 'e']]), result_type='RaggedTensor'))",
    "tf.strings.regex_full_match(words, 'h.*')", "tf.strings.regex_full_match(words, '.')",
    "tf.strings.unsorted_segment_join(['a', 'b', 'c'], [1, 0, 1], 3, separator=':')",
    "tf.strings.unsorted_segment_join([['a', 'b'], ['c', 'd']], [1, 0], 2, separator=',')",
    "tf.strings.unsorted_segment_join([['a', 'b'], ['c', 'd']], [[0, 1], [1, 1]], 2)",
    "tf.strings.unsorted_segment_join(['a', 'b'], [0, 2], 2)",
    "tf.strings.unsorted_segment_join(['a', 'b'], [0, -1], tf.constant(2, tf.int64))",
]

EXPRESSIONS = RAGGED + STRINGS

# Cases whose added op types differ from TensorFlow's (validation asserts built another
# way, the internals of from_tensor and the uniform row partitions, casts TF folds away);
# their values, dtypes and static shapes are still compared.
OPS_DIFFER = frozenset([
    "B(tf.strings.unicode_encode([[104, 233], [8364, 65]], 'UTF-16-BE'))",
    'R(r3[1::-1, 1:])',
    'R(r3[:, 1:, 1:])',
    'R(r3[:, 1:])',
    'R(r3[:, :, :1])',
    'R(rf[:, 5:-9:-1])',
    'R(rf[:, :tf.constant(-1)])',
    'R(ri.row_lengths(axis=-1))',
    'R(ri[:, 1:, 0])',
    'R(rt * rt)',
    'R(rt[1:, 5:])',
    'R(rt[:, -2::-1])',
    'R(rt[:, -2:])',
    'R(rt[:, 1:0:-1])',
    'R(rt[:, 1:2])',
    'R(rt[:, 1:])',
    'R(rt[:, :-1])',
    'R(rt[:, :-3:-2])',
    'R(rt[:, :2])',
    'R(rt[:, ::-1])',
    'R(rt[:, ::2])',
    'R(rt[:, tf.constant(1):])',
    'R(rt[::-1])',
    'R(rt[::2])',
    'R(tf.RaggedTensor.from_nested_row_splits([1, 2, 3], [[0, 1, 2], [0, 2, 3]]))',
    'R(tf.RaggedTensor.from_nested_value_rowids([1, 2, 3], [[0, 2], [0, 0, 1]], [3, 2]))',
    'R(tf.RaggedTensor.from_row_limits([1, 2, 3, 4], [1, 1, 4]))',
    'R(tf.RaggedTensor.from_row_splits([1, 2, 3, 4], [0, 2, 2, 4]))',
    'R(tf.RaggedTensor.from_row_starts([1, 2, 3, 4], [0, 1, 1]))',
    'R(tf.RaggedTensor.from_tensor([[1, 0, 0], [2, 3, 0]]))',
    'R(tf.RaggedTensor.from_tensor([[1, 0, 0], [2, 3, 0]], padding=0))',
    'R(tf.RaggedTensor.from_tensor([[[1, 0], [0, 0]], [[2, 3], [4, 0]]], padding=[0, 0]))',
    'R(tf.RaggedTensor.from_tensor([[[1, 2], [3, 4]], [[5, 6], [7, 8]]], ragged_rank=2))',
    'R(tf.RaggedTensor.from_uniform_row_length([1, 2, 3, 4, 5, 6], 2))',
    'R(tf.RaggedTensor.from_value_rowids([1, 2, 3, 4], [0, 0, 2, 2]))',
    'R(tf.RaggedTensor.from_value_rowids([1, 2, 3, 4], [0, 0, 2, 2], nrows=5))',
    'R(tf.ragged.boolean_mask([[[1, 2], [3, 4]], [[5, 6], [7, 8]]], [[[True, False], [True, True]], [[False, False], [False, True]]]))',  # noqa: E501
    'R(tf.ragged.stack([[1, 2], [3, 4, 5]]))',
    'R(tf.ragged.stack([rt, [[9, 9], [9, 9], [9, 9], [9, 9]]]))',
    'R(tf.ragged.stack([rt, rt], axis=-1))',
    'R(tf.ragged.stack_dynamic_partitions([[1, 2], [3, 4], [5, 6]], [[0, 1], [1, 1], [2, 0]], 3))',
    "R(tf.strings.bytes_split([['ab'], ['c']]))",
    "R(tf.strings.split([['a b'], ['c']], result_type='RaggedTensor'))",
    "R(tf.strings.unicode_decode([['ab', 'c'], ['', 'd']], 'UTF-8'))",
    "R(tf.strings.unicode_split([b'a\\xffb'], 'UTF-8'))",
    "R(tf.strings.unicode_split(words, 'UTF-8'))",
    "R(tf.strings.unicode_split(words[2], 'UTF-8'))",
    "R(tf.strings.unicode_split_with_offsets(words, 'UTF-8'))",
    '[rt.bounding_shape(), r3.bounding_shape(), ri.bounding_shape(), rt.nrows(tf.int32)]',
    'tf.gradients(tf.reduce_sum(tf.RaggedTensor.from_row_splits(tf.constant([1., 2., 3.]), [0, 2, 3]).to_tensor() * [[1., 2.], [3., 4.]]), [])',  # noqa: E501
    'tf.ragged.stack([[1, 2], [3, 4]])',
    "tf.strings.ngrams(['a', 'b', 'c'], (2, 3), pad_values=('L', 'R'), padding_width=2)",
    "tf.strings.ngrams(['a', 'b', 'c'], 2, pad_values='P')",
    "tf.strings.ngrams(['a', 'b'], 3, pad_values='P', preserve_short_sequences=True)",
    "tf.strings.ngrams(['a', 'b'], 4, preserve_short_sequences=True)",
    "tf.strings.ngrams([['a', 'b', 'c'], ['d', 'e', 'f']], 2, separator='')",
    "tf.strings.ngrams(tf.constant([['a', 'b', 'c'], ['d', 'e', 'f']]), 2)",
    "tf.strings.split([['a b c'], ['d']], maxsplit=1)",
    "tf.strings.unicode_encode([[104, -5, 55296, 1114112, 65]], 'UTF-8')",
    "tf.strings.unicode_encode([[104, -5, 65]], 'UTF-32-BE', replacement_char=66)",
    "tf.strings.unicode_encode([[104, -5, 65]], 'UTF-8', errors='ignore')",
    "tf.strings.unicode_encode([[[104], [105]], [[106], [107]]], 'UTF-8')",
])
# Cases where TensorFlow's shape inference knows a dimension by running the kernels of a
# constant subgraph (UnicodeDecode, StringSplit of a Const), which trainflow's does not.
STATIC_DIFFER = frozenset([
    "R(tf.strings.unicode_split([b'a\\xffb'], 'UTF-8'))",
    "R(tf.strings.unicode_split(words, 'UTF-8'))",
    "R(tf.strings.unicode_split(words[2], 'UTF-8'))",
    "R(tf.strings.unicode_split_with_offsets(words, 'UTF-8'))",
])
