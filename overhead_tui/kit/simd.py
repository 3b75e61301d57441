"""The instruction sets the peak kernels are written for, their accumulators, and their asm.

Used by the ``simd_fma`` probe (through ``kit.probing``) so that its peak holds on any CPU:

* :data:`ISA_TARGETS` / :func:`isa_target` — each ISA's vector width, registers and FMA;
  :func:`best_isa` — the one a CPU's flags give.
* :func:`choose_accumulators` — independent vector chains: at least FMA latency × FMA pipes
  to keep every pipe busy, at most the registers left after the operands.
* :func:`analyse_asm` / :func:`asm_warning` — the hot loop of the compiled kernel: packed
  FMAs per register width, scalar FMAs, and stack loads/stores (register spills).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field

FMA_LATENCY = 4
"""Cycles from an FMA's inputs to its result: 4 on Zen 1-5, Skylake and later (5 on Haswell)."""
FMA_PIPES = 2
"""FMA pipes per core on every x86 CPU in ``cpu.py``'s table."""
RESERVED_REGISTERS = 4
"""Vector registers left for the operands (x, y broadcast) and a temporary."""


@dataclass(frozen=True)
class SimdTarget:
    """An instruction set the peak kernels are written for.

    Attributes:
        isa: ``avx512``, ``avx2``, ``sse`` or ``neon``.
        width_bits: its vector registers' width (bits).
        registers: vector registers it has.
        fma: it has fused multiply-add.
    """

    isa: str
    width_bits: int
    registers: int
    fma: bool


ISA_TARGETS = {
    "avx512": SimdTarget("avx512", 512, 32, True),
    "avx2": SimdTarget("avx2", 256, 16, True),
    "sse": SimdTarget("sse", 128, 16, False),
    "neon": SimdTarget("neon", 128, 32, True),
}
"""Width and registers of each ISA (Intel SDM vol. 1 §15.1: 32 zmm; §14.1: 16 ymm on x86-64;
Arm ARM A1.4: 32 128-bit V registers); x86 SSE/AVX without FMA3 multiplies and adds apart."""


def isa_target(isa: str) -> SimdTarget:
    """The :class:`SimdTarget` of an ISA name (KeyError for an unknown one)."""
    return ISA_TARGETS[isa]


PEAK_ISA_VARIABLE = "OVERHEAD_TUI_PEAK_ISA"
"""Names an older ISA for the peak kernels than the CPU's best (``avx2``, ``sse``)."""
ISA_LEVELS = {"sse": 1, "avx2": 2, "avx512": 3, "neon": 4}
"""The peak kernels' ISAs, x86 ones in order of width (``neon`` stands alone)."""


def chosen_isa(best: str, forced: str | None) -> tuple[str, str]:
    """(ISA the peak kernels run, where the choice came from): the CPU's ``best``, or the one
    :data:`PEAK_ISA_VARIABLE` names (stripped, lower case; blank: unset) when the CPU has it.

    Raises:
        ValueError: the value names no kernel, or one this CPU lacks (the message has the fix).
    """
    forced = (forced or "").strip().lower()
    if not forced:
        return best, "host"
    older = [x for x in ISA_LEVELS if (x == "neon") == (best == "neon")]
    older = [x for x in older if ISA_LEVELS[x] <= ISA_LEVELS[best]]
    if forced not in ISA_LEVELS:
        raise ValueError(
            f"{PEAK_ISA_VARIABLE}={forced!r} names no peak kernel; fix: unset "
            f"{PEAK_ISA_VARIABLE} or give one this CPU has: {', '.join(older)}"
        )
    if forced not in older:
        raise ValueError(
            f"{PEAK_ISA_VARIABLE}={forced}: this CPU's best is {best}; fix: unset it, or give "
            f"{' or '.join(older)}"
        )
    return forced, f"{PEAK_ISA_VARIABLE}={forced}"


def best_isa(flags: list[str] | set[str]) -> str:
    """The ISA the peak kernels choose for a CPU with these /proc/cpuinfo flags (x86
    ``flags`` or ARM ``Features``): what the probe's ``isa_level()`` answers at run time
    through ``__builtin_cpu_supports`` (a test checks the two agree on the host)."""
    have = set(flags)
    if "asimd" in have or "neon" in have:
        return "neon"
    if "avx512f" in have:
        return "avx512"
    if {"avx2", "fma"} <= have:
        return "avx2"
    return "sse"


@dataclass(frozen=True)
class Accumulators:
    """How many independent accumulators a multiply-add block keeps.

    Attributes:
        vectors: independent vector chains (registers holding accumulators).
        lanes: elements per vector register.
        needed: FMA latency × pipes: fewer chains leave a pipe idle.
    """

    vectors: int
    lanes: int
    needed: int

    @property
    def elements(self) -> int:
        """Accumulator elements in the block: vectors × lanes."""
        return self.vectors * self.lanes


def choose_accumulators(
    width_bits: int,
    registers: int,
    itemsize: int,
    latency: int = FMA_LATENCY,
    pipes: int = FMA_PIPES,
    reserved: int = RESERVED_REGISTERS,
) -> Accumulators:
    """Independent accumulators for a vector width, register count and element size (bytes).

    Twice latency × pipes chains (so a chain issued late does not idle a pipe), capped at the
    registers minus ``reserved``: 16 zmm on AVX-512, 12 ymm on AVX2, 12 xmm on SSE.
    """
    lanes = max(1, width_bits // (8 * itemsize))
    needed = latency * pipes
    vectors = max(1, min(2 * needed, registers - reserved))
    return Accumulators(vectors, lanes, needed)


_REGISTER_BITS = {"zmm": 512, "ymm": 256, "xmm": 128, "v": 128}
ASM_LABEL = re.compile(r"^\s*([.\w$]+):")
_JUMP = re.compile(r"^\s*(?:j[a-z]+|b(?:\.?[a-z]{2})?|cbn?z|tbn?z)\s+(?:[^,]+,\s*)*([.\w$]+)\s*$")
"""A jump: x86 ``jne``; ARM ``b``, ``b.ne`` (LLVM) or ``bne`` (GCC), ``cbz``, ``tbnz``."""
_X86_FMA = re.compile(r"^\s*v?fn?m(?:add|sub)(?:132|213|231)?([ps])([sd])\b(.*)$")
_ARM_FMA = re.compile(r"^\s*(fmla|fmls|fn?madd|fn?msub)\s+(.*)$")
_X86_STACK = re.compile(r"\(%rsp[,)]|\[rsp\b")
_X86_FRAME = re.compile(r"\(%rbp[,)]|\[rbp\b")
_ARM_STACK = re.compile(r"\[sp\b")
_MEMORY = re.compile(r"\(%\w+[,)]|\[")
_NO_ACCESS = re.compile(r"^\s*(lea\w?|prefetch\w*|nop\w?)\b")


@dataclass(frozen=True)
class AsmReport:
    """The hot loop of a compiled kernel.

    Attributes:
        packed_fma: packed FMAs in the hot loop by register (``zmm``, ``ymm``, ``xmm``, ``v``).
        scalar_fma: scalar FMAs (``vfmadd231sd`` ...) in the hot loop.
        stack_accesses: loads/stores addressing the stack in the hot loop (spills).
        memory_accesses: instructions with a memory operand in the hot loop (stack included):
            accumulators kept in registers need none.
        hot_loop: a loop holding FMAs was found (else the counts cover the whole text).
    """

    packed_fma: dict[str, int] = field(default_factory=dict)
    scalar_fma: int = 0
    stack_accesses: int = 0
    memory_accesses: int = 0
    hot_loop: bool = False

    @property
    def width_bits(self) -> int | None:
        """The widest register packed FMAs use (bits), or None without packed FMAs."""
        return max((_REGISTER_BITS[r] for r, n in self.packed_fma.items() if n), default=None)

    @property
    def fma_on_widest(self) -> int:
        """Packed FMAs on the widest register used."""
        widest = self.width_bits
        return sum(n for r, n in self.packed_fma.items() if _REGISTER_BITS[r] == widest)

    @property
    def spills(self) -> bool:
        """The hot loop reads or writes the stack."""
        return self.stack_accesses > 0


def _fma(line: str) -> tuple[str | None, bool] | None:
    """(register kind of a packed FMA, or None; True for scalar) of one line, or None."""
    if match := _X86_FMA.match(line):
        packed, operands = match.group(1) == "p", match.group(3)
        if not packed:
            return None, True
        return next((r for r in ("zmm", "ymm") if r in operands), "xmm"), False
    if match := _ARM_FMA.match(line):  # fmla/fmls: vector; fmadd/fmsub: scalar
        return ("v", False) if match.group(1).startswith("fml") else (None, True)
    return None


def _count(lines: list[str], frame_pointer: bool) -> AsmReport:
    packed: dict[str, int] = {}
    scalar = stack = memory = 0
    for line in lines:
        code = line.split("#", 1)[0].split("//", 1)[0]
        if ASM_LABEL.match(code) or code.lstrip().startswith("."):
            continue
        found = _fma(code)
        if found is not None:
            kind, is_scalar = found
            if is_scalar or kind is None:
                scalar += 1
            else:
                packed[kind] = packed.get(kind, 0) + 1
        on_frame = frame_pointer and _X86_FRAME.search(code)
        if on_frame or _X86_STACK.search(code) or _ARM_STACK.search(code):
            stack += 1
        if _MEMORY.search(code) and not _NO_ACCESS.match(code):
            memory += 1
    return AsmReport(packed, scalar, stack, memory)


def asm_loops(lines: list[str]) -> Iterator[tuple[int, int]]:
    """(first, last) line index of each loop: a label and a later jump back to it."""
    labels: dict[str, int] = {}
    for index, line in enumerate(lines):
        if label := ASM_LABEL.match(line):
            labels[label.group(1)] = index
            continue
        jump = _JUMP.match(line.split("#", 1)[0])
        if jump is not None and jump.group(1) in labels:
            yield labels[jump.group(1)], index


def analyse_asm(asm: str) -> AsmReport:
    """FMAs and stack accesses of the hot loop: the backward-branch loop holding most FMAs.

    A loop is the text from a label to a later jump back to it; among loops with the same
    number of FMAs the shortest wins.  ``(%rbp)`` counts as the stack only where the text sets
    up a frame pointer (``mov %rsp, %rbp``); elsewhere rbp is an ordinary register.
    """
    lines = asm.splitlines()
    frame_pointer = bool(re.search(r"movq?\s+%rsp,\s*%rbp|mov\s+rbp,\s*rsp", asm))
    best: tuple[int, int, AsmReport] | None = None
    for start, index in asm_loops(lines):
        report = _count(lines[start : index + 1], frame_pointer)
        fmas = sum(report.packed_fma.values()) + report.scalar_fma
        if fmas and (best is None or (fmas, start - index) > (best[0], best[1])):
            best = (fmas, start - index, report)
    if best is None:
        whole = _count(lines, frame_pointer)
        return AsmReport(whole.packed_fma, whole.scalar_fma)
    found = best[2]
    return AsmReport(
        found.packed_fma, found.scalar_fma, found.stack_accesses, found.memory_accesses, True
    )


def asm_warning(report: AsmReport, target: SimdTarget) -> str | None:
    """What keeps the kernel from the SIMD peak, in one line, or None when the asm looks right."""
    problems = []
    if not report.packed_fma:
        problems.append(
            "no packed FMA in the compiled kernel"
            + ("" if target.fma else f" (the target {target.isa} has no FMA)")
        )
    elif report.width_bits and report.width_bits < target.width_bits:
        problems.append(
            f"packed FMAs on {report.width_bits}-bit registers while the kernel's ISA "
            f"({target.isa}) has {target.width_bits}-bit ones"
        )
    if report.scalar_fma:
        problems.append(f"{report.scalar_fma} scalar FMAs in the hot loop")
    if report.spills:
        problems.append(
            f"{report.stack_accesses} stack loads/stores in the hot loop (register spills)"
        )
    elif report.memory_accesses:
        problems.append(
            f"{report.memory_accesses} memory loads/stores in the hot loop "
            "(accumulators not kept in registers)"
        )
    if not report.hot_loop and report.packed_fma:
        problems.append("no loop around the FMAs found in the asm")
    return "; ".join(problems) or None


_OBJDUMP_LINE = re.compile(r"^\s*([0-9a-f]+):\s+(\S.*)$")
_OBJDUMP_JUMP = re.compile(r"^(j[a-z]+)\s+([0-9a-f]+)\s+<[^>]*>$")


def labelled(disassembly: str) -> str:
    """``objdump -d --no-show-raw-insn`` text (AT&T) as assembler text: every jump target gets
    a label (``.L2d0:``) and every jump names it, so :func:`hot_loop` reads machine code that
    came without its assembly (XLA's kernels) as it reads gcc's."""
    rows = [(m.group(1), m.group(2).strip()) for m in map(_OBJDUMP_LINE.match,
            disassembly.splitlines()) if m]  # fmt: skip
    targets: set[str] = set()
    code = []
    for address, text in rows:
        if jump := _OBJDUMP_JUMP.match(text):
            targets.add(jump.group(2))
            text = f"{jump.group(1)} .L{jump.group(2)}"
        code.append((address, text))
    lines = []
    for address, text in code:
        if address in targets:
            lines.append(f".L{address}:")
        lines.append(f"\t{text}")
    return "\n".join(lines)


def disassemble(paths: list[str]) -> str | None:
    """The labelled disassembly (:func:`labelled`) of object files, one after the other; None
    without ``objdump`` (binutils) or when it fails."""
    import shutil
    import subprocess

    objdump = shutil.which("objdump")
    if objdump is None or not paths:
        return None
    try:
        proc = subprocess.run(
            [objdump, "-d", "--no-show-raw-insn", *paths],
            capture_output=True, text=True, timeout=60, check=False,
        )  # fmt: skip
    except (OSError, subprocess.TimeoutExpired):
        return None
    return labelled(proc.stdout) if proc.returncode == 0 else None
