"""tf.gfile / tf.io.gfile on local files. Error classes and messages follow what
TensorFlow 2.21 raised for the same calls; the interop test at the end replays a
script of operations under TF and under trainflow and compares the outcomes."""
import os
import sys

import pytest

from trainflow import gfile
from trainflow._src.framework import errors
from trainflow.io import gfile as io_gfile

from tf_interop import TF_PYTHON, needs_tf, run_json


def _write(path, data=b""):
    with open(path, "wb") as f:
        f.write(data)


# ----- GFile ---------------------------------------------------------------------

def test_write_then_read_text_and_binary(tmp_path):
    p = str(tmp_path / "a.txt")
    with gfile.GFile(p, "w") as f:
        f.write("hello\nworld\n")
        f.write(b"bytes\n")
        assert f.tell() == 18
    assert gfile.GFile(p).read() == "hello\nworld\nbytes\n"
    assert gfile.GFile(p, "rb").read() == b"hello\nworld\nbytes\n"
    assert gfile.GFile(p).readlines() == ["hello\n", "world\n", "bytes\n"]
    assert list(gfile.GFile(p, "rb")) == [b"hello\n", b"world\n", b"bytes\n"]
    assert gfile.Open(p).readline() == "hello\n"
    assert gfile.FastGFile(p, "rb").read(5) == b"hello"


def test_text_mode_keeps_newlines_and_decodes_utf8(tmp_path):
    p = str(tmp_path / "t")
    _write(p, b"a\r\nb\rc\n")
    assert gfile.GFile(p).readlines() == ["a\r\n", "b\rc\n"]
    with gfile.GFile(p, "w") as f:
        f.write("\u00e9")
    assert gfile.GFile(p, "rb").read() == b"\xc3\xa9"
    assert gfile.GFile(p).read() == "\u00e9"


def test_read_seek_tell(tmp_path):
    p = str(tmp_path / "f")
    _write(p, b"hello\nworld\nbytes\n")
    f = gfile.GFile(p)
    assert f.read(3) == "hel" and f.tell() == 3
    f.seek(1, 1)
    assert f.tell() == 4
    f.seek(-2, 2)
    assert f.read() == "s\n" and f.read() == ""
    f.seek(offset=18)
    assert f.read() == ""
    with pytest.raises(errors.OutOfRangeError, match="^reached end of file$"):
        f.seek(100)
    assert f.tell() == 18
    assert f.readline() == ""
    f.seek(position=2)
    assert f.tell() == 2
    assert f.size() == 18 and f.seekable()
    with pytest.raises(errors.InvalidArgumentError,
                       match=r"^Invalid whence argument: 5\. Valid values are 0, 1, or 2\.$"):
        f.seek(0, 5)
    with pytest.raises(errors.InvalidArgumentError, match="^Seeking to a negative position: -1$"):
        f.seek(-1)
    with pytest.raises(TypeError, match="offset argument required"):
        f.seek()
    with pytest.raises(TypeError, match="may not be set simultaneously"):
        f.seek(1, position=1)
    with pytest.raises(errors.InvalidArgumentError,
                       match="^Can't read a negative number of bytes: -2$"):
        f.read(-2)
    f.close()
    assert f.read(5) == "hello"  # reading after close starts over, as in TF


def test_lazy_open_and_buffering(tmp_path):
    p = str(tmp_path / "w")
    f = gfile.GFile(p, "w")
    assert not os.path.exists(p)          # nothing happens before the first write
    f.write("zz")
    assert os.path.exists(p)
    f.flush()
    assert os.path.getsize(p) == 2
    f.close()
    never = str(tmp_path / "never")
    gfile.GFile(never, "w").close()
    assert not os.path.exists(never)


def test_append_and_truncating_modes(tmp_path):
    p = str(tmp_path / "ap")
    gfile.GFile(p, "a").write("A")
    g = gfile.GFile(p, "a")
    g.write("B")
    assert g.tell() == 2
    g.close()
    assert open(p).read() == "AB"
    g = gfile.GFile(p, "r+")              # TF's r+: reads the file, a write truncates it
    assert g.read(2) == "AB"
    g.write("QQ")
    g.close()
    assert open(p).read() == "QQ"
    g = gfile.GFile(p, "a+")
    assert g.read() == "QQ"
    g.write("X")
    g.close()
    assert open(p).read() == "QQX"


def test_mode_and_permission_errors(tmp_path):
    p = str(tmp_path / "f")
    _write(p, b"x")
    with pytest.raises(errors.InvalidArgumentError,
                       match=r"^mode is not 'r' or 'w' or 'a' or 'r\+' or 'w\+' or 'a\+'$"):
        gfile.GFile(p, "x")
    with pytest.raises(errors.PermissionDeniedError, match="^File isn't open for writing$"):
        gfile.GFile(p).write("x")
    with gfile.GFile(str(tmp_path / "g"), "w") as w:
        with pytest.raises(errors.PermissionDeniedError, match="^File isn't open for reading$"):
            w.read()
        with pytest.raises(errors.PermissionDeniedError, match="^File isn't open for reading$"):
            w.seek(0)
    with pytest.raises(TypeError, match="^Expected binary or unicode string, got 5$"):
        gfile.GFile(str(tmp_path / "h"), "w").write(5)
    assert gfile.GFile(p, "rb").name == p and gfile.GFile(p, "rb").mode == "rb"


def test_open_errors_name_the_path(tmp_path):
    missing = str(tmp_path / "nope")
    f = gfile.GFile(missing)              # no error until the file is used
    with pytest.raises(errors.NotFoundError, match="^%s; No such file or directory$" % missing):
        f.read()
    with pytest.raises(errors.NotFoundError):
        gfile.GFile(missing).size()
    with pytest.raises(errors.FailedPreconditionError, match="^%s; Is a directory$" % tmp_path):
        gfile.GFile(str(tmp_path)).read()
    with pytest.raises(errors.FailedPreconditionError, match="; Is a directory$"):
        gfile.GFile(str(tmp_path), "w").write("x")
    with pytest.raises(errors.NotFoundError, match="no/x; No such file or directory$"):
        gfile.GFile(str(tmp_path / "no" / "x"), "w").write("x")


def test_paths_as_bytes_pathlib_and_file_uri(tmp_path):
    p = tmp_path / "u.txt"
    _write(str(p), b"data")
    assert gfile.GFile(p).read() == "data"
    assert gfile.GFile(str(p).encode()).read() == "data"
    assert gfile.GFile("file://" + str(p)).read() == "data"
    assert io_gfile.exists("file://localhost" + str(p))
    assert not io_gfile.exists("file://u.txt")      # host "u.txt", empty path
    with pytest.raises(TypeError, match="Expected binary or unicode string, got 5"):
        io_gfile.exists(5)


def test_other_schemes_are_unimplemented():
    with pytest.raises(errors.UnimplementedError,
                       match=r"^File system scheme 'gs' not implemented "
                             r"\(file: 'gs://bucket/x'\)$"):
        io_gfile.exists("gs://bucket/x")
    with pytest.raises(errors.UnimplementedError, match="scheme 's3'"):
        gfile.GFile("s3://b/k").read()
    with pytest.raises(errors.UnimplementedError, match="scheme 'hdfs'"):
        io_gfile.glob("hdfs://nn/data/*")
    assert io_gfile.isdir("foo://x") is False
    assert io_gfile.get_registered_schemes() == ["", "file"]


# ----- file-system operations -------------------------------------------------------

def test_exists_isdir_listdir(tmp_path):
    d = str(tmp_path)
    _write(d + "/b")
    _write(d + "/a")
    os.mkdir(d + "/sub")
    assert gfile.Exists(d + "/a") and gfile.Exists(d) and not gfile.Exists(d + "/zz")
    assert not io_gfile.exists("")
    assert (gfile.IsDirectory(d) and not gfile.IsDirectory(d + "/a")
            and not io_gfile.isdir(d + "/zz"))
    assert gfile.ListDirectory(d) == ["a", "b", "sub"]
    assert io_gfile.listdir("file://" + d) == ["a", "b", "sub"]
    for bad in (d + "/zz", d + "/a"):
        with pytest.raises(errors.NotFoundError, match="^Could not find directory %s$" % bad):
            io_gfile.listdir(bad)


def test_mkdir_and_makedirs(tmp_path):
    d = str(tmp_path)
    gfile.MkDir(d + "/x")
    gfile.MkDir(d + "/x")                 # existing: no error, as in TF
    assert os.path.isdir(d + "/x")
    with pytest.raises(errors.NotFoundError, match="^%s/y/z; No such file or directory$" % d):
        io_gfile.mkdir(d + "/y/z")
    gfile.MakeDirs(d + "/m/n/o")
    io_gfile.makedirs(d + "/m/n/o")
    assert os.path.isdir(d + "/m/n/o")
    _write(d + "/file")
    with pytest.raises(errors.FailedPreconditionError, match="^%s/file is not a directory$" % d):
        io_gfile.makedirs(d + "/file/z")
    with pytest.raises(errors.FailedPreconditionError, match="^%s/file is not a directory$" % d):
        io_gfile.makedirs(d + "/file")
    io_gfile.mkdir("")
    io_gfile.makedirs("")


def test_remove_and_rmtree(tmp_path):
    d = str(tmp_path)
    _write(d + "/f")
    os.makedirs(d + "/t/u")
    _write(d + "/t/u/g")
    with pytest.raises(errors.FailedPreconditionError, match="^%s/t; Is a directory$" % d):
        gfile.Remove(d + "/t")
    with pytest.raises(errors.NotFoundError, match="^%s/nope; No such file or directory$" % d):
        io_gfile.remove(d + "/nope")
    gfile.Remove(d + "/f")
    assert not os.path.exists(d + "/f")
    gfile.DeleteRecursively(d + "/t")
    assert not os.path.exists(d + "/t")
    with pytest.raises(errors.NotFoundError, match="^%s/t not found$" % d):
        io_gfile.rmtree(d + "/t")
    _write(d + "/single")
    io_gfile.rmtree(d + "/single")           # a file is simply deleted
    assert not os.path.exists(d + "/single")
    _write(d + "/target")
    os.symlink(d + "/target", d + "/link")
    io_gfile.rmtree(d + "/link")             # removes the link, not its target
    assert os.path.exists(d + "/target") and not os.path.lexists(d + "/link")


def test_copy(tmp_path):
    d = str(tmp_path)
    _write(d + "/a", b"abc")
    gfile.Copy(d + "/a", d + "/b")
    assert open(d + "/b", "rb").read() == b"abc"
    with pytest.raises(errors.AlreadyExistsError, match="^file already exists$"):
        gfile.Copy(d + "/a", d + "/b")
    _write(d + "/a", b"new")
    io_gfile.copy(d + "/a", d + "/b", overwrite=True)
    assert open(d + "/b", "rb").read() == b"new"
    io_gfile.copy(d + "/a", d + "/a", overwrite=True)   # onto itself: content kept
    assert open(d + "/a", "rb").read() == b"new"
    with pytest.raises(errors.NotFoundError, match="^%s/zz; No such file or directory$" % d):
        io_gfile.copy(d + "/zz", d + "/c")
    os.mkdir(d + "/dir")
    with pytest.raises(errors.FailedPreconditionError, match="^%s/dir; Is a directory$" % d):
        io_gfile.copy(d + "/a", d + "/dir", overwrite=True)
    with pytest.raises(errors.AlreadyExistsError):
        io_gfile.copy(d + "/a", d + "/dir")
    with pytest.raises(errors.InvalidArgumentError, match="Is a directory"):
        io_gfile.copy(d + "/dir", d + "/c")
    with pytest.raises(errors.NotFoundError, match="^%s/no/q; No such file or directory$" % d):
        io_gfile.copy(d + "/a", d + "/no/q")


def test_rename(tmp_path):
    d = str(tmp_path)
    _write(d + "/a", b"1")
    _write(d + "/b", b"2")
    with pytest.raises(errors.AlreadyExistsError, match="^file already exists$"):
        gfile.Rename(d + "/a", d + "/b")
    io_gfile.rename(d + "/a", d + "/b", overwrite=True)
    assert open(d + "/b", "rb").read() == b"1" and not os.path.exists(d + "/a")
    with pytest.raises(errors.NotFoundError, match="^%s/a; No such file or directory$" % d):
        io_gfile.rename(d + "/a", d + "/c")
    os.makedirs(d + "/full/x")
    os.mkdir(d + "/empty")
    with pytest.raises(errors.FailedPreconditionError, match="^%s/b; Is a directory$" % d):
        io_gfile.rename(d + "/b", d + "/empty", overwrite=True)
    os.mkdir(d + "/m")
    with pytest.raises(errors.FailedPreconditionError, match="^%s/m; Directory not empty$" % d):
        io_gfile.rename(d + "/m", d + "/full", overwrite=True)
    io_gfile.rename(d + "/m", d + "/empty", overwrite=True)
    assert os.path.isdir(d + "/empty") and not os.path.exists(d + "/m")


def test_stat(tmp_path):
    p = str(tmp_path / "f")
    _write(p, b"12345")
    st = gfile.Stat(p)
    assert st.length == 5 and st.is_directory is False
    assert st.mtime_nsec == int(os.stat(p).st_mtime) * 10 ** 9
    assert st.mtime_nsecs == st.mtime_nsec
    assert io_gfile.stat(str(tmp_path)).is_directory is True
    with pytest.raises(errors.NotFoundError,
                       match="^%s/nope; No such file or directory$" % tmp_path):
        io_gfile.stat(str(tmp_path / "nope"))


def test_join():
    assert io_gfile.join("a", "b") == "a/b"
    assert io_gfile.join("gs://x", "y", "z") == "gs://x/y/z"


# ----- glob -----------------------------------------------------------------------------

@pytest.fixture
def tree(tmp_path, monkeypatch):
    for name in ["a.txt", "b.txt", "ab.py", "x[1].txt", "s/t.txt", "s/u/v.txt", "s2/t.txt", ".h",
                 "a-b"]:
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(b"")
    monkeypatch.chdir(tmp_path)
    return str(tmp_path)


# pattern -> TF 2.21's result (sorted) in the `tree` fixture's directory
GLOB_CASES = {
    "*": ["./.h", "./a-b", "./a.txt", "./ab.py", "./b.txt", "./s", "./s2", "./x[1].txt"],
    "*.txt": ["./a.txt", "./b.txt", "./x[1].txt"],
    "s/*": ["s/t.txt", "s/u"],
    "*/*": ["./s/t.txt", "./s/u", "./s2/t.txt"],
    "*/t.txt": ["./s/t.txt", "./s2/t.txt"],
    "s*/t.txt": ["./s/t.txt", "./s2/t.txt"],
    "./s/*": ["./s/t.txt", "./s/u"],
    "a?txt": ["./a.txt"],
    "a.txt": ["a.txt"],
    "[ab].txt": ["./a.txt", "./b.txt"],
    "[^a].txt": ["./b.txt"],
    "[!a].txt": ["./b.txt"],
    "x\\[1\\].txt": ["./x[1].txt"],
    "x[1].txt": [],
    "a[.]txt": ["./a.txt"],
    "*b*": ["./a-b", "./ab.py", "./b.txt"],
    "s/": ["s/"],
    "s/*/": ["s/t.txt", "s/u"],
    "**/*.txt": ["./s/t.txt", "./s2/t.txt"],
    "[a-b]*": ["./a-b", "./a.txt", "./ab.py", "./b.txt"],
    "{a,b}.txt": [],
    "[a\\-]*": ["./a-b", "./a.txt", "./ab.py"],
    "nodir/*": [],
    "": [],
    "[f": [],
    "a.txt\\": [],
    "*/u/*": ["./s/u/v.txt"],
}


@pytest.mark.parametrize("pattern", sorted(GLOB_CASES))
def test_glob_patterns(tree, pattern):
    assert sorted(gfile.Glob(pattern)) == GLOB_CASES[pattern]


def test_glob_absolute_uri_and_lists(tree):
    assert io_gfile.glob(tree + "/s/*") == [tree + "/s/t.txt", tree + "/s/u"]
    assert io_gfile.glob(tree + "//s/*") == [tree + "//s/t.txt", tree + "//s/u"]
    assert io_gfile.glob("file://" + tree + "/[ab].txt") == [
        "file://" + tree + "/a.txt", "file://" + tree + "/b.txt"]
    assert io_gfile.glob([tree + "/a.*", tree + "/b.*"]) == [tree + "/a.txt", tree + "/b.txt"]
    assert io_gfile.glob(iter(["a.txt"])) == ["a.txt"]
    assert io_gfile.glob(b"*.py") == ["./ab.py"]
    assert io_gfile.glob(tree + "/*.zzz") == []


# ----- walk -------------------------------------------------------------------------------

def test_walk_orders(tree):
    top_down = [(d, sub, files) for d, sub, files in gfile.Walk(tree)]
    assert top_down == [
        (tree, ["s", "s2"], [".h", "a-b", "a.txt", "ab.py", "b.txt", "x[1].txt"]),
        (tree + "/s", ["u"], ["t.txt"]),
        (tree + "/s/u", [], ["v.txt"]),
        (tree + "/s2", [], ["t.txt"]),
    ]
    bottom_up = list(gfile.Walk(tree, in_order=False))
    assert [d for d, _, _ in bottom_up] == [tree + "/s/u", tree + "/s", tree + "/s2", tree]
    assert list(io_gfile.walk(tree, topdown=False)) == bottom_up
    assert [d for d, _, _ in io_gfile.walk(tree + "/")] == [
        tree + "/", tree + "/s", tree + "/s/u", tree + "/s2"]
    assert [d for d, _, _ in io_gfile.walk("file://" + tree)][:2] == ["file://" + tree,
                                                                   "file://" + tree + "/s"]
    assert [d for d, _, _ in io_gfile.walk(tree.encode())][0] == tree


def test_walk_missing_and_onerror(tmp_path):
    missing = str(tmp_path / "nope")
    assert list(gfile.Walk(missing)) == []
    seen = []
    assert list(io_gfile.walk(missing, onerror=seen.append)) == []
    assert isinstance(seen[0], errors.NotFoundError)
    assert str(seen[0]) == "Could not find directory %s" % missing


def test_walk_stops_at_symlink_cycles(tmp_path):
    d = str(tmp_path)
    os.mkdir(d + "/a")
    os.symlink(d, d + "/a/loop")
    dirs = [x for x, _, _ in io_gfile.walk(d)]
    assert dirs == [d, d + "/a"]
    assert next(iter(io_gfile.walk(d + "/a")))[1] == ["loop"]


# ----- against TensorFlow itself ------------------------------------------------------------

# Each step is (function, args); paths are relative to a fresh directory that is
# the working directory. The outcome of each step is compared.
_STEPS = [
    ["write", ["a.txt", "w", "hello\nworld\n"]], ["read", ["a.txt", "r"]],
    ["read", ["nope", "r"]], ["read", [".", "r"]], ["Exists", ["a.txt"]], ["Exists", ["zz"]],
    ["MkDir", ["d"]], ["MkDir", ["d"]], ["MkDir", ["x/y"]], ["MakeDirs", ["m/n/o"]],
    ["MakeDirs", ["a.txt/z"]], ["Remove", ["zz"]], ["Remove", ["m"]],
    ["DeleteRecursively", ["zz"]], ["ListDirectory", ["zz"]], ["IsDirectory", ["m"]],
    ["Copy", ["a.txt", "b.txt"]], ["Copy", ["a.txt", "b.txt"]], ["Copy", ["a.txt", "b.txt", True]],
    ["Copy", ["zz", "c.txt"]], ["Copy", ["a.txt", "m", True]], ["Rename", ["a.txt", "b.txt"]],
    ["Rename", ["zz", "q"]], ["Rename", ["b.txt", "c.txt", True]], ["Rename", ["c.txt", "m", True]],
    ["Stat", ["zz"]], ["Glob", ["*.txt"]], ["Glob", ["*/*"]], ["Glob", ["[ac].txt"]],
    ["Walk", ["."]], ["DeleteRecursively", ["m"]], ["Walk", ["."]],
]

_RUNNER = r"""
import json, os, sys, tempfile
gfile = __GFILE__
os.chdir(tempfile.mkdtemp())
out = []
for name, args in json.loads(sys.stdin.read()):
    try:
        if name == "write":
            with gfile.GFile(args[0], args[1]) as f:
                f.write(args[2])
            result = None
        elif name == "read":
            result = gfile.GFile(args[0], args[1]).read()
        elif name == "Walk":
            result = sorted([d, sorted(s), sorted(f)] for d, s, f in gfile.Walk(*args))
        elif name == "Stat":
            st = gfile.Stat(*args)
            result = [st.length, st.is_directory]
        else:
            result = getattr(gfile, name)(*args)
            if name == "Glob":
                result = sorted(result)
        out.append(["ok", result])
    except Exception as e:
        out.append([type(e).__name__, str(e).replace(os.getcwd(), "<cwd>")])
print(json.dumps(out))
"""


def _run(python, gfile_expr):
    return run_json(_RUNNER.replace("__GFILE__", gfile_expr), python=python, spec=_STEPS)


@needs_tf
def test_operations_agree_with_tensorflow():
    want = _run(TF_PYTHON, "__import__('tensorflow.compat.v1', fromlist=['gfile']).gfile")
    got = _run(sys.executable, "__import__('trainflow.gfile', fromlist=['gfile'])")
    for step, g, w in zip(_STEPS, got, want):
        assert g == w, step
