"""Sparse-style matrices stored as dict-of-dicts {i: {j: value}}, multiplied by walking the
nonzeros of each row of A and the matching row of B, like graph/sparse-matrix homework code."""

TITLE = "Dict-of-dicts sparse representation"
RUNG = 70
LAYERS = ("container_access", "interpreter_dispatch", "boxing")
DEFAULT_SIZE = 64
MAX_SIZE = 256
DTYPES = ("float64",)


def to_dod(m):
    d = {}
    for i, row in enumerate(m.tolist()):
        entries = {j: v for j, v in enumerate(row) if v != 0}
        if entries:
            d[i] = entries
    return d


def setup(a, b):
    return to_dod(a), to_dod(b), a.shape[0]


def kernel(a, b, n):
    c = {}
    for i, row in a.items():
        out = {}
        for k, a_ik in row.items():
            b_row = b.get(k)
            if not b_row:
                continue
            for j, b_kj in b_row.items():
                out[j] = out.get(j, 0.0) + a_ik * b_kj
        c[i] = out
    # densify for the caller
    return [[c.get(i, {}).get(j, 0.0) for j in range(n)] for i in range(n)]
