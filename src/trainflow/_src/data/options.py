"""`tf.data.Options` and the option groups it holds (ThreadingOptions, OptimizationOptions,
DistributeOptions, AutotuneOptions) and the enums they take (AutoShardPolicy,
AutotuneAlgorithm, ExternalStatePolicy): plain records, as TF's are. An option left unset is
None (its default applies); `merge` combines two Options, a value set on the later one
winning (with a warning, as TF). Options are recorded on the dataset (`with_options`,
`options()`: a read-only copy); trainflow runs every pipeline deterministically on the
host, so most only document intent."""
import enum

from trainflow._src import tf_logging

_READ_ONLY = ("Mutating `tf.data.Options()` returned by `tf.data.Dataset.options()` has no "
              "effect. Use `tf.data.Dataset.with_options(options)` to set or update dataset "
              "options.")


class AutoShardPolicy(enum.IntEnum):
    OFF = -1
    AUTO = 0
    FILE = 1
    DATA = 2
    HINT = 3


class AutotuneAlgorithm(enum.Enum):
    """The autotuning algorithm (AutotuneOptions.autotune_algorithm); pipelines here run
    on the host without autotuning, so it records intent."""
    DEFAULT = 0
    HILL_CLIMB = 1
    GRADIENT_DESCENT = 2
    MAX_PARALLELISM = 3
    STAGE_BASED = 4


class ExternalStatePolicy(enum.Enum):
    WARN = 0
    IGNORE = 1
    FAIL = 2


class _OptionsBase:
    """A record of named options; unknown names are refused as TF refuses them."""

    _OPTIONS = {}  # name -> default (a class: a nested option group made on first access)
    _ALIASES = {}

    def __init__(self):
        object.__setattr__(self, "_values", {})
        object.__setattr__(self, "_read_only", False)

    def __getattr__(self, name):
        name = self._ALIASES.get(name, name)
        if name.startswith("_") or name not in self._OPTIONS:
            raise AttributeError(f"{type(self).__name__} has no option {name}")
        values = object.__getattribute__(self, "_values")
        default = self._OPTIONS[name]
        if values.get(name) is None and isinstance(default, type):
            values[name] = default()
            if object.__getattribute__(self, "_read_only"):
                object.__setattr__(values[name], "_read_only", True)
        return values.get(name)

    def __setattr__(self, name, value):
        if self._read_only:
            raise ValueError(_READ_ONLY)
        name = self._ALIASES.get(name, name)
        if name not in self._OPTIONS:
            raise AttributeError(f"Cannot set the property {name} on {type(self).__name__}.")
        self._values[name] = value

    def read_only_copy(self):
        """A copy whose options (nested groups included) cannot be set."""
        out = self.merge(type(self)())
        for value in out._values.values():
            if isinstance(value, _OptionsBase):
                object.__setattr__(value, "_read_only", True)
        object.__setattr__(out, "_read_only", True)
        return out

    def __eq__(self, other):
        return type(self) is type(other) and self._set() == other._set()

    def __ne__(self, other):
        return not self == other

    def __hash__(self):
        return hash(type(self))

    def _set(self):
        return {k: v for k, v in self._values.items()
                if v is not None and not (isinstance(v, _OptionsBase) and not v._set())}

    def __repr__(self):
        return f"{type(self).__name__}({self._set()})"

    def merge(self, options):
        """A new record with the options set on either; where both set one, `options`'
        value wins (a warning says so when they differ)."""
        out = type(self)()
        for name in self._OPTIONS:
            mine, theirs = self._values.get(name), options._values.get(name)
            if isinstance(mine, _OptionsBase) or isinstance(theirs, _OptionsBase):
                value = (mine or type(theirs)()).merge(theirs or type(mine)())
            elif theirs is None:
                value = mine
            else:
                if mine is not None and mine != theirs:
                    tf_logging.warning(f"Changing the value of option {name} from {mine!r} "
                                       f"to {theirs!r}.")
                value = theirs
            out._values[name] = value
        return out


class ThreadingOptions(_OptionsBase):
    """tf.data.ThreadingOptions: the threads a pipeline may use."""
    _OPTIONS = {"max_intra_op_parallelism": None, "private_threadpool_size": None}


class DistributeOptions(_OptionsBase):
    """tf.data.experimental.DistributeOptions: how a pipeline is sharded."""
    _OPTIONS = {"auto_shard_policy": None, "num_devices": None}


class OptimizationOptions(_OptionsBase):
    """tf.data.experimental.OptimizationOptions: graph rewrites of a pipeline."""
    _OPTIONS = {name: None for name in (
        "apply_default_optimizations", "filter_fusion", "filter_parallelization",
        "inject_prefetch", "map_and_batch_fusion", "map_and_filter_fusion", "map_fusion",
        "map_parallelization", "noop_elimination", "parallel_batch", "seq_interleave_prefetch",
        "shuffle_and_repeat_fusion", "warm_start", "autotune", "autotune_buffers",
        "autotune_cpu_budget", "autotune_ram_budget", "hoist_random_uniform",
        "map_vectorization")}


class AutotuneOptions(_OptionsBase):
    """tf.data.experimental.AutotuneOptions."""
    _OPTIONS = {"enabled": None, "cpu_budget": None, "ram_budget": None,
                "autotune_algorithm": None}


class Options(_OptionsBase):
    """tf.data.Options: options of a pipeline, set with `Dataset.with_options`."""
    _OPTIONS = {"autotune": AutotuneOptions, "deterministic": None,
                "experimental_distribute": DistributeOptions,
                "experimental_external_state_policy": None,
                "experimental_optimization": OptimizationOptions,
                "experimental_slack": None, "experimental_symbolic_checkpoint": None,
                "experimental_warm_start": None, "threading": ThreadingOptions,
                "experimental_stats": None, "dataset_name": None, "framework_type": None}
    _ALIASES = {"experimental_deterministic": "deterministic",
                "experimental_threading": "threading"}
