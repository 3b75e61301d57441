"""A small hand-rolled Matrix class with __getitem__/__setitem__ taking (i, j) tuples and
__mul__/__matmul__ overloads, as written in OOP chapters of Python textbooks and course exercises."""

TITLE = "Matrix class with operator overloading"
RUNG = 57
LAYERS = ("call_overhead", "dynamic_dispatch", "interpreter_dispatch", "container_access", "boxing")
DEFAULT_SIZE = 48
MAX_SIZE = 192
DTYPES = ("float64",)


class Matrix:
    def __init__(self, rows, cols, data=None):
        self.rows = rows
        self.cols = cols
        if data is None:
            data = [[0.0] * cols for _ in range(rows)]
        self.data = data

    @classmethod
    def from_list(cls, values):
        return cls(len(values), len(values[0]), [list(r) for r in values])

    def __getitem__(self, idx):
        i, j = idx
        return self.data[i][j]

    def __setitem__(self, idx, value):
        i, j = idx
        self.data[i][j] = value

    def __repr__(self):
        return "Matrix(%d, %d)" % (self.rows, self.cols)

    def __matmul__(self, other):
        if self.cols != other.rows:
            raise ValueError("shape mismatch: %r @ %r" % (self, other))
        out = Matrix(self.rows, other.cols)
        for i in range(self.rows):
            for j in range(other.cols):
                s = 0.0
                for k in range(self.cols):
                    s += self[i, k] * other[k, j]
                out[i, j] = s
        return out

    def __mul__(self, other):
        if isinstance(other, Matrix):
            return self.__matmul__(other)
        # scalar multiplication
        return Matrix(self.rows, self.cols,
                      [[x * other for x in row] for row in self.data])

    __rmul__ = __mul__

    def tolist(self):
        return [list(r) for r in self.data]


def setup(a, b):
    return Matrix.from_list(a.tolist()), Matrix.from_list(b.tolist())


def kernel(a, b):
    return (a * b).tolist()
