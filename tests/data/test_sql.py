"""tf.data.experimental.SqlDataset over SQLite (the cases of TF r1.8's sql_dataset_op_test:
types, several columns, an empty result, errors)."""
import sqlite3

import pytest

import trainflow.compat.v1 as tf
from tests.helpers.dataset_run import elements


@pytest.fixture
def db(tmp_path):
    path = str(tmp_path / "data.sqlite")
    conn = sqlite3.connect(path)
    conn.executescript("""
        CREATE TABLE students (first_name VARCHAR(100), last_name VARCHAR(100),
                               motto VARCHAR(100), school_id VARCHAR(100),
                               favorite_nonsense_word VARCHAR(100), desk_number INTEGER,
                               income INTEGER, favorite_number INTEGER, grade_level INTEGER,
                               registration_complete BOOLEAN, favorite_negative_number INTEGER);
        INSERT INTO students VALUES ('John', 'Doe', 'Hi!', '123', 'n\\0nsense', 9, 0,
                                     2147483647, 12, 1, -2);
        INSERT INTO students VALUES ('Jane', 'Moe', 'Hi again!', '1000', 'nonsense\\0', 127,
                                     -20000, -2147483648, 9, 0, -1);
        CREATE TABLE data (col1 INTEGER, col2 DOUBLE);
        INSERT INTO data VALUES (1, 2.5);
        INSERT INTO data VALUES (2, -0.25);
    """)
    conn.commit()
    conn.close()
    return path


# (query, output types, expected rows)
CASES = [
    ("SELECT first_name, last_name, motto FROM students ORDER BY first_name DESC",
     (tf.string, tf.string, tf.string), [(b"John", b"Doe", b"Hi!"),
                                         (b"Jane", b"Moe", b"Hi again!")]),
    ("SELECT first_name, desk_number FROM students ORDER BY first_name DESC",
     (tf.string, tf.int8), [(b"John", 9), (b"Jane", 127)]),
    ("SELECT income, favorite_negative_number FROM students ORDER BY first_name DESC",
     (tf.int32, tf.int64), [(0, -2), (-20000, -1)]),
    ("SELECT registration_complete FROM students ORDER BY first_name DESC", (tf.bool,),
     [(True,), (False,)]),
    ("SELECT col1, col2 FROM data", (tf.int64, tf.float64), [(1, 2.5), (2, -0.25)]),
    ("SELECT * FROM data WHERE col1 > 5", (tf.int64, tf.float64), []),
]


@pytest.mark.parametrize("query,types,want", CASES)
def test_sql_dataset(db, query, types, want):
    with tf.Graph().as_default():
        got = elements(tf.data.experimental.SqlDataset("sqlite", db, query, types))
    assert [tuple(v.item() if hasattr(v, "item") else v for v in row) for row in got] == want


def test_placeholders_and_graph(db):
    with tf.Graph().as_default() as g:
        query = tf.placeholder(tf.string, [])
        ds = tf.data.experimental.SqlDataset("sqlite", db, query, (tf.int64, tf.float64))
        assert g.get_operations()[-1].type == "SqlDataset"
        assert ds.output_shapes == (tf.TensorShape([]), tf.TensorShape([]))
        got = elements(ds, {query: "SELECT col1, col2 FROM data ORDER BY col1 DESC"})
    assert [int(r[0]) for r in got] == [2, 1]


@pytest.mark.parametrize("driver,query,types,error", [
    ("sqlfake", "SELECT col1 FROM data", (tf.int64,), "is not supported by SqlDataset"),
    ("sqlite", "SELECT col1 FROM nowhere", (tf.int64,), "Prepare failed"),
    ("sqlite", "SELECT col1, col2 FROM data", (tf.int64,), "number of columns"),
])
def test_sql_errors(db, driver, query, types, error):
    with tf.Graph().as_default():
        with pytest.raises(tf.errors.InvalidArgumentError, match=error):
            elements(tf.data.experimental.SqlDataset(driver, db, query, types))
