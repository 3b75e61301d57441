"""Triple loop written with while statements and hand-maintained index counters, as
beginners coming from C or Java often write it in intro programming course exercises."""

TITLE = "while loops with manual counters"
RUNG = 43
LAYERS = ("interpreter_dispatch", "boxing", "container_access", "scalar_compute")
DEFAULT_SIZE = 64
MAX_SIZE = 256
DTYPES = ("float64",)


def setup(a, b):
    return a.tolist(), b.tolist()


def kernel(a, b):
    rows_a = len(a)
    cols_a = len(a[0])
    cols_b = len(b[0])
    result = []
    i = 0
    while i < rows_a:
        row = []
        j = 0
        while j < cols_b:
            total = 0.0
            k = 0
            while k < cols_a:
                total = total + a[i][k] * b[k][j]
                k = k + 1
            row.append(total)
            j = j + 1
        result.append(row)
        i = i + 1
    return result
