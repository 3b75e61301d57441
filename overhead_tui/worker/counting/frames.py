"""The Python frames a counted kernel call enters, from ``sys.setprofile``: Python calls and
generator resumptions, builtin (C) calls by module, the frames entered from C code rather than
pushed inline (``Counters.c_entries``) and the generators started (``Counters.generators``).
``counting.opcodes`` drives it beside its instruction count and names the results.
"""

from __future__ import annotations

import dis
import inspect
import sys
from collections import Counter
from typing import TYPE_CHECKING, Protocol

from overhead_tui.worker.counting.instructions import base_opname, instruction_at
from overhead_tui.worker.counting.sites import Site, SiteRecorder

if TYPE_CHECKING:
    from types import CodeType, FrameType


class Sequence(Protocol):
    """What :func:`entries_from_c` reads of ``opcodes._Sequence``: executions by (code,
    offset)."""

    offsets: Counter[tuple[CodeType, int]]


class Tally(Protocol):
    """What :func:`entries_from_c` reads of ``opcodes._Tally``: an instruction's adaptive
    name."""

    def opname(self, code: CodeType, offset: int) -> str: ...


_IGNORED_C_CALLS = frozenset({"setprofile", "settrace", "set_events", "set_local_events"})


def _c_function_module(fn: object) -> str:
    module = getattr(fn, "__module__", None)
    if module is None:
        owner = getattr(fn, "__self__", None)
        module = type(owner).__module__ if owner is not None else ""
    return str(module or "")


_RESUMABLE = inspect.CO_GENERATOR | inspect.CO_COROUTINE | inspect.CO_ASYNC_GENERATOR

INLINED_ENTRIES = frozenset(
    {"BINARY_SUBSCR_GETITEM", "LOAD_ATTR_PROPERTY", "LOAD_ATTR_GETATTRIBUTE_OVERRIDDEN",
     "CALL_ALLOC_AND_ENTER_INIT", "FOR_ITER_GEN", "SEND_GEN"}
)  # fmt: skip
INLINED_ENTRIES |= {"CALL_FUNCTION_EX"} if sys.version_info >= (3, 12) else set()
"""Specialised instructions that push a Python frame in the eval loop itself, as a Python
call does (CPython 3.11-3.13 ``bytecodes.c``): a frame they enter is no entry from C.
``CALL_FUNCTION_EX`` (``f(*args)``) joins them from 3.12: a recursion 30,000 deep through
``f(*args)`` runs on 3.12.1 and 3.13.0 and overflows the C stack on 3.11.7 (2026-12-07), as
a recursion through ``map`` does on all three."""


class Profile:
    """A ``sys.setprofile`` function counting Python calls and C calls by module, noting
    the sites (``counting.sites``) that a Python frame was entered from, and where each
    Python frame was entered (for :func:`entries_from_c`)."""

    def __init__(self, sites: SiteRecorder | None = None) -> None:
        self.python_calls = 0
        self.c_calls: Counter[str] = Counter()
        self.sites = sites
        self.entries: Counter[tuple[int, CodeType, int, bool, bool]] = Counter()
        """(id of the site owning it or 0, caller code, caller instruction offset, a C call of the
        caller's was running, the callee is a dunder) → frames entered so."""
        self.owners: dict[int, Site] = {}
        """The sites owning entries, by id."""
        self.starts: Counter[int] = Counter()
        """id of the site owning it or 0 → generators started (their first resumption)."""
        self._c_running: list[FrameType] = []
        self._kernel_seen = False

    def __call__(self, frame: FrameType, event: str, arg: object) -> None:
        sites = self.sites
        if event == "call":
            self.python_calls += 1
            if sites is not None:
                sites.entered(frame)  # first: a frame that starts a site's timed code is its
            self._entered(frame)
            code = frame.f_code
            if code.co_flags & _RESUMABLE and frame.f_lasti == first_resume(code):
                owner = sites.owner if sites is not None else None
                if owner is not None:
                    self.owners[id(owner)] = owner
                self.starts[id(owner) if owner else 0] += 1
        elif event == "return" and sites is not None:
            sites.left(frame)
        elif event == "c_call" and getattr(arg, "__name__", "") not in _IGNORED_C_CALLS:
            self._c_running.append(frame)
            self.c_calls[_c_function_module(arg)] += 1
            if sites is not None and sites.owner is not None:
                sites.owner.inside_c[_c_function_module(arg)] += 1
        elif event in ("c_return", "c_exception") and self._c_running:
            self._c_running.pop()

    def _entered(self, frame: FrameType) -> None:
        parent, code = frame.f_back, frame.f_code
        if parent is None or code.co_flags & _RESUMABLE:  # a resumption: priced as an item
            return
        if not self._kernel_seen:  # the kernel's own call, by the counter
            self._kernel_seen = True
            return
        running = bool(self._c_running) and self._c_running[-1] is parent
        dunder = code.co_name.startswith("__") and code.co_name.endswith("__")
        owner = self.sites.owner if self.sites is not None else None
        if owner is not None:
            self.owners[id(owner)] = owner
        where = instruction_at(parent.f_code, parent.f_lasti)
        self.entries[(id(owner) if owner else 0, parent.f_code, where, running, dunder)] += 1


_FIRST_RESUME: dict[CodeType, int] = {}


def first_resume(code: CodeType) -> int:
    """The offset of a code object's first ``RESUME``: where a generator's frame stands at
    its first resumption (3.11-3.13: after ``RETURN_GENERATOR`` and ``POP_TOP``), -1 without
    one."""
    found = _FIRST_RESUME.get(code)
    if found is None:
        found = next((i.offset for i in dis.get_instructions(code) if i.opname == "RESUME"), -1)
        _FIRST_RESUME[code] = found
    return found


def generators_started(profile: Profile) -> int:
    """Generators started (``Counters.generators``) outside timed sites (those are in their
    timing)."""
    return sum(
        count
        for owner, count in profile.starts.items()
        if owner == 0 or not profile.owners[owner].timeable
    )


def entries_from_c(profile: Profile, sequence: Sequence, tally: Tally) -> int:
    """Python frames entered from C code (``Counters.c_entries``), from where each was
    entered: by a C function of its caller's that was running (``map``, ``sorted``), through
    a type's slot (any instruction but a call and the specialised forms that push the frame
    themselves, :data:`INLINED_ENTRIES`), or by a call that entered more frames than it ran
    (a type such as ``list`` draining a ``map``) or entered a dunder (``__init__`` of a type
    call).  Frames under a timed site are in its timing."""

    def timed(owner: int) -> bool:
        return owner != 0 and profile.owners[owner].timeable

    found = 0
    by_call: Counter[tuple[CodeType, int]] = Counter()
    for (owner, code, offset, _running, _dunder), count in profile.entries.items():
        if not timed(owner):
            by_call[(code, offset)] += count
    for (owner, code, offset, running, dunder), count in profile.entries.items():
        if timed(owner):
            continue
        opname = tally.opname(code, offset)
        if opname in INLINED_ENTRIES:
            continue
        drives = by_call[(code, offset)] > sequence.offsets[(code, offset)]
        if base_opname(opname) != "CALL" or running or dunder or drives:
            found += count
    return found
