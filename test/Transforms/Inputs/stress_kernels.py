"""Prints stress kernels for vx-verify-semantics (test/Transforms/verify-cost.mlir).

    stress_kernels.py stores N    one spawn with N stores a[i * N + k]
    stress_kernels.py loops D     D nested loops of step 3 indexing with div/mod
    stress_kernels.py remark N    N stores over 6 arbitrary dims (the remark)
    stress_kernels.py guarded N   N stores each under its own scf.if
"""
import sys


def stores(count):
    print(f"func.func @stores(%a: memref<{8 * count}xf32>, %v: f32) {{")
    print(f"  %n = arith.constant {count} : index")
    print("  vx.spawn on host grid [8] semantics [parallel] {")
    print("    %i = vx.grid_index 0")
    print("    %row = arith.muli %i, %n : index")
    for k in range(count):
        print(f"    %c{k} = arith.constant {k} : index")
        print(f"    %x{k} = arith.addi %row, %c{k} : index")
        print(f"    memref.store %v, %a[%x{k}] : memref<{8 * count}xf32>")
    print("  }")
    print("  return")
    print("}")


def loops(depth):
    # idx = i * 4^depth + sum_d ((k_d floordiv 3) mod 4) * 4^d with k_d in
    # [0, 12) step 3: injective, so the verdict is silence.
    print("func.func @loops(%a: memref<?xf32>, %v: f32) {")
    print("  %c0 = arith.constant 0 : index")
    print("  %c3 = arith.constant 3 : index")
    print("  %c4 = arith.constant 4 : index")
    print("  %c12 = arith.constant 12 : index")
    print(f"  %stride = arith.constant {4 ** depth} : index")
    print("  vx.spawn on host grid [8] semantics [parallel] {")
    print("    %i = vx.grid_index 0")
    print("    %base = arith.muli %i, %stride : index")
    indent = "    "
    for d in range(depth):
        print(f"{indent}scf.for %k{d} = %c0 to %c12 step %c3 {{")
        indent += "  "
    terms = []
    for d in range(depth):
        print(f"{indent}%q{d} = arith.divui %k{d}, %c3 : index")
        print(f"{indent}%r{d} = arith.remui %q{d}, %c4 : index")
        print(f"{indent}%w{d} = arith.constant {4 ** d} : index")
        print(f"{indent}%t{d} = arith.muli %r{d}, %w{d} : index")
        terms.append(f"%t{d}")
    previous = "%base"
    for d, term in enumerate(terms):
        print(f"{indent}%s{d} = arith.addi {previous}, {term} : index")
        previous = f"%s{d}"
    print(f"{indent}memref.store %v, %a[{previous}] : memref<?xf32>")
    for d in range(depth):
        indent = indent[:-2]
        print(f"{indent}}}")
    print("  }")
    print("  return")
    print("}")


def remark(count):
    # Every instance writes its own elements: each arbitrary dimension could
    # be parallel.
    shape = "x".join(["4"] + ["2"] * 6 + [str(count)])
    print(f"func.func @remark(%a: memref<{shape}xf32>, %v: f32) {{")
    print("  vx.spawn on host grid [4, 2, 2, 2, 2, 2, 2] semantics "
          "[parallel, arbitrary, arbitrary, arbitrary, arbitrary, arbitrary, arbitrary] {")
    for d in range(7):
        print(f"    %g{d} = vx.grid_index {d}")
    grid = ", ".join(f"%g{d}" for d in range(7))
    for k in range(count):
        print(f"    %c{k} = arith.constant {k} : index")
        print(f"    memref.store %v, %a[{grid}, %c{k}] : memref<{shape}xf32>")
    print("  }")
    print("  return")
    print("}")


def guarded(count):
    # Every store under its own condition on the instance: one writer each.
    print(f"func.func @guarded(%a: memref<{count}xf32>, %v: f32) {{")
    print(f"  vx.spawn on host grid [{count}] semantics [parallel] {{")
    print("    %i = vx.grid_index 0")
    for k in range(count):
        print(f"    %c{k} = arith.constant {k} : index")
        print(f"    %b{k} = arith.cmpi eq, %i, %c{k} : index")
        print(f"    scf.if %b{k} {{")
        print(f"      memref.store %v, %a[%c{k}] : memref<{count}xf32>")
        print("    }")
    print("  }")
    print("  return")
    print("}")


if __name__ == "__main__":
    kind, size = sys.argv[1], int(sys.argv[2])
    {"stores": stores, "loops": loops, "remark": remark, "guarded": guarded}[kind](size)
