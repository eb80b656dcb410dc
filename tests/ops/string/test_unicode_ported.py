"""Cases ported from TensorFlow's unicode_transcode_op_test.py (and a few decode / script
cases): encodings, error policies, control characters, byte order marks."""
import pytest

import trainflow.compat.v1 as tf
from trainflow._src.framework import errors


def _run(x):
    with tf.Session() as sess:
        return sess.run(x)


def _transcode(strings, **kwargs):
    with tf.Graph().as_default():
        out = _run(tf.strings.unicode_transcode(strings, **kwargs))
        return out if isinstance(out, bytes) else out.tolist()


SPACE = ord(" ")
TRANSCODE_CASES = [
    ("utf8_simple", [[b"a", b"abc"], [b"ABC", b"DEF"]],
     dict(input_encoding="UTF-8", output_encoding="UTF-8", replacement_char=SPACE),
     [[b"a", b"abc"], [b"ABC", b"DEF"]]),
    ("latin1_simple", [[b"a", b"abc"], [b"ABC", b"DEF"]],
     dict(input_encoding="ISO-8859-1", output_encoding="UTF-8", replacement_char=SPACE),
     [[b"a", b"abc"], [b"ABC", b"DEF"]]),
    ("ascii_simple", [[b"a", b"abc"], [b"ABC", b"DEF"]],
     dict(input_encoding="US-ASCII", output_encoding="UTF-8", replacement_char=SPACE),
     [[b"a", b"abc"], [b"ABC", b"DEF"]]),
    ("utf16_to_utf8", [b"\x00a\x00b\x20\xac", b"\xd8\x01\xdc\x37"],
     dict(input_encoding="UTF-16", output_encoding="UTF-8", replacement_char=SPACE),
     [s.decode("UTF-16-BE").encode("UTF-8") for s in [b"\x00a\x00b\x20\xac",
                                                      b"\xd8\x01\xdc\x37"]]),
    ("bad_utf8_control", b"\x00\xff", dict(input_encoding="UTF-8", output_encoding="UTF-8",
                                           replacement_char=SPACE,
                                           replace_control_characters=True), b"  "),
    ("bad_utf8", b"\x00\xff", dict(input_encoding="UTF-8", output_encoding="UTF-8",
                                   replacement_char=SPACE), b"\x00 "),
    ("bad_utf8_some_good", b"abc\xffabcdefg",
     dict(input_encoding="UTF-8", output_encoding="UTF-8", replacement_char=SPACE),
     b"abc abcdefg"),
    ("bad_utf8_defaults", b"\x00\xff", dict(input_encoding="UTF-8", output_encoding="UTF-8"),
     b"\x00\xef\xbf\xbd"),
    ("elision", b"\x00\xff", dict(input_encoding="UTF-8", output_encoding="UTF-8",
                                  errors="ignore"), b"\x00"),
    ("elision_control", b"\x00\xff", dict(input_encoding="UTF-8", output_encoding="UTF-8",
                                          errors="ignore", replace_control_characters=True),
     b""),
    ("bad_termination", b"a\xf0", dict(input_encoding="UTF-8", output_encoding="UTF-8"),
     b"a\xef\xbf\xbd"),
    ("replacement_char_strict", [b"a\xef\xbf\xbd"],
     dict(input_encoding="UTF-8", output_encoding="UTF-8", errors="strict"),
     [b"a\xef\xbf\xbd"]),
    ("replacement_char_kept", [b"a\xef\xbf\xbd"],
     dict(input_encoding="UTF-8", output_encoding="UTF-8", replacement_char=ord("?")),
     [b"a\xef\xbf\xbd"]),
    ("utf8_to_utf16", [b"ab\xe2\x82\xac", b"\xf0\x90\x90\xb7"],
     dict(input_encoding="UTF-8", output_encoding="UTF-16-BE", replacement_char=SPACE),
     [s.decode("UTF-8").encode("UTF-16-BE") for s in [b"ab\xe2\x82\xac",
                                                      b"\xf0\x90\x90\xb7"]]),
    ("utf32_to_utf8", [b"\x00\x00\x00a\x00\x00\x00b\x00\x00\x20\xac", b"\x00\x01\x04\x37"],
     dict(input_encoding="UTF-32", output_encoding="UTF-8", replacement_char=SPACE),
     [b"ab\xe2\x82\xac", "\U00010437".encode("UTF-8")]),
    ("utf8_to_utf32", [b"ab\xe2\x82\xac", b"\xf0\x90\x90\xb7"],
     dict(input_encoding="UTF-8", output_encoding="UTF-32-BE", replacement_char=SPACE),
     [s.decode("UTF-8").encode("UTF-32-BE") for s in [b"ab\xe2\x82\xac",
                                                      b"\xf0\x90\x90\xb7"]]),
    ("ascii_shift_chars", [b"\x0e\x0e", b"\x0f\x0f"],
     dict(input_encoding="US-ASCII", output_encoding="UTF-8", replacement_char=SPACE),
     [b"\x0e\x0e", b"\x0f\x0f"]),
    ("utf8_bom_kept", b"\xef\xbb\xbfabcdefg",
     dict(input_encoding="UTF-8", output_encoding="UTF-8"), b"\xef\xbb\xbfabcdefg"),
    ("utf8_bom_to_utf16", b"\xef\xbb\xbfabcdefg",
     dict(input_encoding="UTF-8", output_encoding="UTF-16-BE"),
     "\ufeffabcdefg".encode("UTF-16-BE")),
    ("utf16be_bom_kept", b"\xfe\xff\x00\x61",
     dict(input_encoding="UTF-16-BE", output_encoding="UTF-8"), b"\xef\xbb\xbfa"),
    ("utf16le_reads_be_bom", b"\xfe\xff\x00\x61",
     dict(input_encoding="UTF-16-LE", output_encoding="UTF-8"), b"\xef\xbf\xbe\xe6\x84\x80"),
    ("utf16le_bom_kept", b"\xff\xfe\x61\x00",
     dict(input_encoding="UTF-16-LE", output_encoding="UTF-8"), b"\xef\xbb\xbfa"),
    ("cjk_shift_jis", [b"\x5c\x5c", b"\x8f\x70", b"\x83\x4f"],
     dict(input_encoding="shift_jis", output_encoding="UTF-8", replacement_char=SPACE),
     [s.decode("shift_jis").encode("UTF-8") for s in [b"\x5c\x5c", b"\x8f\x70",
                                                      b"\x83\x4f"]]),
    ("cjk_gb18030", [b"\xca\xf5"], dict(input_encoding="gb18030", output_encoding="UTF-8"),
     [b"\xca\xf5".decode("gb18030").encode("UTF-8")]),
    ("cjk_big5", [b"\xb3\x4e"], dict(input_encoding="big5", output_encoding="UTF-8"),
     [b"\xb3\x4e".decode("big5").encode("UTF-8")]),
    ("cjk_euc_kr", [b"\xc7\xd1\xb9\xce"], dict(input_encoding="euc_kr",
                                               output_encoding="UTF-8"),
     [b"\xc7\xd1\xb9\xce".decode("euc_kr").encode("UTF-8")]),
]


@pytest.mark.parametrize("name,strings,kwargs,expected", TRANSCODE_CASES,
                         ids=[c[0] for c in TRANSCODE_CASES])
def test_transcode(name, strings, kwargs, expected):
    assert _transcode(strings, **kwargs) == expected


BOM_CASES = [
    (b"\xfe\xff\x00*", "UTF-16", b"*"), (b"\xff\xfe*\x00", "UTF-16", b"*"),
    (b"\xef\xbb\xbf*", "UTF-8", b"\xef\xbb\xbf*"),
    (b"\xfe\xff\x00*", "UTF-16-BE", b"\xef\xbb\xbf*"),
    (b"\xff\xfe*\x00", "UTF-16-LE", b"\xef\xbb\xbf*"), (b"\x00*", "UTF-16", b"*"),
    (b"<\xef\xbb\xbf>", "UTF-8", b"<\xef\xbb\xbf>"),
    (b"\x00<\xfe\xff\x00>", "UTF-16", b"<\xef\xbb\xbf>"),
    (b"\x00<\xfe\xff\x00>", "UTF-16-BE", b"<\xef\xbb\xbf>"),
    (b"<\x00\xff\xfe>\x00", "UTF-16-LE", b"<\xef\xbb\xbf>"),
    (b"\xfe\xff\x00<\xfe\xff\x00>", "UTF-16", b"<\xef\xbb\xbf>"),
    (b"\xff\xfe<\x00\xff\xfe>\x00", "UTF-16", b"<\xef\xbb\xbf>"),
]


@pytest.mark.parametrize("string,encoding,expected", BOM_CASES)
def test_byte_order_marks(string, encoding, expected):
    assert _transcode(string, input_encoding=encoding, output_encoding="UTF-8") == expected


@pytest.mark.parametrize("string", [b"\x00\xff", b"\xffabcd"])
def test_strict_errors(string):
    with tf.Graph().as_default():
        out = tf.strings.unicode_transcode(string, input_encoding="UTF-8",
                                           output_encoding="UTF-8", errors="strict")
        with pytest.raises(errors.InvalidArgumentError,
                           match="Invalid formatting on input string"):
            _run(out)


def test_invalid_encodings_and_policies():
    strings = [[b"a", b"abc"], [b"ABC", b"DEF"]]
    with tf.Graph().as_default():
        out = tf.strings.unicode_transcode(strings, input_encoding="invalid",
                                           output_encoding="UTF-8")
        with pytest.raises(errors.InvalidArgumentError,
                           match="Could not create converter for input encoding: invalid"):
            _run(out)
        with pytest.raises(ValueError, match="invalid"):
            tf.strings.unicode_transcode(strings, input_encoding="UTF-8",
                                         output_encoding="invalid")
        with pytest.raises(ValueError, match="invalid"):
            tf.strings.unicode_transcode(strings, input_encoding="UTF-8",
                                         output_encoding="UTF-8", errors="invalid")


def test_decode_offsets_of_multibyte_encodings():
    with tf.Graph().as_default():
        chars, starts = tf.strings.unicode_decode_with_offsets(
            [b"a\x8f\x70b\x8f"], "shift_jis")
        out = _run([chars, starts])
        assert out[0].to_list() == [[97, 34899, 98, 65533]]
        assert out[1].to_list() == [[0, 1, 3, 4]]
        chars, starts = tf.strings.unicode_decode_with_offsets([b"\xfe\xff\x00a\x00b"],
                                                               "UTF-16")
        out = _run([chars, starts])
        # ICU counts the byte order mark into the first character (values from TF 2.21).
        assert out[0].to_list() == [[97, 98]] and out[1].to_list() == [[0, 4]]


@pytest.mark.parametrize("code_points,expected", [
    ([ord("a"), 0x0411, 0x82B8, ord(",")], [25, 8, 17, 0]),  # Latin, Cyrillic, Han, Common
    ([-100, 0xFFFFFF], [-1, -1]),
])
def test_unicode_script(code_points, expected):
    with tf.Graph().as_default():
        out = tf.strings.unicode_script(tf.constant(code_points, tf.int32))
        assert out.op.type == "UnicodeScript" and _run(out).tolist() == expected
