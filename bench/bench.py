"""Vx benchmarks: writes bench/RESULTS.md (run through scripts/bench.sh).

1. Compile time: vx-opt --vx-to-ptx on generated modules of N spawns against
   mlir-opt running the upstream pipeline on the equivalent hand-lowered
   scf.parallel input, in the same run.
2. Generated code: each kernel of bench/kernels through vx-opt --vx-to-ptx and
   ptxas, against bench/cuda/<kernel>.cu (expert CUDA for the CTA kernels)
   through nvcc -O3 -arch=sm_90 -ptx and the same ptxas: registers, spills,
   stack and shared memory from `ptxas -v`, SASS instruction counts from the
   cubin's .text.<kernel> section (no cuobjdump on this machine), the fma
   density of the innermost loop from the PTX; the expert kernels checked
   against the C++ references by bench/cuda/check.cu on the CPU emulator.
3. CPU: each kernel through --vx-to-llvm="openmp=true", run by mlir-runner
   and compiled ahead of time by clang -O3, against bench/cpu/<kernel>.cpp
   through clang++ -O3 -fopenmp, with the same inputs; best and mean wall
   time over repeated runs on all cores, the best on one thread, and the
   instructions per call (callgrind), which the load does not change;
   outputs cross-checked.
4. GPU: the results of scripts/gpu-bench.sh run on a GPU machine
   (bench/gpu-results.json, its DIR/results.json copied), when present.

    python3 bench/bench.py VX_OPT [--sizes 10,30,100,200,300,1000]
        [--repeats 3] [--cpu-repeats 10] [--out bench/RESULTS.md]
        [--gpu-results bench/gpu-results.json] [--compile-only]
        [--cpu-only KERNELS] [--codegen-rows KERNELS] [--no-instructions]
"""

import argparse
import json
import math
import os
import platform
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import time

import bank_conflicts
import peak_model

BENCH = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(BENCH)
LLVM_BIN = "/usr/lib/llvm-22/bin"
LLVM_LIB = "/usr/lib/llvm-22/lib"
CHIP = "sm_90"
THREADS_PER_BLOCK = 256
KERNELS = ["vector_add", "transpose", "softmax", "matmul", "attention"]
UPSTREAM_PIPELINE = (
    "builtin.module(func.func(gpu-map-parallel-loops,"
    "convert-parallel-loops-to-gpu),gpu-kernel-outlining,"
    "gpu-lower-to-nvvm-pipeline{cubin-chip=%s cubin-features=+ptx80 "
    "cubin-format=isa})" % CHIP)


def run(command, **kwargs):
    result = subprocess.run(command, capture_output=True, text=True, **kwargs)
    if result.returncode != 0:
        sys.exit("bench: %s failed (%d):\n%s" % (
            " ".join(command), result.returncode, result.stderr[-4000:]))
    return result


# --- 1. Compile time -------------------------------------------------------

# The computation of each function: out[i, j] = sum over k of
# in[k, i, j] * scale, with k an arbitrary axis (a loop in the kernel).
BODY = """\
%first = arith.cmpi eq, %k, %c0 : index
%zero = arith.constant 0.0 : f32
%old = memref.load %out[%i, %j] : memref<64x64xf32>
%acc = arith.select %first, %zero, %old : f32
%x = memref.load %in[%k, %i, %j] : memref<8x64x64xf32>
%y = arith.mulf %x, %scale : f32
%s = arith.addf %acc, %y : f32
memref.store %s, %out[%i, %j] : memref<64x64xf32>
"""
HEADER = """
func.func @f{n}(%in: memref<8x64x64xf32>, %out: memref<64x64xf32>) {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c64 = arith.constant 64 : index
  %scale = arith.constant {scale} : f32
"""
# As a spawn, and as the upstream GPU mapping takes it: the parallel dims an
# scf.parallel, the arbitrary dim an scf.for inside.
FORMS = {
    "vx": (HEADER + """\
  vx.spawn on tensor_core grid [64, 64, 8] semantics [parallel, parallel, arbitrary] {{
    %i = vx.grid_index 0
    %j = vx.grid_index 1
    %k = vx.grid_index 2
{body}  }}
  return
}}
""", 4),
    "scf": (HEADER + """\
  scf.parallel (%i, %j) = (%c0, %c0) to (%c64, %c64) step (%c1, %c1) {{
    scf.for %k = %c0 to %c8 step %c1 {{
{body}    }}
  }}
  return
}}
""", 6),
}


def generated_module(form, size):
    template, indent = FORMS[form]
    body = "".join(" " * indent + line + "\n" for line in BODY.splitlines())
    return "".join(template.format(n=n, scale="%d.0" % (n + 2), body=body)
                   for n in range(size))


class Timing:
    """The best wall time of a command over the repeats, and the processor
    time (user + system, its subprocesses included) of that run."""

    def __init__(self):
        self.wall = None
        self.processor = None
        self.stdout = None

    def add(self, command):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        result = run(command)
        wall = time.perf_counter() - start
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        if self.wall is None or wall < self.wall:
            self.wall = wall
            self.processor = (after.ru_utime - before.ru_utime +
                              after.ru_stime - before.ru_stime)
            self.stdout = result.stdout


def compile_time(vx_opt, sizes, repeats, work):
    """Rows (size, vx Timing, upstream Timing, load averages): the two
    commands alternate, so that both see the same load on a shared machine;
    the 1-minute load average before and after each size."""
    rows = []
    for size in sizes:
        paths = {}
        for form in FORMS:
            paths[form] = os.path.join(work, "%s_%d.mlir" % (form, size))
            with open(paths[form], "w") as module:
                module.write(generated_module(form, size))
        commands = (
            [vx_opt, paths["vx"], "--vx-to-ptx=chip=%s" % CHIP],
            [os.path.join(LLVM_BIN, "mlir-opt"), paths["scf"],
             "--pass-pipeline=" + UPSTREAM_PIPELINE])
        timings = (Timing(), Timing())
        load_before = os.getloadavg()[0]
        for _ in range(repeats):
            for command, timing in zip(commands, timings):
                timing.add(command)
        load_after = os.getloadavg()[0]
        # Both must have produced one PTX binary per spawn.
        for label, timing in zip(("vx-opt", "mlir-opt"), timings):
            count = len(re.findall(r"gpu\.binary @", timing.stdout))
            if count != size:
                sys.exit("bench: %s made %d binaries for %d spawns"
                         % (label, count, size))
        rows.append((size, timings[0], timings[1], (load_before, load_after)))
    return rows


# --- 2. Generated code against nvcc ----------------------------------------

SECTION = re.compile(r"\]\s+\.text\.(\w+)\s+PROGBITS\s+\w+\s+(\w+)\s+(\w+)")
# The low 12 bits of a Hopper SASS instruction are its opcode (with the
# operand form): the ones the notes of RESULTS.md refer to (the shared and
# local accesses identified on kernels that make no other kind).
FFMA_OPCODE, LDS_OPCODE = 0x223, 0x984
OPCODES = {0x981: "LDG", 0x986: "STG", 0x209: "FMNMX", 0x308: "MUFU",
           0x221: "FADD", 0x220: "FMUL", 0x223: "FFMA", 0x947: "BRA",
           0x984: "LDS", 0x388: "STS", 0x983: "LDL", 0x387: "STL"}
NOP_OPCODE = 0x918  # the section padding
# A spawn that states its CTA size (`threads N`, VX_SPEC 2.1) is mapped
# without the pipeline option; the others get this many threads per block.
THREADS_CLAUSE = re.compile(r"\bthreads\s+\d+\s*\{")


def sass_opcodes(cubin, kernel):
    """The opcodes of .text.<kernel>, less the trailing NOP padding (each
    SASS instruction is 16 bytes; sections are padded to 128 bytes)."""
    sections = run(["readelf", "-S", "-W", cubin]).stdout
    for name, offset, size in SECTION.findall(sections):
        if name == kernel:
            with open(cubin, "rb") as binary:
                binary.seek(int(offset, 16))
                text = binary.read(int(size, 16))
            opcodes = [int.from_bytes(text[i:i + 8], "little") & 0xFFF
                       for i in range(0, len(text), 16)]
            while opcodes and opcodes[-1] == NOP_OPCODE:
                opcodes.pop()
            return opcodes
    sys.exit("bench: no .text.%s in %s" % (kernel, cubin))


# PTX instructions that compute (as opposed to moving data, comparing or
# branching), by the opcode before the first dot.
ARITHMETIC = {"add", "sub", "mul", "mad", "mul24", "mad24", "fma", "div",
              "rem", "neg", "abs", "min", "max", "rcp", "sqrt", "rsqrt",
              "ex2", "lg2", "sin", "cos", "tanh", "shl", "shr", "and", "or",
              "xor", "not", "popc", "clz", "bfe", "bfi", "brev", "sad"}
PTX_LABEL = re.compile(r"^\s*(\$?\w+):")
PTX_BRANCH = re.compile(r"^\s*(?:@!?%\w+\s+)?bra(?:\.uni)?\s+(\$?\w+);")
PTX_OPCODE = re.compile(r"^\s*(?:@!?%\w+\s+)?([a-z][\w.]*)")


def ptx_entry(ptx, kernel):
    """The lines of the body of `.entry kernel` in a PTX text."""
    lines = ptx.splitlines()
    for index, line in enumerate(lines):
        if re.match(r"\s*\.(visible\s+)?\.entry\s+%s\b" % kernel, line):
            depth, body = 0, []
            for text in lines[index:]:
                depth += text.count("{") - text.count("}")
                body.append(text)
                if "}" in text and depth == 0:
                    return body
    sys.exit("bench: no .entry %s in the PTX" % kernel)


def inner_loop_fma(ptx, kernel):
    """The fma density of the kernel's hot innermost loop, from its PTX: a
    loop is a branch back to an earlier label with arithmetic between
    (spin waits are not loops here), innermost when its range holds no
    other loop; of the innermost loops, the one with the most
    arithmetic instructions. Returns (fma, arithmetic), or None when the
    kernel has no loop."""
    body = ptx_entry(ptx, kernel)
    labels = {}
    loops = []
    for index, line in enumerate(body):
        label = PTX_LABEL.match(line)
        if label:
            labels[label.group(1)] = index
        branch = PTX_BRANCH.match(line)
        if branch and branch.group(1) in labels:
            loops.append((labels[branch.group(1)], index))
    def count(first, last):
        fma = arithmetic = 0
        for line in body[first:last + 1]:
            opcode = PTX_OPCODE.match(line.split("//")[0])
            if not opcode:
                continue
            parts = opcode.group(1).split(".")
            if parts[0] not in ARITHMETIC:
                continue
            arithmetic += 1
            # mad.f32 is PTX's older spelling of a fused multiply-add.
            if parts[0] == "fma" or (parts[0] == "mad" and
                                     parts[-1] in ("f32", "f64")):
                fma += 1
        return fma, arithmetic
    # Spin loops without arithmetic (an mbarrier wait) do not count: the
    # loop around one is the kernel's.
    counts = {loop: count(*loop) for loop in loops}
    loops = [loop for loop in loops if counts[loop][1]]
    innermost = [(first, last) for first, last in loops
                 if not any(first <= other_first and other_last <= last and
                            (other_first, other_last) != (first, last)
                            for other_first, other_last in loops)]
    best = None
    for loop in innermost:
        if best is None or counts[loop][1] > best[1]:
            best = counts[loop]
    return best


# Why vx is behind nvcc where it is, from reading both sides' PTX and the
# opcode counts below; RESULTS.md prints these for kernels over the target.
BEHIND = {
    "transpose": "vx indices are 64-bit `index` values (MLIR's device "
                 "default, and what memrefs over 2^31 elements need): each "
                 "address is a 64-bit row base plus a 64-bit column offset, "
                 "where the `int` reference forms the element index in 32 "
                 "bits and widens it once. Two more registers, no more "
                 "instructions.",
}
TARGET = 1.1
# The fma density an inner loop of multiply-adds should reach (issue 18).
FMA_TARGET = 0.85


def fma_fraction(usage):
    """The fma density of a kernel's inner loop, 0 without a loop."""
    if usage["fma"] is None:
        return 0.0
    fma, arithmetic = usage["fma"]
    return fma / max(arithmetic, 1)


# Why vx's CPU code is slower where it is (the AOT binary's optimized IR).
CPU_BEHIND = {
    "matmul": "the CTA kernel's blocking, not its vectorization: each "
              "thread's 8x8 block of C is 16 four-wide accumulators, which "
              "LLVM keeps in registers across the kk loop together with 8 "
              "broadcast values of A and 2 vectors of B, more than the 16 "
              "xmm registers of x86-64's baseline SSE (no -march on either "
              "side), so the loop body spends 46 `movaps` copies and 14 "
              "`shufps` on 16 `mulps` + 16 `addps`; the reference's i-k-j "
              "loop streams a row of C through memory at about one "
              "instruction per multiply-add of four lanes. The blocking "
              "that a GPU thread needs (registers, shared-memory reuse) is "
              "the kernel's, and vx-to-llvm keeps the kernel's loop order.",
}


def opcode_differences(vx, nvcc, count=4):
    """The opcodes whose counts differ most between the two kernels."""
    names = set(vx) | set(nvcc)
    tally = sorted(names, key=lambda op: -abs(vx.count(op) - nvcc.count(op)))
    return ", ".join("%s %d / %d" % (OPCODES.get(op, "0x%03x" % op),
                                     vx.count(op), nvcc.count(op))
                     for op in tally[:count])


def ptxas_usage(log):
    registers = int(re.search(r"Used (\d+) registers", log).group(1))
    smem = re.search(r"(\d+) bytes smem", log)
    frame, stores, loads = map(int, re.search(
        r"(\d+) bytes stack frame, (\d+) bytes spill stores, "
        r"(\d+) bytes spill loads", log).groups())
    return {"registers": registers, "stack": frame, "spills": stores + loads,
            "smem": int(smem.group(1)) if smem else 0}


def threads_per_block(text):
    """The threads-per-block option for a kernel's text: none for spawns
    with a `threads` clause (the clause sets their CTA size)."""
    return None if THREADS_CLAUSE.search(text) else THREADS_PER_BLOCK


def vx_gpu_options(kernel):
    """The vx-to-ptx options of a benchmark kernel."""
    with open(os.path.join(BENCH, "kernels", kernel + ".mlir")) as source:
        threads = threads_per_block(source.read())
    return "chip=%s" % CHIP + (" threads-per-block=%d" % threads
                               if threads else "")


def assemble(ptx, kernel, cubin):
    """ptxas -O3 -v on a PTX file: the usage, the SASS opcodes of the
    kernel and the fma density of its innermost loop."""
    usage = ptxas_usage(run(["ptxas", "-O3", "-arch=" + CHIP, "-v", ptx,
                             "-o", cubin]).stderr)
    usage["opcodes"] = sass_opcodes(cubin, kernel)
    usage["sass"] = len(usage["opcodes"])
    with open(ptx) as text:
        source = text.read()
    usage["fma"] = inner_loop_fma(source, kernel)
    usage["shared accesses"] = bank_conflicts.shared_accesses(
        ptx_entry(source, kernel))
    usage["shared"] = bank_conflicts.summarize(usage["shared accesses"])
    return usage


def dynamic_shared_memory(module):
    """The bytes of dynamic shared memory that the launch of a lowered
    module (vx-to-ptx's output, one launch) asks for, 0 without any."""
    size = re.search(r"dynamic_shared_memory_size (%\w+)", module)
    if not size:
        return 0
    value = re.search(re.escape(size.group(1)) +
                      r" = llvm\.mlir\.constant\((\d+) : i32\)", module)
    return int(value.group(1))


def codegen(vx_opt, work, kernels):
    rows = []
    for kernel in kernels:
        lowered = os.path.join(work, kernel + ".ptx.mlir")
        options = vx_gpu_options(kernel)
        run([vx_opt, os.path.join(BENCH, "kernels", kernel + ".mlir"),
             "--vx-to-ptx=" + options, "-o", lowered])
        run([sys.executable, os.path.join(ROOT, "test", "Inputs",
                                          "extract_ptx.py"), lowered, work])
        vx = assemble(os.path.join(work, kernel + "_kernel.ptx"),
                      kernel + "_kernel",
                      os.path.join(work, kernel + "_vx.cubin"))
        with open(lowered) as module:
            vx["smem"] += dynamic_shared_memory(module.read())
        # nvcc's PTX through the same ptxas: what `nvcc -O3 -cubin` does.
        nvcc_ptx = os.path.join(work, kernel + "_nvcc.ptx")
        run(["nvcc", "-O3", "-arch=" + CHIP, "-ptx",
             os.path.join(BENCH, "cuda", kernel + ".cu"), "-o", nvcc_ptx])
        nvcc = assemble(nvcc_ptx, kernel,
                        os.path.join(work, kernel + "_nvcc.cubin"))
        rows.append((kernel, options, vx, nvcc))
    return rows


# The kernels whose transfers along an arbitrary dim pipeline (VX_SPEC 2.2),
# and the stage counts compared.
PIPELINED_KERNELS = ["matmul", "attention"]
STAGE_COUNTS = [1, 2, 3, 4]
DYNAMIC_SMEM = re.compile(r"dynamic_shared_memory_size %c(\d+)_i32")
CP_ASYNC_COPY = re.compile(r"^\s*(?:@!?%\w+\s+)?cp\.async\.c[ag]\.", re.M)
CP_ASYNC_WAIT = re.compile(r"cp\.async\.wait_group\s+(\d+);")
TMA_LOAD = re.compile(r"cp\.async\.bulk\.tensor")


def pipelined(vx_opt, work, kernels):
    """The pipelined kernels among `kernels` at each stage count: ptxas
    usage, the CTA's dynamic shared memory, and the cp.async copies and
    waits of the PTX."""
    rows = []
    for kernel in [name for name in PIPELINED_KERNELS if name in kernels]:
        source = os.path.join(BENCH, "kernels", kernel + ".mlir")
        for stages in STAGE_COUNTS:
            options = vx_gpu_options(kernel) + " stages=%d" % stages
            mapped = run([vx_opt, source, "--convert-vx-to-gpu=" + options])
            smem = int(DYNAMIC_SMEM.search(mapped.stdout).group(1))
            directory = os.path.join(work, "%s_stages%d" % (kernel, stages))
            lowered = directory + ".ptx.mlir"
            run([vx_opt, source, "--vx-to-ptx=" + options, "-o", lowered])
            run([sys.executable, os.path.join(ROOT, "test", "Inputs",
                                              "extract_ptx.py"), lowered,
                 directory])
            ptx = os.path.join(directory, kernel + "_kernel.ptx")
            usage = assemble(ptx, kernel + "_kernel", directory + ".cubin")
            with open(ptx) as text:
                code = text.read()
            usage["dynamic smem"] = smem
            usage["copies"] = len(CP_ASYNC_COPY.findall(code))
            usage["tma"] = len(TMA_LOAD.findall(code))
            usage["waits"] = sorted(set(int(groups) for groups in
                                        CP_ASYNC_WAIT.findall(code)))
            rows.append((kernel, stages, options, usage))
    return rows


def check_cuda_emulated(work):
    """bench/cuda/check.cu built with the CPU emulator (emulate.h): the
    expert kernels against the C++ references. Returns its report lines."""
    binary = os.path.join(work, "check_emulated")
    run(["clang++-22", "-std=c++20", "-O2", "-pthread", "-x", "c++",
         "-include", os.path.join(BENCH, "cuda", "emulate.h"),
         os.path.join(BENCH, "cuda", "check.cu"), "-o", binary])
    return run([binary]).stdout.splitlines()


# --- 3. CPU against clang -O3 -fopenmp -------------------------------------

SIGNATURE = re.compile(r"func\.func @(\w+)\(([^)]*)\)", re.S)
MEMREF = re.compile(r"memref<([0-9x]+)xf32>")


def kernel_signature(kernel):
    with open(os.path.join(BENCH, "kernels", kernel + ".mlir")) as source:
        name, arguments = SIGNATURE.search(source.read()).groups()
    shapes = [tuple(int(d) for d in dims.split("x"))
              for dims in MEMREF.findall(arguments)]
    return name, shapes


def kernel_shapes(kernels):
    """The argument shapes of each of `kernels`."""
    return {kernel: kernel_signature(kernel)[1] for kernel in kernels}


def mlir_driver(name, shapes, repeats):
    """A main that fills the arguments as bench/cpu/harness.h does, times
    `repeats` calls after a warm-up one, and prints the best and mean wall
    seconds, the best processor seconds (`clock()`) and the sum of the last
    argument."""
    lines = ["func.func private @rtclock() -> f64",
             "func.func private @clock() -> i64",
             "func.func @main() {",
             "  %c0 = arith.constant 0 : index",
             "  %c1 = arith.constant 1 : index",
             "  %c7 = arith.constant 7 : index",
             "  %c17 = arith.constant 17 : index",
             "  %f17 = arith.constant 17.0 : f32",
             "  %half = arith.constant 0.5 : f32",
             "  %inf = arith.constant 1.0e30 : f64",
             "  %fzero = arith.constant 0.0 : f64",
             "  %clocks_per_second = arith.constant 1.0e6 : f64",
             "  %%repeats = arith.constant %d : index" % repeats,
             "  %%frepeats = arith.constant %d.0 : f64" % repeats]
    arguments = []
    flats = []
    for index, shape in enumerate(shapes):
        size = math.prod(shape)
        flat = "memref<%dxf32>" % size
        flats.append(flat)
        typed = "memref<%sxf32>" % "x".join(map(str, shape))
        lines += [
            "  %%flat%d = memref.alloc() : %s" % (index, flat),
            "  %%size%d = arith.constant %d : index" % (index, size),
            "  %%bias%d = arith.constant %d : index" % (index, index * 13),
            "  scf.for %%n = %%c0 to %%size%d step %%c1 {" % index,
            "    %m = arith.muli %n, %c7 : index",
            "    %%b = arith.addi %%m, %%bias%d : index" % index,
            "    %r = arith.remui %b, %c17 : index",
            "    %ri = arith.index_cast %r : index to i32",
            "    %rf = arith.sitofp %ri : i32 to f32",
            "    %q = arith.divf %rf, %f17 : f32",
            "    %v = arith.subf %q, %half : f32",
            "    memref.store %%v, %%flat%d[%%n] : %s" % (index, flat),
            "  }"]
        buffer = "%%flat%d" % index
        if len(shape) == 1:
            arguments.append((buffer, typed))
        else:
            lines.append(
                "  %%arg%d = memref.expand_shape %s [[%s]] output_shape "
                "[%s] : %s into %s" % (
                    index, buffer, ", ".join(map(str, range(len(shape)))),
                    ", ".join(map(str, shape)), flat, typed))
            arguments.append(("%%arg%d" % index, typed))
    call = "call @%s(%s) : (%s) -> ()" % (
        name, ", ".join(a for a, _ in arguments),
        ", ".join(t for _, t in arguments))
    last = len(shapes) - 1
    lines += [
        "  " + call,
        "  %best, %total, %best_cpu = scf.for %it = %c0 to %repeats"
        " step %c1 iter_args(%b = %inf, %t = %fzero, %bc = %inf)"
        " -> (f64, f64, f64) {",
        "    %cpu_start = func.call @clock() : () -> i64",
        "    %start = func.call @rtclock() : () -> f64",
        "    func." + call,
        "    %end = func.call @rtclock() : () -> f64",
        "    %cpu_end = func.call @clock() : () -> i64",
        "    %cpu_ticks = arith.subi %cpu_end, %cpu_start : i64",
        "    %cpu_f = arith.sitofp %cpu_ticks : i64 to f64",
        "    %cpu_seconds = arith.divf %cpu_f, %clocks_per_second : f64",
        "    %bc1 = arith.minimumf %bc, %cpu_seconds : f64",
        "    %seconds = arith.subf %end, %start : f64",
        "    %b1 = arith.minimumf %b, %seconds : f64",
        "    %t1 = arith.addf %t, %seconds : f64",
        "    scf.yield %b1, %t1, %bc1 : f64, f64, f64",
        "  }",
        "  %mean = arith.divf %total, %frepeats : f64"]
    lines += [
        "  %%outsize = arith.constant %d : index" % math.prod(shapes[last]),
        "  %sum = scf.for %n = %c0 to %outsize step %c1"
        " iter_args(%s = %fzero) -> f64 {",
        "    %%x = memref.load %%flat%d[%%n] : %s" % (last, flats[last]),
        "    %xd = arith.extf %x : f32 to f64",
        "    %s1 = arith.addf %s, %xd : f64",
        "    scf.yield %s1 : f64",
        "  }",
        "  vector.print %best : f64",
        "  vector.print %mean : f64",
        "  vector.print %best_cpu : f64",
        "  vector.print %sum : f64"]
    for index, flat in enumerate(flats):
        lines.append("  memref.dealloc %%flat%d : %s" % (index, flat))
    lines += ["  return", "}"]
    return "\n".join(lines) + "\n"


def timings(text, label):
    """The four numbers a timing main prints: best and mean wall seconds per
    call, best processor seconds per call, the output's sum."""
    numbers = [float(line) for line in text.split()]
    if len(numbers) != 4:
        sys.exit("bench: %s printed %r" % (label, text))
    return numbers


def driven_kernel(kernel, repeats):
    """The kernel's module with a timing main appended."""
    name, shapes = kernel_signature(kernel)
    with open(os.path.join(BENCH, "kernels", kernel + ".mlir")) as body:
        text = body.read()
    return text + mlir_driver(name, shapes, repeats)


def mlir_runner(*libraries):
    return [os.path.join(LLVM_BIN, "mlir-runner"), "-O3", "-e", "main",
            "-entry-point-result=void", "-shared-libs=" + ",".join(
                [os.path.join(LLVM_LIB, "libmlir_runner_utils.so"),
                 os.path.join(LLVM_LIB, "libmlir_c_runner_utils.so")] +
                list(libraries))]


def check_sum(kernel, where, got, expected):
    if abs(got - expected) > 1e-3 * max(1.0, abs(expected)):
        sys.exit("bench: %s computes %g %s and %g in the C++ reference"
                 % (kernel, got, where, expected))


# The functions that callgrind counts in: the body of the kernel's OpenMP
# parallel region and what it calls (libm's expf, the loop-bound calls), the
# same work on both sides; vx's regions are LLVM's `<function>..omp_par`,
# clang's `<function>.omp_outlined`.
VX_REGION, REFERENCE_REGION = "*..omp_par*", "*.omp_outlined*"
CALLGRIND_TOTAL = re.compile(r"Collected : (\d+)")


def instructions_per_call(command, region, calls):
    """The instructions that `command` (one OpenMP thread, `calls` kernel
    calls) executes in `region`, per call, counted by callgrind: a count
    that the machine's load does not change, where wall time does."""
    environment = dict(os.environ, OMP_NUM_THREADS="1")
    result = run(["valgrind", "--tool=callgrind",
                  "--callgrind-out-file=/dev/null", "--collect-atstart=no",
                  "--toggle-collect=" + region] + command, env=environment)
    total = CALLGRIND_TOTAL.search(result.stderr)
    if not total or not int(total.group(1)):
        sys.exit("bench: callgrind counted nothing in %s of %s"
                 % (region, command[0]))
    return int(total.group(1)) / calls


def vx_aot_binary(vx_opt, kernel, repeats, path):
    """The kernel with a `repeats`-call main through vx-to-llvm, compiled
    ahead of time by clang -O3; returns the lowered module (for the JIT)."""
    lowered = run([vx_opt, "--vx-to-llvm=openmp=true"],
                  input=driven_kernel(kernel, repeats)).stdout
    llvm_ir = path + ".ll"
    run([os.path.join(LLVM_BIN, "mlir-translate"), "--mlir-to-llvmir",
         "-o", llvm_ir], input=lowered)
    run(["clang-22", "-O3", "-Wno-override-module", llvm_ir, "-o", path,
         "-L" + LLVM_LIB, "-lmlir_c_runner_utils", "-lmlir_runner_utils",
         "-lomp", "-lm", "-Wl,-rpath," + LLVM_LIB])
    return lowered


# Runs of each side on one thread, alternating.
ONE_THREAD_ROUNDS = 3


def cpu(vx_opt, repeats, work, kernels, count_instructions):
    """Per kernel: `timings` on all cores through the JIT, the AOT binary
    and the C++ reference; the best processor time of a call on one thread
    (AOT, C++), which other processes do not lengthen by taking the core;
    instructions per call (AOT, C++) or None. Returns the rows and the
    1-minute load averages before and after."""
    all_cores = dict(os.environ, OMP_NUM_THREADS=str(os.cpu_count()))
    one_thread = dict(os.environ, OMP_NUM_THREADS="1")
    runner = mlir_runner(os.path.join(LLVM_LIB, "libomp.so"))
    rows = []
    load_before = os.getloadavg()[0]
    for kernel in kernels:
        # The same LLVM IR compiled ahead of time by the reference's compiler
        # and flags: separates vx's code from the JIT's code generation.
        aot_binary = os.path.join(work, kernel + "_vx_cpu")
        lowered = vx_aot_binary(vx_opt, kernel, repeats, aot_binary)
        jit = timings(run(runner, input=lowered, env=all_cores).stdout,
                      kernel + " (vx, mlir-runner)")
        binary = os.path.join(work, kernel + "_cpu")
        run(["clang++-22", "-O3", "-fopenmp",
             os.path.join(BENCH, "cpu", kernel + ".cpp"), "-o", binary])
        row = {"kernel": kernel, "jit": jit}
        commands = {"aot": [aot_binary], "reference": [binary, str(repeats)]}
        for label, command in commands.items():
            row[label] = timings(run(command, env=all_cores).stdout,
                                 "%s (%s)" % (kernel, label))
        # One thread, the two sides alternating so that the load weighs on
        # both alike: the best processor time of a call over the rounds.
        for _ in range(ONE_THREAD_ROUNDS):
            for label, command in commands.items():
                best = timings(run(command, env=one_thread).stdout,
                               "%s (%s, one thread)" % (kernel, label))[2]
                row[label + " thread"] = min(
                    row.get(label + " thread", math.inf), best)
        check_sum(kernel, "through vx and mlir-runner", jit[3],
                  row["reference"][3])
        check_sum(kernel, "through vx and clang", row["aot"][3],
                  row["reference"][3])
        row["instructions"] = None
        if count_instructions:
            # A warm-up call and one timed call on each side.
            counted = os.path.join(work, kernel + "_vx_counted")
            vx_aot_binary(vx_opt, kernel, 1, counted)
            row["instructions"] = (
                instructions_per_call([counted], VX_REGION, 2),
                instructions_per_call([binary, "1"], REFERENCE_REGION, 2))
        rows.append(row)
    return rows, (load_before, os.getloadavg()[0])


# --- 4. GPU execution -------------------------------------------------------

def gpu_results(path):
    """The results.json of a scripts/gpu-bench.sh run, or None."""
    if not path or not os.path.exists(path):
        return None
    with open(path) as source:
        return json.load(source)


# --- Report ----------------------------------------------------------------

def ratio(ours, theirs):
    return "%.2fx" % (ours / theirs)


def tool_version(command, pattern):
    text = run(command).stdout
    match = re.search(pattern, text)
    return match.group(0) if match else text.strip().splitlines()[0]


def compile_section(compile_rows, repeats):
    """Section 1 of RESULTS.md, its lines."""
    out = []
    out.append("## 1. Compile time: `vx-opt --vx-to-ptx` against upstream "
               "`mlir-opt`\n")
    out.append("Modules of N functions with one spawn each (grid [64, 64, 8], "
               "semantics [parallel, parallel, arbitrary]) through "
               "`vx-opt --vx-to-ptx`, against the same functions written as "
               "`scf.parallel` + `scf.for` through `mlir-opt --pass-pipeline="
               "\"%s\"`. Wall time of the whole process, best of %d, the "
               "two commands alternating; both produce N PTX binaries. "
               "Processor time is user + system time of that run, its "
               "threads added up (vx-opt serializes the device modules on "
               "its threads, docs/design.md); load is the 1-minute load "
               "average before and after the size, on %d cores. Measured "
               "%s (`scripts/bench.sh --compile-only` regenerates this "
               "section alone).\n" % (UPSTREAM_PIPELINE, repeats,
                                      os.cpu_count(),
                                      time.strftime("%Y-%m-%d %H:%M UTC",
                                                    time.gmtime())))
    out.append("| spawns | vx-opt (s) | mlir-opt (s) | ratio | vx ms/spawn "
               "| upstream ms/spawn | processor vx / mlir-opt (s) | "
               "processor ratio | load |")
    out.append("| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | "
               "---: |")
    for size, ours, theirs, load in compile_rows:
        out.append("| %d | %.3f | %.3f | %s | %.2f | %.2f | %.2f / %.2f | "
                   "%s | %.1f-%.1f |" % (
                       size, ours.wall, theirs.wall,
                       ratio(ours.wall, theirs.wall), 1000 * ours.wall / size,
                       1000 * theirs.wall / size, ours.processor,
                       theirs.processor,
                       ratio(ours.processor, theirs.processor), *load))
    if len(compile_rows) < 2:
        out.append("")
        return out
    # Growth past process start-up: from the first size of 100 spawns or
    # more (else the second-to-last size) to the last; a log-log slope of 1
    # is linear.
    large_rows = [row for row in compile_rows if row[0] >= 100]
    first = large_rows[0] if len(large_rows) > 1 else compile_rows[-2]
    last = compile_rows[-1]
    out.append("\nGrowth from %d to %d spawns (%.0fx; a log-log slope of "
               "1.00 is linear):\n" % (first[0], last[0], last[0] / first[0]))
    for label, column in (("vx-opt", 1), ("mlir-opt", 2)):
        growth = last[column].wall / first[column].wall
        out.append("- %s: the time grows %.2fx, slope %.2f." % (
            label, growth, math.log(growth) / math.log(last[0] / first[0])))
    out.append("")
    return out


def codegen_table(codegen_rows):
    """The rows of section 2's table, one per kernel."""
    out = []

    def density(usage):
        if usage["fma"] is None:
            return "no loop"
        return "%.0f%% (%d/%d)" % ((100 * fma_fraction(usage),) + usage["fma"])

    for kernel, options, vx, nvcc in codegen_rows:
        out.append("| %s | `%s` | %d / %d | %s | %d / %d | %s | %d / %d | "
                   "%d / %d | %d / %d | %s / %s |" % (
                       kernel, options, vx["registers"], nvcc["registers"],
                       ratio(vx["registers"], nvcc["registers"]), vx["sass"],
                       nvcc["sass"], ratio(vx["sass"], nvcc["sass"]),
                       vx["spills"], nvcc["spills"], vx["stack"],
                       nvcc["stack"], vx["smem"], nvcc["smem"], density(vx),
                       density(nvcc)))
    return out


def shared_memory_table(codegen_rows):
    """The rows of section 2's shared-memory table, one per kernel that
    reads shared memory."""
    out = []

    def conflicts(shared):
        return "%d (%.0fx)" % (shared["conflicted"], shared["worst"])

    def loads_per_fma(usage):
        ffma = usage["opcodes"].count(FFMA_OPCODE)
        lds = usage["opcodes"].count(LDS_OPCODE)
        return "1 per %.1f" % (ffma / lds) if lds and ffma else "-"
    for kernel, _, vx, nvcc in codegen_rows:
        if not (vx["shared"]["loads"] or nvcc["shared"]["loads"]):
            continue
        out.append("| %s | %d (%d) / %d (%d) | %d / %d | %s / %s | %d / %d "
                   "| %s / %s |" % (
                       kernel, vx["shared"]["loads"],
                       vx["shared"]["wide_loads"], nvcc["shared"]["loads"],
                       nvcc["shared"]["wide_loads"], vx["shared"]["stores"],
                       nvcc["shared"]["stores"], conflicts(vx["shared"]),
                       conflicts(nvcc["shared"]), vx["shared"]["unknown"],
                       nvcc["shared"]["unknown"], loads_per_fma(vx),
                       loads_per_fma(nvcc)))
    return out


def stages_table(stage_rows):
    """The rows of section 5's table, one per kernel and stage count."""
    out = []
    for kernel, stages, _, usage in stage_rows:
        out.append("| %s | %d | %d | %d | %d | %d | %d | %d | %d | %s |" % (
            kernel, stages, usage["registers"], usage["sass"],
            usage["spills"], usage["stack"], usage["dynamic smem"],
            usage["tma"], usage["copies"],
            ", ".join(str(groups) for groups in usage["waits"]) or "none"))
    return out


def cpu_section(cpu_rows, load, cpu_repeats):
    """Section 3 of RESULTS.md, its lines."""
    out = ["## 3. CPU: `--vx-to-llvm=\"openmp=true\"` against "
           "`clang++-22 -O3 -fopenmp`\n"]
    counted = all(row["instructions"] for row in cpu_rows)
    out.append(
        "Each kernel with a generated `main` through `vx-opt "
        "--vx-to-llvm=\"openmp=true\"`, run by `mlir-runner -O3` (the JIT) "
        "and, as the same LLVM IR through `mlir-translate` and `clang-22 "
        "-O3` (AOT), against bench/cpu/*.cpp (the C++ references of "
        "bench/reference, `omp parallel for` over elements, rows or heads "
        "and rows) built with `clang++-22 -O3 -fopenmp`. Same inputs; every "
        "output sum agrees with the reference's to 1e-3 relative. Times are "
        "per kernel call after a warm-up call, over %d calls; ratios are vx "
        "/ C++. The JIT and AOT columns run the same IR: where they differ, "
        "the difference is the JIT's code generation. Measured %s, load "
        "(1-minute average) %.1f-%.1f on %d cores.\n\n"
        "The %d-thread wall times follow the load of this shared machine: "
        "when another process takes a core during a call, the static "
        "schedule waits for the thread it preempted, and the call takes as "
        "long as on one thread. The columns the load moves less: one thread "
        "(OMP_NUM_THREADS=1), the best processor time of a call (`clock()`: "
        "time another process holds the core does not count; cache and "
        "memory sharing still do), over %d runs of each side alternating; "
        "and %s. The targets (1.1x) apply to those.\n" % (
            cpu_repeats, time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
            load[0], load[1], os.cpu_count(), os.cpu_count(),
            ONE_THREAD_ROUNDS,
            "instructions per call, counted by `valgrind --tool=callgrind` "
            "on one thread in the body of the kernel's OpenMP parallel "
            "region and what it calls (`..omp_par` for vx, `.omp_outlined` "
            "for clang; libm's expf included)" if counted else
            "no instruction counts in this run"))
    out.append("| kernel | C++, %d threads (ms) | vx, mlir-runner (ms) | "
               "ratio | vx, AOT (ms) | ratio | one thread, processor C++ / "
               "vx, AOT (ms) | ratio | instructions per call C++ / vx, AOT | ratio "
               "|" % os.cpu_count())
    out.append("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | "
               "---: | ---: |")

    def best_mean(numbers):
        return "%.3f / %.3f" % (1000 * numbers[0], 1000 * numbers[1])

    def ratios(numbers, reference):
        return "%s / %s" % (ratio(numbers[0], reference[0]),
                            ratio(numbers[1], reference[1]))

    def instructions(row):
        if not row["instructions"]:
            return "- | -"
        ours, theirs = row["instructions"]
        return "%.2fM / %.2fM | %s" % (theirs / 1e6, ours / 1e6,
                                       ratio(ours, theirs))
    for row in cpu_rows:
        reference = row["reference"]
        out.append("| %s | %s | %s | %s | %s | %s | %.3f / %.3f | %s | %s |"
                   % (row["kernel"], best_mean(reference),
                      best_mean(row["jit"]), ratios(row["jit"], reference),
                      best_mean(row["aot"]), ratios(row["aot"], reference),
                      1000 * row["reference thread"],
                      1000 * row["aot thread"],
                      ratio(row["aot thread"], row["reference thread"]),
                      instructions(row)))

    def behind(row):
        ours, theirs = row["instructions"] or (0, 1)
        return (row["aot thread"] > TARGET * row["reference thread"]
                or ours > TARGET * theirs)
    slow = [row for row in cpu_rows if behind(row)]
    if slow:
        out.append("\nWhere vx's code is behind the C++ (one thread, or "
                   "instructions per call):\n")
    for row in slow:
        out.append("- **%s** (%s, one thread): %s" % (
            row["kernel"], ratio(row["aot thread"],
                                 row["reference thread"]),
            CPU_BEHIND.get(row["kernel"], "Not yet explained.")))
    out.append("")
    return out


def report(compile_rows, codegen_rows, cuda_check, cpu_rows, cpu_load, gpu,
           repeats, cpu_repeats, stage_rows):
    out = []
    out.append("# Vx benchmark results\n")
    out.append("Regenerated by `scripts/bench.sh` (bench/bench.py) on %s, %d "
               "CPU cores; %s, %s, %s. Notes in bench/README.md.\n" % (
                   time.strftime("%Y-%m-%d"), os.cpu_count(),
                   tool_version([os.path.join(LLVM_BIN, "mlir-opt"),
                                 "--version"], r"LLVM version [\d.]+"),
                   tool_version(["nvcc", "--version"], r"release [\d.]+"),
                   platform.platform()))
    out += compile_section(compile_rows, repeats)
    out.append("## 2. Generated code against `nvcc -O3 -arch=%s`\n" % CHIP)
    out.append("bench/kernels/*.mlir through `vx-opt --vx-to-ptx` (the "
               "options column: `threads-per-block=%d` for spawns without a "
               "`threads` clause; a spawn with one runs each grid instance on "
               "a CTA of that many threads, its thread loops spread over them, "
               "VX_SPEC 2.1) and `ptxas -O3 -v`, against bench/cuda/*.cu "
               "through `nvcc -O3 -arch=%s -ptx` and the same `ptxas`. The "
               "CUDA side of matmul, softmax and attention is what a CUDA "
               "expert writes for the same tiles (bench/cuda/*.cu say how: "
               "register blocking, float4 accesses, shared-memory tiles, "
               "warp-shuffle reductions); vector_add and transpose are one "
               "thread per instance, as vx maps them. SASS instructions: the "
               "size of `.text.<kernel>` / 16 bytes, less the trailing NOP "
               "padding (no cuobjdump here). Spills are spill store plus load "
               "bytes; stack is the local frame (private arrays); smem is the "
               "shared memory per CTA (vx: the launch's dynamic shared memory "
               "plus the byte of static shared memory that ptxas reports for "
               "its symbol). Inner-loop fma: of the "
               "arithmetic PTX instructions of the kernel's hot innermost loop "
               "(a branch back to an earlier label enclosing no other loop; "
               "the one with the most arithmetic), the fraction that are "
               "`fma`; `no loop` where the PTX has none (fully "
               "unrolled).\n" % (THREADS_PER_BLOCK, CHIP))
    out.append("| kernel | vx options | registers vx / nvcc | ratio | SASS vx "
               "/ nvcc | ratio | spills vx / nvcc (bytes) | stack vx / nvcc "
               "(bytes) | smem vx / nvcc (bytes) | inner-loop fma vx / nvcc |")
    out.append("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: "
               "| ---: |")

    out += codegen_table(codegen_rows)
    out.append("\nShared memory, per kernel (bench/bank_conflicts.py): the "
               "`ld.shared` of the PTX (how many are 128-bit), its "
               "`st.shared`, the accesses with a static bank conflict (the "
               "integer code evaluated for the 32 lanes of warp 0; an access "
               "takes as many wavefronts per phase of 32, 16 or 8 lanes as "
               "the most distinct words one bank holds; the worst ratio in "
               "parentheses, 1 is conflict-free; unknown where the address "
               "depends on more than the thread id), and the SASS LDS per "
               "FFMA (the main loop, fully unrolled or not, holds nearly all "
               "of both).\n")
    out.append("| kernel | shared loads (128-bit) vx / nvcc | shared stores "
               "vx / nvcc | bank-conflicted (worst) vx / nvcc | unknown vx / "
               "nvcc | LDS per FFMA vx / nvcc |")
    out.append("| --- | ---: | ---: | ---: | ---: | ---: |")

    out += shared_memory_table(codegen_rows)
    out.append("\n" + peak_model.description())
    out += peak_model.table(codegen_rows, kernel_shapes(KERNELS))
    behind = [(kernel, vx, nvcc) for kernel, _, vx, nvcc in codegen_rows
              if vx["spills"] or vx["registers"] > TARGET * nvcc["registers"]
              or vx["sass"] > TARGET * nvcc["sass"]
              or vx["stack"] > nvcc["stack"]
              or fma_fraction(vx) < FMA_TARGET <= fma_fraction(nvcc)]
    if behind:
        out.append("\nWhere vx misses the targets (%.1fx on registers and "
                   "SASS, no spills, no local arrays the expert kernel keeps "
                   "in registers, an inner loop at least %.0f%% fma where the "
                   "expert's is):\n" % (TARGET, 100 * FMA_TARGET))
    for kernel, vx, nvcc in behind:
        out.append("- **%s**: %s Opcodes with the largest differences, vx / "
                   "nvcc: %s." % (
                       kernel, BEHIND.get(kernel, "Not yet explained."),
                       opcode_differences(vx["opcodes"], nvcc["opcodes"])))
    out.append("\nThe expert CUDA kernels are checked against the C++ "
               "references (bench/reference) by bench/cuda/check.cu, built "
               "here with its CPU emulator (bench/cuda/emulate.h: each CTA's "
               "threads as CPU threads, with real barriers and warp "
               "shuffles; softmax on its first rows). Built by nvcc, the same "
               "harness runs them on a GPU:\n")
    out += ["    " + line for line in cuda_check]
    out.append("")
    out += cpu_section(cpu_rows, cpu_load, cpu_repeats)
    out.append("## 4. GPU execution\n")
    if gpu is None:
        out.append("Not measured: no GPU results here. `scripts/gpu-bench.sh "
                   "prepare DIR` (this machine) compiles every kernel to a "
                   "library; `scripts/gpu-bench.sh run DIR` on a machine with "
                   "a GPU runs, checks and times them; its DIR/results.json "
                   "copied to bench/gpu-results.json fills this section.\n")
    else:
        sys.path.insert(0, BENCH)
        from gpu_driver import table
        out.append("`scripts/gpu-bench.sh run` (bench/gpu-results.json): each "
                   "kernel compiled by `vx.compile(target=\"cuda\")` and "
                   "called through vx.runtime on torch tensors, its output "
                   "checked against torch; the median time of back-to-back "
                   "launches between CUDA events after a warm-up, next to the "
                   "same operation through torch (and triton) in the same run. "
                   "Bandwidth counts each argument once.\n")
        out.append(table(gpu))
    out.append("\n## 5. Pipelined transfers: `stages` 1 to %d\n"
               % STAGE_COUNTS[-1])
    out.append("The kernels of section 2 whose tiles move along an arbitrary "
               "dim through `vx-opt --vx-to-ptx` with `stages=N` (VX_SPEC "
               "2.2; docs/design.md, \"Pipelined transfers\") and `ptxas -O3 "
               "-v`, as in section 2. Dynamic smem is the CTA's shared memory "
               "(the launch's, N slots per pipelined tile); copies and waits "
               "are counted in the PTX: on %s the tiles are TMA loads "
               "(`cp.async.bulk.tensor`, mbarrier parity waits; one slot at "
               "stages=1), elsewhere cp.async (`wait_group` lists the "
               "distinct counts). Not timed: no GPU here, and scripts/gpu-bench.sh "
               "compiles the kernels at the default stages=1 only.\n" % CHIP)
    out.append("| kernel | stages | registers | SASS | spills (bytes) | "
               "stack (bytes) | dynamic smem (bytes) | TMA loads | cp.async "
               "copies | wait_group |")
    out.append("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: "
               "| --- |")
    out += stages_table(stage_rows)
    return "\n".join(out) + "\n"


def section_bounds(text, number):
    """The start and end offsets of section `number` of a RESULTS.md."""
    start = text.index("## %d. " % number)
    end = text.find("\n## ", start)
    return start, (end + 1 if end >= 0 else len(text))


def replace_section(path, number, lines):
    """Replaces section `number` of the RESULTS.md at `path` by `lines`, the
    other sections as they were."""
    with open(path) as results:
        text = results.read()
    start, end = section_bounds(text, number)
    with open(path, "w") as results:
        results.write(text[:start] + "\n".join(lines) + "\n" + text[end:])
    print("\n".join(lines))


def replace_rows(text, number, tables, key_cells):
    """`text` with the rows of section `number`'s first tables replaced by
    the rows in `tables` (a list of row lists, one per table in order) that
    have the same first `key_cells` cells; the other rows (other kernels,
    rows added by hand) and all other text as they were."""
    start, end = section_bounds(text, number)
    lines = text[start:end].split("\n")
    table_index, in_table = -1, False
    for index, line in enumerate(lines):
        is_row = line.startswith("|")
        if is_row and not in_table:
            table_index += 1
        in_table = is_row
        if not is_row or table_index >= len(tables):
            continue
        key = line.split("|")[1:key_cells + 1]
        for row in tables[table_index]:
            if row.split("|")[1:key_cells + 1] == key:
                lines[index] = row
    return text[:start] + "\n".join(lines) + text[end:]


def kept_sections(path):
    """The sections of the RESULTS.md at `path` that this script does not
    generate (from section 6, the tensor cores: bench/cuda/expert.py and the
    tile-op kernels' rows), to keep when it rewrites the others."""
    if not os.path.exists(path):
        return ""
    with open(path) as results:
        text = results.read()
    start = text.find("\n## 6. ")
    return text[start:] if start >= 0 else ""


def kernel_list(text):
    kernels = text.split(",")
    for kernel in kernels:
        if kernel not in KERNELS:
            sys.exit("bench: no kernel %r (the kernels: %s)"
                     % (kernel, ", ".join(KERNELS)))
    return kernels


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("vx_opt")
    parser.add_argument("--sizes", default="10,30,100,200,300,1000")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--cpu-repeats", type=int, default=10)
    parser.add_argument("--out", default=os.path.join(BENCH, "RESULTS.md"))
    parser.add_argument("--gpu-results",
                        default=os.path.join(BENCH, "gpu-results.json"))
    parser.add_argument("--compile-only", action="store_true",
                        help="run section 1 alone and replace it in --out")
    parser.add_argument("--cpu-only", metavar="KERNELS",
                        help="run section 3 alone for these kernels "
                        "(comma-separated) and replace it in --out")
    parser.add_argument("--codegen-rows", metavar="KERNELS",
                        help="run sections 2 and 5 for these kernels "
                        "(comma-separated) and replace their rows in --out")
    parser.add_argument("--no-instructions", action="store_true",
                        help="section 3 without callgrind's instruction "
                        "counts (they take minutes)")
    args = parser.parse_args()
    os.environ["PATH"] = LLVM_BIN + os.pathsep + os.environ["PATH"]
    tools = ["clang++-22"]
    if not args.cpu_only:
        tools += ["ptxas", "nvcc", "readelf"]
    for tool in tools:
        if not shutil.which(tool):
            sys.exit("bench: %s is not on PATH" % tool)
    count_instructions = (not args.no_instructions and
                          shutil.which("valgrind") is not None)
    sizes = [int(size) for size in args.sizes.split(",")]
    with tempfile.TemporaryDirectory(prefix="vx-bench-") as work:
        if args.compile_only:
            compile_rows = compile_time(args.vx_opt, sizes, args.repeats, work)
            replace_section(args.out, 1,
                            compile_section(compile_rows, args.repeats))
            return
        if args.cpu_only:
            cpu_rows, cpu_load = cpu(args.vx_opt, args.cpu_repeats, work,
                                     kernel_list(args.cpu_only),
                                     count_instructions)
            replace_section(args.out, 3, cpu_section(cpu_rows, cpu_load,
                                                     args.cpu_repeats))
            return
        if args.codegen_rows:
            kernels = kernel_list(args.codegen_rows)
            codegen_rows = codegen(args.vx_opt, work, kernels)
            stage_rows = pipelined(args.vx_opt, work, kernels)
            with open(args.out) as results:
                text = results.read()
            peak_rows = peak_model.table(codegen_rows, kernel_shapes(kernels))
            text = replace_rows(text, 2, [codegen_table(codegen_rows),
                                          shared_memory_table(codegen_rows),
                                          peak_rows], 1)
            text = replace_rows(text, 5, [stages_table(stage_rows)], 2)
            with open(args.out, "w") as results:
                results.write(text)
            print("\n".join(codegen_table(codegen_rows) +
                            shared_memory_table(codegen_rows) + peak_rows +
                            stages_table(stage_rows)))
            return
        compile_rows = compile_time(args.vx_opt, sizes, args.repeats, work)
        codegen_rows = codegen(args.vx_opt, work, KERNELS)
        cuda_check = check_cuda_emulated(work)
        cpu_rows, cpu_load = cpu(args.vx_opt, args.cpu_repeats, work, KERNELS,
                                 count_instructions)
        stage_rows = pipelined(args.vx_opt, work, KERNELS)
    text = report(compile_rows, codegen_rows, cuda_check, cpu_rows, cpu_load,
                  gpu_results(args.gpu_results),
                  args.repeats, args.cpu_repeats, stage_rows)
    text += kept_sections(args.out)
    with open(args.out, "w") as results:
        results.write(text)
    print(text)


if __name__ == "__main__":
    main()
