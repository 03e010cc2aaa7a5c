//===- GPULaunchToSCF.cpp - Run gpu.launch on the CPU as loops ------------===//
//
// Blocks become an scf.parallel, threads an scf.for nest inside each block,
// so the index arithmetic of a GPU mapping can be checked on the CPU. A
// barrier cannot be honoured by sequential threads, so a launch with one is
// refused unless its blocks have a single thread.
//
//===----------------------------------------------------------------------===//

#include "Vx/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir {
namespace vx {
#define GEN_PASS_DEF_CONVERTGPULAUNCHTOSCF
#include "Vx/VxPasses.h.inc"
} // namespace vx
} // namespace mlir

using namespace mlir;

/// Whether every block of `launch` has exactly one thread.
static bool hasSingleThreadBlocks(gpu::LaunchOp launch) {
  gpu::KernelDim3 block = launch.getBlockSizeOperandValues();
  return llvm::all_of(ArrayRef<Value>{block.x, block.y, block.z}, [](Value size) {
    std::optional<int64_t> value = getConstantIntValue(size);
    return value && *value == 1;
  });
}

static LogicalResult checkRunnableOnCPU(gpu::LaunchOp launch) {
  if (launch.getAsyncToken() || !launch.getAsyncDependencies().empty())
    return launch.emitOpError("with async dependencies cannot run as loops");
  if (launch.hasClusterSize())
    return launch.emitOpError("with clusters cannot run as loops");
  if (!launch.getPrivateAttributions().empty())
    return launch.emitOpError("with private attributions cannot run as loops");
  if (!launch.getBody().hasOneBlock())
    return launch.emitOpError("with a multi-block body cannot run as loops");
  bool singleThread = hasSingleThreadBlocks(launch);
  WalkResult result = launch.getBody().walk([&](Operation *op) {
    if (isa<gpu::BarrierOp>(op) && !singleThread) {
      op->emitOpError("cannot run on the CPU: blocks of more than one thread "
                      "run their threads one after another");
      return WalkResult::interrupt();
    }
    if (auto copy = dyn_cast<nvgpu::DeviceAsyncCopyOp>(op);
        copy && (copy.getSrcElements() || !copy.getResult().use_empty())) {
      op->emitOpError("runs on the CPU only as a whole-chunk copy whose token "
                      "is unused");
      return WalkResult::interrupt();
    }
    if (isa<gpu::GPUDialect>(op->getDialect()) &&
        !isa<gpu::BarrierOp, gpu::TerminatorOp, gpu::BlockIdOp,
             gpu::ThreadIdOp, gpu::GridDimOp, gpu::BlockDimOp>(op)) {
      op->emitOpError("has no CPU execution");
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  if (result.wasInterrupted())
    return failure();
  for (BlockArgument buffer : launch.getWorkgroupAttributions())
    for (Operation *user : buffer.getUsers())
      if (!isa<memref::ViewOp, memref::MemorySpaceCastOp>(user))
        return user->emitOpError(
            "uses workgroup memory directly; on the CPU only "
            "'memref.view' and 'memref.memory_space_cast' of it can run");
  return success();
}

/// A cp.async chunk as the copy it completes: its elements one by one, into
/// the buffer its workgroup cast was made from; commits and waits have
/// nothing left to order.
static void convertAsyncCopies(RewriterBase &rewriter, Block &body) {
  SmallVector<Operation *> ops;
  body.walk([&](Operation *op) {
    if (isa<nvgpu::DeviceAsyncCopyOp, NVVM::CpAsyncCommitGroupOp,
            NVVM::CpAsyncWaitGroupOp>(op))
      ops.push_back(op);
  });
  for (Operation *op : ops) {
    auto copy = dyn_cast<nvgpu::DeviceAsyncCopyOp>(op);
    if (!copy) {
      rewriter.eraseOp(op);
      continue;
    }
    rewriter.setInsertionPoint(copy);
    Location loc = copy.getLoc();
    Value dst = copy.getDst();
    if (auto spaceCast = dst.getDefiningOp<memref::MemorySpaceCastOp>())
      dst = spaceCast.getSource();
    for (int64_t element = 0; element < copy.getDstElements().getSExtValue();
         ++element) {
      auto shifted = [&](ValueRange indices) {
        SmallVector<Value> result(indices);
        result.back() = arith::AddIOp::create(
            rewriter, loc, result.back(),
            arith::ConstantIndexOp::create(rewriter, loc, element));
        return result;
      };
      Value value = memref::LoadOp::create(rewriter, loc, copy.getSrc(),
                                           shifted(copy.getSrcIndices()));
      memref::StoreOp::create(rewriter, loc, value, dst,
                              shifted(copy.getDstIndices()));
    }
    rewriter.eraseOp(copy);
  }
}

static MemRefType withoutMemorySpace(MemRefType type) {
  return MemRefType::get(type.getShape(), type.getElementType(),
                         type.getLayout());
}

/// Replaces `workgroup` (a buffer in workgroup memory) by `buffer`, the same
/// buffer in the default memory space, through the views and casts that
/// `checkRunnableOnCPU` allows.
static void replaceWorkgroupBuffer(RewriterBase &rewriter, Value workgroup,
                                   Value buffer) {
  for (Operation *user : llvm::make_early_inc_range(workgroup.getUsers())) {
    rewriter.setInsertionPoint(user);
    if (auto view = dyn_cast<memref::ViewOp>(user)) {
      auto newView = memref::ViewOp::create(
          rewriter, view.getLoc(), withoutMemorySpace(view.getType()), buffer,
          view.getByteShift(), view.getSizes());
      replaceWorkgroupBuffer(rewriter, view.getResult(), newView);
      rewriter.eraseOp(view);
      continue;
    }
    auto spaceCast = cast<memref::MemorySpaceCastOp>(user);
    Value replacement = buffer;
    if (spaceCast.getType() != buffer.getType())
      replacement = memref::MemorySpaceCastOp::create(
          rewriter, spaceCast.getLoc(), spaceCast.getType(), buffer);
    rewriter.replaceOp(spaceCast, replacement);
  }
}

static void convertLaunch(RewriterBase &rewriter, gpu::LaunchOp launch,
                          bool reverseBlocks) {
  Location loc = launch.getLoc();
  rewriter.setInsertionPoint(launch);
  Value zero = arith::ConstantIndexOp::create(rewriter, loc, 0);
  Value one = arith::ConstantIndexOp::create(rewriter, loc, 1);
  gpu::KernelDim3 gridSize = launch.getGridSizeOperandValues();
  gpu::KernelDim3 blockSize = launch.getBlockSizeOperandValues();
  SmallVector<Value> grid = {gridSize.x, gridSize.y, gridSize.z};
  SmallVector<Value> block = {blockSize.x, blockSize.y, blockSize.z};
  auto blocks = scf::ParallelOp::create(rewriter, loc, {zero, zero, zero},
                                        grid, {one, one, one});
  rewriter.setInsertionPointToStart(blocks.getBody());
  SmallVector<Value> blockIds = llvm::to_vector(blocks.getInductionVars());
  if (reverseBlocks)
    for (auto [id, size] : llvm::zip_equal(blockIds, grid)) {
      Value last = arith::SubIOp::create(rewriter, loc, size, one);
      id = arith::SubIOp::create(rewriter, loc, last, id);
    }

  Block &body = launch.getBody().front();
  convertAsyncCopies(rewriter, body);
  // Workgroup memory: one buffer per block.
  for (BlockArgument buffer : launch.getWorkgroupAttributions()) {
    rewriter.setInsertionPoint(blocks.getBody()->getTerminator());
    auto type = withoutMemorySpace(cast<MemRefType>(buffer.getType()));
    Value alloca = memref::AllocaOp::create(rewriter, loc, type);
    replaceWorkgroupBuffer(rewriter, buffer, alloca);
  }
  rewriter.setInsertionPoint(blocks.getBody()->getTerminator());

  // Threads in x-fastest order: z outermost.
  SmallVector<Value> threadIds(3);
  for (int axis = 2; axis >= 0; --axis) {
    auto loop = scf::ForOp::create(rewriter, loc, zero, block[axis], one);
    threadIds[axis] = loop.getInductionVar();
    rewriter.setInsertionPoint(loop.getBody()->getTerminator());
  }

  gpu::KernelDim3 ids = launch.getBlockIds(), tids = launch.getThreadIds(),
                  gridArgs = launch.getGridSize(),
                  blockArgs = launch.getBlockSize();
  DenseMap<Value, Value> replacements;
  auto map = [&](gpu::KernelDim3 args, ArrayRef<Value> values) {
    replacements[args.x] = values[0];
    replacements[args.y] = values[1];
    replacements[args.z] = values[2];
  };
  map(ids, blockIds);
  map(tids, threadIds);
  map(gridArgs, grid);
  map(blockArgs, block);

  // Id and dimension ops (as opposed to the region arguments).
  SmallVector<Operation *> queries;
  body.walk([&](Operation *op) {
    if (isa<gpu::BlockIdOp, gpu::ThreadIdOp, gpu::GridDimOp, gpu::BlockDimOp,
            gpu::BarrierOp>(op))
      queries.push_back(op);
  });
  for (Operation *op : queries) {
    auto pick = [&](ArrayRef<Value> values, gpu::Dimension dim) {
      rewriter.replaceOp(op, values[static_cast<unsigned>(dim)]);
    };
    if (auto id = dyn_cast<gpu::BlockIdOp>(op))
      pick(blockIds, id.getDimension());
    else if (auto id = dyn_cast<gpu::ThreadIdOp>(op))
      pick(threadIds, id.getDimension());
    else if (auto dim = dyn_cast<gpu::GridDimOp>(op))
      pick(grid, dim.getDimension());
    else if (auto dim = dyn_cast<gpu::BlockDimOp>(op))
      pick(block, dim.getDimension());
    else
      rewriter.eraseOp(op); // A barrier among single-thread blocks.
  }

  SmallVector<Value> argValues;
  for (BlockArgument arg : body.getArguments())
    argValues.push_back(replacements.lookup(arg));
  rewriter.eraseOp(body.getTerminator());
  Block *dest = rewriter.getInsertionBlock();
  rewriter.inlineBlockBefore(&body, dest, rewriter.getInsertionPoint(),
                             argValues);
  rewriter.eraseOp(launch);
}

namespace {
struct ConvertGPULaunchToSCFPass
    : public vx::impl::ConvertGPULaunchToSCFBase<ConvertGPULaunchToSCFPass> {
  using Base::Base;

  void runOnOperation() override {
    SmallVector<gpu::LaunchOp> launches;
    getOperation()->walk([&](gpu::LaunchOp launch) {
      launches.push_back(launch);
    });
    bool runnable = true;
    for (gpu::LaunchOp launch : launches)
      runnable &= succeeded(checkRunnableOnCPU(launch));
    if (!runnable)
      return signalPassFailure();
    IRRewriter rewriter(&getContext());
    for (gpu::LaunchOp launch : launches)
      convertLaunch(rewriter, launch, reverseBlocks);
  }
};
} // namespace
