"""Vx benchmarks: writes bench/RESULTS.md (run through scripts/bench.sh).

1. Compile time: vx-opt --vx-to-ptx on generated modules of N spawns against
   mlir-opt running the upstream pipeline on the equivalent hand-lowered
   scf.parallel input, in the same run.
2. Generated code: each kernel of bench/kernels through vx-opt --vx-to-ptx and
   ptxas, against bench/cuda/<kernel>.cu through nvcc -O3 -arch=sm_90:
   registers, spills and stack from `ptxas -v`, SASS instruction counts from
   the cubin's .text.<kernel> section (no cuobjdump on this machine).
3. CPU: each kernel through --vx-to-llvm="openmp=true", run by mlir-runner
   and compiled ahead of time by clang -O3, against bench/cpu/<kernel>.cpp
   through clang++ -O3 -fopenmp, with the same inputs; best and mean wall
   time over repeated runs, outputs cross-checked.
4. GPU: the results of scripts/gpu-bench.sh run on a GPU machine
   (bench/gpu-results.json, its DIR/results.json copied), when present.

    python3 bench/bench.py VX_OPT [--sizes 10,30,100,300,1000] [--repeats 3]
        [--cpu-repeats 10] [--out bench/RESULTS.md]
        [--gpu-results bench/gpu-results.json]
"""

import argparse
import json
import math
import os
import platform
import re
import shutil
import subprocess
import sys
import tempfile
import time

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


def best_time(command, repeats):
    best = None
    for _ in range(repeats):
        start = time.perf_counter()
        result = run(command)
        seconds = time.perf_counter() - start
        best = seconds if best is None else min(best, seconds)
    return best, result.stdout


def compile_time(vx_opt, sizes, repeats, work):
    rows = []
    for size in sizes:
        paths = {}
        for form in FORMS:
            paths[form] = os.path.join(work, "%s_%d.mlir" % (form, size))
            with open(paths[form], "w") as module:
                module.write(generated_module(form, size))
        vx_seconds, vx_out = best_time(
            [vx_opt, paths["vx"], "--vx-to-ptx=chip=%s" % CHIP], repeats)
        up_seconds, up_out = best_time(
            [os.path.join(LLVM_BIN, "mlir-opt"), paths["scf"],
             "--pass-pipeline=" + UPSTREAM_PIPELINE], repeats)
        # Both must have produced one PTX binary per spawn.
        for label, text in (("vx-opt", vx_out), ("mlir-opt", up_out)):
            count = len(re.findall(r"gpu\.binary @", text))
            if count != size:
                sys.exit("bench: %s made %d binaries for %d spawns"
                         % (label, count, size))
        rows.append((size, vx_seconds, up_seconds))
    return rows


# --- 2. Generated code against nvcc ----------------------------------------

SECTION = re.compile(r"\]\s+\.text\.(\w+)\s+PROGBITS\s+\w+\s+(\w+)\s+(\w+)")
# The low 12 bits of a Hopper SASS instruction are its opcode (with the
# operand form): the ones the notes of RESULTS.md refer to.
OPCODES = {0x981: "LDG", 0x986: "STG", 0x209: "FMNMX", 0x308: "MUFU",
           0x221: "FADD", 0x220: "FMUL", 0x223: "FFMA", 0x947: "BRA"}
NOP_OPCODE = 0x918  # the section padding


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


# Why vx is behind nvcc where it is, from reading both sides' PTX and the
# opcode counts below; RESULTS.md prints these for kernels over the target.
BEHIND = {
    "transpose": "vx indices are 64-bit `index` values (MLIR's device "
                 "default, and what memrefs over 2^31 elements need): each "
                 "address is a 64-bit row base plus a 64-bit column offset, "
                 "where the `int` reference forms the element index in 32 "
                 "bits and widens it once. Two more registers, no more "
                 "instructions.",
    "softmax": "LLVM's NVPTX pipeline unrolls the running-max loop by 4 and "
               "leaves the other loops rolled, with constant trip counts in "
               "the PTX; `ptxas` then unrolls the max loop completely (256 "
               "FMNMX and as many loads, against 96 in the nvcc code, whose "
               "PTX NVVM had already unrolled by 4 everywhere). The work per "
               "element is the same: the extra instructions are straight-line "
               "copies of the loop body, not extra operations per element.",
}
TARGET = 1.1
# Why vx's CPU code is slower where it is (perf annotate of the AOT binary
# and the reference, single-threaded).
CPU_BEHIND = {
    "attention": "the accumulator update `acc[r, d] += p * v[kj, d]` over "
                 "the 32 head dims: in vx's optimized IR LLVM promotes the "
                 "row's 32 accumulators to scalar values across the key loop "
                 "(32 scalar phis, a multiply and an add each, with stack "
                 "spills in the machine code) and the SLP vectorizer leaves "
                 "them scalar, where the C++'s loop becomes 4-wide vector "
                 "code. Not fp contraction: the C++ built with "
                 "`-ffp-contract=off` is as fast. The rest of the kernel, "
                 "`expf` calls included, is alike.",
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
    frame, stores, loads = map(int, re.search(
        r"(\d+) bytes stack frame, (\d+) bytes spill stores, "
        r"(\d+) bytes spill loads", log).groups())
    return {"registers": registers, "stack": frame, "spills": stores + loads}


def codegen(vx_opt, work):
    rows = []
    for kernel in KERNELS:
        lowered = os.path.join(work, kernel + ".ptx.mlir")
        run([vx_opt, os.path.join(BENCH, "kernels", kernel + ".mlir"),
             "--vx-to-ptx=chip=%s threads-per-block=%d"
             % (CHIP, THREADS_PER_BLOCK), "-o", lowered])
        run([sys.executable, os.path.join(ROOT, "test", "Inputs",
                                          "extract_ptx.py"), lowered, work])
        ptx = os.path.join(work, kernel + "_kernel.ptx")
        vx_cubin = os.path.join(work, kernel + "_vx.cubin")
        vx_log = run(["ptxas", "-O3", "-arch=" + CHIP, "-v", ptx,
                      "-o", vx_cubin]).stderr
        nvcc_cubin = os.path.join(work, kernel + "_nvcc.cubin")
        nvcc_log = run(["nvcc", "-O3", "-arch=" + CHIP, "-cubin",
                        "-Xptxas", "-v",
                        os.path.join(BENCH, "cuda", kernel + ".cu"),
                        "-o", nvcc_cubin]).stderr
        vx = ptxas_usage(vx_log)
        vx["opcodes"] = sass_opcodes(vx_cubin, kernel + "_kernel")
        nvcc = ptxas_usage(nvcc_log)
        nvcc["opcodes"] = sass_opcodes(nvcc_cubin, kernel)
        for usage in (vx, nvcc):
            usage["sass"] = len(usage["opcodes"])
        rows.append((kernel, vx, nvcc))
    return rows


# --- 3. CPU against clang -O3 -fopenmp -------------------------------------

SIGNATURE = re.compile(r"func\.func @(\w+)\(([^)]*)\)", re.S)
MEMREF = re.compile(r"memref<([0-9x]+)xf32>")


def kernel_signature(kernel):
    with open(os.path.join(BENCH, "kernels", kernel + ".mlir")) as source:
        name, arguments = SIGNATURE.search(source.read()).groups()
    shapes = [tuple(int(d) for d in dims.split("x"))
              for dims in MEMREF.findall(arguments)]
    return name, shapes


def num_elements(shape):
    size = 1
    for dim in shape:
        size *= dim
    return size


def mlir_driver(name, shapes, repeats):
    """A main that fills the arguments as bench/cpu/harness.h does, times
    `repeats` calls after a warm-up one, and prints best and mean seconds and
    the sum of the last argument."""
    lines = ["func.func private @rtclock() -> f64",
             "func.func @main() {",
             "  %c0 = arith.constant 0 : index",
             "  %c1 = arith.constant 1 : index",
             "  %c7 = arith.constant 7 : index",
             "  %c17 = arith.constant 17 : index",
             "  %f17 = arith.constant 17.0 : f32",
             "  %half = arith.constant 0.5 : f32",
             "  %inf = arith.constant 1.0e30 : f64",
             "  %fzero = arith.constant 0.0 : f64",
             "  %%repeats = arith.constant %d : index" % repeats,
             "  %%frepeats = arith.constant %d.0 : f64" % repeats]
    arguments = []
    flats = []
    for index, shape in enumerate(shapes):
        size = num_elements(shape)
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
        "  %best, %total = scf.for %it = %c0 to %repeats step %c1"
        " iter_args(%b = %inf, %t = %fzero) -> (f64, f64) {",
        "    %start = func.call @rtclock() : () -> f64",
        "    func." + call,
        "    %end = func.call @rtclock() : () -> f64",
        "    %seconds = arith.subf %end, %start : f64",
        "    %b1 = arith.minimumf %b, %seconds : f64",
        "    %t1 = arith.addf %t, %seconds : f64",
        "    scf.yield %b1, %t1 : f64, f64",
        "  }",
        "  %mean = arith.divf %total, %frepeats : f64"]
    lines += [
        "  %%outsize = arith.constant %d : index" % num_elements(shapes[last]),
        "  %sum = scf.for %n = %c0 to %outsize step %c1"
        " iter_args(%s = %fzero) -> f64 {",
        "    %%x = memref.load %%flat%d[%%n] : %s" % (last, flats[last]),
        "    %xd = arith.extf %x : f32 to f64",
        "    %s1 = arith.addf %s, %xd : f64",
        "    scf.yield %s1 : f64",
        "  }",
        "  vector.print %best : f64",
        "  vector.print %mean : f64",
        "  vector.print %sum : f64"]
    for index, flat in enumerate(flats):
        lines.append("  memref.dealloc %%flat%d : %s" % (index, flat))
    lines += ["  return", "}"]
    return "\n".join(lines) + "\n"


def three_numbers(text, label):
    numbers = [float(line) for line in text.split()]
    if len(numbers) != 3:
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


def cpu(vx_opt, repeats, work):
    environment = dict(os.environ, OMP_NUM_THREADS=str(os.cpu_count()))
    runner = mlir_runner(os.path.join(LLVM_LIB, "libomp.so"))
    rows = []
    for kernel in KERNELS:
        source = driven_kernel(kernel, repeats)
        lowered = run([vx_opt, "--vx-to-llvm=openmp=true"],
                      input=source).stdout
        jit = three_numbers(run(runner, input=lowered, env=environment).stdout,
                            kernel + " (vx, mlir-runner)")
        # The same LLVM IR compiled ahead of time by the reference's compiler
        # and flags: separates vx's code from the JIT's code generation.
        llvm_ir = os.path.join(work, kernel + "_vx.ll")
        run([os.path.join(LLVM_BIN, "mlir-translate"), "--mlir-to-llvmir",
             "-o", llvm_ir], input=lowered)
        aot_binary = os.path.join(work, kernel + "_vx_cpu")
        run(["clang-22", "-O3", "-Wno-override-module", llvm_ir, "-o",
             aot_binary, "-L" + LLVM_LIB, "-lmlir_c_runner_utils",
             "-lmlir_runner_utils", "-lomp", "-lm", "-Wl,-rpath," + LLVM_LIB])
        aot = three_numbers(run([aot_binary], env=environment).stdout,
                            kernel + " (vx, clang)")
        binary = os.path.join(work, kernel + "_cpu")
        run(["clang++-22", "-O3", "-fopenmp",
             os.path.join(BENCH, "cpu", kernel + ".cpp"), "-o", binary])
        reference = three_numbers(
            run([binary, str(repeats)], env=environment).stdout,
            kernel + " (C++)")
        check_sum(kernel, "through vx and mlir-runner", jit[2], reference[2])
        check_sum(kernel, "through vx and clang", aot[2], reference[2])
        rows.append((kernel, jit, aot, reference))
    return rows


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


def report(compile_rows, codegen_rows, cpu_rows, gpu, repeats,
           cpu_repeats):
    out = []
    out.append("# Vx benchmark results\n")
    out.append("Regenerated by `scripts/bench.sh` (bench/bench.py) on %s, %d "
               "CPU cores; %s, %s, %s. Notes in bench/README.md.\n" % (
                   time.strftime("%Y-%m-%d"), os.cpu_count(),
                   tool_version([os.path.join(LLVM_BIN, "mlir-opt"),
                                 "--version"], r"LLVM version [\d.]+"),
                   tool_version(["nvcc", "--version"], r"release [\d.]+"),
                   platform.platform()))
    out.append("## 1. Compile time: `vx-opt --vx-to-ptx` against upstream "
               "`mlir-opt`\n")
    out.append("Modules of N functions with one spawn each (grid [64, 64, 8], "
               "semantics [parallel, parallel, arbitrary]) through "
               "`vx-opt --vx-to-ptx`, against the same functions written as "
               "`scf.parallel` + `scf.for` through `mlir-opt --pass-pipeline="
               "\"%s\"`. Wall time of the whole process, best of %d; both "
               "produce N PTX binaries.\n" % (UPSTREAM_PIPELINE, repeats))
    out.append("| spawns | vx-opt (s) | mlir-opt (s) | ratio | vx ms/spawn "
               "| upstream ms/spawn |")
    out.append("| ---: | ---: | ---: | ---: | ---: | ---: |")
    for size, ours, theirs in compile_rows:
        out.append("| %d | %.3f | %.3f | %s | %.2f | %.2f |" % (
            size, ours, theirs, ratio(ours, theirs), 1000 * ours / size,
            1000 * theirs / size))
    # Growth past process start-up: from the first size of 100 spawns or
    # more (else the second-to-last size) to the last; a log-log slope of 1
    # is linear.
    large_rows = [row for row in compile_rows if row[0] >= 100]
    first = large_rows[0] if len(large_rows) > 1 else compile_rows[-2]
    last = compile_rows[-1]
    out.append("\nGrowth from %d to %d spawns (%.0fx; a log-log slope of "
               "1.00 is linear):\n" % (first[0], last[0], last[0] / first[0]))
    for label, column in (("vx-opt", 1), ("mlir-opt", 2)):
        out.append("- %s: the time grows %.2fx, slope %.2f." % (
                       label,
                       last[column] / first[column],
                       math.log(last[column] / first[column]) /
                       math.log(last[0] / first[0])))
    out.append("")
    out.append("## 2. Generated code against `nvcc -O3 -arch=%s`\n" % CHIP)
    out.append("bench/kernels/*.mlir through `vx-opt --vx-to-ptx=\"chip=%s "
               "threads-per-block=%d\"` and `ptxas -O3 -v`, against "
               "bench/cuda/*.cu through `nvcc -O3 -arch=%s -cubin -Xptxas "
               "-v`. SASS instructions: the size of `.text.<kernel>` / 16 "
               "bytes, less the trailing NOP padding (no cuobjdump here). "
               "Spills are spill store plus load bytes; stack is the local "
               "frame (private arrays).\n" % (CHIP, THREADS_PER_BLOCK, CHIP))
    out.append("| kernel | registers vx / nvcc | ratio | SASS vx / nvcc | "
               "ratio | spills vx / nvcc (bytes) | stack vx / nvcc (bytes) |")
    out.append("| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    for kernel, vx, nvcc in codegen_rows:
        out.append("| %s | %d / %d | %s | %d / %d | %s | %d / %d | %d / %d |" % (
            kernel, vx["registers"], nvcc["registers"],
            ratio(vx["registers"], nvcc["registers"]), vx["sass"],
            nvcc["sass"], ratio(vx["sass"], nvcc["sass"]), vx["spills"],
            nvcc["spills"], vx["stack"], nvcc["stack"]))
    behind = [(kernel, vx, nvcc) for kernel, vx, nvcc in codegen_rows
              if vx["spills"] or vx["registers"] > TARGET * nvcc["registers"]
              or vx["sass"] > TARGET * nvcc["sass"]]
    if behind:
        out.append("\nWhere vx is over the target (%.1fx, no spills):\n"
                   % TARGET)
    for kernel, vx, nvcc in behind:
        out.append("- **%s**: %s Opcodes with the largest differences, vx / "
                   "nvcc: %s." % (
                       kernel, BEHIND.get(kernel, "Not yet explained."),
                       opcode_differences(vx["opcodes"], nvcc["opcodes"])))
    out.append("\n## 3. CPU: `--vx-to-llvm=\"openmp=true\"` against "
               "`clang++-22 -O3 -fopenmp`\n")
    out.append("Each kernel with a generated `main` through `vx-opt "
               "--vx-to-llvm=\"openmp=true\"`, run by `mlir-runner -O3` "
               "(the JIT) and, as the same LLVM IR through `mlir-translate` "
               "and `clang-22 -O3` (AOT), against bench/cpu/*.cpp (the same "
               "instance bodies, `omp parallel for` over the parallel dims) "
               "built with `clang++-22 -O3 -fopenmp`; OMP_NUM_THREADS=%d. "
               "Same inputs; every output sum agrees with the reference's to "
               "1e-3 relative. Wall time per kernel call after a warm-up "
               "call, best / mean over %d calls; ratios are vx / C++. The "
               "JIT and AOT columns run the same IR: where they differ, the "
               "difference is the JIT's code generation.\n"
               % (os.cpu_count(), cpu_repeats))
    out.append("| kernel | C++ (ms) | vx, mlir-runner (ms) | ratio | vx, AOT "
               "(ms) | ratio |")
    out.append("| --- | ---: | ---: | ---: | ---: | ---: |")

    def best_mean(numbers):
        return "%.3f / %.3f" % (1000 * numbers[0], 1000 * numbers[1])

    def ratios(numbers, reference):
        return "%s / %s" % (ratio(numbers[0], reference[0]),
                            ratio(numbers[1], reference[1]))
    for kernel, jit, aot, reference in cpu_rows:
        out.append("| %s | %s | %s | %s | %s | %s |" % (
            kernel, best_mean(reference), best_mean(jit),
            ratios(jit, reference), best_mean(aot), ratios(aot, reference)))
    slow = [(kernel, aot, reference) for kernel, _, aot, reference in cpu_rows
            if aot[0] > TARGET * reference[0]]
    if slow:
        out.append("\nWhere vx's code is slower than the C++ (AOT, best "
                   "times):\n")
    for kernel, aot, reference in slow:
        out.append("- **%s** (%s): %s" % (kernel, ratio(aot[0], reference[0]),
                                         CPU_BEHIND.get(kernel,
                                                        "Not yet explained.")))
    out.append("\n## 4. GPU execution\n")
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
    return "\n".join(out) + "\n"


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("vx_opt")
    parser.add_argument("--sizes", default="10,30,100,300,1000")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--cpu-repeats", type=int, default=10)
    parser.add_argument("--out", default=os.path.join(BENCH, "RESULTS.md"))
    parser.add_argument("--gpu-results",
                        default=os.path.join(BENCH, "gpu-results.json"))
    args = parser.parse_args()
    os.environ["PATH"] = LLVM_BIN + os.pathsep + os.environ["PATH"]
    for tool in ("ptxas", "nvcc", "readelf", "clang++-22"):
        if not shutil.which(tool):
            sys.exit("bench: %s is not on PATH" % tool)
    sizes = [int(size) for size in args.sizes.split(",")]
    with tempfile.TemporaryDirectory(prefix="vx-bench-") as work:
        compile_rows = compile_time(args.vx_opt, sizes, args.repeats, work)
        codegen_rows = codegen(args.vx_opt, work)
        cpu_rows = cpu(args.vx_opt, args.cpu_repeats, work)
    text = report(compile_rows, codegen_rows, cpu_rows,
                  gpu_results(args.gpu_results),
                  args.repeats, args.cpu_repeats)
    with open(args.out, "w") as results:
        results.write(text)
    print(text)


if __name__ == "__main__":
    main()
