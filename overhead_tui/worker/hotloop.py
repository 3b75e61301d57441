"""What a compiled rung's hot loop does per iteration, read from its own assembly.

One iteration of the loop (``cc -S`` of a C rung with its flags, numba's ``inspect_asm``;
AT&T x86 syntax) gives the compiled-rung model (``analysis.compiled``) its counted
quantities:

* ``instructions``: every instruction of the loop body, its own compare and branch included
  (labels and assembler directives are not instructions);
* ``fp_instructions`` / ``fma_instructions`` / ``flops``: FP multiply, add, subtract and FMA
  instructions (double, single and AVX-512 FP16 half precision), lanes × 2 flops for an FMA,
  lanes for the others; the lower-precision dot products (``vdpbf16ps``, ``vpdpbusd``,
  ``vpdpwssd``) count as FMAs of lanes × their products × 2 operations, and name their
  ``precision_peak`` instruction family (``family``);
* ``loads`` / ``stores``: instructions reading / writing memory (an FP op with a memory source
  is a load; ``lea`` only computes an address), and the width of each (``load_widths`` /
  ``store_widths``, bits: a zmm, ymm or packed xmm operand 512, 256 or 128; a scalar FP op,
  a broadcast — ``vbroadcastsd``, an embedded ``{1toN}`` — or a general register 64);
* ``shuffles``: register-to-register vector shuffles (``vpermpd``, ``vinsertf64x4``, a
  ``vbroadcastsd`` from a register …), which share ports with the FMAs on some cores;
* ``chains``: the loop-carried dependency chains: a vector register an FP instruction both
  reads and writes *before anything else wrote it in the iteration* (an accumulator: ``addsd
  %xmm0, %xmm1``, ``vfmadd231pd a, b, acc``), each chain the kinds of FP operation on it
  (``fadd``, ``fmul``, ``fma``); and a sum kept in memory, loaded, added to and stored back
  in the iteration (``stack_fadd``): a stack slot (``-O0`` code's running sum), or any address
  the loop does not move (no register in it is written in the loop) that an FP instruction
  reads and the register it wrote is stored back to (XLA keeps a ``fori_loop``'s carry in
  its buffers: ``vfmadd213sd (%rdx), %xmm0, %xmm1; vmovsd %xmm1, (%rdx)``).  A register
  refilled by a load first (``vmovupd (%rcx), %ymm1; vfmadd213pd (%rdx), %ymm2, %ymm1``)
  carries nothing.
  Integer chains (the loop counter) are not read: they are 1-cycle adds the FP chains hide,
  except ``-O0``'s counter in a stack slot, which is not longer than its FP sum's chain.

The hot loop is the backward-branch loop densest in flops per line and, among equals, the
one with the widest FP instructions: the vectorised main loop rather than its scalar
remainder or an outer loop around both, and a register-tiled micro-kernel (12 ymm FMAs an
iteration) rather than the 512-bit loop ``-march=native`` makes of its edge (one zmm FMA
between a load and a store), which is wider but runs only at the matrix's edges.
"""

from __future__ import annotations

import re
from dataclasses import replace

from overhead_tui.kit.simd import ASM_LABEL, asm_loops
from overhead_tui.summary.measured import GeneratedCode

_X86_FP = re.compile(
    r"^\s*(v?fn?m(?:add|sub)(?:132|213|231)|v?(?:mul|add|sub))([ps])([sdh])\s+(.*)$"
)
_X86_DOT = re.compile(r"^\s*(vdpbf16ps|vpdpbusds?|vpdpwssds?)\s+(.*)$")
"""The lower-precision dot-product instructions: into each 32-bit lane they add 2 products
of bfloat16 pairs (``vdpbf16ps``), 4 of u8 × s8 quads (``vpdpbusd``) or 2 of s16 pairs
(``vpdpwssd``): lanes × 4, 8 and 4 operations (Intel SDM vol. 2)."""
DOT_OPS_PER_LANE = {"vdpbf16ps": 4, "vpdpbusd": 8, "vpdpbusds": 8, "vpdpwssd": 4, "vpdpwssds": 4}
FAMILIES = {"vdpbf16ps": "avx512_bf16", "vpdpbusd": "avx512_vnni", "vpdpbusds": "avx512_vnni"}
"""The ``precision_peak`` probe's instruction family of each dot product (``ph``: avx512_fp16)."""


_SHUFFLE = re.compile(
    r"^v?p?(?:perm|shuf|unpck|insert|extract|broadcast|movddup|movs[lh]dup|alignr|align[dq])"
)
"""Vector shuffles: permutes, shuffles, unpacks, lane inserts and extracts, broadcasts,
duplicating moves and aligns (Intel SDM vol. 2; blends are not among them: they run on the
ALU ports of every core).  With a memory source a broadcast or an insert is a load (counted
there), not a shuffle."""


def _is_shuffle(mnemonic: str, operands: list[str]) -> bool:
    """A register-to-register vector shuffle (:data:`_SHUFFLE`)."""
    if not _SHUFFLE.match(mnemonic) or not operands:
        return False
    sources = operands[:-1]
    if mnemonic.startswith(("vbroadcast", "vpbroadcast", "vinsert", "vpinsr", "pinsr")):
        return not any("(" in x for x in sources)
    return "(" not in operands[-1] or mnemonic.startswith(("vextract", "vpextr", "pextr"))


def _is_fp(line: str) -> bool:
    """An FP (or lower-precision dot-product) arithmetic instruction."""
    return bool(_X86_FP.match(line) or _X86_DOT.match(line))


_VECTOR = re.compile(r"%[xyz]mm(\d+)")
_STACK_SLOT = re.compile(r"^-?\d*\(%r[bs]p\)$")
_REGISTER = re.compile(r"%([a-z][a-z0-9]*)")
_NO_WRITE = re.compile(r"^(?:cmp|test|v?u?comis|bt|j|push|nop|prefetch)")
"""Mnemonics whose last operand is read, not written (compares, tests, jumps, pushes)."""
_FAMILIES = {
    "rax": ("eax", "ax", "al", "ah"),
    "rbx": ("ebx", "bx", "bl", "bh"),
    "rcx": ("ecx", "cx", "cl", "ch"),
    "rdx": ("edx", "dx", "dl", "dh"),
    "rsi": ("esi", "si", "sil"),
    "rdi": ("edi", "di", "dil"),
    "rbp": ("ebp", "bp", "bpl"),
    "rsp": ("esp", "sp", "spl"),
}
_ALIASES = {alias: family for family, aliases in _FAMILIES.items() for alias in aliases}


def _register(name: str) -> str:
    """One name per general register: ``rdi`` for %edi, %di, %dil; ``r10`` for %r10d."""
    if numbered := re.fullmatch(r"(r\d+)[dwb]?", name):
        return numbered.group(1)
    return _ALIASES.get(name, name)


def _written_registers(instructions: list[tuple[str, list[str]]]) -> set[str]:
    """The general registers the loop writes (an instruction's last register operand)."""
    written: set[str] = set()
    for mnemonic, operands in instructions:
        if operands and not _NO_WRITE.match(mnemonic) and "(" not in operands[-1]:
            written.update(_register(r) for r in _REGISTER.findall(operands[-1]))
    return written


def _memory_slot(operand: str, moved: set[str]) -> bool:
    """A stack slot, or a memory operand at an address the loop does not move."""
    if _STACK_SLOT.match(operand):
        return True
    return "(" in operand and not {_register(r) for r in _REGISTER.findall(operand)} & moved


_SCALAR_ACCESS = re.compile(r"^v?(?:p?broadcast|mov[dq]$|cvtt?s)|s[sd]$")
"""Mnemonics whose memory operand is one scalar whatever the register: broadcasts, scalar
moves and conversions, scalar FP arithmetic (``…sd``/``…ss``)."""


def _access_bits(mnemonic: str, operands: list[str]) -> int:
    """Bits one memory access of this instruction moves (module docstring)."""
    if _SCALAR_ACCESS.search(mnemonic) or any("{1to" in x for x in operands):
        return 64
    registers = " ".join(x for x in operands if "(" not in x)
    for name, bits in (("%zmm", 512), ("%ymm", 256), ("%xmm", 128)):
        if name in registers:
            return bits
    return 64


def _operands(text: str) -> list[str]:
    """AT&T operands, split at the commas outside parentheses."""
    parts, depth, current = [], 0, ""
    for char in text:
        if char == "," and depth == 0:
            parts.append(current.strip())
            current = ""
            continue
        depth += char == "("
        depth -= char == ")"
        current += char
    if current.strip():
        parts.append(current.strip())
    return parts


def _instructions(lines: list[str]) -> list[tuple[str, list[str]]]:
    """(mnemonic, operands) of each instruction line (comments, labels, directives dropped)."""
    found = []
    for line in lines:
        code = line.split("#", 1)[0].strip()
        if not code or ASM_LABEL.match(code) or code.startswith("."):
            continue
        mnemonic, *rest = code.split(None, 1)
        found.append((mnemonic, _operands(rest[0]) if rest else []))
    return found


def _vector(operand: str) -> str | None:
    """``v3`` for %xmm3/%ymm3/%zmm3 (one architectural register), None for anything else."""
    match = _VECTOR.fullmatch(operand.strip())
    return f"v{match.group(1)}" if match else None


def _kind(op: str) -> str:
    if "fm" in op or "fnm" in op:
        return "fma"
    return "fmul" if "mul" in op else "fadd"


def profile_loop(lines: list[str]) -> GeneratedCode:
    """Counts and loop-carried chains of one loop body (lines from its label to its branch)."""
    instructions = _instructions(lines)
    fp = fmas = widest = 0
    flops = 0.0
    load_widths: list[int] = []
    store_widths: list[int] = []
    written: set[str] = set()
    carried: dict[str, dict[str, int]] = {}
    slot_loaded: dict[str, str] = {}  # memory slot -> register it was loaded into
    slot_chains: set[str] = set()
    moved = _written_registers(instructions)
    family = ""
    shuffles = 0
    for mnemonic, operands in instructions:
        shuffles += _is_shuffle(mnemonic, operands)
        # lea computes an address and touches no memory (Intel SDM vol. 2, LEA)
        memory = [] if mnemonic.startswith("lea") else [
            i for i, x in enumerate(operands) if "(" in x]  # fmt: skip
        if memory:
            writes_memory = memory[-1] == len(operands) - 1 and len(operands) > 1
            bits = _access_bits(mnemonic, operands)
            if writes_memory:
                store_widths.append(bits)
            if not writes_memory or mnemonic.startswith(("add", "sub", "inc", "dec")):
                load_widths.append(bits)
        dest = _vector(operands[-1]) if operands else None
        text = f"{mnemonic} {', '.join(operands)}"
        match = _X86_FP.match(text)
        dot = _X86_DOT.match(text)
        if dot is not None:  # acc += dot(a, b): an accumulating chain, like an FMA's
            fp += 1
            fmas += 1
            bits = 512 if "zmm" in text else 256 if "ymm" in text else 128
            widest = max(widest, bits)
            flops += bits // 32 * DOT_OPS_PER_LANE[dot.group(1)]
            family = FAMILIES.get(dot.group(1), family)
            if dest is not None:
                carried.setdefault(dest, {}).setdefault("fma", 0)
                carried[dest]["fma"] += 1
            continue
        if match is None:
            if operands and dest is not None:
                written.add(dest)
                if "(" in operands[0] and _memory_slot(operands[0], moved):
                    slot_loaded[operands[0]] = dest
            elif len(operands) == 2 and _memory_slot(operands[1], moved):
                source = _vector(operands[0])
                loaded = slot_loaded.get(operands[1])
                # a stack slot as before; elsewhere the register the slot's value went to
                if (
                    source is not None
                    and loaded is not None
                    and (loaded == source or _STACK_SLOT.match(operands[1]))
                ):
                    slot_chains.add(operands[1])
            continue
        op, packed, precision, _ = match.groups()
        for operand in operands[:-1]:  # an FP op reading a slot: its result carries the slot
            if "(" in operand and dest is not None and _memory_slot(operand, moved):
                slot_loaded[operand] = dest
        fp += 1
        lanes = 1
        if precision == "h":
            family = "avx512_fp16"
        if packed == "p":
            bits = 512 if "zmm" in match.group(4) else 256 if "ymm" in match.group(4) else 128
            lanes = bits // {"d": 64, "s": 32, "h": 16}[precision]
            widest = max(widest, bits)
        kind = _kind(op)
        fmas += kind == "fma"
        flops += lanes * (2 if kind == "fma" else 1)
        if dest is None:
            continue
        # sources: every operand for FMAs and two-operand SSE; the first two of VEX ops
        three_operand = op.startswith("v") and kind != "fma" and len(operands) == 3
        sources = operands[:-1] if three_operand else operands
        if dest in (_vector(x) for x in sources) and dest not in written:
            chain = carried.setdefault(dest, {})
            chain[kind] = chain.get(kind, 0) + 1
        elif dest in carried:  # a later op on an accumulator continues its chain
            carried[dest][kind] = carried[dest].get(kind, 0) + 1
        else:
            written.add(dest)
    chains = list(carried.values())
    chains += [{"stack_fadd": 1} for _ in sorted(slot_chains)] if fp else []
    return GeneratedCode(
        fp_instructions=fp,
        fma_instructions=fmas,
        width_bits=widest or None,
        flops_per_instruction=flops / fp if fp else None,
        instructions=len(instructions),
        flops=flops,
        loads=len(load_widths),
        stores=len(store_widths),
        load_widths=load_widths,
        store_widths=store_widths,
        chains=chains,
        shuffles=shuffles,
        family=family,
    )


def hot_loop(asm: str, families: tuple[str, ...] = ()) -> GeneratedCode:
    """The counts of the hot loop of AT&T x86 assembly (module docstring), as the summary's
    ``GeneratedCode`` (its ``method`` left for the caller to name); with ``families`` (a
    lower-precision dtype's instruction families) only loops of those are candidates: one
    source may hold a kernel per precision."""
    lines, locs = _without_debug_lines(asm)
    # FP instructions up to each line: a loop without one is no candidate, and is not read
    # (a Cython module's 40,000 lines hold 2,600 loops, nearly all of them in its utility code)
    fp_before = [0]
    for line in lines:
        fp_before.append(fp_before[-1] + _is_fp(line.split("#", 1)[0]))
    best: tuple[tuple[float, int, int], GeneratedCode, int | None] | None = None
    for start, end in asm_loops(lines):
        if fp_before[end + 1] == fp_before[start]:
            continue
        found = profile_loop(lines[start : end + 1])
        if families and found.family not in families:
            continue
        rank = (found.flops / (end - start + 1), found.width_bits or 0, start - end)
        if found.fp_instructions and (best is None or rank > best[0]):
            best = (rank, found, locs[end])
    if best is None:
        return GeneratedCode() if families else profile_loop(lines)
    return replace(best[1], hot_loop=True, loop_line=best[2])


_LOC = re.compile(r"^\s*\.loc\s+(\d+)\s+(\d+)")
"""A ``.loc`` directive (``cc -g``): the file number and source line of the code that follows
(file 1: the compiled source itself)."""
_DEBUG_LABEL = re.compile(r"^\.L(?:VL|BB|BE|BI|FB|FE|VU)\d+:")
"""Labels ``-g`` adds for its location lists and lexical blocks (never a jump's target)."""


def _without_debug_lines(asm: str) -> tuple[list[str], list[int | None]]:
    """The assembly's lines without what ``-g`` adds (``.loc`` directives, debug labels), so
    a loop reads the same with debug information as without; and beside each line the source
    line of the compiled file in effect there (None before any)."""
    lines: list[str] = []
    locs: list[int | None] = []
    current: int | None = None
    for line in asm.splitlines():
        if match := _LOC.match(line):
            if match.group(1) == "1":  # a header's inlined code keeps the source line
                current = int(match.group(2))
            continue
        if _DEBUG_LABEL.match(line):
            continue
        lines.append(line)
        locs.append(current)
    return lines, locs
