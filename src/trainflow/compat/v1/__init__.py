"""`trainflow.compat.v1`: the TF1 namespace (the same one `import trainflow` gives)."""
import trainflow as _tf

globals().update({k: v for k, v in vars(_tf).items()
                  if not k.startswith("__") and k not in ("compat",)})


def __getattr__(name):
    if name == "compat":
        import trainflow.compat as compat  # lazy: trainflow.compat imports this module
        return compat
    return getattr(_tf, name)


def __dir__():
    return dir(_tf)
