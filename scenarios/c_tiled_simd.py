"""Panels of 64 columns of B and explicit vector code: AVX2 fused multiply-add intrinsics
(_mm256_fmadd_pd, two vectors per step) when the CPU has AVX2 and FMA, GCC portable vector
extensions otherwise, as in the paper's AVX-intrinsics step.
"""

from overhead_tui.api import TILED_SIMD_SOURCE

TITLE = "C, tiled + explicit SIMD (AVX2/FMA intrinsics)"
RUNG = 14
SETS = ('default', 'c')
LAYERS = ("simd_compute", "memory")
REMOVES = ("memory",)
DEFAULT_SIZE = 768
MAX_SIZE = 4096
FLAGS = ["-O3", "-march=native"]
SOURCE = TILED_SIMD_SOURCE
