"""Object-oriented version with a @dataclass Vector that knows its dot product and a
Matrix made of row Vectors, as written in OOP-in-Python course notebooks."""

from dataclasses import dataclass
from typing import List

TITLE = "dataclass Vector and Matrix"
RUNG = 58
LAYERS = ("call_overhead", "dynamic_dispatch", "interpreter_dispatch", "boxing", "scalar_compute")
DEFAULT_SIZE = 64
MAX_SIZE = 256
DTYPES = ("float64",)


@dataclass
class Vector:
    values: List[float]

    def __len__(self):
        return len(self.values)

    def __getitem__(self, index):
        return self.values[index]

    def dot(self, other: "Vector") -> float:
        total = 0.0
        for x, y in zip(self.values, other.values):
            total += x * y
        return total


@dataclass
class Matrix:
    rows: List[Vector]

    @classmethod
    def from_lists(cls, data):
        return cls([Vector(list(r)) for r in data])

    @property
    def n_rows(self):
        return len(self.rows)

    @property
    def n_cols(self):
        return len(self.rows[0]) if self.rows else 0

    def column(self, j: int) -> Vector:
        return Vector([row[j] for row in self.rows])

    def transpose(self) -> "Matrix":
        return Matrix([self.column(j) for j in range(self.n_cols)])

    def __matmul__(self, other: "Matrix") -> "Matrix":
        cols = other.transpose().rows
        return Matrix([Vector([row.dot(col) for col in cols]) for row in self.rows])

    def to_lists(self):
        return [list(row.values) for row in self.rows]


def setup(a, b):
    return Matrix.from_lists(a.tolist()), Matrix.from_lists(b.tolist())


def kernel(a, b):
    return (a @ b).to_lists()
