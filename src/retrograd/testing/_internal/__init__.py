"""retrograd's ``torch.testing._internal``: the helpers PyTorch's own test files import.

Modules: ``common_utils`` (TestCase, run_tests, parametrize, flags, skip decorators, helpers),
``common_device_type`` (instantiate_device_type_tests, @dtypes ...), ``common_dtype`` (dtype
groups) and ``common_cuda`` (CUDA flags, all False).  See docs/testing.md.

>>> import retrograd.testing._internal.common_utils as cu
>>> cu.TEST_CUDA
False
"""
