//===- GPULaunchToSCF.cpp - Run gpu.launch on the CPU as loops ------------===//
//
// Blocks become an scf.parallel; the threads of a block run phase by phase
// between barriers and shuffles (ThreadPhases.h), so the index arithmetic
// and the cooperation of a GPU mapping can be checked on the CPU. cp.async
// copies and TMA loads complete where they are issued (TMAToSCF.h).
//
//===----------------------------------------------------------------------===//

#include "Vx/Conversion/GPULaunchToSCF/GPULaunchToSCF.h"

#include "TMAToSCF.h"
#include "ThreadPhases.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/Patterns.h"
#include "mlir/Dialect/UB/IR/UBOps.h"
#include "mlir/Interfaces/DataLayoutInterfaces.h"
#include "mlir/Transforms/DialectConversion.h"
#include "mlir/Transforms/WalkPatternRewriteDriver.h"

namespace mlir {
namespace vx {
#define GEN_PASS_DEF_CONVERTGPULAUNCHTOSCF
#include "Vx/Conversion/Passes.h.inc"
} // namespace vx
} // namespace mlir

using namespace mlir;

/// The workgroup memory of `launch`: its workgroup attributions and the
/// results of its gpu.dynamic_shared_memory ops.
static SmallVector<Value> getWorkgroupBuffers(gpu::LaunchOp launch) {
  SmallVector<Value> buffers(launch.getWorkgroupAttributions());
  launch.getBody().walk([&](gpu::DynamicSharedMemoryOp dynamic) {
    buffers.push_back(dynamic.getResult());
  });
  return buffers;
}

/// Whether the ops of `launch` can run as loops, its threads aside; with
/// `report`, says why not.
static LogicalResult checkRunnableOnCPU(gpu::LaunchOp launch,
                                        bool report = true) {
  auto refuse = [&](Operation *op, const Twine &message) {
    if (report)
      op->emitOpError(message);
    return failure();
  };
  if (launch.getAsyncToken() || !launch.getAsyncDependencies().empty())
    return refuse(launch, "with async dependencies cannot run as loops");
  if (launch.hasClusterSize())
    return refuse(launch, "with clusters cannot run as loops");
  if (!launch.getPrivateAttributions().empty())
    return refuse(launch, "with private attributions cannot run as loops");
  if (!launch.getBody().hasOneBlock())
    return refuse(launch, "with a multi-block body cannot run as loops");
  WalkResult result = launch.getBody().walk([&](Operation *op) {
    if (auto copy = dyn_cast<nvgpu::DeviceAsyncCopyOp>(op);
        copy && copy.getSrcElements()) {
      (void)refuse(op, "runs on the CPU only as a whole-chunk copy");
      return WalkResult::interrupt();
    }
    if (isa<gpu::DynamicSharedMemoryOp>(op) &&
        !launch.getDynamicSharedMemorySize()) {
      (void)refuse(op, "reads dynamic shared memory, which the launch does "
                       "not size");
      return WalkResult::interrupt();
    }
    if (isa<gpu::GPUDialect>(op->getDialect()) &&
        !isa<gpu::BarrierOp, gpu::ShuffleOp, gpu::TerminatorOp, gpu::BlockIdOp,
             gpu::ThreadIdOp, gpu::LaneIdOp, gpu::GridDimOp, gpu::BlockDimOp,
             gpu::DynamicSharedMemoryOp>(op)) {
      (void)refuse(op, "has no CPU execution");
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  if (result.wasInterrupted() ||
      failed(vx::checkTMARunnableOnCPU(launch, report)))
    return failure();
  // Workgroup memory and its views in the workgroup space.
  SmallVector<Value> workgroup = getWorkgroupBuffers(launch);
  while (!workgroup.empty()) {
    for (Operation *user : workgroup.pop_back_val().getUsers()) {
      if (auto view = dyn_cast<memref::ViewOp>(user)) {
        workgroup.push_back(view);
        continue;
      }
      if (!isa<memref::MemorySpaceCastOp>(user))
        return refuse(user,
                      "uses workgroup memory directly; on the CPU only "
                      "'memref.view' and 'memref.memory_space_cast' of it "
                      "can run");
    }
  }
  return success();
}

static bool isRunnableOnCPU(gpu::LaunchOp launch) {
  return succeeded(checkRunnableOnCPU(launch, /*report=*/false)) &&
         succeeded(vx::checkThreadPhases(launch, /*report=*/false));
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

/// The alignment that a CPU buffer standing for the dynamic shared memory of
/// `dynamicOps` needs: the ABI alignment of the elements of every view of
/// it, and at least the 128 bytes that the GPU gives (which the mapping
/// tells LLVM it may assume).
static int64_t
getViewAlignment(ArrayRef<gpu::DynamicSharedMemoryOp> dynamicOps) {
  int64_t alignment = 128;
  for (gpu::DynamicSharedMemoryOp dynamic : dynamicOps) {
    DataLayout layout = DataLayout::closest(dynamic);
    for (Operation *user : dynamic->getUsers())
      if (auto view = dyn_cast<memref::ViewOp>(user))
        alignment = std::max<int64_t>(
            alignment,
            layout.getTypeABIAlignment(view.getType().getElementType()));
  }
  return alignment;
}

namespace {

/// A launch as loops: an scf.parallel over the blocks, in which the threads
/// of each block run phase by phase.
struct LaunchToLoops : public OpRewritePattern<gpu::LaunchOp> {
  LaunchToLoops(MLIRContext *context, bool reverseParallel)
      : OpRewritePattern(context), reverseParallel(reverseParallel) {}

  LogicalResult matchAndRewrite(gpu::LaunchOp launch,
                                PatternRewriter &rewriter) const override {
    if (!isRunnableOnCPU(launch))
      return rewriter.notifyMatchFailure(launch, "cannot run as loops");
    Location loc = launch.getLoc();
    Value zero = arith::ConstantIndexOp::create(rewriter, loc, 0);
    Value one = arith::ConstantIndexOp::create(rewriter, loc, 1);
    gpu::KernelDim3 gridSize = launch.getGridSizeOperandValues();
    gpu::KernelDim3 blockSize = launch.getBlockSizeOperandValues();
    vx::LaunchBlock block;
    block.gridSizes = {gridSize.x, gridSize.y, gridSize.z};
    block.blockSizes = {blockSize.x, blockSize.y, blockSize.z};
    block.reverseThreads = reverseParallel;
    auto blocks = scf::ParallelOp::create(rewriter, loc, {zero, zero, zero},
                                          block.gridSizes, {one, one, one});
    rewriter.setInsertionPointToStart(blocks.getBody());
    block.ids = llvm::to_vector(blocks.getInductionVars());
    if (reverseParallel)
      for (auto [id, size] : llvm::zip_equal(block.ids, block.gridSizes)) {
        Value last = arith::SubIOp::create(rewriter, loc, size, one);
        id = arith::SubIOp::create(rewriter, loc, last, id);
      }

    // Workgroup memory: one buffer per block.
    for (BlockArgument buffer : launch.getWorkgroupAttributions()) {
      rewriter.setInsertionPoint(blocks.getBody()->getTerminator());
      auto type = withoutMemorySpace(cast<MemRefType>(buffer.getType()));
      Value alloca = memref::AllocaOp::create(rewriter, loc, type);
      replaceWorkgroupBuffer(rewriter, buffer, alloca);
    }
    if (Value bytes = launch.getDynamicSharedMemorySize()) {
      // Dynamic shared memory: one byte buffer per block, aligned for every
      // view of it (the host's vector loads may need more than the GPU's 16
      // bytes).
      SmallVector<gpu::DynamicSharedMemoryOp> dynamicOps;
      launch.getBody().walk(
          [&](gpu::DynamicSharedMemoryOp op) { dynamicOps.push_back(op); });
      rewriter.setInsertionPoint(blocks.getBody()->getTerminator());
      Value size = arith::IndexCastUIOp::create(rewriter, loc,
                                                rewriter.getIndexType(), bytes);
      auto alloca = memref::AllocaOp::create(
          rewriter, loc,
          MemRefType::get({ShapedType::kDynamic}, rewriter.getI8Type()),
          ValueRange{size}, ValueRange(),
          rewriter.getI64IntegerAttr(getViewAlignment(dynamicOps)));
      for (gpu::DynamicSharedMemoryOp dynamic : dynamicOps) {
        replaceWorkgroupBuffer(rewriter, dynamic.getResult(), alloca);
        rewriter.eraseOp(dynamic);
      }
    }
    rewriter.setInsertionPoint(blocks.getBody()->getTerminator());
    vx::emitThreadPhases(rewriter, launch, block);
    rewriter.eraseOp(launch);
    return success();
  }

  bool reverseParallel;
};

/// A cp.async chunk as the copy it completes: its elements one by one, into
/// the buffer its workgroup cast was made from.
struct AsyncCopyToCopy : public OpConversionPattern<nvgpu::DeviceAsyncCopyOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(nvgpu::DeviceAsyncCopyOp copy, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (copy.getSrcElements())
      return rewriter.notifyMatchFailure(copy, "partial copy");
    Location loc = copy.getLoc();
    Value dst = adaptor.getDst();
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
      Value value = memref::LoadOp::create(rewriter, loc, adaptor.getSrc(),
                                           shifted(adaptor.getSrcIndices()));
      memref::StoreOp::create(rewriter, loc, value, dst,
                              shifted(adaptor.getDstIndices()));
    }
    rewriter.replaceOpWithNewOp<arith::ConstantIntOp>(copy, 1, 1);
    return success();
  }
};

/// Groups and waits have nothing left to order.
struct CreateGroupToConstant
    : public OpConversionPattern<nvgpu::DeviceAsyncCreateGroupOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(nvgpu::DeviceAsyncCreateGroupOp group, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<arith::ConstantIntOp>(group, 1, 1);
    return success();
  }
};

struct EraseAsyncWait : public OpConversionPattern<nvgpu::DeviceAsyncWaitOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(nvgpu::DeviceAsyncWaitOp wait, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.eraseOp(wait);
    return success();
  }
};

/// The token of a synchronous transfer.
struct PoisonTokenToConstant : public OpConversionPattern<ub::PoisonOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(ub::PoisonOp poison, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (!isa<nvgpu::DeviceAsyncTokenType>(poison.getType()))
      return failure();
    rewriter.replaceOpWithNewOp<arith::ConstantIntOp>(poison, 1, 1);
    return success();
  }
};

struct ConvertGPULaunchToSCFPass
    : public vx::impl::ConvertGPULaunchToSCFBase<ConvertGPULaunchToSCFPass> {
  using Base::Base;

  void runOnOperation() override {
    bool runnable = true;
    getOperation()->walk([&](gpu::LaunchOp launch) {
      runnable &= succeeded(checkRunnableOnCPU(launch));
    });
    if (!runnable)
      return signalPassFailure();
    MLIRContext *context = &getContext();
    ConversionTarget target(*context);
    TypeConverter typeConverter;
    RewritePatternSet asyncPatterns(context);
    vx::populateAsyncCopiesToSCFConversionPatterns(typeConverter, asyncPatterns,
                                                   target);
    if (failed(applyPartialConversion(getOperation(), target,
                                      std::move(asyncPatterns))))
      return signalPassFailure();
    // A divergent mbarrier wait is reported as one, before it becomes a
    // barrier; then the phases, after the async copies, whose tokens (now
    // i1) may live across them.
    getOperation()->walk([&](gpu::LaunchOp launch) {
      runnable &= succeeded(
          vx::checkCollectivesReachedByAllThreads(launch, /*report=*/true));
    });
    if (!runnable)
      return signalPassFailure();
    IRRewriter rewriter(context);
    getOperation()->walk([&](gpu::LaunchOp launch) {
      vx::lowerTMAToSCF(rewriter, launch);
      runnable &= succeeded(vx::checkThreadPhases(launch, /*report=*/true));
    });
    // The tensor maps, used by the loads only, are no longer made.
    getOperation()->walk([&](nvgpu::TmaCreateDescriptorOp descriptor) {
      if (descriptor->use_empty())
        rewriter.eraseOp(descriptor);
    });
    if (!runnable)
      return signalPassFailure();
    RewritePatternSet launchPatterns(context);
    vx::populateGPULaunchToSCFPatterns(launchPatterns, reverseParallel);
    walkAndApplyPatterns(getOperation(), std::move(launchPatterns));
  }
};

} // namespace

void vx::populateGPULaunchToSCFPatterns(RewritePatternSet &patterns,
                                        bool reverseParallel) {
  patterns.add<LaunchToLoops>(patterns.getContext(), reverseParallel);
}

void vx::populateAsyncCopiesToSCFConversionPatterns(
    TypeConverter &typeConverter, RewritePatternSet &patterns,
    ConversionTarget &target) {
  typeConverter.addConversion([](Type type) { return type; });
  typeConverter.addConversion([](nvgpu::DeviceAsyncTokenType token) -> Type {
    return IntegerType::get(token.getContext(), 1);
  });
  scf::populateSCFStructuralTypeConversionsAndLegality(typeConverter, patterns,
                                                       target);
  target.markUnknownOpDynamicallyLegal([](Operation *) { return true; });
  target.addIllegalOp<nvgpu::DeviceAsyncCopyOp, nvgpu::DeviceAsyncCreateGroupOp,
                      nvgpu::DeviceAsyncWaitOp>();
  target.addDynamicallyLegalOp<ub::PoisonOp>([](ub::PoisonOp poison) {
    return !isa<nvgpu::DeviceAsyncTokenType>(poison.getType());
  });
  patterns.add<AsyncCopyToCopy, CreateGroupToConstant, EraseAsyncWait,
               PoisonTokenToConstant>(typeConverter, patterns.getContext());
}
