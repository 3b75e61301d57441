"""`torch.mm(A, B)` on the CPU through PyTorch's own BLAS (MKL or OpenBLAS) and thread pool;
for int8, `torch._int_mm` (int8 × int8 into int32, through oneDNN: `ONEDNN_VERBOSE=1` names the
kernel, `gemm_api` s8s8s32 on an AVX-512 VNNI Zen 4, 2026-12-06).

The tensors share memory with the numpy inputs (`torch.from_numpy`), so no copy is timed.
The CUDA variant (with host-device copies timed apart) is not implemented: this machine has
no GPU.  Needs PyTorch.
"""

import torch

TITLE = "PyTorch torch.mm on the CPU"
RUNG = 20
SETS = ('libraries',)
LAYERS = ("library_layers", "dense_kernel", "parallel")
DEFAULT_SIZE = 1024
MAX_SIZE = 16384
DTYPES = ("float64", "float32", "int8")
REQUIRES = ("torch",)


def setup(a, b):
    return torch.from_numpy(a), torch.from_numpy(b)


def kernel(a, b):
    if a.dtype == torch.int8:
        return torch._int_mm(a, b)  # int32 accumulation and result
    return torch.mm(a, b)


def to_numpy(c):
    return c.numpy()
