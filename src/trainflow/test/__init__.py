"""`tf.test`: gradient checks and a unittest TestCase with TF1's session helpers."""
from trainflow._src.test.gradient_checker import compute_gradient, compute_gradient_error  # noqa: F401
from trainflow._src.test.test_util import (  # noqa: F401
    TestCase, disable_with_predicate, get_temp_dir, gpu_device_name, is_built_with_cuda,
    is_built_with_gpu_support, is_built_with_rocm, is_built_with_xla, is_gpu_available, main,
    test_src_dir_path, with_eager_op_as_function)
from trainflow._src.test.stubs import StubOutForTesting  # noqa: F401
from trainflow._src.distributed.local_cluster import create_local_cluster  # noqa: F401
