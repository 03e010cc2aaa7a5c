//===- Passes.td - Vx conversion passes --------------------*- tablegen -*-===//
//
// The lowerings of the vx dialect, one folder each under lib/Conversion.
//
//===----------------------------------------------------------------------===//

#ifndef VX_CONVERSION_PASSES
#define VX_CONVERSION_PASSES

include "mlir/Pass/PassBase.td"

def ConvertVxToSCF : Pass<"convert-vx-to-scf"> {
  let summary = "Lower vx.spawn to scf.parallel around an scf.for nest";
  let description = [{
    Each spawn becomes one `scf.parallel` over its parallel dimensions (grid
    order) around an `scf.for` nest over its arbitrary dimensions (grid
    order, outermost first). `vx.grid_index` becomes the induction variables,
    `vx.grid_dim` the sizes, `vx.scratch` one `memref.alloca` per parallel
    point at the top of the parallel body, `vx.transfer_async` a loop nest
    copying element by element and `vx.await` nothing (tokens carried by scf
    loops become `i1`).

    Example: `vx-opt --convert-vx-to-scf="reverse-parallel=true"`.
  }];
  let dependentDialects = ["arith::ArithDialect", "memref::MemRefDialect",
                           "scf::SCFDialect", "ub::UBDialect",
                           "vector::VectorDialect"];
  let options = [
    Option<"reverseParallel", "reverse-parallel", "bool", "false",
           "Iterate the parallel dimensions from last to first">
  ];
}

def VxPlanLaunch : Pass<"vx-plan-launch", "ModuleOp"> {
  let summary = "Plan how each device spawn maps onto the GPU";
  let description = [{
    The first step of the GPU mapping (the steps speak through the IR, so
    that each runs alone; `convert-vx-to-gpu` runs those a spawn lacks).
    Checks that each device spawn without a plan can run on the device and
    records its plan as `vx.launch_plan = #vx.launch_plan<...>`: `kernel`,
    the name of its kernel and of the kernel's module (`f_kernel`,
    `f_kernel_0`, ... in @f, in program order, skipping the module's
    symbols), `threads`, the CTA size (the `threads N` clause, else
    `threads-per-block`, else 256, fewer instances per CTA for a body
    without thread loops when theirs would not fit the shared memory, or
    not with the cp.async slots of its requested stages (`stages`, or the
    spawn's `stages` clause; kept whenever one instance has room for
    them), the count chosen by occupancy among those that fit, with a
    remark when the stages are what made it smaller; 1 for such a body
    without parallel dimensions), and
    `cooperative`: the body has thread loops (`scf.parallel` ops not inside
    another one of the body), so one grid instance runs on the whole CTA
    (VX_SPEC 2.1); otherwise each thread runs its own instance.

    An op that cannot run on the device or would not lower on every route
    (allocation, a call, an op of a host-only or GPU-only dialect, tensors,
    and the few ops no route lowers) is an error that names it, as is smem
    scratch of a type shared memory cannot hold and a static grid whose
    CTAs cannot be counted in an index. With `chip` set (checked against
    LLVM's NVPTX chips), a `tensor_core5` spawn needs sm_100 or newer.

    Example: `vx-opt --vx-plan-launch="threads-per-block=128 chip=sm_90"`
    turns `vx.spawn on tensor_core grid [%n] semantics [parallel] {...}` in
    @f into the same spawn with `{vx.launch_plan = #vx.launch_plan<kernel =
    "f_kernel", threads = 128, cooperative = false>}`.
  }];
  let options = [
    Option<"threadsPerBlock", "threads-per-block", "int64_t", "0",
           "Threads per CTA of spawns without a threads clause (1-1024; 0: "
           "the default CTA size)">,
    Option<"stages", "stages", "int64_t", "1",
           "Stages of spawns without a stages clause (>= 1); the default "
           "CTA size keeps them, with the instances per CTA chosen by "
           "occupancy">,
    Option<"chip", "chip", "std::string", "\"\"",
           "Target chip (e.g. sm_90); when set, tensor_core5 needs sm_100+ "
           "and the default CTA size fits its shared memory">
  ];
}

def VxPadSharedTiles : Pass<"vx-pad-shared-tiles", "ModuleOp"> {
  let summary = "Pad the rows of smem tiles that thread loops access with "
                "bank conflicts";
  let description = [{
    An optimization between `vx-plan-launch` and `vx-map-cta` (the GPU
    pipelines and `convert-vx-to-gpu` run it there), on planned
    cooperative device spawns (VX_SPEC 2.1) not yet mapped. Each access of
    an `smem` scratch in a thread loop with static bounds is evaluated on
    the lanes of the warps as the mapping runs it (iteration i on thread
    i mod N, a warp 32 consecutive threads; loop counters inside the
    iteration at their first value, values from outside it the same on
    every lane) and priced as bench/bank_conflicts.py prices the PTX: 32
    banks of 4 bytes, phases of 32, 16 or 8 lanes for 4-, 8- and 16-byte
    accesses (scalar accesses that vx-vectorize-shared-accesses will join
    counted as the vector), a phase as many wavefronts as the most
    distinct words one bank holds. A tile with an access of more than one
    wavefront a phase gets the fewest elements of padding per row (up to
    128 bytes) that minimize the worst access, then the wavefronts of all:
    its scratch becomes `memref.subview` [0, ..., 0] of a scratch with
    wider rows, as the ldmatrix layout of `vx-distribute-tile-ops` does,
    so every use sees the layout. A padding keeps the alignment of vector
    accesses and of cp.async chunks (16 bytes where the dense row is a
    multiple of 16 bytes). A remark on each conflicted tile says what was
    done: "padded from 128 to 132 bytes a row: 32-way bank conflicts of
    'memref.load' (line 25) -> 1", or why its rows were kept (rank 1, a
    use other than an access or a transfer, a TMA copy on `chip`, accesses
    the vectorizer will join, which it joins in dense rows only, no
    padding with the alignment needed, or the shared memory of `chip`).

    Example: `vx-opt --vx-plan-launch --vx-pad-shared-tiles="chip=sm_90"
    --vx-map-cta`.
  }];
  // gpu, nvgpu: matchTMATile builds the tensor map's type.
  let dependentDialects = ["gpu::GPUDialect", "memref::MemRefDialect",
                           "nvgpu::NVGPUDialect"];
  let options = [
    Option<"chip", "chip", "std::string", "\"\"",
           "Target chip (e.g. sm_90): tiles a TMA copy writes keep dense "
           "rows from sm_90, and the padding must fit its shared memory">
  ];
}

def VxMapCTA : Pass<"vx-map-cta", "ModuleOp"> {
  let summary = "Rewrite cooperative spawn bodies into what every thread "
                "of the CTA runs";
  let description = [{
    The second step of the GPU mapping, on planned device spawns (see
    `vx-plan-launch`; a device spawn without a plan is an error). Affine ops
    in spawn bodies are lowered first (grid indices become values that are
    no affine dimensions or symbols). The body of a `cooperative` spawn is
    rewritten in place into the code that each of the plan's `threads`
    threads runs (VX_SPEC 2.1): `gpu.thread_id x` picks a thread's share of
    each thread loop (iteration i runs on thread i mod N), `scf.reduce`
    becomes a CTA-wide reduction (warp shuffles and shared memory) that
    every thread sees, the body's other code runs on every thread with its
    stores to memory other threads see made by thread 0, `gpu.barrier`
    goes where threads exchange data (from the address model, which puts
    the stores made outside thread loops on thread 0; each barrier's reason
    is an analysis remark of category `vx-barriers`, shown with
    `--remarks-filter=vx-barriers`; where the transfers that
    `vx-pipeline-transfers` would take change the plan, the barriers that
    hold only with or without their pipelining carry `vx.if_pipelined` or
    `vx.unless_pipelined`, and the transfers `vx.pipelinable`), private
    scratch owned by threads keeps only each thread's part, an alloca
    outside thread loops that a thread loop writes (memory of the whole
    instance) becomes scratch (private where owned, smem otherwise; one of
    dynamic shape is an error), `memref.copy`
    into shared memory becomes a thread loop, and each transfer into memory
    the threads share is marked `vx.copy_threads = N` (the whole CTA copies
    it). The CTA's smem scratch (with the reductions' slots) is then
    checked against the shared memory of `chip` (227 KiB on sm_90; the
    largest of any chip when unset). The plan gets `mapped = true`.

    Example: `vx-opt --vx-plan-launch --vx-map-cta="chip=sm_90"`.
  }];
  let dependentDialects = ["arith::ArithDialect", "gpu::GPUDialect",
                           "memref::MemRefDialect", "scf::SCFDialect",
                           "vector::VectorDialect"];
  let options = [
    Option<"chip", "chip", "std::string", "\"\"",
           "Target chip (e.g. sm_90) whose shared memory the CTA must fit">
  ];
}

def VxUnrollThreadLoops : Pass<"vx-unroll-thread-loops", "ModuleOp"> {
  let summary = "Fully unroll the small static loops of mapped CTA bodies";
  let description = [{
    An optimization after `vx-map-cta` (the GPU pipelines run it between
    `vx-map-cta` and `vx-pipeline-transfers`; `convert-vx-to-gpu` alone
    does not): in every mapped cooperative device spawn (VX_SPEC 2.1), each
    `scf.for` whose trip count is a constant and which holds no barrier
    (the loops that thread loops left in the code every thread runs) is
    unrolled whole, innermost first, when its body times its trip count
    stays within `max-ops` operations. The loop counters then fold into the
    indices, so LLVM sees adjacent shared-memory accesses at constant
    offsets (128-bit `ld.shared.v4` where the layout is aligned) and no loop
    overhead remains: SGEMM's kk loop of 8 becomes 512 FFMA and 32 LDS.128
    in a straight line. Running after the mapping, the ownership proof and
    the barrier placement reason on loops, not on their copies. Loops over
    the budget stay (attention's loop over 64 keys).

    Example: `vx-opt --vx-plan-launch --vx-map-cta
    --vx-unroll-thread-loops="max-ops=1024"`.
  }];
  let dependentDialects = ["arith::ArithDialect", "scf::SCFDialect"];
  let options = [
    Option<"maxOps", "max-ops", "int64_t", "8192",
           "Most operations a fully unrolled loop may have (its body's, "
           "times its trip count)">
  ];
}

def VxVectorizeSharedAccesses
    : Pass<"vx-vectorize-shared-accesses", "ModuleOp"> {
  let summary = "Turn adjacent scalar accesses of smem scratch into vectors";
  let description = [{
    An optimization after `vx-unroll-thread-loops` (the GPU pipelines run
    it next; `convert-vx-to-gpu` alone does not): in every mapped
    cooperative device spawn (VX_SPEC 2.1), the scalar `memref.load`s of an
    `smem` scratch in one block that read the 4 (or 2) adjacent elements of
    a 16-byte (8-byte) chunk become one `vector.load` with that alignment
    and `vector.extract`s, and likewise `memref.store`s become a
    `vector.store` of `vector.from_elements` at the last of them: 128-bit
    `ld.shared.v4` / `st.shared.v4` in the PTX. Offsets are sums of
    constant multiples of index values; a chunk's first element must be at
    a multiple of its width whatever those values are (SGEMM's
    `b_tile[kk][64 g + 4 tx + j]`, j < 4), and every smem slice starts at a
    multiple of 16 bytes. Loads do not move past an op that may write the
    scratch, stores past one that may read it or a store that may write
    the same element. LLVM's load-store vectorizer does not do this: the
    alignment comes from the thread index arithmetic and the shared-memory
    layout, which it does not see.

    Example: `vx-opt --vx-plan-launch --vx-map-cta --vx-unroll-thread-loops
    --vx-vectorize-shared-accesses`.
  }];
  let dependentDialects = ["arith::ArithDialect",
                           "vector::VectorDialect"];
}

def VxPipelineTransfers : Pass<"vx-pipeline-transfers", "ModuleOp"> {
  let summary = "Multi-buffer the transfers along the arbitrary dimensions";
  let description = [{
    The third step of the GPU mapping, on mapped device spawns (see
    `vx-map-cta`; a device spawn not yet mapped is an error) whose plan has
    no `stages` yet. `stages=N` (or a spawn's `stages N` clause) pipelines
    the cp.async transfers into whole `smem` scratch that are directly in
    the body, awaited there, and whose source moves with the arbitrary
    dimensions (VX_SPEC 2.2): each such scratch gets N slots (step s uses
    slot s mod N, s the linear arbitrary step), the first step issues steps
    0..N-2, and each step waits with `numGroups = N-2` and then issues step
    s+N-1 (guarded at the end of the grid, one group per step, empty past
    it). On chips without TMA a transfer whose source does not move and
    whose scratch the spawn does not write is loaded once, with step 0's
    group, into one buffer. The transformation is refused with a remark
    saying why (a warning under a `stages` clause) when a source may be
    written in the spawn, depends on memory or on no arbitrary dimension
    (but as above), or the scratch is used before the await; N drops, with a remark, to what the shared memory of
    `chip` holds, and stays otherwise: where fewer stages would leave room
    for more CTAs per SM than the extra buffering is worth, a remark says
    so (the CTAs per SM with N stages and with the count that would keep
    more). On sm_90 and newer, with one parallel point and one
    instance per CTA, such transfers of tiles of rank 2 or more are TMA
    loads (`nvgpu.tma.async.load`, tensor maps encoded on the host) with an
    mbarrier per slot (one `expect_tx` of the step's bytes) and parity
    waits, also with one stage (one slot, loaded in its own step); a
    swizzled tile whose source does not move is loaded once, with step 0's
    loads, into one buffer. The issuing thread fences
    (`nvvm.fence.proxy` async.shared, once after the barrier before each
    step's loads where threads access the slots, and after the mbarrier
    initialization with `nvgpu.tma.prefetch.descriptor` for each tensor
    map), as the PTX ISA requires between generic-proxy accesses and TMA.
    With two or more stages, a `wgmma.wait_group 0` marked
    `vx.deferrable_wait` (vx-distribute-tile-ops) becomes `wait_group 1`,
    and the step's barrier and refill follow it (the group left in flight
    reads the step's slots; the one it retires, the slot refilled). The
    plan gets the
    stages used (`stages = 1`: nothing pipelined); the transfers it issues
    in a cooperative body are marked `vx.copy_threads`. A cooperative body
    gets one barrier per step, after the wait: of the conditional barriers
    of `vx-map-cta` it keeps those that hold for what it did (both kinds
    where it pipelined other transfers than the `vx.pipelinable` ones).

    Example: `vx-opt --vx-plan-launch --vx-map-cta
    --vx-pipeline-transfers="stages=3 chip=sm_80"`.
  }];
  let dependentDialects = ["arith::ArithDialect", "gpu::GPUDialect",
                           "memref::MemRefDialect", "nvgpu::NVGPUDialect",
                           "NVVM::NVVMDialect", "scf::SCFDialect",
                           "ub::UBDialect"];
  let options = [
    Option<"stages", "stages", "int64_t", "1",
           "Steps of transfers in flight along the arbitrary dimensions for "
           "spawns without a stages clause (>= 1; 1 is no pipelining)">,
    Option<"chip", "chip", "std::string", "\"\"",
           "Target chip (e.g. sm_90): cp.async from sm_80, TMA from sm_90, "
           "and the shared memory the slots must fit">
  ];
}

def ConvertVxToGPU : Pass<"convert-vx-to-gpu", "ModuleOp"> {
  let summary = "Map device spawns onto gpu.launch grids";
  let description = [{
    Each `tensor_core` / `tensor_core5` spawn becomes one `gpu.launch`; host
    spawns are left for `convert-vx-to-scf`. The launch grid is made of the
    parallel dimensions: with at most three of them, all static and within
    the hardware limits (x <= 2^31-1, y and z <= 65535), the k-th parallel
    dimension is launch dimension x, y, z in that order. Otherwise the
    parallel dimensions are folded into launch dimension x and recovered in
    the kernel by delinearization, looping grid-stride where the total can
    exceed the limit of x. Dynamic sizes are clamped at 0 (a size <= 0 runs
    no instance): the launch is skipped when the total is 0, and when the
    product of the sizes exceeds 2^63-1 a `cf.assert` stops the program with
    a message naming the spawn and nothing is launched. A spawn without
    parallel dimensions is a 1x1x1 launch. Each launch names its kernel and
    module alike (`f_kernel`, `f_kernel_0`, ... in @f).

    Arbitrary dimensions stay an `scf.for` nest inside the kernel. The CTA
    size, the kernel's name and whether an instance runs on the whole CTA
    are the spawn's `#vx.launch_plan`. The pass is the last step of the
    mapping and runs the earlier ones, with its options, on the spawns that
    lack their results: `vx-plan-launch` (device checks; a CTA of the
    `threads N` clause, else `threads-per-block`, else 256 threads),
    `vx-map-cta` (a body with thread loops rewritten into what every thread
    of the CTA runs) and `vx-pipeline-transfers` (`stages`). A body with
    thread loops runs one grid instance per CTA; a body without them runs
    one instance per thread, the CTA's threads spread over the innermost
    parallel dimension with a bounds guard.

    `vx.scratch` becomes a `memref.alloca` at the top of the kernel
    (`private`) or a view of the launch's dynamic shared memory (`smem`, one
    16-byte aligned buffer per instance and scratch), seen through a
    `memref.memory_space_cast` so that its type is unchanged. Float adds,
    subtracts and multiplies are marked `contract` (fma contraction, nvcc's
    default) unless `fma=false`. A transfer from global memory into `smem`
    scratch becomes cp.async copies (`nvgpu.device_async_copy` in 4-, 8- or
    16-byte chunks, gathered by one `nvgpu.device_async_create_group`, spread
    over the CTA's threads when it has `vx.copy_threads`) and its await an
    `nvgpu.device_async_wait` in place, from sm_80 on; other transfers and
    `memref.copy` become loop copies, with a remark saying why.

    Tile ops (VX_SPEC 2.3) are distributed over threads before this pass
    by `vx-distribute-tile-ops`, which has the pipelines' `tf32` option.

    Example: `vx-opt --convert-vx-to-gpu="threads-per-block=128"`.
  }];
  let dependentDialects = ["affine::AffineDialect", "arith::ArithDialect",
                           "cf::ControlFlowDialect", "gpu::GPUDialect",
                           "memref::MemRefDialect",
                           "nvgpu::NVGPUDialect", "NVVM::NVVMDialect",
                           "scf::SCFDialect", "ub::UBDialect",
                           "vector::VectorDialect"];
  let options = [
    Option<"threadsPerBlock", "threads-per-block", "int64_t", "0",
           "Threads per CTA of spawns without a threads clause (1-1024; 0: "
           "the default CTA size)">,
    Option<"stages", "stages", "int64_t", "1",
           "Steps of transfers in flight along the arbitrary dimensions for "
           "spawns without a stages clause (>= 1; 1 is no pipelining)">,
    Option<"chip", "chip", "std::string", "\"\"",
           "Target chip (e.g. sm_90); when set, tensor_core5 needs sm_100+">,
    Option<"fma", "fma", "bool", "true",
           "Let a float multiply feeding an add contract to an fma">
  ];
}

def ConvertGPULaunchToSCF : Pass<"convert-gpu-launch-to-scf"> {
  let summary = "Run gpu.launch on the CPU: blocks as loops, threads in phases";
  let description = [{
    Replaces each `gpu.launch` by an `scf.parallel` over its blocks in which
    the threads of a block run phase by phase, so that a GPU mapping,
    barriers and warp shuffles included, is checked on numbers. This is how
    `--vx-to-llvm="via-gpu=true"` runs device spawns.

    The launch body is split into phases: a `gpu.barrier` ends one, a
    `gpu.shuffle` starts one, and an `scf.for`, `scf.if`, `scf.index_switch`
    or `scf.while` with a barrier or a shuffle inside keeps its structure
    (bounds, condition or selector taken from thread 0) with its regions
    split in turn. Each phase is an `scf.for` nest over the threads of the
    block (x fastest). A value that lives from one phase into a later one is
    kept per thread: scalars and vectors (also the iter_args and results of
    a split op) in a buffer of one element per thread, allocated per block;
    constants and other pure ops (views of memrefs) computed again where
    they are used; static `memref.alloca`s in a phase one slice per thread of
    a buffer per block. A shuffle reads its partner's value (lane `k ^ o`,
    `k + o`, `k - o` or `o` of a warp of 32 threads in x-fastest order) from
    that buffer; outside the first `width` lanes or the block, `valid` is
    false and the thread gets its own value, as on NVIDIA GPUs.

    Every barrier and shuffle must be reached by all threads of the block:
    a bound, condition or selector around it that may differ between threads
    (it depends on a thread or lane id, on memory that is per thread, on an
    atomic, or on a load from such an address) is an error naming both ops.
    Workgroup attributions and dynamic shared memory
    (`gpu.dynamic_shared_memory`, sized by the launch) are one buffer per
    block. cp.async copies
    (`nvgpu.device_async_copy`) complete where they are issued, so their
    groups and waits disappear and their tokens become `i1`. So do TMA
    loads (`nvgpu.tma.async.load`, a copy of the box, zeros or NaNs outside
    the tensor as the tensor map fills, from the memref that
    `nvgpu.tma.create.descriptor` was given): an mbarrier becomes counters in
    a workgroup buffer of the launch (arrivals and bytes pending, phase
    parity), and `nvgpu.mbarrier.try_wait.parity` a barrier after which the
    awaited phase must have completed, else the program prints a message and
    exits with status 1 (on a GPU it would wait forever).

    `reverse-parallel=true` runs the blocks, and the threads of each phase,
    from the last to the first: a kernel whose numbers change under it is
    missing a barrier or is order-dependent.

    Example: `vx-opt --convert-vx-to-gpu --convert-gpu-launch-to-scf`.
  }];
  let dependentDialects = ["arith::ArithDialect", "LLVM::LLVMDialect",
                           "memref::MemRefDialect", "scf::SCFDialect"];
  let options = [
    Option<"reverseParallel", "reverse-parallel", "bool", "false",
           "Run the blocks, and the threads of each phase, from last to first">
  ];
}

#endif // VX_CONVERSION_PASSES
