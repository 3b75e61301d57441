"""A failed compiled-Python build says in its first line what is wrong and where in SOURCE
(``kit.pybuild.diagnostic``), from the output each tool writes."""

from __future__ import annotations

import pytest

from overhead_tui.kit.pybuild import diagnostic

MODULE = "_overhead_mine_0123abcd"

PYTHRAN = """Traceback (most recent call last):
  File "/venv/lib/python3.11/site-packages/pythran/frontend.py", line 17, in raw_parse
    return ast.parse(code)
  File "<unknown>", line 3
    def kernel(a, b)
                    ^
SyntaxError: expected ':'
"""
CYTHON = f"""Error compiling Cython file:
------------------------------------------------------------
cdef int x =
             ^
------------------------------------------------------------
{MODULE}.pyx:2:13: Expected an identifier or literal
Traceback (most recent call last):
Cython.Compiler.Errors.CompileError: {MODULE}.pyx
"""
MYPYC = f'{MODULE}.py:4: error: Incompatible types in assignment (expression has type "str")\n'
GCC = f"{MODULE}.c:120:5: error: 'x' undeclared (first use in this function)\n"


@pytest.mark.parametrize(
    ("output", "said"),
    [
        (CYTHON, "SOURCE:2:13: Expected an identifier or literal"),
        (MYPYC, 'SOURCE:4: error: Incompatible types in assignment (expression has type "str")'),
        (PYTHRAN, "SOURCE:3: SyntaxError: expected ':'"),
        (GCC, f"{MODULE}.c:120:5: error: 'x' undeclared (first use in this function)"),
        ("something went wrong\n", None),
    ],
)
def test_the_line_that_says_what_is_wrong_is_found(output, said):
    assert diagnostic(output, MODULE) == said


def test_a_declared_rung_s_error_names_the_file_s_line(tmp_path):
    """SOURCE's line 2 is the line after ``SOURCE = r\"\"\"``: in this file, line 5."""
    from overhead_tui.kit.builds import in_file

    path = tmp_path / "mine.py"
    path.write_text('TITLE = "t"\nRUNG = 1\n\nSOURCE = r"""\ncdef int x =\n"""\n')
    said = "Cython build failed: SOURCE:2:13: Expected an identifier or literal\nmore"
    assert in_file(said, str(path)) == (
        "Cython build failed: mine.py:5:13: Expected an identifier or literal\nmore"
    )
    assert in_file(said, str(tmp_path / "gone.py")) == said  # unreadable: as it was
    assert in_file("no place named", str(path)) == "no place named"
    c_said = "BuildError: /usr/bin/cc failed:\nrung.c: In function\nrung.c:2:5: error: x"
    assert in_file(c_said, str(path)).endswith("\nrung.c: In function\nmine.py:5:5: error: x")
