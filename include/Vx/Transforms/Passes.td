//===- Passes.td - Vx transforms and analyses --------------*- tablegen -*-===//

#ifndef VX_TRANSFORMS_PASSES
#define VX_TRANSFORMS_PASSES

include "mlir/Pass/PassBase.td"

def VxVerifySemantics : Pass<"vx-verify-semantics"> {
  let summary = "Prove parallel dimensions race-free; check tokens";
  let description = [{
    Checks the dimension-semantics contract of every `vx.spawn` statically.
    Errors only where a violation is proven, warnings where race freedom
    cannot be proven, never an error on a correct kernel:

    1. A write to captured memory whose address does not depend on a
       parallel dimension of extent > 1: error naming the dimension.
    2. Two parallel instances that write one element (the address is not
       injective in the parallel dimensions): error with both instances.
       Addresses are affine forms of grid indices, loop induction variables
       and captured values, decided exactly with the Presburger library;
       `i * %n + j` with `j` ranging over `[0, %n)` counts as injective.
       Other symbolic strides, loaded indices and unmodelled ops: warning.
    3. A read of captured memory that another parallel instance writes:
       error.
    4. Every token awaited exactly once on every path (scf.if, scf.for with
       tokens carried in iter_args); the destination not accessed and the
       source not written between a transfer and its await.
    5. Remarks: an arbitrary dimension without order dependence could be
       parallel; a device spawn without parallel dimensions runs on one CTA.

    An alloca outside the thread loops of a body with thread loops is
    memory of the whole instance: its accesses in thread loops are checked
    like shared memory, and one that a thread loop writes but that has a
    dynamic shape, a layout or a memory space is an error (the GPU mapping
    places it as scratch).

    Private scratch used in thread loops must be owned (VX_SPEC 2.1) by the
    threads of the CTA the spawn will have: its `threads` clause, else the
    `threads-per-block` option (which the pipelines set from theirs), else
    the default CTA size. Otherwise an error names the element, the two
    iterations and their threads, and a note lists the counts that own it.

    Scratch writes and atomic read-modify-writes are not races. Tile ops
    (VX_SPEC 2.3) are checked element by element, as the thread loops that
    `vx-distribute-tile-ops` makes of them (for `chip`: the GPU routes pass
    theirs, so an accumulator in the MMA fragment layout is what is proved
    owned), and `affine.parallel` as the `scf.parallel` thread loop that
    every route lowers it to. A transfer awaited in the `scf.parallel`
    iteration that started it is checked in that iteration. Every pipeline
    starts with this pass.

    Example: `vx-opt --vx-verify-semantics input.mlir`.
  }];
  let options = [
    Option<"allowRaces", "allow-races", "bool", "false",
           "Report proven races as warnings, so that a mislabelled kernel "
           "can be run (the dynamic check with reverse-parallel)">,
    Option<"chip", "chip", "std::string", "\"\"",
           "Check tile ops as vx-distribute-tile-ops computes them for this "
           "chip (matmuls on its tensor cores); empty: as FMA code">,
    Option<"threadsPerBlock", "threads-per-block", "int64_t", "0",
           "Threads per CTA of spawns without a threads clause, for which "
           "private scratch must be owned and tile ops are distributed as by "
           "vx-distribute-tile-ops (1-1024; 0: the default CTA size)">,
  ];
  // The copies of spawns with affine.parallel have their affine ops lowered;
  // those with matmul tile ops get NVVM (mma.sync, wgmma) and LLVM ops, and
  // the wgmma lowering matches TMA tiles (gpu and nvgpu types).
  let dependentDialects = ["arith::ArithDialect", "gpu::GPUDialect",
                           "LLVM::LLVMDialect", "memref::MemRefDialect",
                           "nvgpu::NVGPUDialect", "NVVM::NVVMDialect",
                           "scf::SCFDialect", "vector::VectorDialect"];
}

def VxDistributeTileOps : Pass<"vx-distribute-tile-ops"> {
  let summary = "Rewrite the tile ops of device spawns into thread loops";
  let description = [{
    VX_SPEC section 2.3: a linalg structured op (`linalg.matmul`,
    `linalg.fill`, `linalg.map`, `linalg.generic`, `linalg.reduce`,
    `linalg.copy`, ...) in once-per-instance code of a device spawn is
    computed by the whole CTA. This pass gives it the exact (FMA)
    distribution: one thread loop (`scf.parallel`) over its parallel
    dimensions, in the order of its output's dimensions, with its
    reduction dimensions as sequential `scf.for` loops inside (upstream's
    `linalgOpToParallelLoops`, after an interchange where the output's
    order or a leading reduction dimension requires one). Element i
    (row-major) of an output tile is thus computed by thread i mod N for
    every op, so the fill, the matmul and the copy of one private
    accumulator share a distribution and the threads own it. Ops that read
    a private tile at other elements than the one they write (row
    reductions, row broadcasts, a private matmul operand), and the ops
    sharing a private tile with them, keep only their first output
    dimension in the thread loop: row r on thread r mod N. In a body with
    tile ops or thread loops, `memref.copy` outside thread loops is a tile
    op too. The CTA mapping of `convert-vx-to-gpu` then places the
    barriers. The GPU routes run this pass before the mapping;
    `vx-verify-semantics` checks a copy of each spawn rewritten by it.

    With `chip`, the matmuls that fit run on the tensor cores:
    `wgmma.mma_async` on sm_90a (their smem operand tiles get
    `vx.swizzle`, the layout their TMA transfers write), `mma.sync` from
    sm_80 otherwise. A `linalg.matmul` whose operands would suit the
    tensor cores (bf16 or f16 operands, or f32 ones with `tf32`) gets a
    remark: how it is computed, or why with FMA code. Errors: a linalg op on tensors, or one that is not a
    structured op, in once-per-instance code of a device spawn.

    Example: `vx-opt --vx-distribute-tile-ops` turns
    `linalg.matmul ins(%a, %b : ...) outs(%acc : memref<64x64xf32>)` into
    `scf.parallel (%i, %j) = ... { scf.for %k = ... { ... } }`.
  }];
  let options = [
    Option<"tf32", "tf32", "bool", "false",
           "f32 matmuls may use TF32 tensor cores (for the remark only: "
           "they are computed with FMA code)">,
    Option<"chip", "chip", "std::string", "\"\"",
           "The chip whose tensor cores compute the matmuls that fit "
           "(mma.sync from sm_80, wgmma.mma_async on sm_90a); empty: FMA "
           "code only">,
    Option<"threadsPerBlock", "threads-per-block", "int64_t", "0",
           "The CTA size of spawns without a `threads` clause (0: the "
           "default), which the MMA warps are chosen for">,
  ];
  let dependentDialects = ["arith::ArithDialect", "gpu::GPUDialect",
                           "linalg::LinalgDialect", "LLVM::LLVMDialect",
                           "memref::MemRefDialect", "nvgpu::NVGPUDialect",
                           "NVVM::NVVMDialect", "scf::SCFDialect",
                           "vector::VectorDialect"];
}

def VxExtractDeviceModule : Pass<"vx-extract-device-module", "ModuleOp"> {
  let summary = "Replace the module by the contents of one gpu.module";
  let description = [{
    Keeps only the device code of one `gpu.module` (by `name`, or the only
    one), as a top-level module with the NVPTX target triple, so that the
    NVVM stage can go through `mlir-translate --mlir-to-llvmir` and `llc`.

    Example: `vx-opt --vx-to-nvvm --vx-extract-device-module |
    mlir-translate --mlir-to-llvmir | llc -mcpu=sm_90 -mattr=+ptx80`.
  }];
  let options = [
    Option<"moduleName", "name", "std::string", "\"\"",
           "The gpu.module to keep (default: the only one)">
  ];
}

def VxInstrumentRaces : Pass<"vx-instrument-races", "ModuleOp"> {
  let summary = "Record the accesses of spawn bodies for the dynamic race "
                "detector";
  let description = [{
    The instrumentation of `detect-races=true` (VX_SPEC section 3). Before
    each spawn, host code registers the execution with the detector's
    runtime (`libvx_race_runtime`): the grid and its semantics, the buffers
    the body touches (captured buffers by address, scratch and body
    allocations by number) and a description of every access. In the body,
    every load, store, vector access, copy, transfer and atomic update of a
    memref gets a `vx.race_access` with the instance's parallel point and
    linear id, and each thread loop a `vx.race_thread_loop` whose execution
    and linear iteration the accesses inside it carry (the affine ops of a
    body with `affine.parallel` are lowered first, so that it is one).
    Scalar accesses also check their indices against the memref's sizes.

    Not recorded: accesses inside called functions, ops whose addresses the
    model does not know (linalg ops, `vector.transfer_*`, gathers and
    scatters, raw pointers). `vx-lower-race-checks` turns the `vx.race_*`
    ops into runtime calls after the GPU mapping (so that `via-gpu=true`
    keeps them in device code).

    Example: `vx-opt --vx-instrument-races --vx-lower-race-checks`.
  }];
  let dependentDialects = ["arith::ArithDialect", "func::FuncDialect",
                           "memref::MemRefDialect", "scf::SCFDialect",
                           "vector::VectorDialect"];
}

def VxLowerRaceChecks : Pass<"vx-lower-race-checks", "ModuleOp"> {
  let summary = "Lower vx.race_* ops to calls of the race detector runtime";
  let description = [{
    Replaces `vx.race_access` and `vx.race_thread_loop` by calls of
    `__vx_race_access`, `__vx_race_thread_loop` and
    `__vx_race_thread_loop_dim` (declared in the module), whose arguments are
    64-bit integers.

    Example: `vx-opt --vx-instrument-races --vx-lower-race-checks`.
  }];
  let dependentDialects = ["arith::ArithDialect", "func::FuncDialect"];
}

def VxNoAliasKernelArguments : Pass<"vx-noalias-kernel-arguments"> {
  let summary = "Mark the memref arguments of GPU kernels noalias (and "
                "readonly where never written)";
  let description = [{
    Distinct memref arguments of a spawn do not overlap (docs/design.md,
    "Aliasing"); this pass hands that contract to the device, as
    `__restrict__` does in CUDA, so that inputs the kernel only reads are
    loaded with `ld.global.nc`. On a `gpu.func` kernel it records, in
    `vx.noalias_arguments` and `vx.readonly_arguments`, the positions of
    its memref arguments' aligned pointers in the signature that
    `convert-gpu-to-nvvm` expands them to (a memref of rank r becomes
    3 + 2r arguments); on the lowered `llvm.func` kernel it sets
    `llvm.noalias` (and `llvm.readonly`) there. `vx-to-nvvm` and `vx-to-ptx`
    run it before and after the device lowering.

    Example: `vx-opt --vx-to-nvvm` shows
    `llvm.func @k_kernel(%arg0: !llvm.ptr, %arg1: !llvm.ptr {llvm.noalias,
    llvm.readonly}, ...)`.
  }];
}

def VxExternDynamicSharedMemory : Pass<"vx-extern-dynamic-shared-memory"> {
  let summary = "Declare dynamic shared memory as an extern .shared array";
  let description = [{
    `convert-gpu-to-nvvm` lowers `gpu.dynamic_shared_memory` to an internal
    zero-size `llvm.mlir.global` in address space 3, which LLVM's NVPTX back
    end prints as a one-byte static `.shared` variable. ptxas then lays it
    out among the static symbols (the mbarriers of `nvgpu.mbarrier.create`
    among them): the dynamic shared memory of the launch starts at that
    byte and overwrites what follows it. This pass gives every zero-size
    global of address space 3 without an initializer external linkage, so
    that it is printed as `.extern .shared .align A .b8 name[];`, the
    dynamic array that ptxas places after all static shared memory (what
    CUDA's `extern __shared__ char smem[];` is), and raises its alignment to
    at least `alignment` bytes. `vx-to-nvvm` and `vx-to-ptx` run it on each
    `gpu.module` after the device lowering.

    Example: `llvm.mlir.global internal @__dynamic_shmem__0() {addr_space =
    3 : i32, alignment = 16 : i64} : !llvm.array<0 x i8>` becomes
    `llvm.mlir.global external @__dynamic_shmem__0() {addr_space = 3 : i32,
    alignment = 128 : i64} : !llvm.array<0 x i8>`.
  }];
  let options = [
    Option<"alignment", "alignment", "int64_t", "128",
           "The least alignment in bytes of the dynamic shared memory (a "
           "power of 2)">,
  ];
}

def VxScopeLoopAllocas : Pass<"vx-scope-loop-allocas"> {
  let summary = "Release each loop iteration's stack allocations at its end";
  let description = [{
    `scf.for`, `scf.parallel` and `scf.forall` are automatic allocation
    scopes: a `memref.alloca` in a loop body lives for one iteration. The
    lowering to control flow does not keep that (an alloca in a loop block
    grows the stack at every iteration), so this pass saves the stack
    pointer at the start of each such body (`llvm.intr.stacksave`) and
    restores it at the end (`llvm.intr.stackrestore`), what a
    `memref.alloca_scope` lowers to. Spawns lowered to loops put
    per-instance scratch in loop bodies: without this, a grid of 4096
    instances with a 16 KB scratch would need 64 MB of stack on the CPU.
    Allocas in nested automatic allocation scopes are theirs.

    Example: `scf.for %i = ... { %a = memref.alloca() ... }` becomes
    `scf.for %i = ... { %s = llvm.intr.stacksave : !llvm.ptr
    %a = memref.alloca() ... llvm.intr.stackrestore %s : !llvm.ptr }`.
  }];
  let dependentDialects = ["LLVM::LLVMDialect"];
}

def VxCarryBF16AsIntegers : Pass<"vx-carry-bf16-as-integers"> {
  let summary = "Carry bf16 values between blocks as i16 (LLVM dialect)";
  let description = [{
    The x86 backend keeps a bf16 value that lives across blocks in an f32
    register: it extends it at the definition and rounds it back with
    `__truncsfbf2` at the use, which quiets signalling NaNs and flushes
    subnormals. Copies must move bits (every route runs to the same
    numbers), so on the CPU path every bf16 value (scalar or vector) used in
    another block, and every bf16 block argument, crosses as i16 bits: a
    bitcast where it is defined, one back where it is used, and stores of
    a bitcast store the bits themselves. The last pass of `vx-to-llvm`.

    Example: `%x = llvm.load %p : !llvm.ptr -> bf16` then, in another block,
    `llvm.store %x, %q : bf16, !llvm.ptr` becomes a load, a bitcast to i16,
    and a store of the i16 in the other block.
  }];
  let dependentDialects = ["LLVM::LLVMDialect"];
}

def VxCheckLowered : Pass<"vx-check-lowered", "ModuleOp"> {
  let summary = "Fail, naming it, on the first op a pipeline left unlowered";
  let description = [{
    The last pass of every Vx pipeline: the output of a stage may hold only
    the ops of `dialects` (dialect names such as `llvm`, or op names such as
    `gpu.launch_func`; `builtin.module` always). With no `dialects`, any op
    but those of the vx dialect may remain. `builtin.unrealized_conversion_cast`
    is never a lowered op. A conversion that gives up on an op leaves it
    behind without an error; this check turns that into an error naming the
    op and the stage, instead of output that fails later or lies.

    Example: `vx-opt --vx-check-lowered="stage=llvm dialects=llvm"`.
  }];
  let options = [
    Option<"stage", "stage", "std::string", "\"\"",
           "The stage the diagnostic names">,
    ListOption<"dialects", "dialects", "std::string",
               "The dialects and ops the output may hold (default: any but "
               "vx)">
  ];
}

def VxPrepareOpenMP : Pass<"vx-prepare-openmp"> {
  let summary = "Run nested and reducing scf.parallel loops sequentially";
  let description = [{
    Before `convert-scf-to-openmp`: every `scf.parallel` nested in another
    `scf.parallel`, or with reductions, becomes a sequential `scf.for` nest
    with its reductions applied in order. OpenMP then runs the outer loops
    (the parallel dimensions of spawns) on its threads, without nested
    parallel regions, and without the reductions that
    `convert-scf-to-openmp` cannot express (any but a single arithmetic op)
    failing the pipeline.

    Example: `vx-opt --vx-prepare-openmp --convert-scf-to-openmp`.
  }];
  let dependentDialects = ["scf::SCFDialect"];
}

def VxLowerOpenMPScopes : Pass<"vx-lower-openmp-scopes", "ModuleOp"> {
  let summary = "Lower the allocation scopes of OpenMP loop bodies to LLVM";
  let description = [{
    After `convert-scf-to-openmp`: each `memref.alloca_scope` directly in
    an OpenMP op (the one that pass wraps each loop body in, so that the
    body's allocas are freed per iteration) becomes a stack save and
    restore around its inlined body. Its region must be one block, so it is
    lowered before `convert-scf-to-cf` lowers the control flow inside it;
    the other memref ops stay for `finalize-memref-to-llvm`, which runs
    after that (ops such as `memref.generic_atomic_rmw` add blocks, which an
    scf region around them could not hold).

    Example: `vx-opt --convert-scf-to-openmp --vx-lower-openmp-scopes`.
  }];
  let dependentDialects = ["LLVM::LLVMDialect", "cf::ControlFlowDialect"];
}

def VxSetSimOrder : Pass<"vx-set-sim-order", "ModuleOp"> {
  let summary = "Set the PTX simulator's thread order before the device "
                "modules load";
  let description = [{
    The `sim-order` option of `vx-to-llvm="ptx-sim=true"` (VX_SPEC 3.1):
    adds a global constructor that calls `vxSimSetOrder(order)` of the PTX
    simulator (`libvx_ptx_sim`) with priority 101, before the constructors
    (priority 123) that the `gpu.binary` ops become load the device modules.
    `order` is `forward`, `reverse`, `shuffle` or `shuffle:SEED` (a decimal
    seed): the order in which the simulator runs the threads of a CTA
    between two barriers. Without the pass the simulator takes
    `$VX_SIM_ORDER`, else `forward`.

    Example: `vx-opt --vx-to-llvm="ptx-sim=true sim-order=shuffle:7"` ends
    with `vx-set-sim-order{order=shuffle:7}`; the module gets
    `llvm.mlir.global_ctors ctors = [@vx_set_sim_order], priorities =
    [101 : i32]`.
  }];
  let options = [
    Option<"order", "order", "std::string", "\"forward\"",
           "forward, reverse, shuffle or shuffle:SEED">
  ];
  let dependentDialects = ["LLVM::LLVMDialect"];
}

def VxReport : Pass<"vx-report", "ModuleOp"> {
  let summary = "Remark, per kernel launch, what the compiler did";
  let description = [{
    One remark per `gpu.launch_func`, at its spawn: the kernel, its grid and
    block (`?` where dynamic), the grid instances that share a CTA, the bytes
    of dynamic shared memory, the stages its transfers are pipelined in
    (instances per CTA and stages as `convert-vx-to-gpu` recorded them), and,
    where the module holds the kernel's PTX (`--vx-to-ptx` with `format=isa`)
    and a CUDA toolkit is found, what `ptxas -v` reports for it: registers,
    spill bytes (stores plus loads) and stack bytes. The same report as
    Python's `m.report()` and `python3 -m vx FILE --report`; fails with
    ptxas's log where ptxas does. The IR is unchanged.

    Example: `vx-opt --vx-to-ptx --vx-report input.mlir -o /dev/null`:

    ```
    input.mlir:18:3: remark: kernel matmul_kernel: grid=(2, 3, 1)
    block=(256, 1, 1) instances_per_cta=1 shared_bytes=8416 stages=1
    registers=92 spill_bytes=0 stack_bytes=0
    ```
    (one line), with the field names of Python's `vx.KernelReport`.
  }];
}

def VxGpuModuleToBinary : Pass<"vx-gpu-module-to-binary"> {
  let summary = "gpu-module-to-binary with the modules serialized in parallel";
  let description = [{
    Upstream's `gpu-module-to-binary` with the same options and the same
    output: each `gpu.module` nested directly in the op is serialized with
    every target attribute it carries (`serializeToObject`, then
    `createObject`) and replaced by a `gpu.binary` of the objects, in the
    order of the modules. Upstream serializes one module after the other;
    this pass serializes the modules on the context's threads (one NVPTX
    compile, and one `ptxas` run for `format=bin`, per module at a time on
    each thread), then replaces them on one thread, so the output does not
    depend on the number of threads. With multithreading disabled
    (`--mlir-disable-threading`) it serializes them one after the other.

    Each serialization translates its module to LLVM IR in an LLVM context
    of its own and changes only that module; the symbol table that targets
    may ask for is built before the threads start (upstream builds it
    lazily). Every module is serialized even after one fails, and the
    errors (upstream's) come in the order of the modules; upstream stops at
    the first module that fails.

    Example: `vx-opt --vx-gpu-module-to-binary="format=isa" input.mlir`:

    ```mlir
    gpu.module @a [#nvvm.target<chip = "sm_90">] { ... }
    gpu.module @b [#nvvm.target<chip = "sm_90">] { ... }
    // becomes
    gpu.binary @a  [#gpu.object<#nvvm.target<chip = "sm_90">, properties =
      {LLVMIRToISATimeInMs = 12 : i64, O = 2 : i32}, assembly = "...">]
    gpu.binary @b  [...]
    ```
  }];
  let options = [
    Option<"toolkitPath", "toolkit", "std::string", [{""}],
           "Toolkit path.">,
    ListOption<"linkFiles", "l", "std::string",
           "Extra files to link to.">,
    Option<"cmdOptions", "opts", "std::string", [{""}],
           "Command line options to pass to the tools.">,
    Option<"compilationTarget", "format", "std::string", [{"fatbin"}],
           "The target representation of the compilation process: "
           "offloading/llvm, assembly/isa, binary/bin or fatbinary/fatbin.">,
    Option<"elfSection", "section", "std::string", [{""}],
           "ELF section where binary is to be located.">
  ];
}

def VxDropCompileTimes : Pass<"vx-drop-compile-times", "ModuleOp"> {
  let summary = "Remove the compile times that gpu-module-to-binary records";
  let description = [{
    `gpu-module-to-binary` records how long it took (`LLVMIRToISATimeInMs`,
    `ISAToBinaryTimeInMs`) in the properties of each `gpu.object`, which
    makes its output differ from run to run. This pass removes those
    properties (and an empty property dictionary), so that the `ptx` stage
    is byte-identical for the same input and options; it runs right after
    `gpu-module-to-binary` in `--vx-to-ptx`.

    Example: `vx-opt --gpu-module-to-binary --vx-drop-compile-times`.
  }];
}

#endif // VX_TRANSFORMS_PASSES
