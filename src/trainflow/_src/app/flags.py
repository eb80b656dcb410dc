"""`tf.app.flags` / `tf.flags`: absl flags under TF1's names.

Everything in `absl.flags` is re-exported. Differences, as in TensorFlow:
`DEFINE_string`, `DEFINE_integer`, `DEFINE_float` and `DEFINE_boolean`
(`DEFINE_bool`) also accept the old keyword names `flag_name`,
`default_value` and `docstring`; and reading a flag from `FLAGS` before the
command line was parsed parses `sys.argv` first instead of raising.
"""

import functools as _functools
import logging as _logging
import sys as _sys

from absl.flags import *  # noqa: F401,F403 - this module is absl.flags under TF's name
from absl import flags as _absl_flags

# Flags defined through the wrappers below belong to the caller's module, not this one.
_absl_flags.disclaim_key_flags()

_OLD_KEYWORDS = {"flag_name": "name", "default_value": "default", "docstring": "help"}


def _accept_old_keywords(define):
    """Wraps an absl DEFINE_* function so it also takes TF1's keyword names."""

    @_functools.wraps(define)
    def wrapper(*args, **kwargs):
        renamed = False
        for old, new in _OLD_KEYWORDS.items():
            if old in kwargs:
                kwargs[new] = kwargs.pop(old)
                renamed = True
        if renamed:
            _logging.getLogger("trainflow").warning(
                "Use of the keyword argument names (flag_name, default_value, docstring) is "
                "deprecated, please use (name, default, help) instead.")
        return define(*args, **kwargs)

    return wrapper


DEFINE_string = _accept_old_keywords(_absl_flags.DEFINE_string)
DEFINE_boolean = _accept_old_keywords(_absl_flags.DEFINE_boolean)
DEFINE_bool = DEFINE_boolean
DEFINE_float = _accept_old_keywords(_absl_flags.DEFINE_float)
DEFINE_integer = _accept_old_keywords(_absl_flags.DEFINE_integer)


class _AutoParsingFlagValues:
    """`FLAGS`: absl's FlagValues, parsing `sys.argv` on the first read of an unparsed flag."""

    def __init__(self, flag_values):
        self.__dict__["_wrapped"] = flag_values

    def __getattribute__(self, name):
        if name == "__dict__":
            return super().__getattribute__(name)
        return self.__dict__["_wrapped"].__getattribute__(name)

    def __getattr__(self, name):
        wrapped = self.__dict__["_wrapped"]
        if not wrapped.is_parsed():
            wrapped(_sys.argv)
        return wrapped.__getattr__(name)

    def __setattr__(self, name, value):
        return self.__dict__["_wrapped"].__setattr__(name, value)

    def __delattr__(self, name):
        return self.__dict__["_wrapped"].__delattr__(name)

    def __dir__(self):
        return self.__dict__["_wrapped"].__dir__()

    def __getitem__(self, name):
        return self.__dict__["_wrapped"].__getitem__(name)

    def __setitem__(self, name, flag):
        return self.__dict__["_wrapped"].__setitem__(name, flag)

    def __contains__(self, name):
        return self.__dict__["_wrapped"].__contains__(name)

    def __len__(self):
        return self.__dict__["_wrapped"].__len__()

    def __iter__(self):
        return self.__dict__["_wrapped"].__iter__()

    def __str__(self):
        return self.__dict__["_wrapped"].__str__()

    def __call__(self, *args, **kwargs):
        return self.__dict__["_wrapped"].__call__(*args, **kwargs)


FLAGS = _AutoParsingFlagValues(_absl_flags.FLAGS)
