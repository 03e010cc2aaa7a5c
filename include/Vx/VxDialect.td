//===- VxDialect.td - Vx dialect definition ----------------*- tablegen -*-===//
//
// The execution model below `spawn`: an annotated iteration grid with
// per-dimension semantics, lowered through scf to the gpu dialect.
//
//===----------------------------------------------------------------------===//

#ifndef VX_DIALECT
#define VX_DIALECT

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"

def Vx_Dialect : Dialect {
  let name = "vx";
  let summary = "Annotated iteration grids below a heterogeneous `spawn`";
  let description = [{
    `vx.spawn` places work on a topology and runs its body once per point of
    an iteration grid. Each grid dimension carries a semantics: `parallel`
    (instances differing in that coordinate are independent and may run
    concurrently, in any order) or `arbitrary` (for a fixed point of the
    parallel dimensions, instances run one at a time in lexicographic grid
    order, so state may be carried across them). This is the contract of JAX
    Pallas's dimension semantics. `vx.grid_index` and `vx.grid_dim` read the
    current coordinate and the grid extent; `vx.scratch` allocates
    per-instance buffers that persist across the arbitrary dimensions;
    `vx.transfer_async` and `vx.await` express asynchronous copies through
    `!vx.token` values.

    The GPU mapping records its decisions in discardable attributes, so that
    each of its passes can run alone: `vx.launch_plan` (a
    `#vx.launch_plan`) on a device spawn, and `vx.copy_threads` (an
    integer) on a `vx.transfer_async` that that many threads of the CTA copy
    together.

    Example:

    ```mlir
    vx.spawn on tensor_core grid [%nb, 4] semantics [parallel, arbitrary] {
      %b = vx.grid_index 0
      %k = vx.grid_index 1
      ...
    }
    ```
  }];
  let cppNamespace = "::mlir::vx";
  let dependentDialects = ["arith::ArithDialect"];
  let useDefaultTypePrinterParser = 1;
  let useDefaultAttributePrinterParser = 1;
  let hasConstantMaterializer = 1;
  let hasOperationAttrVerify = 1;
  let extraClassDeclaration = [{
    /// The discardable attribute of a transfer that the threads of a CTA
    /// copy together: their number.
    static constexpr StringLiteral kCopyThreadsAttrName = "vx.copy_threads";
    /// The discardable unit attribute of the tensor-core ops (and the
    /// extraction of their results) that vx-distribute-tile-ops places in a
    /// device spawn on a GPU route: they touch registers only, and a spawn
    /// body holds them although user code may not.
    static constexpr StringLiteral kTensorCoreAttrName = "vx.tensor_core";

    void registerTypes();
    void registerAttributes();
  }];
}

class Vx_Op<string mnemonic, list<Trait> traits = []>
    : Op<Vx_Dialect, mnemonic, traits>;

#endif // VX_DIALECT
