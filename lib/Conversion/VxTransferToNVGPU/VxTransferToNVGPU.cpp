//===- VxTransferToNVGPU.cpp - vx.transfer_async as cp.async --------------===//
//
// In device code, a transfer from global memory into shared-memory scratch
// becomes cp.async copies (nvgpu.device_async_copy of 4, 8 or 16 bytes)
// gathered into one group (nvgpu.device_async_create_group), whose token is
// the transfer's; its vx.await becomes nvgpu.device_async_wait where the
// program put it. A transfer that the threads of a CTA make together (one
// outside thread loops in a cooperative body) spreads its chunks over them,
// chunk c on thread c mod N, so that consecutive threads copy consecutive
// 16 bytes; the barrier that makes the tile visible to every thread after
// the wait is placed by the CTA mapping. Otherwise (a grid instance per
// thread, or a transfer inside a thread loop) a thread issues every chunk.
//
//===----------------------------------------------------------------------===//

#include "Vx/Conversion/VxTransferToNVGPU/VxTransferToNVGPU.h"
#include "Vx/Conversion/VxToSCF/VxToSCF.h"
#include "Vx/Target/Chip.h"
#include "Vx/VxOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/UB/IR/UBOps.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Transforms/DialectConversion.h"

#include <memory>
#include <numeric>

using namespace mlir;
using namespace mlir::vx;

namespace {
/// What the analysis of the vx IR decided, for the patterns that run once
/// the spawns are gpu.launch bodies: the chunk size of each asynchronous
/// transfer, and for each await the number of groups that the program order
/// proves were committed after its transfer's.
struct AsyncTransferPlan {
  DenseMap<Operation *, int64_t> chunkBytes;
  DenseMap<Operation *, int64_t> groupsAfter;
};
} // namespace

/// Whether `offset` is a known multiple of `factor`: a constant that is, a
/// product with such a factor, or a sum of such terms.
static bool isMultipleOf(OpFoldResult offset, int64_t factor) {
  if (std::optional<int64_t> constant = getConstantIntValue(offset))
    return *constant % factor == 0;
  Operation *def = cast<Value>(offset).getDefiningOp();
  auto isMultiple = [&](Value operand) {
    return isMultipleOf(operand, factor);
  };
  if (isa_and_nonnull<arith::MulIOp>(def))
    return llvm::any_of(def->getOperands(), isMultiple);
  if (isa_and_nonnull<arith::AddIOp>(def))
    return llvm::all_of(def->getOperands(), isMultiple);
  return false;
}

/// Whether every address of `buffer` (a view chain over a root whose base is
/// 16-byte aligned) that starts a row of its innermost dimension, stepped by
/// `chunkElements`, is a multiple of `chunkBytes`.
static bool isChunkAligned(Value buffer, int64_t chunkElements,
                           int64_t elementBytes) {
  int64_t chunkBytes = chunkElements * elementBytes;
  if (chunkBytes == elementBytes)
    return true; // Natural alignment suffices.
  while (true) {
    auto type = cast<MemRefType>(buffer.getType());
    SmallVector<int64_t> strides;
    int64_t offset;
    if (failed(type.getStridesAndOffset(strides, offset)))
      return false;
    for (int64_t stride : ArrayRef(strides).drop_back())
      if (ShapedType::isDynamic(stride) || stride * elementBytes % chunkBytes)
        return false;
    if (auto view = buffer.getDefiningOp<memref::ViewOp>()) {
      // A view of bytes (a pipeline slot): its shift must keep chunks
      // aligned, and the bytes are a root.
      if (!isMultipleOf(view.getByteShift(), chunkBytes))
        return false;
      buffer = view.getSource();
      continue;
    }
    auto subview = buffer.getDefiningOp<memref::SubViewOp>();
    if (!subview) {
      if (auto cast = buffer.getDefiningOp<memref::CastOp>()) {
        buffer = cast.getSource();
        continue;
      }
      // A root: its base is aligned; its own offset must keep rows aligned.
      return !ShapedType::isDynamic(offset) &&
             offset * elementBytes % chunkBytes == 0;
    }
    // The offset along the innermost dimension must keep chunks aligned;
    // the outer offsets move by whole (aligned) rows of the source.
    if (!isMultipleOf(subview.getMixedOffsets().back(),
                      chunkBytes / std::gcd(chunkBytes, elementBytes)))
      return false;
    buffer = subview.getSource();
  }
}

/// The cp.async chunk size in bytes for `transfer` on any chip that has
/// cp.async, or why it stays a synchronous copy.
static FailureOr<int64_t> getChunkBytes(TransferAsyncOp transfer,
                                        std::string &why) {
  auto spawn = transfer->getParentOfType<SpawnOp>();
  Value dstRoot = transfer.getDst(), srcRoot = transfer.getSrc();
  for (Value *root : {&dstRoot, &srcRoot})
    while (Operation *def = root->getDefiningOp()) {
      if (!isa<memref::SubViewOp, memref::CastOp, memref::ViewOp,
               memref::AssumeAlignmentOp>(def))
        break;
      *root = def->getOperand(0);
    }
  auto scratch = dstRoot.getDefiningOp<ScratchOp>();
  if (!scratch || scratch.getPlacement() != Memory::smem) {
    why = "its destination is not shared-memory scratch (reached through "
          "memref.subview)";
    return failure();
  }
  if (spawn.isDefinedInBody(srcRoot) ||
      cast<MemRefType>(srcRoot.getType()).getMemorySpace()) {
    why = "its source is not captured global memory";
    return failure();
  }
  MemRefType type = transfer.getDst().getType();
  Type element = type.getElementType();
  if (!element.isIntOrFloat() || element.getIntOrFloatBitWidth() % 8 ||
      type.getRank() == 0 || ShapedType::isDynamic(type.getShape().back())) {
    why = "cp.async copies rows of byte-sized elements with a static "
          "innermost size";
    return failure();
  }
  int64_t elementBytes = element.getIntOrFloatBitWidth() / 8;
  for (Value buffer : {transfer.getSrc(), transfer.getDst()}) {
    SmallVector<int64_t> strides;
    int64_t offset;
    if (failed(cast<MemRefType>(buffer.getType())
                   .getStridesAndOffset(strides, offset)) ||
        strides.back() != 1) {
      why = "cp.async needs unit stride along the innermost dimension";
      return failure();
    }
  }
  int64_t rowBytes = type.getShape().back() * elementBytes;
  for (int64_t chunkBytes : {16, 8, 4}) {
    if (chunkBytes < elementBytes || rowBytes % chunkBytes)
      continue;
    int64_t chunkElements = chunkBytes / elementBytes;
    if (isChunkAligned(transfer.getSrc(), chunkElements, elementBytes) &&
        isChunkAligned(transfer.getDst(), chunkElements, elementBytes))
      return chunkBytes;
  }
  why = "cp.async copies aligned chunks of 4, 8 or 16 bytes, and the rows of "
        "this transfer cannot be split into such chunks";
  return failure();
}

/// The number of cp.async groups committed after the one of `await`'s
/// transfer that the program order proves: the async transfers between
/// the token's definition (or the start of the block, for a token carried
/// into a loop body) and the await, in the same block. Counting fewer than
/// run time commits only makes the wait stricter.
static int64_t getGroupsAfter(AwaitOp await, const AsyncTransferPlan &plan) {
  Value token = await.getToken();
  Block *block = await->getBlock();
  Block::iterator begin = block->begin();
  if (Operation *def = token.getDefiningOp()) {
    if (def->getBlock() != block || !isa<TransferAsyncOp>(def))
      return 0;
    begin = std::next(def->getIterator());
  } else if (cast<BlockArgument>(token).getOwner() != block) {
    return 0;
  }
  int64_t groups = 0;
  for (Operation &op : llvm::make_range(begin, await->getIterator()))
    if (plan.chunkBytes.contains(&op))
      ++groups;
  return groups;
}

FailureOr<int64_t> vx::getAsyncCopyChunkBytes(TransferAsyncOp transfer,
                                              const Chip *chip,
                                              std::string &why) {
  FailureOr<int64_t> chunkBytes = getChunkBytes(transfer, why);
  if (succeeded(chunkBytes) && chip && !chip->hasCpAsync()) {
    why = ("cp.async needs sm_80 or newer, and the chip is '" +
           chip->getName() + "'")
              .str();
    return failure();
  }
  return chunkBytes;
}

/// Plans the transfers of the device spawn `spawn` into `plan`; `chip`, when
/// not null, is the chip the code is for.
static void planAsyncTransfers(SpawnOp spawn, const Chip *chip,
                               AsyncTransferPlan &plan) {
  bool anyAsync = false;
  spawn.walk([&](TransferAsyncOp transfer) {
    std::string why;
    FailureOr<int64_t> chunkBytes = getAsyncCopyChunkBytes(transfer, chip, why);
    if (failed(chunkBytes)) {
      transfer.emitRemark("transfer lowers to a synchronous copy: ") << why;
      return;
    }
    plan.chunkBytes[transfer] = *chunkBytes;
    anyAsync = true;
  });
  if (!anyAsync)
    return;
  spawn.walk([&](AwaitOp await) {
    plan.groupsAfter[await] = getGroupsAfter(await, plan);
  });
}

/// `buffer`, a view of shared-memory scratch in the body's memory space,
/// back in workgroup memory where cp.async needs it.
static Value getWorkgroupView(OpBuilder &builder, Value buffer) {
  auto type = cast<MemRefType>(buffer.getType());
  auto workgroup = gpu::AddressSpaceAttr::get(builder.getContext(),
                                              gpu::AddressSpace::Workgroup);
  return memref::MemorySpaceCastOp::create(
      builder, buffer.getLoc(),
      MemRefType::get(type.getShape(), type.getElementType(), type.getLayout(),
                      workgroup),
      buffer);
}

namespace {
/// A planned transfer: a loop nest of cp.async chunks, then one group whose
/// token stands for the transfer.
struct TransferToAsyncCopies : public OpConversionPattern<TransferAsyncOp> {
  TransferToAsyncCopies(TypeConverter &converter, MLIRContext *context,
                        std::shared_ptr<const AsyncTransferPlan> plan,
                        GetThreadShare getShare)
      : OpConversionPattern(converter, context, /*benefit=*/2),
        plan(std::move(plan)), getShare(std::move(getShare)) {}

  LogicalResult
  matchAndRewrite(TransferAsyncOp transfer, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto chunkBytes = plan->chunkBytes.find(transfer);
    if (chunkBytes == plan->chunkBytes.end() ||
        !transfer->getParentOfType<gpu::LaunchOp>())
      return failure();
    Location loc = transfer.getLoc();
    Value dst = getWorkgroupView(rewriter, adaptor.getDst());
    MemRefType type = transfer.getDst().getType();
    int64_t elementBytes = type.getElementTypeBitWidth() / 8;
    int64_t chunkElements = chunkBytes->second / elementBytes;
    Value src = adaptor.getSrc();
    auto tokenType = nvgpu::DeviceAsyncTokenType::get(rewriter.getContext());
    // A group holds every chunk this thread issues (the copies' own tokens
    // are not needed to form it).
    auto copyChunk = [&](OpBuilder &nested, Location loc, ValueRange ivs) {
      nvgpu::DeviceAsyncCopyOp::create(nested, loc, tokenType, dst, ivs, src,
                                       ivs, nested.getIndexAttr(chunkElements),
                                       /*srcElements=*/Value(),
                                       /*bypassL1=*/chunkBytes->second == 16
                                           ? nested.getUnitAttr()
                                           : UnitAttr());
    };
    std::optional<ThreadShare> share;
    if (getShare)
      share = getShare(rewriter, transfer);
    if (share) {
      // The chunks in row-major order, chunk c on thread c mod N.
      SmallVector<OpFoldResult> chunkGrid =
          getAsIndexOpFoldResult(rewriter.getContext(), type.getShape());
      chunkGrid.back() =
          rewriter.getIndexAttr(type.getShape().back() / chunkElements);
      buildSharedLoop(
          rewriter, loc, getProduct(rewriter, loc, chunkGrid), share,
          ValueRange(),
          [&](OpBuilder &nested, Location loc, Value chunk, Value, ValueRange) {
            SmallVector<Value> ivs =
                delinearizeIndex(nested, loc, chunk, chunkGrid);
            ivs.back() = arith::MulIOp::create(
                nested, loc, ivs.back(),
                arith::ConstantIndexOp::create(nested, loc, chunkElements));
            copyChunk(nested, loc, ivs);
            return SmallVector<Value>();
          });
    } else {
      Value zero = arith::ConstantIndexOp::create(rewriter, loc, 0);
      Value one = arith::ConstantIndexOp::create(rewriter, loc, 1);
      SmallVector<Value> lbs(type.getRank(), zero), ubs,
          steps(type.getRank(), one);
      for (int64_t size : type.getShape())
        ubs.push_back(arith::ConstantIndexOp::create(rewriter, loc, size));
      steps.back() =
          arith::ConstantIndexOp::create(rewriter, loc, chunkElements);
      scf::buildLoopNest(rewriter, loc, lbs, ubs, steps, copyChunk);
    }
    // A transfer whose token nothing awaits is one of a pipeline's (the
    // checker refuses such a transfer in a program), which commits the
    // groups of its transfers itself.
    if (transfer.getToken().use_empty())
      rewriter.eraseOp(transfer);
    else
      rewriter.replaceOpWithNewOp<nvgpu::DeviceAsyncCreateGroupOp>(
          transfer, tokenType, ValueRange());
    return success();
  }

  std::shared_ptr<const AsyncTransferPlan> plan;
  GetThreadShare getShare;
};

/// The await of an asynchronous transfer: wait until at most the groups
/// committed after its transfer's are pending.
struct AwaitToAsyncWait : public OpConversionPattern<AwaitOp> {
  AwaitToAsyncWait(TypeConverter &converter, MLIRContext *context,
                   std::shared_ptr<const AsyncTransferPlan> plan)
      : OpConversionPattern(converter, context, /*benefit=*/2),
        plan(std::move(plan)) {}

  LogicalResult
  matchAndRewrite(AwaitOp await, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto groups = plan->groupsAfter.find(await);
    if (groups == plan->groupsAfter.end() ||
        !await->getParentOfType<gpu::LaunchOp>())
      return failure();
    rewriter.replaceOpWithNewOp<nvgpu::DeviceAsyncWaitOp>(
        await, adaptor.getToken(), rewriter.getI32IntegerAttr(groups->second));
    return success();
  }

  std::shared_ptr<const AsyncTransferPlan> plan;
};
} // namespace

void vx::populateVxTransferToNVGPUConversionPatterns(
    TypeConverter &typeConverter, RewritePatternSet &patterns, Operation *root,
    const Chip *chip, GetThreadShare getShare) {
  auto plan = std::make_shared<AsyncTransferPlan>();
  root->walk([&](SpawnOp spawn) {
    if (spawn.isDeviceSpawn())
      planAsyncTransfers(spawn, chip, *plan);
  });
  if (plan->chunkBytes.empty())
    return;
  // Awaits wait on the group of their transfer: tokens, also those carried
  // by scf ops, become nvgpu tokens (synchronous transfers' are poison).
  typeConverter.addConversion([](TokenType token) -> Type {
    return nvgpu::DeviceAsyncTokenType::get(token.getContext());
  });
  // Both patterns share the plan (each takes its own reference).
  patterns.add<TransferToAsyncCopies>(typeConverter, patterns.getContext(),
                                      plan, std::move(getShare));
  patterns.add<AwaitToAsyncWait>(typeConverter, patterns.getContext(), plan);
}
