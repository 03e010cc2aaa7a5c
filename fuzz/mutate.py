"""A mutation fuzzer for vx-opt: takes the spawns of the lit corpus, the
examples and the benchmark kernels, mutates words (swaps in grid sizes,
semantics, placements, index ops; duplicates and deletes), and feeds each
input to one pipeline. Any exit status other than 0 (accepted) or 1
(diagnosed), or a sanitizer report on stderr (VX_OPT from
scripts/sanitize.sh's build), is a crash; a run over the time limit is a
hang. Crashing inputs are written to OUT_DIR.

    python3 fuzz/mutate.py VX_OPT OUT_DIR --seconds 60 [--seed 0] [--inputs N]
"""

import argparse
import glob
import os
import random
import re
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PIPELINES = ["--vx-verify-semantics", "--vx-to-scf", "--vx-to-gpu",
             "--vx-to-gpu=threads-per-block=4", "--vx-to-nvvm", "--vx-to-ptx",
             "--vx-to-llvm", "--vx-to-llvm=via-gpu=true",
             "--vx-to-llvm=openmp=true"]
SANITIZER_REPORT = re.compile(r"ERROR: \w+Sanitizer|runtime error: ")
# Crashes inside upstream MLIR 22.1 that no vx code reaches or can avoid:
# (the innermost op parser of the stack dump, a frame of the crash, the
# upstream issue). Each is reported and written to OUT_DIR, not counted.
KNOWN_UPSTREAM_CRASHES = [
    ("linalg.reduce", "mlir::NamedAttrList::set",
     "llvm/llvm-project#132747, linalg.reduce's parser on a malformed "
     "'dimensions'"),
]
WORDS = ["parallel", "arbitrary", "0", "1", "2", "3", "4", "7", "-1", "%c0",
         "%c1", "smem", "private", "host", "tensor_core", "tensor_core5", "?",
         "arith.addi", "arith.muli", "arith.divui", "arith.remui", "vx.await",
         "vx.grid_index 0", "vx.grid_index 1", "vx.grid_dim 1", "scf.if",
         "memref.store", "memref.load", "vx.scratch", "[", "]", "{", "}"]


def corpus():
    files = glob.glob(os.path.join(ROOT, "test", "**", "*.mlir"), recursive=True)
    files += glob.glob(os.path.join(ROOT, "examples", "*.mlir"))
    files += glob.glob(os.path.join(ROOT, "bench", "kernels", "*.mlir"))
    chunks = []
    for path in sorted(files):
        with open(path) as source:
            chunks += [part for part in source.read().split("// -----")
                       if "vx.spawn" in part]
    return chunks


def mutate(rng, text):
    words = text.split(" ")
    for _ in range(rng.randint(1, 4)):
        position = rng.randrange(len(words))
        choice = rng.random()
        if choice < 0.5:
            words[position] = rng.choice(WORDS)
        elif choice < 0.75:
            words.insert(position, rng.choice(words))
        elif len(words) > 1:
            del words[position]
    return " ".join(words)


def known_upstream_crash(stderr):
    """The upstream issue of a crash in KNOWN_UPSTREAM_CRASHES, or None."""
    parsers = re.findall(r"MLIR Parser: custom op parser '([\w.]+)'", stderr)
    for parser, frame, issue in KNOWN_UPSTREAM_CRASHES:
        if parsers and parsers[-1] == parser and frame in stderr:
            return issue
    return None


def keep_input(arguments, prefix, run, pipeline, text):
    """Writes the input of `run` to OUT_DIR; returns its path."""
    path = os.path.join(arguments.out_dir,
                        f"{prefix}-{arguments.seed}-{run}.mlir")
    with open(path, "w") as output:
        output.write(f"// {pipeline}\n{text}")
    return path


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("vx_opt")
    parser.add_argument("out_dir")
    parser.add_argument("--seconds", type=float, default=60)
    parser.add_argument("--inputs", type=int, default=None)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--timeout", type=float, default=20)
    arguments = parser.parse_args()
    rng = random.Random(arguments.seed)
    chunks = corpus()
    os.makedirs(arguments.out_dir, exist_ok=True)
    deadline = time.monotonic() + arguments.seconds
    runs = failures = upstream = 0
    while time.monotonic() < deadline and (arguments.inputs is None or
                                           runs < arguments.inputs):
        text = mutate(rng, rng.choice(chunks))
        pipeline = rng.choice(PIPELINES)
        runs += 1
        try:
            result = subprocess.run([arguments.vx_opt, pipeline, "-o", os.devnull],
                                    input=text, capture_output=True, text=True,
                                    timeout=arguments.timeout)
            crashed = result.returncode not in (0, 1)
            known = crashed and known_upstream_crash(result.stderr)
            if known:
                upstream += 1
                path = keep_input(arguments, "upstream", runs, pipeline, text)
                print(f"fuzz: {pipeline} on {path}: known upstream crash "
                      f"({known}), not counted", file=sys.stderr)
                problem = None
            elif crashed:
                problem = f"exit status {result.returncode}: {result.stderr[-400:]}"
            elif SANITIZER_REPORT.search(result.stderr):
                problem = f"sanitizer report: {result.stderr[-400:]}"
            else:
                problem = None
        except subprocess.TimeoutExpired:
            problem = f"no answer within {arguments.timeout} s"
        if problem:
            failures += 1
            path = keep_input(arguments, "input", runs, pipeline, text)
            print(f"fuzz: {pipeline} on {path}: {problem}", file=sys.stderr)
    print(f"fuzz: {runs} inputs, {failures} crashes or hangs"
          + (f" ({upstream} known upstream crashes, not counted)"
             if upstream else ""))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
