"""`tf.io.gfile.glob`: TensorFlow's file-pattern matching on the local file system.

Pattern syntax (per path component, `/` is never matched by a wildcard):
`*` any run of characters, `?` one character, `[abc]`, `[a-z]`, `[^a]` or
`[!a]` one character in / not in the set, and `\\c` the character `c`.
Names starting with a dot are matched like any other. A pattern with no
special character matches only itself (if it exists). When the pattern's
first special character lies in its first component, the results are
relative names prefixed with "./", as TensorFlow returns them.
"""

import os
import re

from trainflow._src.gfile import paths

_SPECIAL = frozenset("*?[\\")


def _has_special(text):
    return any(c in _SPECIAL for c in text)


def _class_to_regex(component, start):
    """Translates the bracket expression at `start`; returns (regex, end) or None."""
    i = start + 1
    n = len(component)
    negate = i < n and component[i] in "^!"
    if negate:
        i += 1
    parts = []
    while i < n and component[i] != "]":
        if component[i] == "\\":
            if i + 1 >= n:
                return None
            lo = component[i + 1]
            i += 2
        else:
            lo = component[i]
            i += 1
        if i + 1 < n and component[i] == "-" and component[i + 1] != "]":
            hi = component[i + 1]
            i += 2
            if hi == "\\":
                if i >= n:
                    return None
                hi = component[i]
                i += 1
            parts.append("%s-%s" % (re.escape(lo), re.escape(hi)))
        else:
            parts.append(re.escape(lo))
    if i >= n:
        return None  # unterminated bracket: the pattern matches nothing
    if not parts:
        return ("." if negate else "(?!)"), i + 1
    return "[%s%s]" % ("^" if negate else "", "".join(parts)), i + 1


def _component_regex(component):
    """Compiles one path component of a pattern; None if it can match nothing."""
    out = []
    i = 0
    n = len(component)
    while i < n:
        c = component[i]
        if c == "*":
            out.append(".*")
            i += 1
        elif c == "?":
            out.append(".")
            i += 1
        elif c == "\\":
            if i + 1 >= n:
                return None
            out.append(re.escape(component[i + 1]))
            i += 2
        elif c == "[":
            translated = _class_to_regex(component, i)
            if translated is None:
                return None
            out.append(translated[0])
            i = translated[1]
        else:
            out.append(re.escape(c))
            i += 1
    return re.compile("".join(out), re.DOTALL)


def _join(directory, name):
    return directory + name if directory.endswith("/") else directory + "/" + name


def _glob_local(pattern):
    """Matches one local pattern; returns the matching paths, sorted per level."""
    first = next((i for i, c in enumerate(pattern) if c in _SPECIAL), -1)
    if first < 0:
        return [pattern] if os.path.exists(pattern) else []
    slash = pattern.rfind("/", 0, first)
    if slash < 0:
        shown, real = "./", "."
    else:
        shown = real = pattern[:slash + 1]
    components = [c for c in pattern[slash + 1:].split("/") if c]
    current = [(shown, real)]
    for depth, component in enumerate(components):
        last = depth == len(components) - 1
        found = []
        if not _has_special(component):
            for shown_dir, real_dir in current:
                child = _join(real_dir, component)
                if os.path.isdir(child) if not last else os.path.exists(child):
                    found.append((_join(shown_dir, component), child))
        else:
            regex = _component_regex(component)
            if regex is None:
                return []
            for shown_dir, real_dir in current:
                try:
                    names = sorted(os.listdir(real_dir))
                except OSError:
                    continue
                for name in names:
                    if regex.fullmatch(name) is None:
                        continue
                    child = _join(real_dir, name)
                    if last or os.path.isdir(child):
                        found.append((_join(shown_dir, name), child))
        current = found
        if not current:
            break
    return [shown for shown, _ in current]


def glob(pattern):
    """Returns the paths matching a pattern or each of an iterable of patterns.

    Args:
      pattern: a str/bytes/path-like pattern, or an iterable of them. A
        `file://` pattern gives `file://` results.

    Returns:
      A list of str paths, sorted within each pattern; a pattern whose
      directory does not exist matches nothing.

    Raises:
      UnimplementedError: for a URI scheme other than `file`.
      TypeError: if `pattern` is not a string, path or iterable of them.
    """
    if isinstance(pattern, (str, bytes, bytearray)) or hasattr(pattern, "__fspath__"):
        patterns = [pattern]
    else:
        patterns = list(pattern)
    results = []
    for one in patterns:
        prefix, local = paths.split_uri(one)
        results.extend(prefix + path for path in _glob_local(local))
    return results
