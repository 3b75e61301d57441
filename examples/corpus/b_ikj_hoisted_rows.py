"""Pure-Python i-k-j loop order with the current rows hoisted into locals, the way
"speed up your Python loops" optimisation tutorials rewrite the naive triple loop."""

TITLE = "ikj loop order with hoisted rows"
RUNG = 41
LAYERS = ("interpreter_dispatch", "boxing", "container_access", "scalar_compute")
DEFAULT_SIZE = 64
MAX_SIZE = 256
DTYPES = ("float64",)


def setup(a, b):
    return a.tolist(), b.tolist()


def kernel(a, b):
    n = len(a)
    m = len(b[0])
    c = [[0.0] * m for _ in range(n)]
    for i in range(n):
        ai = a[i]
        ci = c[i]
        for k in range(len(b)):
            aik = ai[k]
            bk = b[k]
            for j in range(m):
                ci[j] += aik * bk[j]
    return c
