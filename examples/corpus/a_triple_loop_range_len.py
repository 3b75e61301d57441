"""Textbook ijk triple loop over range(len(...)) with a preallocated [[0]*n ...] result,
the version most intro-to-programming courses and Stack Overflow answers start from."""

TITLE = "Plain ijk triple loop (range(len))"
RUNG = 42
LAYERS = ("interpreter_dispatch", "container_access", "boxing")
DEFAULT_SIZE = 64
MAX_SIZE = 256
DTYPES = ("float64",)


def setup(a, b):
    return a.tolist(), b.tolist()


def kernel(a, b):
    n = len(a)
    # result matrix filled with zeros
    result = [[0] * n for _ in range(n)]
    for i in range(len(a)):
        for j in range(len(b[0])):
            total = 0
            for k in range(len(b)):
                total += a[i][k] * b[k][j]
            result[i][j] = total
    return result
