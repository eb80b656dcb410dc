"""The version constants of `tf.version` (and their top-level aliases `tf.VERSION` ...).

The `tf` namespace reports the TensorFlow API level it implements, as TensorFlow does:
`VERSION` is "1.15.0", so TF1 code that branches on `tf.__version__` or `tf.VERSION`
(`startswith("1.")`) takes its TF1 branch. The package's own version is
`trainflow._version.__version__` (what `trainflow --version` shows); `GIT_VERSION` names it,
as TensorFlow's names the commit it was built from. MetaGraphDefs trainflow writes carry
both in their `meta_info_def` (`tensorflow_version`, `tensorflow_git_version`).
"""
from trainflow._version import __version__ as _package_version

# The TensorFlow API level trainflow implements (tf.compat.v1 of TF 1.15).
VERSION = "1.15.0"
# What built this: trainflow's own release (TensorFlow gives its git describe).
GIT_VERSION = "trainflow-" + _package_version
# The C++ compiler TensorFlow was built with; trainflow has no compiled part.
COMPILER_VERSION = ""
# The GraphDef version of the TensorFlow release whose op set trainflow follows (TF 2.21),
# and the oldest consumer / producer it works with (TensorFlow's values).
GRAPH_DEF_VERSION = 2474
GRAPH_DEF_VERSION_MIN_CONSUMER = 0
GRAPH_DEF_VERSION_MIN_PRODUCER = 0
# TensorFlow's build constants (`tf.CXX11_ABI_FLAG`, `tf.CXX_VERSION`, `tf.MONOLITHIC_BUILD`,
# also under `tf.sysconfig`): the values TensorFlow 2.21's pip package reports, so code
# that picks compiler flags for custom ops from them sees what it would with TensorFlow.
CXX11_ABI_FLAG = 1
CXX_VERSION = 201703
MONOLITHIC_BUILD = 0
