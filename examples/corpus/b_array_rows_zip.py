"""Rows stored as array.array('d') objects, one per row, with each entry a sum over zip of
an A row and a column pulled out by a comprehension, as in "lists vs array module" posts."""

from array import array

TITLE = "array.array rows with zip over extracted column"
RUNG = 94
LAYERS = ("boxing", "container_access", "interpreter_dispatch", "scalar_compute")
DEFAULT_SIZE = 64
MAX_SIZE = 256
DTYPES = ("float64",)


def setup(a, b):
    return [array('d', row) for row in a.tolist()], [array('d', row) for row in b.tolist()]


def kernel(a, b):
    n_cols = len(b[0])
    result = []
    for row in a:
        out = array('d', [0.0]) * n_cols
        for j in range(n_cols):
            col = [b_row[j] for b_row in b]
            out[j] = sum(x * y for x, y in zip(row, col))
        result.append(out)
    return [list(r) for r in result]
