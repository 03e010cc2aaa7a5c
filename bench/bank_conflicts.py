"""Static shared-memory bank conflicts of a PTX kernel.

The integer instructions of the kernel are evaluated in text order for the
32 lanes of warp 0 (%tid.x = lane; other ids, block ids and parameters are
unknown, and so is whatever depends on them), twice, so that a loop's
address registers hold the values of one of its first iterations. Each ld.shared / st.shared whose
address is known on every lane is split into the phases the hardware serves
together (32 lanes for accesses of up to 4 bytes, 16 for 8-byte and 8 for
16-byte ones); a phase takes as many wavefronts as the most distinct 4-byte
words any of the 32 banks holds. ldmatrix.xN counts as N phases of eight
16-byte rows, whose addresses lanes 0..8N-1 give. An access is
conflict-free when it takes one wavefront per phase.
"""

import re

INSTRUCTION = re.compile(r"^\s*(?:@!?%\w+\s+)?([a-z][\w.:]*)\s+(.*?);")
ADDRESS = re.compile(r"\[\s*([%\w$.]+)\s*(?:\+\s*(-?\d+))?\s*\]")
WIDTHS = {"b8": 1, "u8": 1, "s8": 1, "b16": 2, "u16": 2, "s16": 2, "f16": 2,
          "bf16": 2, "b32": 4, "u32": 4, "s32": 4, "f32": 4, "b64": 8,
          "u64": 8, "s64": 8, "f64": 8}
LANES = range(32)
BANKS = 32


def _bits(parts):
    for part in reversed(parts):
        if part in WIDTHS:
            return WIDTHS[part] * 8
    return 64


class _Lanes:
    """Register values per lane (None: unknown)."""

    def __init__(self):
        self.values = {"%tid.x": list(LANES), "%laneid": list(LANES)}

    def get(self, operand):
        operand = operand.strip()
        if operand in self.values:
            return self.values[operand]
        if re.fullmatch(r"-?(0[xX][0-9a-fA-F]+|\d+)", operand):
            return [int(operand, 0)] * 32
        if re.fullmatch(r"[A-Za-z_$][\w$]*", operand):
            return [0] * 32  # a symbol: shared buffers start at bank 0
        return None

    def evaluate(self, opcode, operands):
        parts = opcode.split(".")
        name = parts[0]
        if not operands or not operands[0].startswith("%"):
            return
        destination = operands[0]
        sources = [self.get(operand) for operand in operands[1:]]
        self.values.pop(destination, None)
        mask = (1 << (_bits(parts) * (2 if "wide" in parts else 1))) - 1
        if any(source is None for source in sources):
            return
        unary = {"mov": lambda a: a, "cvt": lambda a: a, "cvta": lambda a: a,
                 "neg": lambda a: -a, "not": lambda a: ~a}
        binary = {"add": lambda a, b: a + b, "sub": lambda a, b: a - b,
                  "mul": lambda a, b: a * b, "shl": lambda a, b: a << b,
                  "shr": lambda a, b: a >> b, "and": lambda a, b: a & b,
                  "or": lambda a, b: a | b, "xor": lambda a, b: a ^ b,
                  "min": min, "max": max}
        if name in unary and len(sources) == 1:
            result = [unary[name](a) for a in sources[0]]
        elif name in binary and len(sources) == 2:
            result = [binary[name](a, b) for a, b in zip(*sources)]
        elif name == "mad" and len(sources) == 3:
            result = [a * b + c for a, b, c in zip(*sources)]
        else:
            return
        self.values[destination] = [value & mask for value in result]


def _wavefronts(addresses, width):
    """The wavefronts of one access of `width` bytes per lane (of the lanes
    that `addresses` lists), and the phases it needs at least."""
    per_phase = 32 // max(1, width // 4)
    total = phases = 0
    for first in range(0, len(addresses), per_phase):
        words = {(address // 4) + k for address in addresses[first:
                                                             first + per_phase]
                 for k in range(max(1, width // 4))}
        banks = {}
        for word in words:
            banks[word % BANKS] = banks.get(word % BANKS, 0) + 1
        total += max(banks.values())
        phases += 1
    return total, phases


def shared_accesses(lines):
    """(line index, 'ld' or 'st', bytes per lane, wavefronts, phases) of
    each shared access of the kernel body `lines` whose address is known;
    wavefronts None where it is not."""
    lanes = _Lanes()
    # Twice: the second time, registers used above their definition (loop
    # counters of blocks placed after their uses) hold the first pass's.
    for _ in range(2):
        accesses = _walk(lines, lanes)
    return accesses


def _addressed_wavefronts(lanes, text, width, lane_count=None):
    """The (wavefronts, phases) of the access whose operands are `text`,
    from the first `lane_count` lanes' addresses; (None, None) where the
    address register's lane values are unknown."""
    address = ADDRESS.search(text)
    base = lanes.get(address.group(1)) if address else None
    if base is None:
        return None, None
    offset = int(address.group(2) or 0)
    return _wavefronts([value + offset for value in base[:lane_count]], width)


def _walk(lines, lanes):
    accesses = []
    for index, line in enumerate(lines):
        match = INSTRUCTION.match(line.split("//")[0])
        if not match:
            continue
        opcode, text = match.groups()
        parts = opcode.split(".")
        if parts[0] == "ldmatrix":
            # ldmatrix.xN: lanes 0..8N-1 give the addresses of the 16-byte
            # rows of the N 8x8 matrices, eight rows (one matrix) a phase.
            count = next(int(part[1:]) for part in parts
                         if re.fullmatch(r"x[124]", part))
            wavefronts, phases = _addressed_wavefronts(lanes, text, 16,
                                                       8 * count)
            accesses.append((index, "ld", 16, wavefronts, phases))
            for register in re.findall(r"%\w+", text.split("[")[0]):
                lanes.values.pop(register, None)
            continue
        if parts[0] in ("ld", "st") and "shared" in parts:
            vector = next((int(part[1:]) for part in parts
                           if re.fullmatch(r"v\d", part)), 1)
            width = vector * _bits(parts) // 8
            wavefronts, phases = _addressed_wavefronts(lanes, text, width)
            accesses.append((index, parts[0], width, wavefronts, phases))
            if parts[0] == "ld":
                for register in re.findall(r"%\w+", text.split("[")[0]):
                    lanes.values.pop(register, None)
            continue
        operands = [operand.strip() for operand in text.split(",")]
        lanes.evaluate(opcode, operands)
    return accesses


def summarize(accesses):
    """Loads, 128-bit loads, stores, conflicted accesses, unknown ones and
    the worst conflict (wavefronts per phase) of `accesses`."""
    loads = [a for a in accesses if a[1] == "ld"]
    known = [a for a in accesses if a[3] is not None]
    return {"loads": len(loads),
            "wide_loads": sum(1 for a in loads if a[2] == 16),
            "stores": len(accesses) - len(loads),
            "conflicted": sum(1 for a in known if a[3] > a[4]),
            "unknown": len(accesses) - len(known),
            "worst": max((a[3] / a[4] for a in known), default=1.0)}


def main(argv):
    """Prints the shared accesses of the PTX file argv[1] (one kernel), each
    with its wavefronts and phases, then the summary."""
    lines = open(argv[1]).read().splitlines()
    accesses = shared_accesses(lines)
    for index, _, width, wavefronts, phases in accesses:
        opcode = INSTRUCTION.match(lines[index].split("//")[0]).group(1)
        cost = ("unknown address" if wavefronts is None else
                f"{wavefronts} wavefronts in {phases} phases")
        print(f"{index + 1}: {opcode} ({width} bytes a lane): {cost}")
    print(summarize(accesses))


if __name__ == "__main__":
    import sys
    main(sys.argv)
