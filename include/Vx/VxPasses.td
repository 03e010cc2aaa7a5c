//===- VxPasses.td - Vx passes -----------------------------*- tablegen -*-===//

#ifndef VX_PASSES
#define VX_PASSES

include "mlir/Pass/PassBase.td"

def VxVerifySemantics : Pass<"vx-verify-semantics"> {
  let summary = "Check that parallel grid dimensions are race-free";
  let description = [{
    Checks the dimension-semantics contract of every `vx.spawn` statically:
    a write to memory defined outside the spawn whose address does not
    depend on a parallel dimension of extent > 1 is an error naming the
    dimension. Every pipeline starts with this pass.

    Example: `vx-opt --vx-verify-semantics input.mlir`.
  }];
}

def ConvertVxToSCF : Pass<"convert-vx-to-scf"> {
  let summary = "Lower vx.spawn to scf.parallel around an scf.for nest";
  let description = [{
    Each spawn becomes one `scf.parallel` over its parallel dimensions (grid
    order) around an `scf.for` nest over its arbitrary dimensions (grid
    order, outermost first). `vx.grid_index` becomes the induction variables,
    `vx.grid_dim` the sizes, `vx.scratch` one `memref.alloca` per parallel
    point at the top of the parallel body, `vx.transfer_async` a
    `memref.copy` and `vx.await` nothing (tokens carried by scf loops become
    `i1`). The loops of device spawns carry
    the `vx.topology` attribute so that the GPU mapping can find them.

    Example: `vx-opt --convert-vx-to-scf="reverse-parallel=true"`.
  }];
  let dependentDialects = ["arith::ArithDialect", "memref::MemRefDialect",
                           "scf::SCFDialect"];
  let options = [
    Option<"reverseParallel", "reverse-parallel", "bool", "false",
           "Iterate the parallel dimensions from last to first">
  ];
}

#endif // VX_PASSES
