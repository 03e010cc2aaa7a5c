//===- TMA.cpp - Tile transfers as TMA bulk tensor copies -----------------===//
//
// A tile of a global tensor loaded by the Tensor Memory Accelerator: the
// tensor map is encoded on the host (nvgpu.tma.create.descriptor, which
// calls mgpuTensorMapEncodeTiledMemref of libvx_cuda_runtime), one thread
// announces the tile's bytes on an mbarrier and issues the copy, and the
// threads wait for the barrier's phase. The constraints are those of
// cuTensorMapEncodeTiled and of the nvgpu verifiers, checked here so that a
// transfer that does not meet them can take another path.
//
//===----------------------------------------------------------------------===//

#include "Vx/Conversion/VxTransferToNVGPU/TMA.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/MemRef/Utils/MemRefUtils.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "llvm/ADT/SmallBitVector.h"

using namespace mlir;
using namespace mlir::vx;

/// The most dimensions a tensor map has, and elements a box has along one.
static constexpr int64_t kMaxTensorMapRank = 5;
static constexpr int64_t kMaxBoxSize = 256;
/// Alignment, in bytes, of global addresses and strides of a tensor map, of
/// the rows of a box, and of the shared-memory destination of a copy.
static constexpr int64_t kGlobalAlignment = 16;
static constexpr int64_t kBoxRowAlignment = 16;
static constexpr int64_t kSharedAlignment = 128;
/// How long one try_wait suspends a thread before it tries again (upstream's
/// NVGPU examples use the same).
static constexpr int64_t kWaitTicks = 10000000;

/// Whether a tensor map encodes elements of `type`: the types for which
/// nvgpu.tma.create.descriptor's lowering has a CUtensorMapDataType.
static bool isTensorMapElementType(Type type) {
  if (type.isF16() || type.isBF16() || type.isF32() || type.isF64())
    return true;
  auto integer = dyn_cast<IntegerType>(type);
  if (!integer)
    return false;
  unsigned width = integer.getWidth();
  if (integer.isUnsigned())
    return width == 8 || width == 16 || width == 32 || width == 64;
  return integer.isSignless() && (width == 32 || width == 64);
}

namespace {
/// A view traced back to the memref it views: the offsets of the view in
/// the memref, and the memref dimension of each view dimension.
struct TracedView {
  Value tensor;
  SmallVector<SmallVector<OpFoldResult, 2>> offsets;
  SmallVector<int64_t> tensorDims;
};
} // namespace

/// Traces `view` through memref.cast and memref.subview with unit strides.
static FailureOr<TracedView> traceToTensor(Value view, std::string &why) {
  if (auto cast = view.getDefiningOp<memref::CastOp>())
    return traceToTensor(cast.getSource(), why);
  auto subview = view.getDefiningOp<memref::SubViewOp>();
  if (!subview) {
    int64_t rank = cast<MemRefType>(view.getType()).getRank();
    TracedView traced;
    traced.tensor = view;
    traced.offsets.resize(rank);
    traced.tensorDims = llvm::to_vector(llvm::seq<int64_t>(0, rank));
    return traced;
  }
  if (!llvm::all_of(subview.getMixedStrides(), [](OpFoldResult stride) {
        return isConstantIntValue(stride, 1);
      })) {
    why = "TMA copies boxes of consecutive elements, and a memref.subview on "
          "the way to the tensor has a stride other than 1";
    return failure();
  }
  FailureOr<TracedView> traced = traceToTensor(subview.getSource(), why);
  if (failed(traced))
    return failure();
  llvm::SmallBitVector dropped = subview.getDroppedDims();
  SmallVector<int64_t> tensorDims;
  for (auto [dim, offset] : llvm::enumerate(subview.getMixedOffsets())) {
    int64_t tensorDim = traced->tensorDims[dim];
    if (!isConstantIntValue(offset, 0))
      traced->offsets[tensorDim].push_back(offset);
    if (!dropped.test(dim))
      tensorDims.push_back(tensorDim);
  }
  traced->tensorDims = std::move(tensorDims);
  return traced;
}

/// Whether `elements` is static and a multiple of `alignment` bytes.
static bool isStaticMultiple(int64_t elements, int64_t elementBytes,
                             int64_t alignment) {
  return !ShapedType::isDynamic(elements) &&
         elements * elementBytes % alignment == 0;
}

/// Checks the tensor that a tensor map describes; says why not.
static LogicalResult checkTensor(MemRefType type, int64_t elementBytes,
                                 std::string &why) {
  if (type.getMemorySpace()) {
    why = "the tensor is not in global memory";
    return failure();
  }
  if (type.getRank() > kMaxTensorMapRank) {
    why = "a tensor map has at most " + std::to_string(kMaxTensorMapRank) +
          " dimensions, and the tensor has " + std::to_string(type.getRank());
    return failure();
  }
  SmallVector<int64_t> strides;
  int64_t offset;
  if (failed(type.getStridesAndOffset(strides, offset)) ||
      strides.back() != 1) {
    why = "a tensor map needs the tensor's innermost stride to be 1";
    return failure();
  }
  for (int64_t stride : ArrayRef(strides).drop_back())
    if (!isStaticMultiple(stride, elementBytes, kGlobalAlignment)) {
      why = "a tensor map needs the tensor's outer strides to be known "
            "multiples of 16 bytes";
      return failure();
    }
  if (!isStaticMultiple(offset, elementBytes, kGlobalAlignment)) {
    why = "a tensor map needs the tensor's offset to be a known multiple of "
          "16 bytes";
    return failure();
  }
  return success();
}

/// Checks the destination of a copy of `tileType`; says why not.
static LogicalResult checkDestination(MemRefType type, MemRefType tileType,
                                      int64_t elementBytes, std::string &why) {
  if (type.getShape() != tileType.getShape() ||
      type.getElementType() != tileType.getElementType()) {
    why = "the destination differs from the tile in shape or element type";
    return failure();
  }
  SmallVector<int64_t> strides;
  int64_t offset;
  if (!memref::isStaticShapeAndContiguousRowMajor(type) ||
      failed(type.getStridesAndOffset(strides, offset)) ||
      !isStaticMultiple(offset, elementBytes, kSharedAlignment)) {
    why = "TMA writes a contiguous row-major box at a 128-byte aligned "
          "address of shared memory, and the destination's layout does not "
          "prove one";
    return failure();
  }
  return success();
}

int64_t vx::getSwizzleAlignment(Operation *scratch) {
  auto swizzle = scratch->getAttrOfType<IntegerAttr>(kSwizzleAttrName);
  return swizzle ? 8 * swizzle.getInt() : 1;
}

/// The tensor map's swizzle for rows of `swizzle` bytes (0: none).
static nvgpu::TensorMapSwizzleKind getSwizzleKind(int64_t swizzle) {
  switch (swizzle) {
  case 32:
    return nvgpu::TensorMapSwizzleKind::SWIZZLE_32B;
  case 64:
    return nvgpu::TensorMapSwizzleKind::SWIZZLE_64B;
  case 128:
    return nvgpu::TensorMapSwizzleKind::SWIZZLE_128B;
  default:
    return nvgpu::TensorMapSwizzleKind::SWIZZLE_NONE;
  }
}

FailureOr<TMATile> vx::matchTMATile(Value source, MemRefType destinationType,
                                    Region &kernel, std::string &why,
                                    int64_t swizzle) {
  auto tileType = cast<MemRefType>(source.getType());
  Type element = tileType.getElementType();
  if (tileType.getRank() < 2) {
    why = "TMA carries tiles of 2 or more dimensions here";
    return failure();
  }
  if (!tileType.hasStaticShape()) {
    why = "TMA copies boxes of a static shape";
    return failure();
  }
  if (!isTensorMapElementType(element)) {
    why = "a tensor map holds f16, bf16, f32, f64, i32, i64 or unsigned "
          "integers";
    return failure();
  }
  int64_t elementBytes = element.getIntOrFloatBitWidth() / 8;
  if (failed(checkDestination(destinationType, tileType, elementBytes, why)))
    return failure();
  FailureOr<TracedView> traced = traceToTensor(source, why);
  if (failed(traced))
    return failure();
  if (kernel.isAncestor(traced->tensor.getParentRegion())) {
    why = "the tensor map is encoded on the host, and the tensor is defined "
          "in the kernel";
    return failure();
  }
  auto tensorType = cast<MemRefType>(traced->tensor.getType());
  if (failed(checkTensor(tensorType, elementBytes, why)))
    return failure();

  SmallVector<int64_t> box(tensorType.getRank(), 1);
  for (auto [dim, size] : llvm::enumerate(tileType.getShape()))
    box[traced->tensorDims[dim]] = size;
  if (llvm::any_of(box, [](int64_t size) { return size > kMaxBoxSize; })) {
    why = "a TMA box has at most " + std::to_string(kMaxBoxSize) +
          " elements along each dimension";
    return failure();
  }
  if (box.back() * elementBytes % kBoxRowAlignment) {
    why = "the innermost dimension of a TMA box must be a multiple of 16 "
          "bytes";
    return failure();
  }
  // A swizzled box has rows of the swizzle's width: wider rows are loaded
  // in panels of it.
  int64_t panels = 1;
  if (swizzle) {
    if (box.back() * elementBytes % swizzle) {
      why = "a swizzled TMA tile has rows of a multiple of the swizzle's "
            "width (" +
            std::to_string(swizzle) + " bytes)";
      return failure();
    }
    panels = box.back() * elementBytes / swizzle;
    box.back() = swizzle / elementBytes;
  }
  MLIRContext *context = source.getContext();
  auto boxType = MemRefType::get(
      box, element, MemRefLayoutAttrInterface(),
      gpu::AddressSpaceAttr::get(context, gpu::AddressSpace::Workgroup));
  TMATile tile;
  tile.tensor = traced->tensor;
  tile.offsets = std::move(traced->offsets);
  tile.tensorDims = std::move(traced->tensorDims);
  tile.panels = panels;
  tile.descriptorType = nvgpu::TensorMapDescriptorType::get(
      context, boxType, getSwizzleKind(swizzle),
      nvgpu::TensorMapL2PromoKind::L2PROMO_NONE,
      nvgpu::TensorMapOOBKind::OOB_ZERO,
      nvgpu::TensorMapInterleaveKind::INTERLEAVE_NONE);
  return tile;
}

int64_t TMATile::getBytes() const {
  MemRefType box = descriptorType.getTensor();
  return panels * box.getNumElements() * box.getElementTypeBitWidth() / 8;
}

Value vx::createTMADescriptor(OpBuilder &host, Location loc,
                              const TMATile &tile) {
  auto tensorType = cast<MemRefType>(tile.tensor.getType());
  Value unranked = memref::CastOp::create(
      host, loc,
      UnrankedMemRefType::get(tensorType.getElementType(),
                              tensorType.getMemorySpace()),
      tile.tensor);
  SmallVector<Value> box =
      llvm::map_to_vector(tile.getBox(), [&](int64_t size) {
        return arith::ConstantIndexOp::create(host, loc, size).getResult();
      });
  return nvgpu::TmaCreateDescriptorOp::create(host, loc, tile.descriptorType,
                                              unranked, box);
}

Value vx::createTMABarriers(OpBuilder &builder, Location loc, int64_t count) {
  MLIRContext *context = builder.getContext();
  auto type = nvgpu::MBarrierGroupType::get(
      context,
      gpu::AddressSpaceAttr::get(context, gpu::AddressSpace::Workgroup), count);
  return nvgpu::MBarrierCreateOp::create(builder, loc, type);
}

gpu::BarrierOp vx::initTMABarriers(OpBuilder &builder, Location loc,
                                   Value barriers, int64_t count,
                                   int64_t arrivals, Value elected,
                                   ValueRange descriptors) {
  Value arrivalCount = arith::ConstantIndexOp::create(builder, loc, arrivals);
  for (int64_t index = 0; index < count; ++index)
    nvgpu::MBarrierInitOp::create(
        builder, loc, barriers, arrivalCount,
        arith::ConstantIndexOp::create(builder, loc, index), elected);
  // The CUDA C++ Programming Guide's TMA example: the initialized barriers
  // made visible to the async proxy, which completes their transactions.
  fenceBeforeTMALoads(builder, loc, elected, descriptors);
  return gpu::BarrierOp::create(builder, loc);
}

void vx::fenceBeforeTMALoads(OpBuilder &builder, Location loc, Value elected,
                             ValueRange descriptors) {
  auto branch = scf::IfOp::create(builder, loc, elected);
  OpBuilder::InsertionGuard guard(builder);
  builder.setInsertionPoint(branch.thenBlock()->getTerminator());
  // PTX ISA, "Parallel Synchronization and Communication Instructions:
  // membar/fence": a proxy fence between accesses of one location through
  // the generic and the async proxy.
  MLIRContext *context = builder.getContext();
  NVVM::FenceProxyOp::create(
      builder, loc,
      NVVM::ProxyKindAttr::get(context, NVVM::ProxyKind::async_shared),
      NVVM::SharedSpaceAttr::get(context, NVVM::SharedSpace::shared_cta));
  // The tensor maps, which the host wrote through the generic proxy, into
  // the tensormap proxy's cache before their first use: prefetch.tensormap
  // (PTX 8.0). The acquire fence (fence.proxy.tensormap::generic.acquire,
  // nvgpu.tma.fence.descriptor) needs PTX 8.3, and what it guards against,
  // an older map cached at the same address, cannot happen: the runtime
  // writes each distinct map once, at its own address (CudaRuntime.cpp).
  for (Value descriptor : descriptors)
    nvgpu::TmaPrefetchOp::create(builder, loc, descriptor,
                                 /*predicate=*/Value());
}

/// `destination` (the tile's shape) as the box's shape, which has the unit
/// dimensions that views on the way to the tensor dropped: each tile
/// dimension takes the dropped ones after it, the first also those before.
static Value expandToBox(OpBuilder &builder, Location loc, Value destination,
                         const TMATile &tile) {
  ArrayRef<int64_t> box = tile.getBox();
  if (tile.tensorDims.size() == box.size())
    return destination;
  SmallVector<ReassociationIndices> groups(tile.tensorDims.size());
  int64_t group = 0;
  for (int64_t boxDim = 0; boxDim < static_cast<int64_t>(box.size());
       ++boxDim) {
    const int64_t *kept = llvm::find(tile.tensorDims, boxDim);
    if (kept != tile.tensorDims.end())
      group = kept - tile.tensorDims.begin();
    groups[group].push_back(boxDim);
  }
  return memref::ExpandShapeOp::create(builder, loc, box, destination, groups);
}

/// Panel `panel` of `destination` (the tile's shape), its elements from
/// `panel` times the panel's size on, as the box's shape.
static Value getPanel(OpBuilder &builder, Location loc, Value destination,
                      const TMATile &tile, int64_t panel) {
  auto type = cast<MemRefType>(destination.getType());
  int64_t size = type.getNumElements() / tile.panels;
  ReassociationIndices tileDims =
      llvm::to_vector(llvm::seq<int64_t>(0, type.getRank()));
  ReassociationIndices boxDims =
      llvm::to_vector(llvm::seq<int64_t>(0, tile.getBox().size()));
  Value flat = memref::CollapseShapeOp::create(builder, loc, destination,
                                               ArrayRef{tileDims});
  Value chunk = memref::SubViewOp::create(
      builder, loc, flat, ArrayRef<int64_t>{panel * size},
      ArrayRef<int64_t>{size}, ArrayRef<int64_t>{1});
  return memref::ExpandShapeOp::create(builder, loc, tile.getBox(), chunk,
                                       ArrayRef{boxDims});
}

void vx::issueTMALoad(OpBuilder &builder, Location loc, const TMATile &tile,
                      Value descriptor, Value destination, Value barriers,
                      Value barrierIndex, Value elected) {
  announceTMABytes(
      builder, loc,
      arith::ConstantIndexOp::create(builder, loc, tile.getBytes()), barriers,
      barrierIndex, elected);
  startTMALoad(builder, loc, tile, descriptor, destination, barriers,
               barrierIndex, elected);
}

void vx::announceTMABytes(OpBuilder &builder, Location loc, Value bytes,
                          Value barriers, Value barrierIndex, Value elected) {
  nvgpu::MBarrierArriveExpectTxOp::create(builder, loc, barriers, bytes,
                                          barrierIndex, elected);
}

void vx::startTMALoad(OpBuilder &builder, Location loc, const TMATile &tile,
                      Value descriptor, Value destination, Value barriers,
                      Value barrierIndex, Value elected) {
  // The copy's coordinates list the innermost dimension first.
  SmallVector<Value> coordinates;
  for (ArrayRef<OpFoldResult> terms : llvm::reverse(tile.offsets)) {
    Value sum;
    for (OpFoldResult term : terms) {
      Value value = getValueOrCreateConstantIndexOp(builder, loc, term);
      sum = sum ? builder.createOrFold<arith::AddIOp>(loc, sum, value) : value;
    }
    coordinates.push_back(
        sum ? sum : arith::ConstantIndexOp::create(builder, loc, 0));
  }
  if (tile.panels == 1) {
    nvgpu::TmaAsyncLoadOp::create(
        builder, loc, expandToBox(builder, loc, destination, tile), barriers,
        descriptor, coordinates, barrierIndex, /*multicastMask=*/Value(),
        elected);
    return;
  }
  // Panel p holds the box's width of columns from p times it on.
  Value column = coordinates.front();
  for (int64_t panel = 0; panel < tile.panels; ++panel) {
    coordinates.front() = builder.createOrFold<arith::AddIOp>(
        loc, column,
        arith::ConstantIndexOp::create(builder, loc,
                                       panel * tile.getBox().back()));
    nvgpu::TmaAsyncLoadOp::create(
        builder, loc, getPanel(builder, loc, destination, tile, panel),
        barriers, descriptor, coordinates, barrierIndex,
        /*multicastMask=*/Value(), elected);
  }
}

void vx::waitTMALoad(OpBuilder &builder, Location loc, Value barriers,
                     Value barrierIndex, Value phaseParity) {
  Value ticks = arith::ConstantIndexOp::create(builder, loc, kWaitTicks);
  nvgpu::MBarrierTryWaitParityOp::create(builder, loc, barriers, phaseParity,
                                         ticks, barrierIndex);
}
