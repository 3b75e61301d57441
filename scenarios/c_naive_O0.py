"""The textbook ijk triple loop in C, compiled without optimisation (-O0): no interpreter and no
boxing, but every operand is loaded from and stored to memory, as in the paper's C row
(Leiserson et al. 2020, Table 1, version 3).
"""

TITLE = "C, ijk triple loop, -O0"
RUNG = 8
SETS = ('c',)
LAYERS = ("scalar_compute", "memory")
REMOVES = (
    "interpreter_dispatch",
    "boxing",
    "dynamic_dispatch",
    "container_access",
    "library_layers",
)
DEFAULT_SIZE = 192
MAX_SIZE = 2048
FLAGS = ["-O0"]
SOURCE = r"""
void matmul(const real_t *a, const real_t *b, real_t *c, int n) {
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            real_t s = 0;
            for (int k = 0; k < n; k++)
                s += a[i * n + k] * b[k * n + j];
            c[i * n + j] = s;
        }
}
"""
