"""`trainflow ops`: what is supported, at a glance.

Two views, both read from the running package: which public symbols of TensorFlow
1.15's API (`tools/data/tf1_api_symbols.txt`, a walk of TF's `tf.compat.v1`) exist in
`trainflow.compat.v1`, and, for every registered op type, whether it has a NumPy kernel,
a gradient (or is not differentiable, as in TF) and an XLA lowering. `docs/support.md`
is this command's `--markdown` output; `--check PROGRAM.py` (`port_check`) lists what
one program uses that is missing.
"""
import importlib
import importlib.util
import json
import os
import pkgutil
import sys

_SYMBOLS_FILE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data",
                             "tf1_api_symbols.txt")
_MISSING = object()
# Op types TensorFlow differentiates that have no gradient here yet (tf.gradients raises
# LookupError through them); every other op type without a gradient has none in TF either.
# tests/framework/test_registry_completeness.py checks this against TensorFlow.
GRADIENT_MISSING = {
    "RandomGamma": "TF: random_grad, needs the RandomGammaGrad op",
}


def add_arguments(parser):
    """Declares the subcommand's arguments on `parser`."""
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--symbols", action="store_true",
                      help="every TF 1.15 symbol, with 'yes' or 'no'")
    mode.add_argument("--missing", action="store_true",
                      help="only the TF 1.15 symbols trainflow lacks")
    mode.add_argument("--op-types", action="store_true",
                      help="every op type with its NumPy kernel, gradient and XLA lowering")
    mode.add_argument("--markdown", action="store_true",
                      help="the whole report as Markdown (docs/support.md)")
    mode.add_argument("--json", action="store_true", help="the whole report as JSON")
    mode.add_argument("--check", metavar="PROGRAM.py",
                      help="read a TF1 program and list the tf.* names it uses that "
                           "trainflow lacks (exit status 1 if any)")


def tf1_symbols():
    """TF 1.15's public symbols (`tf.train.AdamOptimizer` ...), sorted."""
    with open(_SYMBOLS_FILE, encoding="utf-8") as f:
        return [line.strip() for line in f if line.strip() and not line.startswith("#")]


def _resolve(root, path):
    value = root
    for part in path.split(".")[1:]:
        try:
            value = getattr(value, part)
        except Exception:  # noqa: BLE001 - a lazy namespace that cannot load is missing too
            return _MISSING
    return value


def resolves(root, symbol):
    """Whether `symbol` ("tf.train.AdamOptimizer") exists under the namespace `root`."""
    return _resolve(root, symbol) is not _MISSING


def symbol_support():
    """{symbol: True/False}: whether `trainflow.compat.v1` has each TF 1.15 symbol."""
    import trainflow.compat.v1 as tf
    return {name: _resolve(tf, name) is not _MISSING for name in tf1_symbols()}


def _load_op_modules():
    import trainflow._src.ops
    from trainflow._src.framework import registry
    has_jax = importlib.util.find_spec("jax") is not None
    for mod in pkgutil.walk_packages(trainflow._src.ops.__path__, "trainflow._src.ops."):
        if mod.name.endswith(".xla_lowerings"):
            continue  # loaded with the backend below (they need jax)
        importlib.import_module(mod.name)
    registry.load_all_op_modules()
    if has_jax:
        from trainflow._src.runtime.backends import xla_backend
        xla_backend.load_lowerings()
    return registry


# Ops with no lowering of their own that compile as part of a TF1 `tf.cond` frame
# (runtime/backends/xla_cond.py); a RefMerge keeps its cond on the host.
XLA_COND_FRAME_OPS = frozenset(["Switch", "RefSwitch", "Merge"])


def _has_lowering(name, backend):
    from trainflow._src.framework import registry
    if backend == "xla" and name in XLA_COND_FRAME_OPS:
        return True
    return registry.kernel(name, backend) is not None


def op_type_support():
    """{op type: {"numpy": bool, "gradient": "yes" | "not differentiable" | "none in TF" |
    "missing", "xla": bool}} for every registered op type."""
    registry = _load_op_modules()
    out = {}
    for name in registry.registered_names():
        info = registry.get(name)
        if not info.has_gradient:
            grad = "missing" if name in GRADIENT_MISSING else "none in TF"
        else:
            grad = "yes" if info.gradient is not None else "not differentiable"
        out[name] = {"numpy": info.kernel is not None, "gradient": grad,
                     "xla": _has_lowering(name, "xla")}
    return out


def _namespace(symbol):
    parts = symbol.split(".")
    return ".".join(parts[:-1])


def namespace_counts(symbols):
    """[(namespace, available, total)] in namespace order."""
    counts = {}
    for name, ok in symbols.items():
        have, total = counts.get(_namespace(name), (0, 0))
        counts[_namespace(name)] = (have + ok, total + 1)
    return [(ns, have, total) for ns, (have, total) in sorted(counts.items())]


def _yes(flag):
    return "yes" if flag else "no"


def markdown(symbols, op_types):
    """docs/support.md: the summary, the op types, then every symbol by namespace."""
    have = sum(symbols.values())
    lines = [
        "# What trainflow supports",
        "",
        "Generated by `trainflow ops --markdown > docs/support.md` (a test checks that it is "
        "up to date); do not edit by hand.",
        "",
        "If a symbol or op type your program uses is missing, see \"Porting a TF1 program\" "
        "in the README.",
        "",
        "## TensorFlow 1.15 API symbols",
        "",
        f"{have} of the {len(symbols)} public symbols of TF 1.15's `tf.*` API exist in "
        "`trainflow.compat.v1` (not counted: `tf.raw_ops`, `tf.keras`, `tf.estimator`).",
        "",
        "| namespace | available | of |",
        "|---|---:|---:|",
    ]
    counts = namespace_counts(symbols)
    lines += [f"| `{ns}` | {n} | {total} |" for ns, n, total in counts]
    kernels = sum(v["numpy"] for v in op_types.values())
    grads = sum(v["gradient"] == "yes" for v in op_types.values())
    nondiff = sum(v["gradient"] == "not differentiable" for v in op_types.values())
    missing = sorted(n for n, v in op_types.items() if v["gradient"] == "missing")
    xla = sum(v["xla"] for v in op_types.values())
    lines += [
        "",
        "## Op types",
        "",
        f"{len(op_types)} op types (TensorFlow's names, as in a GraphDef) are registered: "
        f"{kernels} with a NumPy kernel, {grads} with a gradient, {nondiff} marked not "
        f"differentiable as in TensorFlow, {xla} with an XLA lowering. Gradient \"none in "
        "TF\": TensorFlow registers none either, and `tf.gradients` raises LookupError if "
        "a gradient must flow through it; \"missing\": TensorFlow has one, trainflow not "
        "yet (" + ", ".join(f"`{n}`" for n in missing) + "). XLA for "
        + ", ".join(f"`{n}`" for n in sorted(XLA_COND_FRAME_OPS)) + ": as part of a "
        "`tf.cond` frame compiled whole (docs/xla_lowerings.md).",
        "",
        "| op type | NumPy kernel | gradient | XLA |",
        "|---|---|---|---|",
    ]
    lines += [f"| `{name}` | {_yes(v['numpy'])} | {v['gradient']} | {_yes(v['xla'])} |"
              for name, v in op_types.items()]
    lines += ["", "## Every symbol", ""]
    by_ns = {}
    for name, ok in symbols.items():
        by_ns.setdefault(_namespace(name), []).append((name.rsplit(".", 1)[1], ok))
    for ns, items in sorted(by_ns.items()):
        lines += [f"### `{ns}`", ""]
        present = [n for n, ok in items if ok]
        absent = [n for n, ok in items if not ok]
        if present:
            lines += ["Available: " + ", ".join(f"`{n}`" for n in present), ""]
        if absent:
            lines += ["Missing: " + ", ".join(f"`{n}`" for n in absent), ""]
    return "\n".join(lines)


def run(args):
    """Prints the report the arguments ask for; returns the exit status."""
    out = sys.stdout
    if args.check:
        from trainflow._src.tools import port_check
        try:
            return port_check.check(args.check, out)
        except (OSError, SyntaxError, ValueError) as e:
            print(f"trainflow ops: {e}", file=sys.stderr)
            return 1
    symbols = symbol_support()
    if args.symbols or args.missing:
        for name, ok in symbols.items():
            if args.symbols:
                out.write(f"{name}  {_yes(ok)}\n")
            elif not ok:
                out.write(name + "\n")
        return 0
    op_types = op_type_support()
    if args.op_types:
        width = max(len(n) for n in op_types)
        out.write(f"{'op type':<{width}}  numpy  gradient            xla\n")
        for name, v in op_types.items():
            out.write(f"{name:<{width}}  {_yes(v['numpy']):<5}  {v['gradient']:<18}  "
                      f"{_yes(v['xla'])}\n")
        return 0
    if args.markdown:
        out.write(markdown(symbols, op_types) + "\n")
        return 0
    if args.json:
        json.dump({"symbols": symbols, "op_types": op_types}, out, indent=1)
        out.write("\n")
        return 0
    have = sum(symbols.values())
    out.write(f"TF 1.15 API symbols: {have} of {len(symbols)} available "
              "(--symbols, --missing for the lists)\n")
    counts = namespace_counts(symbols)
    width = max(len(ns) for ns, _, _ in counts)
    for ns, n, total in counts:
        out.write(f"  {ns:<{width}}  {n:>4} / {total}\n")
    kernels = sum(v["numpy"] for v in op_types.values())
    grads = sum(v["gradient"] in ("yes", "not differentiable") for v in op_types.values())
    xla = sum(v["xla"] for v in op_types.values())
    out.write(f"op types: {len(op_types)} registered, {kernels} with a NumPy kernel, "
              f"{grads} with a gradient or marked not differentiable, {xla} with an XLA "
              "lowering (--op-types for the table)\n")
    return 0
