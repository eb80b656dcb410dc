"""tf.data.experimental.CsvDataset and make_csv_dataset (ported from TF contrib r1.8's
csv_dataset_op_test: same inputs, same expected records or errors)."""
import gzip
import os

import numpy as np
import pytest

import trainflow.compat.v1 as tf
from tests.helpers.dataset_run import elements


def _files(tmp_path, inputs, linebreak="\n"):
    names = []
    for i, lines in enumerate(inputs):
        path = tmp_path / f"temp_{i}.csv"
        path.write_bytes(linebreak.join(lines).encode())
        names.append(str(path))
    return names


def _b(rows):
    return [tuple(v.encode() if isinstance(v, str) else v for v in row) for row in rows]


S4, I4, F4 = [[""]] * 4, [[0]] * 4, [[0.0]] * 4
NA3 = [["NA"]] * 3
# (name, inputs, kwargs, expected records or an error regex)
CASES = [
    ("required_fields", [["1,2,3,4"]], {"record_defaults": [[]] * 4}, [(1.0, 2.0, 3.0, 4.0)]),
    ("int", [["1,2,3,4", "5,6,7,8"]], {"record_defaults": I4}, [(1, 2, 3, 4), (5, 6, 7, 8)]),
    ("float", [["1.0,2.1,3.2,4.3", "5.4,6.5,7.6,8.7"]], {"record_defaults": F4},
     [(1.0, 2.1, 3.2, 4.3), (5.4, 6.5, 7.6, 8.7)]),
    ("string", [["1.0,2.1,hello,4.3", "5.4,6.5,goodbye,8.7"]], {"record_defaults": S4},
     _b([("1.0", "2.1", "hello", "4.3"), ("5.4", "6.5", "goodbye", "8.7")])),
    ("empty_fields", [[",,,", "1,1,1,", ",2,2,2"]], {"record_defaults": I4},
     [(0, 0, 0, 0), (1, 1, 1, 0), (0, 2, 2, 2)]),
    ("unquoted_quotes", [['1,2"3,4']], {"record_defaults": [[""]] * 3},
     "Unquoted fields cannot have quotes inside"),
    ("no_quote_delim_unquoted_quotes", [['1,2"3,4']],
     {"record_defaults": [[""]] * 3, "use_quote_delim": False}, _b([("1", '2"3', "4")])),
    ("mixed_types", [["1,2.1,3.2,4.3", "5,6.5,7.6,8.7"]],
     {"record_defaults": [tf.int32, tf.float32, tf.string, tf.float64]},
     [(1, 2.1, b"3.2", 4.3), (5, 6.5, b"7.6", 8.7)]),
    ("use_quote_delim_false", [['1,2,"3,4"', '"5,6",7,8']],
     {"record_defaults": S4, "use_quote_delim": False},
     _b([("1", "2", '"3', '4"'), ('"5', '6"', "7", "8")])),
    ("field_delim", [["1:2:3:4", "5:6:7:8"]], {"record_defaults": I4, "field_delim": ":"},
     [(1, 2, 3, 4), (5, 6, 7, 8)]),
    ("na_value", [["1,NA,3,4", "NA,6,7,8"]], {"record_defaults": I4, "na_value": "NA"},
     [(1, 0, 3, 4), (0, 6, 7, 8)]),
    ("select_cols", [["1,2,3,4", '"5","6","7","8"']],
     {"record_defaults": [[""]] * 2, "select_cols": [1, 2]}, _b([("2", "3"), ("6", "7")])),
    ("select_cols_too_high", [["1,2,3,4", "5,6,7,8"]],
     {"record_defaults": [[0]] * 2, "select_cols": [3, 4]},
     "Expect 2 fields but have 1 in record"),
    ("one_col", [["0", "", "2"]], {"record_defaults": [["NA"]]}, _b([("0",), ("NA",), ("2",)])),
    ("multiple_files", [["1,2,3,4", "5,6,7,8"], ["5,6,7,8"]], {"record_defaults": I4},
     [(1, 2, 3, 4), (5, 6, 7, 8), (5, 6, 7, 8)]),
    ("leading_trailing_spaces", [["0, 1, 2, 3"]], {"record_defaults": F4},
     [(0.0, 1.0, 2.0, 3.0)]),
    ("missing_default", [["0,"]], {"record_defaults": [[]] * 2},
     "Field 1 is required but missing in record!"),
    ("fewer_defaults_than_fields", [["0,1,2,3"]], {"record_defaults": [[0.0]] * 2},
     "Expect 2 fields but have more in record"),
    ("more_defaults_than_fields", [["0,1,2,3"]], {"record_defaults": [[0.0]] * 5},
     "Expect 5 fields but have 4 in record"),
    ("header", [["col1,col2", "1,2"]], {"record_defaults": [[0]] * 2, "header": True},
     [(1, 2)]),
    ("header_no_records", [["col1,col2"]], {"record_defaults": [[0]] * 2, "header": True}, []),
    ("header_empty_file", [[]], {"record_defaults": [[0]] * 2, "header": True},
     "Can't read header of file"),
    ("empty_file", [[""]], {"record_defaults": [[""]] * 2}, []),
    ("empty_record", [["", "1,2"]], {"record_defaults": [[""]] * 2},
     "Expect 2 fields but have 1 in record"),
    ("type_defaults", [["1.0,2.0", "3.0,4.0"]], {"record_defaults": [tf.float32, [0.0]]},
     [(1.0, 2.0), (3.0, 4.0)]),
    ("quoted", [['"a","b","c :)","d"', '"e","f","g :(","h"']], {"record_defaults": S4},
     _b([("a", "b", "c :)", "d"), ("e", "f", "g :(", "h")])),
    ("one_col_and_quotes", [['"0"', '"1"', '"2"']], {"record_defaults": [[""]]},
     _b([("0",), ("1",), ("2",)])),
    ("new_line", [['a,b,"""c""\n0","d\ne"', "f,g,h,i"]], {"record_defaults": S4},
     _b([("a", "b", '"c"\n0', "d\ne"), ("f", "g", "h", "i")])),
    ("new_line_in_unselected_col", [['1,"2\n3",4', "5,6,7"]],
     {"record_defaults": [[""]], "select_cols": [0]}, _b([("1",), ("5",)])),
    ("multiple_new_lines", [['a,"b\n\nx","""c""\n \n0","d\ne"', "f,g,h,i"]],
     {"record_defaults": S4}, _b([("a", "b\n\nx", '"c"\n \n0', "d\ne"), ("f", "g", "h", "i")])),
    ("terminate_mid_record", [['a,b,c,"a']], {"record_defaults": S4},
     "Reached end of file without closing quoted field in record"),
    ("escaped_quotes", [['1.0,2.1,"she said: ""hello""",4.3', "5.4,6.5,goodbye,8.7"]],
     {"record_defaults": S4},
     _b([("1.0", "2.1", 'she said: "hello"', "4.3"), ("5.4", "6.5", "goodbye", "8.7")])),
    ("invalid_buffer_size", [["a,b,c,d"]], {"record_defaults": S4, "buffer_size": 0},
     "buffer_size should be positive"),
    ("bad_int", [["x,1"]], {"record_defaults": [[0]] * 2},
     "Field 0 in record is not a valid int32: x"),
    ("bad_float", [["1.5x,1"]], {"record_defaults": [[0.0]] * 2},
     "Field 0 in record is not a valid float: 1.5x"),
    ("int32_overflow", [["99999999999,1"]], {"record_defaults": [[0]] * 2},
     "not a valid int32: 99999999999"),
    ("int64", [["99999999999,1"]], {"record_defaults": [tf.int64, [0]]}, [(99999999999, 1)]),
    ("exclude_cols", [["1,2,3,4"]], {"record_defaults": [[0]] * 2, "exclude_cols": [1, 2]},
     [(1, 4)]),
    ("select_cols_unsorted", [["1,2,3"]], {"record_defaults": [[0]] * 2, "select_cols": [2, 1]},
     "select_cols should be strictly increasing indices"),
    ("select_cols_size", [["1,2,3"]], {"record_defaults": [[0]] * 2, "select_cols": [0, 1, 2]},
     "select_cols should match output size"),
    ("long_delim", [["1,2"]], {"record_defaults": [[0]] * 2, "field_delim": "::"},
     "field_delim should be only 1 char"),
]


def _check(got, want):
    assert len(got) == len(want), (got, want)
    for g, w in zip(got, want):
        assert len(g) == len(w)
        for a, b in zip(g, w):
            if isinstance(b, float):
                assert np.isclose(a, b), (a, b)
            else:
                assert a == b, (a, b)


@pytest.mark.parametrize("name,inputs,kwargs,want", CASES, ids=[c[0] for c in CASES])
def test_csv_dataset(tmp_path, name, inputs, kwargs, want):
    names = _files(tmp_path, inputs)
    with tf.Graph().as_default():
        dataset = tf.data.experimental.CsvDataset(names, **kwargs)
        if isinstance(want, str):
            with pytest.raises(tf.errors.InvalidArgumentError, match=want):
                elements(dataset, one_shot=True)
        else:
            _check(elements(dataset, one_shot=True), want)


@pytest.mark.parametrize("quoted", [False, True])
@pytest.mark.parametrize("linebreak", ["\n", "\r", "\r\n"])
def test_buffer_sizes_and_line_breaks(tmp_path, linebreak, quoted):
    if quoted:
        lines = ['"\n\n\n","\r\r\r","abc"', '"0","1","2"', '"","",""']
        want = _b([("\n\n\n", "\r\r\r", "abc"), ("0", "1", "2"), ("NA", "NA", "NA")])
    else:
        lines = ["abc,def,ghi", "0,1,2", ",,"]
        want = _b([("abc", "def", "ghi"), ("0", "1", "2"), ("NA", "NA", "NA")])
    names = _files(tmp_path, [lines], linebreak)
    for size in list(range(1, 21)) + [None]:
        with tf.Graph().as_default():
            got = elements(tf.data.experimental.CsvDataset(names, NA3, buffer_size=size),
                           one_shot=True)
        _check(got, want)


def test_matches_text_line_and_decode_csv(tmp_path):
    names = _files(tmp_path, [["1,,3,4", "5,6,,8"]])
    with tf.Graph().as_default():
        actual = tf.data.experimental.CsvDataset(names, record_defaults=I4)
        expected = tf.data.TextLineDataset(names).map(
            lambda line: tuple(tf.decode_csv(line, record_defaults=I4)))
        assert actual.output_types == expected.output_types
        assert actual.output_shapes == expected.output_shapes
        _check(elements(actual.repeat(5).prefetch(1), one_shot=True),
               elements(expected.repeat(5).prefetch(1), one_shot=True))


def test_compressed(tmp_path):
    path = tmp_path / "c.csv.gz"
    path.write_bytes(gzip.compress(b"1,2\n3,4\n"))
    got = elements(tf.data.experimental.CsvDataset(str(path), [[0]] * 2,
                                                   compression_type="GZIP"), one_shot=True)
    _check(got, [(1, 2), (3, 4)])


def test_graph_is_tfs(tmp_path):
    with tf.Graph().as_default() as g:
        tf.data.experimental.CsvDataset(_files(tmp_path, [["1"]]), [[0]])
        assert [op.type for op in g.get_operations() if op.type.endswith("Dataset") or
                op.type.startswith("CSV")] == ["CSVDatasetV2"]


# -- make_csv_dataset -------------------------------------------------------------------
def test_make_csv_dataset_field_order(tmp_path):
    row = ",".join(str(i) for i in range(1, 20))
    names = _files(tmp_path, [[row, row]])
    with tf.Graph().as_default():
        ds = tf.data.experimental.make_csv_dataset(names, batch_size=1, shuffle=False,
                                                   num_epochs=1, header=False,
                                                   column_names=[f"c{i:02d}" for i in range(19)])
        first = elements(ds, one_shot=True)[0]
    values = [int(v[0]) for v in first.values()]
    assert values == sorted(values)


def test_make_csv_dataset_infers_names_types_and_label(tmp_path):
    names = _files(tmp_path, [["a,b,c,label", "1,2.5,x,0", "2,,y,1", "3,4.5,z,0"]])
    with tf.Graph().as_default():
        ds = tf.data.experimental.make_csv_dataset(names, batch_size=2, label_name="label",
                                                   shuffle=False, num_epochs=1,
                                                   na_value="", column_defaults=None)
        assert ds.output_types == ({"a": tf.int32, "b": tf.float32, "c": tf.string},
                                   tf.int32)
        inferred = elements(ds, one_shot=True)
        ds = tf.data.experimental.make_csv_dataset(
            names, batch_size=2, label_name="label", shuffle=False, num_epochs=1,
            column_defaults=[[0], [0.0], [""], [0]], select_columns=["a", "b", "c", "label"])
        got = elements(ds, one_shot=True)
    assert [list(f["b"]) for f, _ in inferred] == [[2.5, 0.0], [4.5]]
    assert [list(f["a"]) for f, _ in got] == [[1, 2], [3]]
    assert [list(f["b"]) for f, _ in got] == [[2.5, 0.0], [4.5]]
    assert [list(label) for _, label in got] == [[0, 1], [0]]


@pytest.mark.parametrize("kwargs,error", [
    ({"file_pattern": "nothing-here-*.csv"}, "No files match"),
    ({"label_name": "zzz"}, "`label_name` provided must be one of the columns"),
    ({"header": False}, "Expected `column_names` or `header` argument"),
])
def test_make_csv_dataset_errors(tmp_path, kwargs, error):
    names = _files(tmp_path, [["a,b", "1,2"]])
    args = {"file_pattern": names, "batch_size": 1, **kwargs}
    if isinstance(args["file_pattern"], str):
        args["file_pattern"] = os.path.join(str(tmp_path), args["file_pattern"])
    with tf.Graph().as_default():
        with pytest.raises(ValueError, match=error):
            tf.data.experimental.make_csv_dataset(**args)
