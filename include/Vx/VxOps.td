//===- VxOps.td - Vx operations ----------------------------*- tablegen -*-===//

#ifndef VX_OPS
#define VX_OPS

include "Vx/VxDialect.td"
include "Vx/VxAttrs.td"
include "Vx/VxTypes.td"
include "mlir/IR/OpAsmInterface.td"
include "mlir/Interfaces/ControlFlowInterfaces.td"
include "mlir/Interfaces/InferIntRangeInterface.td"
include "mlir/Interfaces/InferTypeOpInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

//===----------------------------------------------------------------------===//
// SpawnOp
//===----------------------------------------------------------------------===//

def Vx_SpawnOp : Vx_Op<"spawn", [
    AutomaticAllocationScope,
    DeclareOpInterfaceMethods<RegionBranchOpInterface>,
    NoRegionArguments,
    RecursiveMemoryEffects,
    SingleBlockImplicitTerminator<"YieldOp">]> {
  let summary = "Run a region once per point of an annotated iteration grid";
  let description = [{
    Syntax:

    ```
    operation ::= `vx.spawn` `on` topology
                  `grid` `[` grid-size (`,` grid-size)* `]`
                  (`semantics` `[` dim-semantics (`,` dim-semantics)* `]`)?
                  (`threads` integer-literal)? (`stages` integer-literal)?
                  region attr-dict
    topology ::= `host` | `tensor_core` | `tensor_core5`
    grid-size ::= integer-literal | ssa-use
    dim-semantics ::= `parallel` | `arbitrary`
    ```

    `vx.spawn` runs its body once for every point of an N-dimensional grid on
    the given topology. The grid is a mixed list of static sizes (integers
    >= 1) and `index` values; a dynamic size of 0 or less at run time means
    that no instance runs.

    Each dimension has a semantics. `parallel`: instances that differ in that
    coordinate are independent and may run concurrently, in any order; they
    must not write the same memory nor read what another instance writes.
    `arbitrary`: for a fixed point of the parallel dimensions, instances run
    one at a time in lexicographic order of the arbitrary coordinates, so
    state (for example a `vx.scratch` accumulator) may be carried across them.
    `semantics` may be omitted, which means `arbitrary` for every dimension
    (always safe); it is always printed.

    The optional `threads N` clause (1 <= N <= 1024) sets the number of
    threads of the CTA that runs each device instance; without it the
    pipeline option `threads-per-block` applies. An `scf.parallel` directly
    in the body (not nested in another `scf.parallel` of the body) is a
    thread loop whose iterations the instance's threads share; on the CPU
    it is an ordinary loop and the clause has no effect.

    The optional `stages N` clause (N >= 1, after `threads`) overrides the
    pipeline option `stages` for this spawn: every `vx.transfer_async` into
    `smem` scratch whose source moves with the arbitrary dimensions is
    multi-buffered, so that while one step computes, the transfers of the
    next N-1 steps (in grid order across all arbitrary dimensions) are in
    flight. The body is written as if each transfer were awaited in its own
    step; `stages 1` is no pipelining. The CPU paths ignore the clause. The
    GPU mapping pipelines the transfers it can prove legal (a remark, or a
    warning under this clause, says why it cannot for the others) with as
    many stages as the shared memory holds, up to N (a remark when fewer).

    The body is one block without arguments, terminated by the implicit
    `vx.yield`. It may use values defined above (the op is not isolated from
    above) and may not contain another `vx.spawn`. `vx.grid_index` and
    `vx.grid_dim` read the coordinate and the extent of a dimension.

    Example:

    ```mlir
    vx.spawn on tensor_core grid [%nb, %nh, 4]
        semantics [parallel, parallel, arbitrary] {
      %b = vx.grid_index 0
      %kv = vx.grid_index 2
      %acc = vx.scratch : memref<64xf32>
      ...
    }
    vx.spawn on tensor_core grid [%rows] semantics [parallel] threads 256 {
      scf.parallel (%col) = (%c0) to (%c1024) step (%c1) { ... }
    }
    vx.spawn on tensor_core grid [4, 32] semantics [parallel, arbitrary]
        threads 128 stages 3 {
      ...
    }
    ```
  }];

  let arguments = (ins
    Vx_TopologyAttr:$topology,
    Variadic<Index>:$dynamic_grid,
    DenseI64ArrayAttr:$static_grid,
    Vx_DimensionSemanticsArrayAttr:$semantics,
    OptionalAttr<I64Attr>:$threads,
    OptionalAttr<I64Attr>:$stages);
  let regions = (region SizedRegion<1>:$body);

  let assemblyFormat = [{
    `on` custom<EnumKeyword>($topology)
    `grid` custom<DynamicIndexList>($dynamic_grid, $static_grid)
    custom<Semantics>($semantics, ref($static_grid))
    (`threads` custom<ThreadCount>($threads)^)?
    (`stages` custom<StageCount>($stages)^)?
    $body attr-dict
  }];

  let builders = [
    OpBuilder<(ins "Topology":$topology,
                   "ArrayRef<OpFoldResult>":$grid,
                   "ArrayRef<DimensionSemantics>":$semantics,
                   CArg<"std::optional<int64_t>", "std::nullopt">:$threads,
                   CArg<"std::optional<int64_t>", "std::nullopt">:$stages)>
  ];

  let extraClassDeclaration = [{
    /// Number of grid dimensions.
    unsigned getRank() { return getStaticGrid().size(); }
    /// The grid sizes, static ones as attributes.
    SmallVector<OpFoldResult> getMixedGrid();
    /// The size of dimension `dim` as an `index` value, materialized with
    /// `builder` where it is static.
    Value getGridSize(OpBuilder &builder, Location loc, unsigned dim);
    /// The semantics of dimension `dim`.
    DimensionSemantics getDimSemantics(unsigned dim);
    /// The parallel dimensions, then the arbitrary ones, in grid order.
    SmallVector<unsigned> getParallelDims();
    SmallVector<unsigned> getArbitraryDims();
    /// The number of threads of the CTA that runs an instance: the
    /// `threads` clause, else `defaultThreads` (the pipeline's
    /// threads-per-block).
    int64_t getCTASize(int64_t defaultThreads) {
      IntegerAttr threads = getThreadsAttr();
      return threads ? threads.getInt() : defaultThreads;
    }
    /// The number of pipeline stages of the spawn's transfers along its
    /// arbitrary dimensions: the `stages` clause, else `defaultStages` (the
    /// pipeline's `stages` option).
    int64_t getPipelineStages(int64_t defaultStages) {
      IntegerAttr stages = getStagesAttr();
      return stages ? stages.getInt() : defaultStages;
    }
    /// Whether the spawn runs on a GPU topology.
    bool isDeviceSpawn() { return getTopology() != Topology::host; }
    /// Whether `value` is defined in the body (and so may differ between
    /// instances) rather than captured from above.
    bool isDefinedInBody(Value value);
    /// Replaces the grid queries of the body by `coords` and `sizes` (one
    /// value per dimension), moves the body's ops to the rewriter's
    /// insertion point and erases the spawn: the tail of every lowering.
    void inlineBody(RewriterBase &rewriter, ArrayRef<Value> coords,
                    ArrayRef<Value> sizes);
  }];

  let hasVerifier = 1;
  let hasCanonicalizer = 1;
}

def Vx_YieldOp : Vx_Op<"yield", [Pure, ReturnLike, Terminator,
                                  HasParent<"SpawnOp">]> {
  let summary = "Terminates a spawn body";
  let description = [{
    The implicit terminator of a `vx.spawn` body; it carries no values and is
    elided in the custom form.

    Example (generic form): `"vx.yield"() : () -> ()`.
  }];
  let assemblyFormat = "attr-dict";
}

//===----------------------------------------------------------------------===//
// Grid queries
//===----------------------------------------------------------------------===//

def Vx_GridIndexOp : Vx_Op<"grid_index", [Pure,
    DeclareOpInterfaceMethods<InferIntRangeInterface, ["inferResultRanges"]>,
    DeclareOpInterfaceMethods<OpAsmOpInterface, ["getAsmResultNames"]>]> {
  let summary = "The coordinate of the current instance along one dimension";
  let description = [{
    Returns this instance's coordinate along grid dimension `dim`, in
    `[0, size)`. It must be inside a `vx.spawn` body, at any depth below it,
    with `0 <= dim < rank`. Integer range analysis and value bounds know its
    range.

    Example:

    ```mlir
    %b = vx.grid_index 0
    ```
  }];
  let arguments = (ins I64Attr:$dim);
  let results = (outs Index:$result);
  let assemblyFormat = "$dim attr-dict";
  let hasVerifier = 1;
}

def Vx_GridDimOp : Vx_Op<"grid_dim", [Pure,
    DeclareOpInterfaceMethods<InferIntRangeInterface, ["inferResultRanges"]>,
    DeclareOpInterfaceMethods<OpAsmOpInterface, ["getAsmResultNames"]>]> {
  let summary = "The grid size along one dimension";
  let description = [{
    Returns the extent of the enclosing spawn's grid along dimension `dim`.
    It must be inside a `vx.spawn` body with `0 <= dim < rank`. It folds to a
    constant when the size is static and to the size operand when dynamic.
    Inside the body it is at least 1 (a smaller size runs no instance).

    Example:

    ```mlir
    %n = vx.grid_dim 2
    ```
  }];
  let arguments = (ins I64Attr:$dim);
  let results = (outs Index:$result);
  let assemblyFormat = "$dim attr-dict";
  let hasVerifier = 1;
  let hasFolder = 1;
}

//===----------------------------------------------------------------------===//
// Scratch and transfers
//===----------------------------------------------------------------------===//

def Vx_ScratchOp : Vx_Op<"scratch", [
    DeclareOpInterfaceMethods<OpAsmOpInterface, ["getAsmResultNames"]>]> {
  let summary = "A per-instance buffer that persists across arbitrary dims";
  let description = [{
    Syntax:

    ```
    operation ::= `vx.scratch` (`private` | `smem`)? attr-dict `:` memref-type
    ```

    Allocates a statically shaped buffer owned by the current parallel point
    of the grid: it is shared by the instances that differ only in arbitrary
    coordinates (run one after another), so it carries state across them,
    and is never seen by another parallel point. `private` (the default)
    places it in memory private to the instance, `smem` in the shared memory
    of the CTA that runs it.

    It must be directly in a spawn body (not in a nested loop or
    conditional), and it never escapes the body: it may not be passed to a
    call, returned, yielded or stored.

    Example:

    ```mlir
    %acc = vx.scratch : memref<64xf32>
    %tile = vx.scratch smem : memref<16x64xf32>
    ```
  }];
  let arguments = (ins OptionalAttr<Vx_MemoryAttr>:$memory);
  let results = (outs Res<AnyMemRef, "",
                          [MemAlloc<AutomaticAllocationScopeResource>]>:$result);
  let assemblyFormat = "(custom<OptionalEnumKeyword>($memory)^)? attr-dict `:` type($result)";
  let extraClassDeclaration = [{
    /// The placement, `private` when not given.
    Memory getPlacement() {
      return getMemory().value_or(Memory::private_);
    }
  }];
  let hasVerifier = 1;
}

def Vx_TransferAsyncOp : Vx_Op<"transfer_async"> {
  let summary = "Start an asynchronous copy and return its token";
  let description = [{
    Starts copying `src` into `dst` (same shape and element type; layouts
    and memory spaces may differ) and returns a `!vx.token`. `dst` may be
    read only after `vx.await` on the token, and `src` must not be written
    before it. Tokens live only inside one spawn body.

    Example:

    ```mlir
    %t = vx.transfer_async %src to %tile
        : memref<16x64xf32, strided<[64, 1], offset: ?>> to memref<16x64xf32>
    vx.await %t
    ```
  }];
  let arguments = (ins Arg<AnyMemRef, "", [MemRead]>:$src,
                       Arg<AnyMemRef, "", [MemWrite]>:$dst);
  let results = (outs Vx_TokenType:$token);
  let assemblyFormat =
      "$src `to` $dst attr-dict `:` type($src) `to` type($dst)";
  let hasVerifier = 1;
}

def Vx_AwaitOp : Vx_Op<"await",
    [MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "Wait for an asynchronous transfer to complete";
  let description = [{
    Blocks until the transfer that produced `token` has completed; its
    destination is readable afterwards. It reads and writes memory so that
    no access to the transfer's buffers moves across it.

    Example:

    ```mlir
    vx.await %t
    ```
  }];
  let arguments = (ins Vx_TokenType:$token);
  let assemblyFormat = "$token attr-dict";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Race detection (detect-races; inserted by vx-instrument-races)
//===----------------------------------------------------------------------===//

// The detector's shadow state: the race ops' effects are on it, not on the
// program's memory, so loads keep their instance-invariant values in
// instrumented code (the mapping proves the same ownership as without).
def Vx_RaceDetectorState : Resource<"::mlir::vx::RaceDetectorStateResource">;

def Vx_RaceAccessOp : Vx_Op<"race_access",
    [MemoryEffects<[MemRead<Vx_RaceDetectorState>,
                    MemWrite<Vx_RaceDetectorState>]>]> {
  let summary = "Record a memory access for the dynamic race detector";
  let description = [{
    Inserted by `vx-instrument-races` (the `detect-races` option) in front of
    each access of a spawn body, and lowered to a call of the race
    detector's runtime by `vx-lower-race-checks`. It records who touches an
    element: the spawn execution (`epoch`), the instance's parallel point and
    linear id, the execution and linear iteration of its thread loop (0 and
    0 outside thread loops). Captured memory is identified by its byte
    `address` (`root` = -1); scratch and body allocations by their `root`
    number, an `owner` (the parallel point or instance that allocated them)
    and the byte offset. `root` is a value: a memref chosen among several
    allocations at run time (a select, an if's result) names the one its
    pointer points into. `kind`: bit 0 write, bit 1 read, bits 8-15 the
    atomic update's kind + 1, bit 16 out of bounds; `site` names the access
    in the detector's reports. An `in_bounds` flag, when false, adds bit 16 at
    run time: the check stays straight-line code, which the CTA mapping needs
    where a once-per-instance access's index is only uniform to the threads
    (a thread-loop reduction's result). Its effects are on the detector's
    state, not on memory the program sees: instrumented code proves what the
    same code proves without it. Not meant to be written by hand.

    Example:

    ```mlir
    vx.race_access %epoch, %point, %instance, %execution, %iteration,
        %owner, %root, %address in_bounds(%within)
        {kind = 1 : i64, site = 3 : i64}
    ```
  }];
  let arguments = (ins I64:$epoch, Index:$parallelPoint, Index:$instance,
                       Index:$execution, Index:$iteration, Index:$owner,
                       I64:$root, Index:$address, Optional<I1>:$inBounds,
                       I64Attr:$kind, I64Attr:$site);
  let assemblyFormat = [{
    $epoch `,` $parallelPoint `,` $instance `,` $execution `,` $iteration `,`
    $owner `,` $root `,` $address (`in_bounds` `(` $inBounds^ `)`)? attr-dict
  }];
}

def Vx_RaceThreadLoopOp : Vx_Op<"race_thread_loop",
    [MemoryEffects<[MemRead<Vx_RaceDetectorState>,
                    MemWrite<Vx_RaceDetectorState>]>,
     AttrSizedOperandSegments]> {
  let summary = "Start one execution of a thread loop for the race detector";
  let description = [{
    Inserted by `vx-instrument-races` before each thread loop (an
    `scf.parallel` of a spawn body not inside another one): returns the id
    of this execution of the loop, whose iterations the race detector tells
    apart; its lower bounds, steps and trip counts let reports name
    iterations by their induction variables. Lowered to calls by
    `vx-lower-race-checks`.

    Without `thread`, every execution of the op starts a new execution of
    the loop. When a whole CTA runs the instance (`convert-vx-to-gpu` sets
    `thread` to the thread's id), every thread of the CTA executes the op
    once per execution of the loop: the n-th execution by each thread of
    one instance names the same loop execution, so iterations that
    different threads run are still told apart.

    Example:

    ```mlir
    %execution = vx.race_thread_loop %epoch instance %linear lower [%c0]
        step [%c1] trips [%c8] {site = 2 : i64}
    ```
  }];
  let arguments = (ins I64:$epoch, Index:$instance, Optional<Index>:$thread,
                       Variadic<Index>:$lowerBounds, Variadic<Index>:$steps,
                       Variadic<Index>:$trips, I64Attr:$site);
  let results = (outs Index:$execution);
  let assemblyFormat = [{
    $epoch `instance` $instance (`thread` $thread^)? `lower` `[` $lowerBounds
    `]` `step` `[` $steps `]` `trips` `[` $trips `]` attr-dict
  }];
}

#endif // VX_OPS
