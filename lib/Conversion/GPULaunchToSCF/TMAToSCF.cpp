//===- TMAToSCF.cpp - TMA loads and mbarriers on the CPU ------------------===//
//
// A TMA load copies its box where it is issued: the elements of the tensor
// that the box covers, and the fill of the tensor map (zeros, or NaNs)
// outside the tensor. An mbarrier is four i64 in workgroup memory, updated
// as the PTX ISA describes its object: the arrivals pending in the current
// phase, the arrivals a phase expects, the transaction bytes pending, and
// the phase's parity. A phase completes when no arrival and no byte is
// pending; the parity then flips and the arrivals are expected again.
//
// A try_wait for the phase of parity p returns once that phase has
// completed, that is once the current phase's parity differs from p. On the
// CPU it is a barrier (every thread of the block reaches it, having issued
// its loads and arrivals) followed by that test: copies complete at issue,
// so a phase that is incomplete there would never complete on the GPU, and
// the program stops with a message instead of hanging (libc's write and
// exit, which every CPU route links: a stop through abort would lose the
// program's buffered output).
//
//===----------------------------------------------------------------------===//

#include "TMAToSCF.h"
#include "Vx/Location.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::vx;

namespace {
/// The i64 fields of an mbarrier, in the order of its state buffer.
enum MBarrierField : int64_t {
  kPendingArrivals,
  kExpectedArrivals,
  kPendingBytes,
  kPhase,
  kFieldCount
};
} // namespace

/// The fences of the TMA path, which order accesses between the proxies of
/// a GPU: the CPU has one, so they do nothing there.
static bool isTMAFence(Operation *op) {
  return isa<nvgpu::TmaPrefetchOp, nvgpu::TmaFenceOp, NVVM::FenceProxyOp,
             NVVM::FenceMbarrierInitOp>(op);
}

static bool isTMAOp(Operation *op) {
  return isa<nvgpu::MBarrierCreateOp, nvgpu::MBarrierInitOp,
             nvgpu::MBarrierArriveOp, nvgpu::MBarrierArriveNoCompleteOp,
             nvgpu::MBarrierArriveExpectTxOp, nvgpu::MBarrierTestWaitOp,
             nvgpu::MBarrierTryWaitParityOp, nvgpu::TmaAsyncLoadOp>(op) ||
         isTMAFence(op);
}

bool vx::isMBarrierWait(Operation *op) {
  return isa<nvgpu::MBarrierTryWaitParityOp>(op);
}

/// `view` in the default memory space: itself, the source of a
/// memref.memory_space_cast into workgroup memory, or memref.expand_shape of
/// such a source. With `builder`, builds the expansion there; without, only
/// says whether there is one (a non-null value).
static Value getDefaultSpaceView(Value view, OpBuilder *builder) {
  if (!cast<MemRefType>(view.getType()).getMemorySpace())
    return view;
  if (auto spaceCast = view.getDefiningOp<memref::MemorySpaceCastOp>())
    return spaceCast.getSource().getType().getMemorySpace()
               ? Value()
               : spaceCast.getSource();
  auto expand = view.getDefiningOp<memref::ExpandShapeOp>();
  if (!expand)
    return Value();
  Value source = getDefaultSpaceView(expand.getSrc(), builder);
  if (!source || !builder)
    return source;
  return memref::ExpandShapeOp::create(
      *builder, expand.getLoc(), expand.getResultType().getShape(), source,
      expand.getReassociationIndices());
}

LogicalResult vx::checkTMARunnableOnCPU(gpu::LaunchOp launch, bool report) {
  auto refuse = [&](Operation *op, const Twine &message) {
    if (report)
      op->emitOpError(message);
    return WalkResult::interrupt();
  };
  WalkResult result = launch.getBody().walk([&](Operation *op) {
    if (isa<nvgpu::NVGPUDialect>(op->getDialect()) && !isTMAOp(op) &&
        !isa<nvgpu::DeviceAsyncCopyOp, nvgpu::DeviceAsyncCreateGroupOp,
             nvgpu::DeviceAsyncWaitOp>(op))
      return refuse(op, "has no CPU execution");
    return WalkResult::advance();
  });
  if (result.wasInterrupted())
    return failure();
  result = launch.getBody().walk([&](Operation *op) {
    if (!isTMAOp(op))
      return WalkResult::advance();
    if (auto create = dyn_cast<nvgpu::MBarrierCreateOp>(op)) {
      // Each of these ops takes a group as its barriers only.
      for (Operation *user : create->getUsers())
        if (!isTMAOp(user))
          return refuse(user, "uses an mbarrier group; on the CPU mbarrier "
                              "groups are only initialized, arrived on, "
                              "tested, waited for and loaded into");
      return WalkResult::advance();
    }
    // The barriers of every other mbarrier op and TMA load.
    for (Value operand : op->getOperands())
      if (isa<nvgpu::MBarrierGroupType>(operand.getType()) &&
          (!operand.getDefiningOp<nvgpu::MBarrierCreateOp>() ||
           !launch.getBody().isAncestor(operand.getParentRegion())))
        return refuse(op, "runs on the CPU only on mbarriers that "
                          "nvgpu.mbarrier.create makes in the launch");
    if (isa<nvgpu::MBarrierArriveOp, nvgpu::MBarrierArriveNoCompleteOp>(op))
      for (Operation *user : op->getUsers())
        if (!isa<nvgpu::MBarrierTestWaitOp>(user))
          return refuse(op, "has a token that, on the CPU, only "
                            "nvgpu.mbarrier.test.wait may use");
    auto load = dyn_cast<nvgpu::TmaAsyncLoadOp>(op);
    if (!load)
      return WalkResult::advance();
    if (load.getMulticastMask())
      return refuse(op, "with a multicast mask cannot run on the CPU");
    auto descriptor = load.getTensorMapDescriptor()
                          .getDefiningOp<nvgpu::TmaCreateDescriptorOp>();
    if (!descriptor ||
        cast<UnrankedMemRefType>(descriptor.getTensor().getType())
            .getMemorySpace())
      return refuse(op, "runs on the CPU only with a tensor map that "
                        "nvgpu.tma.create.descriptor makes from memory in the "
                        "default space");
    if (!getDefaultSpaceView(load.getDst(), /*builder=*/nullptr))
      return refuse(op, "runs on the CPU only into workgroup memory seen "
                        "through memref.memory_space_cast (and "
                        "memref.expand_shape) of memory in the default space");
    return WalkResult::advance();
  });
  return failure(result.wasInterrupted());
}

/// Emits, at the insertion point, a stop of the program: `message` on
/// standard error, then exit status 1.
static void emitStop(RewriterBase &rewriter, Location loc, StringRef message) {
  MLIRContext *context = rewriter.getContext();
  Operation *symbols = SymbolTable::getNearestSymbolTable(
      rewriter.getInsertionBlock()->getParentOp());
  auto pointer = LLVM::LLVMPointerType::get(context);
  Type i32 = rewriter.getI32Type(), i64 = rewriter.getI64Type();
  auto lookupOrDeclare = [&](StringRef name, Type result,
                             ArrayRef<Type> arguments) {
    if (auto function = dyn_cast_or_null<LLVM::LLVMFuncOp>(
            SymbolTable::lookupSymbolIn(symbols, name)))
      return function;
    OpBuilder::InsertionGuard guard(rewriter);
    rewriter.setInsertionPointToStart(&symbols->getRegion(0).front());
    return LLVM::LLVMFuncOp::create(
        rewriter, loc, name, LLVM::LLVMFunctionType::get(result, arguments));
  };
  LLVM::LLVMFuncOp write = lookupOrDeclare("write", i64, {i32, pointer, i64});
  LLVM::LLVMFuncOp exit =
      lookupOrDeclare("exit", LLVM::LLVMVoidType::get(context), {i32});

  std::string text;
  llvm::raw_string_ostream stream(text);
  stream << "vx: ";
  if (std::optional<std::string> place = getFileLineCol(loc))
    stream << *place << ": ";
  stream << message << "\n";
  auto textType = LLVM::LLVMArrayType::get(rewriter.getI8Type(), text.size());
  // Made unattached, so that the symbol table gives it a unique name.
  OpBuilder unattached(context);
  auto global = LLVM::GlobalOp::create(
      unattached, loc, textType, /*isConstant=*/true, LLVM::Linkage::Internal,
      "vx_stop_message", rewriter.getStringAttr(text));
  SymbolTable(symbols).insert(global, symbols->getRegion(0).front().begin());
  Value address = LLVM::AddressOfOp::create(rewriter, loc, global);
  LLVM::CallOp::create(
      rewriter, loc, write,
      ValueRange{LLVM::ConstantOp::create(rewriter, loc, i32, 2), address,
                 LLVM::ConstantOp::create(rewriter, loc, i64, text.size())});
  LLVM::CallOp::create(
      rewriter, loc, exit,
      ValueRange{LLVM::ConstantOp::create(rewriter, loc, i32, 1)});
}

namespace {
/// Emits the CPU form of the TMA ops of one launch.
class TMALowering {
public:
  TMALowering(RewriterBase &rewriter, gpu::LaunchOp launch)
      : rewriter(rewriter), launch(launch) {}

  void run();

private:
  Value constant(int64_t value) {
    return arith::ConstantIntOp::create(rewriter, loc, rewriter.getI64Type(),
                                        value);
  }
  Value asI64(Value index) {
    return arith::IndexCastOp::create(rewriter, loc, rewriter.getI64Type(),
                                      index);
  }
  Value load(Value barriers, Value index, MBarrierField field);
  void store(Value value, Value barriers, Value index, MBarrierField field);
  /// Runs `body` where `predicate` holds (always without one).
  void emitIf(Value predicate, function_ref<void()> body);
  /// Removes `count` arrivals, then completes the phase if nothing is
  /// pending.
  void arrive(Value barriers, Value index, Value count);
  /// Adds `bytes` (i64, negative for completed ones) to the pending bytes.
  void addPendingBytes(Value barriers, Value index, Value bytes);
  void completeIfDone(Value barriers, Value index);
  void copyBox(nvgpu::TmaAsyncLoadOp load, Value destination);
  void lowerOp(Operation *op);

  RewriterBase &rewriter;
  gpu::LaunchOp launch;
  Location loc = launch.getLoc();
  /// The state buffer (default space) of each mbarrier group.
  DenseMap<Value, Value> states;
  /// The phase parity (i64) each arrival token stands for.
  DenseMap<Value, Value> tokens;
};
} // namespace

Value TMALowering::load(Value barriers, Value index, MBarrierField field) {
  return memref::LoadOp::create(
      rewriter, loc, states.at(barriers),
      ValueRange{index, arith::ConstantIndexOp::create(rewriter, loc, field)});
}

void TMALowering::store(Value value, Value barriers, Value index,
                        MBarrierField field) {
  memref::StoreOp::create(
      rewriter, loc, value, states.at(barriers),
      ValueRange{index, arith::ConstantIndexOp::create(rewriter, loc, field)});
}

void TMALowering::emitIf(Value predicate, function_ref<void()> body) {
  if (!predicate) {
    body();
    return;
  }
  auto branch = scf::IfOp::create(rewriter, loc, predicate);
  OpBuilder::InsertionGuard guard(rewriter);
  rewriter.setInsertionPoint(branch.thenBlock()->getTerminator());
  body();
}

void TMALowering::completeIfDone(Value barriers, Value index) {
  Value zero = constant(0);
  Value noArrival =
      arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::eq,
                            load(barriers, index, kPendingArrivals), zero);
  Value noByte =
      arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::eq,
                            load(barriers, index, kPendingBytes), zero);
  emitIf(arith::AndIOp::create(rewriter, loc, noArrival, noByte), [&] {
    Value flipped = arith::XOrIOp::create(
        rewriter, loc, load(barriers, index, kPhase), constant(1));
    store(flipped, barriers, index, kPhase);
    store(load(barriers, index, kExpectedArrivals), barriers, index,
          kPendingArrivals);
  });
}

void TMALowering::arrive(Value barriers, Value index, Value count) {
  Value pending = arith::SubIOp::create(
      rewriter, loc, load(barriers, index, kPendingArrivals), count);
  store(pending, barriers, index, kPendingArrivals);
  completeIfDone(barriers, index);
}

void TMALowering::addPendingBytes(Value barriers, Value index, Value bytes) {
  Value pending = arith::AddIOp::create(
      rewriter, loc, load(barriers, index, kPendingBytes), bytes);
  store(pending, barriers, index, kPendingBytes);
}

void TMALowering::copyBox(nvgpu::TmaAsyncLoadOp load, Value destination) {
  auto descriptorOp = load.getTensorMapDescriptor()
                          .getDefiningOp<nvgpu::TmaCreateDescriptorOp>();
  nvgpu::TensorMapDescriptorType descriptorType =
      descriptorOp.getTensorMap().getType();
  MemRefType box = descriptorType.getTensor();
  int64_t rank = box.getRank();
  Type element = box.getElementType();
  auto tensorType = MemRefType::get(
      SmallVector<int64_t>(rank, ShapedType::kDynamic), element,
      StridedLayoutAttr::get(rewriter.getContext(), ShapedType::kDynamic,
                             SmallVector<int64_t>(rank, ShapedType::kDynamic)));
  Value tensor = memref::CastOp::create(rewriter, loc, tensorType,
                                        descriptorOp.getTensor());
  // The copy's coordinates list the innermost dimension first.
  SmallVector<Value> origin(llvm::reverse(load.getCoordinates()));
  SmallVector<Value> sizes;
  for (int64_t dim = 0; dim < rank; ++dim)
    sizes.push_back(memref::DimOp::create(rewriter, loc, tensor, dim));
  TypedAttr fill = rewriter.getZeroAttr(element);
  if (auto floatType = dyn_cast<FloatType>(element);
      floatType && descriptorType.getOob() == nvgpu::TensorMapOOBKind::OOB_NAN)
    fill = rewriter.getFloatAttr(
        floatType, APFloat::getNaN(floatType.getFloatSemantics()));
  Value fillValue = arith::ConstantOp::create(rewriter, loc, fill);
  Value zero = arith::ConstantIndexOp::create(rewriter, loc, 0);
  Value one = arith::ConstantIndexOp::create(rewriter, loc, 1);
  SmallVector<Value> lbs(rank, zero), steps(rank, one), ubs;
  for (int64_t size : box.getShape())
    ubs.push_back(arith::ConstantIndexOp::create(rewriter, loc, size));
  scf::buildLoopNest(
      rewriter, loc, lbs, ubs, steps,
      [&](OpBuilder &nested, Location loc, ValueRange ivs) {
        SmallVector<Value> at;
        Value inside;
        for (auto [start, iv, size] : llvm::zip_equal(origin, ivs, sizes)) {
          Value position = arith::AddIOp::create(nested, loc, start, iv);
          Value inDim = arith::AndIOp::create(
              nested, loc,
              arith::CmpIOp::create(nested, loc, arith::CmpIPredicate::sge,
                                    position, zero),
              arith::CmpIOp::create(nested, loc, arith::CmpIPredicate::slt,
                                    position, size));
          inside = inside ? arith::AndIOp::create(nested, loc, inside, inDim)
                          : inDim;
          at.push_back(position);
        }
        auto value = scf::IfOp::create(
            nested, loc, inside,
            [&](OpBuilder &then, Location loc) {
              scf::YieldOp::create(
                  then, loc,
                  memref::LoadOp::create(then, loc, tensor, at).getResult());
            },
            [&](OpBuilder &otherwise, Location loc) {
              scf::YieldOp::create(otherwise, loc, fillValue);
            });
        memref::StoreOp::create(nested, loc, value.getResult(0), destination,
                                ivs);
      });
}

void TMALowering::lowerOp(Operation *op) {
  loc = op->getLoc();
  rewriter.setInsertionPoint(op);
  TypeSwitch<Operation *>(op)
      .Case([&](nvgpu::MBarrierInitOp init) {
        emitIf(init.getPredicate(), [&] {
          Value arrivals = asI64(init.getCount());
          Value barriers = init.getBarriers(), index = init.getMbarId();
          store(arrivals, barriers, index, kPendingArrivals);
          store(arrivals, barriers, index, kExpectedArrivals);
          store(constant(0), barriers, index, kPendingBytes);
          store(constant(0), barriers, index, kPhase);
        });
      })
      .Case([&](nvgpu::MBarrierArriveExpectTxOp arrival) {
        emitIf(arrival.getPredicate(), [&] {
          addPendingBytes(arrival.getBarriers(), arrival.getMbarId(),
                          asI64(arrival.getTxcount()));
          arrive(arrival.getBarriers(), arrival.getMbarId(), constant(1));
        });
      })
      .Case([&](nvgpu::MBarrierArriveOp arrival) {
        tokens[arrival.getToken()] =
            load(arrival.getBarriers(), arrival.getMbarId(), kPhase);
        arrive(arrival.getBarriers(), arrival.getMbarId(), constant(1));
      })
      .Case([&](nvgpu::MBarrierArriveNoCompleteOp arrival) {
        Value barriers = arrival.getBarriers(), index = arrival.getMbarId();
        tokens[arrival.getToken()] = load(barriers, index, kPhase);
        Value pending = arith::SubIOp::create(
            rewriter, loc, load(barriers, index, kPendingArrivals),
            asI64(arrival.getCount()));
        store(pending, barriers, index, kPendingArrivals);
      })
      .Case([&](nvgpu::MBarrierTestWaitOp test) {
        // The phase the token was taken in has completed once the parity
        // moved on.
        Value phase = load(test.getBarriers(), test.getMbarId(), kPhase);
        rewriter.replaceAllUsesWith(
            test.getWaitComplete(),
            arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::ne,
                                  phase, tokens.at(test.getToken())));
      })
      .Case([&](nvgpu::MBarrierTryWaitParityOp wait) {
        gpu::BarrierOp::create(rewriter, loc);
        Value parity = arith::ExtUIOp::create(
            rewriter, loc, rewriter.getI64Type(), wait.getPhaseParity());
        Value incomplete = arith::CmpIOp::create(
            rewriter, loc, arith::CmpIPredicate::eq,
            load(wait.getBarriers(), wait.getMbarId(), kPhase), parity);
        emitIf(incomplete, [&] {
          emitStop(rewriter, loc,
                   "nvgpu.mbarrier.try_wait.parity waits for a phase that no "
                   "arrival or copy completes; on a GPU the threads would "
                   "wait forever");
        });
      })
      .Case([&](nvgpu::TmaAsyncLoadOp load) {
        emitIf(load.getPredicate(), [&] {
          copyBox(load, getDefaultSpaceView(load.getDst(), &rewriter));
          MemRefType box = load.getTensorMapDescriptor().getType().getTensor();
          Value bytes = constant(-box.getNumElements() *
                                 box.getElementTypeBitWidth() / 8);
          // The copy completes its bytes: they leave the pending count.
          addPendingBytes(load.getBarriers(), load.getMbarId(), bytes);
          completeIfDone(load.getBarriers(), load.getMbarId());
        });
      })
      .Default([](Operation *) {}); // The fences: nothing to do.
}

void TMALowering::run() {
  SmallVector<Operation *> ops;
  launch.getBody().walk([&](Operation *op) {
    if (isTMAOp(op))
      ops.push_back(op);
  });
  if (ops.empty())
    return;
  // Each mbarrier group: a workgroup buffer of the launch, one per block,
  // seen in the default space.
  for (Operation *op : ops) {
    auto create = dyn_cast<nvgpu::MBarrierCreateOp>(op);
    if (!create)
      continue;
    MLIRContext *context = rewriter.getContext();
    nvgpu::MBarrierGroupType type = create.getBarriers().getType();
    SmallVector<int64_t> shape = {type.getNumBarriers(), kFieldCount};
    auto workgroupType = MemRefType::get(
        shape, rewriter.getI64Type(), MemRefLayoutAttrInterface(),
        gpu::AddressSpaceAttr::get(context, gpu::AddressSpace::Workgroup));
    BlockArgument buffer;
    rewriter.modifyOpInPlace(launch, [&] {
      buffer = launch.addWorkgroupAttribution(workgroupType, create.getLoc());
    });
    rewriter.setInsertionPoint(create);
    states[create.getBarriers()] = memref::MemorySpaceCastOp::create(
        rewriter, create.getLoc(),
        MemRefType::get(shape, rewriter.getI64Type()), buffer);
  }
  for (Operation *op : ops)
    if (!isa<nvgpu::MBarrierCreateOp>(op))
      lowerOp(op);
  // Users before what they use: tests before the arrivals of their tokens.
  for (Operation *op : llvm::reverse(ops))
    rewriter.eraseOp(op);
}

void vx::lowerTMAToSCF(RewriterBase &rewriter, gpu::LaunchOp launch) {
  TMALowering(rewriter, launch).run();
}
