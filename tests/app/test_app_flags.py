"""tf.app.flags: absl flags under TF1's names, old keyword names, auto-parsing FLAGS."""
import subprocess
import sys

import absl.flags
import pytest

import trainflow.app
from trainflow._src.app import flags


def test_flags_module_is_reachable_as_attribute():
    assert trainflow._src.app.flags is flags
    for name in ("DEFINE_string", "DEFINE_integer", "DEFINE_float", "DEFINE_boolean",
                 "DEFINE_bool", "DEFINE_list", "DEFINE_enum", "DEFINE_multi_string",
                 "DEFINE_multi_integer", "DEFINE_multi_float", "DEFINE_spaceseplist",
                 "FlagValues", "Error", "UnrecognizedFlagError", "mark_flag_as_required"):
        assert callable(getattr(flags, name)), name
    assert flags.DEFINE_bool is flags.DEFINE_boolean
    with pytest.raises(AttributeError):
        trainflow.app.no_such_thing


def test_defines_parse_with_separate_flag_values():
    fv = flags.FlagValues()
    flags.DEFINE_string("name", "d", "a string", flag_values=fv)
    flags.DEFINE_integer("count", 1, "an int", flag_values=fv)
    flags.DEFINE_float("rate", 0.5, "a float", flag_values=fv)
    flags.DEFINE_boolean("verbose", False, "a bool", flag_values=fv)
    flags.DEFINE_list("items", ["a"], "a list", flag_values=fv)
    flags.DEFINE_enum("mode", "train", ["train", "eval"], "an enum", flag_values=fv)
    flags.DEFINE_multi_string("tag", [], "repeated", flag_values=fv)
    rest = fv(["prog", "--name=x", "--count=7", "--rate=0.25", "--verbose", "--items=p,q",
               "--mode=eval", "--tag=t1", "--tag=t2", "positional"])
    assert rest == ["prog", "positional"]
    assert (fv.name, fv.count, fv.rate, fv.verbose, fv.items, fv.mode, fv.tag) == (
        "x", 7, 0.25, True, ["p", "q"], "eval", ["t1", "t2"])
    with pytest.raises(flags.IllegalFlagValueError):
        fv(["prog", "--mode=bogus"])


def test_old_keyword_names_are_accepted():
    fv = flags.FlagValues()
    flags.DEFINE_string(flag_name="s", default_value="v", docstring="h", flag_values=fv)
    flags.DEFINE_integer(flag_name="i", default_value=3, docstring="h", flag_values=fv)
    flags.DEFINE_float(flag_name="f", default_value=1.5, docstring="h", flag_values=fv)
    flags.DEFINE_boolean(flag_name="b", default_value=True, docstring="h", flag_values=fv)
    fv(["prog"])
    assert (fv.s, fv.i, fv.f, fv.b) == ("v", 3, 1.5, True)
    assert fv["s"].help == "h"


def test_flags_wrapper_shares_absl_state():
    name = "trainflow_test_shared_state"
    flags.DEFINE_integer(name, 5, "defined through the wrapper")
    try:
        assert flags.FLAGS[name] is absl.flags.FLAGS[name]
        assert name in flags.FLAGS and name in list(flags.FLAGS)
        assert len(flags.FLAGS) == len(absl.flags.FLAGS)
        assert name in dir(flags.FLAGS)
    finally:
        delattr(flags.FLAGS, name)
    assert name not in absl.flags.FLAGS


def test_reading_flags_before_parsing_parses_argv():
    code = (
        "import sys\n"
        "from trainflow.app import flags\n"
        "flags.DEFINE_string('greeting', 'hi', 'h')\n"
        "sys.argv = ['prog', '--greeting=hello']\n"
        "print(flags.FLAGS.greeting, flags.FLAGS.is_parsed())\n"
        "flags.FLAGS.greeting = 'set'\n"
        "print(flags.FLAGS.greeting)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.splitlines() == ["hello True", "set"]
