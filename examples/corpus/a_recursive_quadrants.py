"""Recursive divide-and-conquer multiply on plain lists: pad to a power of two, split into four
quadrants, recurse down to a small base case and stitch the blocks back together, as in
algorithms courses introducing Strassen (this is the plain 8-multiplication version)."""

TITLE = "Recursive divide-and-conquer on quadrants"
RUNG = 74
LAYERS = ("call_overhead", "container_access", "memory", "interpreter_dispatch", "boxing")
DEFAULT_SIZE = 64
MAX_SIZE = 256
DTYPES = ("float64",)

BASE = 16


def setup(a, b):
    return a.tolist(), b.tolist()


def next_pow2(n):
    p = 1
    while p < n:
        p *= 2
    return p


def pad(m, size):
    out = [row + [0.0] * (size - len(row)) for row in m]
    out += [[0.0] * size for _ in range(size - len(m))]
    return out


def add(x, y):
    return [[p + q for p, q in zip(rx, ry)] for rx, ry in zip(x, y)]


def split(m):
    h = len(m) // 2
    top, bottom = m[:h], m[h:]
    return ([r[:h] for r in top], [r[h:] for r in top],
            [r[:h] for r in bottom], [r[h:] for r in bottom])


def join(c11, c12, c21, c22):
    return [r1 + r2 for r1, r2 in zip(c11, c12)] + [r1 + r2 for r1, r2 in zip(c21, c22)]


def naive(x, y):
    n = len(x)
    c = [[0.0] * n for _ in range(n)]
    for i in range(n):
        for k in range(n):
            xik = x[i][k]
            ci = c[i]
            yk = y[k]
            for j in range(n):
                ci[j] += xik * yk[j]
    return c


def multiply(x, y):
    if len(x) <= BASE:
        return naive(x, y)
    a11, a12, a21, a22 = split(x)
    b11, b12, b21, b22 = split(y)
    c11 = add(multiply(a11, b11), multiply(a12, b21))
    c12 = add(multiply(a11, b12), multiply(a12, b22))
    c21 = add(multiply(a21, b11), multiply(a22, b21))
    c22 = add(multiply(a21, b12), multiply(a22, b22))
    return join(c11, c12, c21, c22)


def kernel(a, b):
    n = len(a)
    size = next_pow2(n)
    if size != n:
        a, b = pad(a, size), pad(b, size)
    c = multiply(a, b)
    return [row[:n] for row in c[:n]]
