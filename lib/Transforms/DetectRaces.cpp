//===- DetectRaces.cpp - Instrumentation of the dynamic race detector -----===//
//
// detect-races=true: every access of a spawn body reports who touches which
// element to lib/Runtime/RaceDetector.cpp. The instrumentation happens at
// the vx level, where the grid, its semantics and the thread loops are
// still visible; its ops are lowered to runtime calls after the GPU mapping
// (via-gpu=true maps vx.grid_index to blocks and threads underneath them).
//
//===----------------------------------------------------------------------===//

#include "Vx/Analysis/SpawnAnalysis.h"
#include "Vx/Conversion/VxToSCF/VxToSCF.h"
#include "Vx/Location.h"
#include "Vx/Runtime/RaceDetectorABI.h"
#include "Vx/Transforms/Passes.h"
#include "Vx/VxOps.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Dominance.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

namespace mlir {
namespace vx {
#define GEN_PASS_DEF_VXINSTRUMENTRACES
#define GEN_PASS_DEF_VXLOWERRACECHECKS
#include "Vx/Transforms/Passes.h.inc"
} // namespace vx
} // namespace mlir

using namespace mlir;
using namespace mlir::vx;
using namespace mlir::vx::race;

/// Declares `name(i64...) -> (i64?)` in `module` once.
static func::FuncOp declareRuntimeFunction(ModuleOp module, StringRef name,
                                           unsigned numArguments,
                                           bool returnsValue) {
  if (auto existing = module.lookupSymbol<func::FuncOp>(name))
    return existing;
  OpBuilder builder = OpBuilder::atBlockEnd(module.getBody());
  Type i64 = builder.getI64Type();
  auto type =
      builder.getFunctionType(SmallVector<Type>(numArguments, i64),
                              returnsValue ? TypeRange{i64} : TypeRange{});
  auto function = func::FuncOp::create(builder, module.getLoc(), name, type);
  function.setPrivate();
  return function;
}

static Value toI64(OpBuilder &builder, Location loc, Value value) {
  if (value.getType().isInteger(64))
    return value;
  return arith::IndexCastOp::create(builder, loc, builder.getI64Type(), value);
}

static Value constantIndex(OpBuilder &builder, Location loc, int64_t value) {
  return arith::ConstantIndexOp::create(builder, loc, value);
}

static Value constantI64(OpBuilder &builder, Location loc, int64_t value) {
  return arith::ConstantIntOp::create(builder, loc, value, 64);
}

/// The number of bytes of an element of `type` in memory.
static int64_t getElementBytes(MemRefType type) {
  Type element = type.getElementType();
  if (element.isIndex())
    return 8;
  if (element.isIntOrFloat())
    return (element.getIntOrFloatBitWidth() + 7) / 8;
  return 0;
}

namespace {

/// The instrumentation of one spawn.
class SpawnInstrumenter {
public:
  SpawnInstrumenter(SpawnOp spawn, SpawnAnalysis &analysis, ModuleOp module,
                    SymbolTable &symbols, unsigned &stringCounter)
      : spawn(spawn), module(module), symbols(symbols),
        stringCounter(stringCounter), analysis(analysis) {}

  void run();

private:
  /// The address of a NUL-terminated copy of `text`, as an i64 (host code).
  Value getString(OpBuilder &builder, StringRef text);
  void call(OpBuilder &builder, StringRef name, ArrayRef<Value> arguments) {
    func::FuncOp callee =
        declareRuntimeFunction(module, name, arguments.size(), false);
    func::CallOp::create(builder, spawn.getLoc(), callee, arguments);
  }
  void registerSpawn(OpBuilder &builder);
  void registerRoot(OpBuilder &builder, const Access::Candidate &candidate);
  void computeInstance();
  void instrumentThreadLoop(scf::ParallelOp loop);
  void instrument(Operation *op, ArrayRef<const Access *> accesses);
  void emitAccess(OpBuilder &builder, Location loc, const Access &access,
                  Value memref, ValueRange indices, int64_t kind,
                  Value inBounds, int64_t site);
  /// The scratch and body allocations among the candidates of `access`
  /// that the runtime knows and that are defined before it.
  SmallVector<const Access::Candidate *> getPrivateRoots(const Access &access);

  SpawnOp spawn;
  ModuleOp module;
  SymbolTable &symbols;
  unsigned &stringCounter;
  SpawnAnalysis &analysis;
  Value epoch, parallelPoint, instance;
  DenseMap<Operation *, std::pair<Value, Value>> threadLoopContext;
  DenseMap<Value, int64_t> rootIds;
  DominanceInfo dominance;
  int64_t nextSite = 0;
  DenseMap<Operation *, int64_t> sites;
};

} // namespace

Value SpawnInstrumenter::getString(OpBuilder &builder, StringRef text) {
  Location loc = spawn.getLoc();
  SmallVector<int8_t> bytes(text.begin(), text.end());
  bytes.push_back(0);
  auto type = MemRefType::get({int64_t(bytes.size())}, builder.getI8Type());
  auto data = DenseElementsAttr::get(
      RankedTensorType::get({int64_t(bytes.size())}, builder.getI8Type()),
      ArrayRef<int8_t>(bytes));
  std::string name = "__vx_race_string_" + std::to_string(stringCounter++);
  OpBuilder moduleBuilder = OpBuilder::atBlockBegin(module.getBody());
  auto global = memref::GlobalOp::create(
      moduleBuilder, loc, name, moduleBuilder.getStringAttr("private"), type,
      data, /*constant=*/true, /*alignment=*/nullptr);
  symbols.insert(global);
  Value memref =
      memref::GetGlobalOp::create(builder, loc, type, global.getSymName());
  Value pointer =
      memref::ExtractAlignedPointerAsIndexOp::create(builder, loc, memref);
  return toI64(builder, loc, pointer);
}

void SpawnInstrumenter::registerRoot(OpBuilder &builder,
                                     const Access::Candidate &candidate) {
  Location loc = spawn.getLoc();
  const MemoryRoot &root = candidate.root;
  Value key = candidate.base;
  if (!key || rootIds.count(key))
    return;
  auto type = dyn_cast<MemRefType>(key.getType());
  if (!type || !getElementBytes(type))
    return;
  int64_t id = rootIds.size();
  rootIds[key] = id;
  Value zero = constantI64(builder, loc, 0);
  Value elementBytes = constantI64(builder, loc, getElementBytes(type));
  Value rank = constantI64(builder, loc, type.getRank());
  if (root.isShared()) {
    // By address: the base, sizes and strides of the buffer in host code.
    Value buffer = key;
    if (root.kind == MemoryRoot::Kind::Global)
      buffer = memref::GetGlobalOp::create(builder, loc, type, root.global);
    else if (spawn.isDefinedInBody(buffer))
      return;
    auto metadata =
        memref::ExtractStridedMetadataOp::create(builder, loc, buffer);
    Value aligned =
        memref::ExtractAlignedPointerAsIndexOp::create(builder, loc, buffer);
    Value offsetBytes = arith::MulIOp::create(
        builder, loc, metadata.getOffset(),
        constantIndex(builder, loc, getElementBytes(type)));
    Value base = arith::AddIOp::create(builder, loc, aligned, offsetBytes);
    call(builder, "__vx_race_buffer",
         {epoch, constantI64(builder, loc, id),
          getString(builder, root.describe()), toI64(builder, loc, base),
          elementBytes, rank, constantI64(builder, loc, 1)});
    for (int64_t dim = 0; dim < type.getRank(); ++dim)
      call(builder, "__vx_race_buffer_dim",
           {epoch, constantI64(builder, loc, id),
            constantI64(builder, loc, dim),
            toI64(builder, loc, metadata.getSizes()[dim]),
            toI64(builder, loc, metadata.getStrides()[dim])});
    return;
  }
  // Scratch and body allocations: static shapes, row-major.
  if (!type.hasStaticShape())
    return;
  call(builder, "__vx_race_buffer",
       {epoch, constantI64(builder, loc, id),
        getString(builder, root.describe()), zero, elementBytes, rank, zero});
  int64_t stride = 1;
  SmallVector<int64_t> strides(type.getRank());
  for (int64_t dim = type.getRank() - 1; dim >= 0; --dim) {
    strides[dim] = stride;
    stride *= type.getDimSize(dim);
  }
  for (int64_t dim = 0; dim < type.getRank(); ++dim)
    call(builder, "__vx_race_buffer_dim",
         {epoch, constantI64(builder, loc, id), constantI64(builder, loc, dim),
          constantI64(builder, loc, type.getDimSize(dim)),
          constantI64(builder, loc, strides[dim])});
}

void SpawnInstrumenter::registerSpawn(OpBuilder &builder) {
  Location loc = spawn.getLoc();
  unsigned rank = spawn.getRank();
  func::FuncOp begin =
      declareRuntimeFunction(module, "__vx_race_spawn", 2, true);
  epoch =
      func::CallOp::create(builder, loc, begin,
                           ValueRange{constantI64(builder, loc, rank),
                                      getString(builder, formatLocation(loc))})
          .getResult(0);
  for (unsigned dim = 0; dim < rank; ++dim) {
    Value size = spawn.getGridSize(builder, loc, dim);
    bool parallel = spawn.getDimSemantics(dim) == DimensionSemantics::parallel;
    call(builder, "__vx_race_dim",
         {epoch, constantI64(builder, loc, dim), toI64(builder, loc, size),
          constantI64(builder, loc, parallel)});
  }
  for (auto [op, site] : sites)
    call(builder, "__vx_race_site",
         {epoch, constantI64(builder, loc, site),
          getString(builder, ("'" + op->getName().getStringRef() + "' at " +
                              formatLocation(op->getLoc()))
                                 .str())});
  for (const Access &access : analysis.getAccesses())
    for (const Access::Candidate &candidate : access.candidates)
      registerRoot(builder, candidate);
}

void SpawnInstrumenter::computeInstance() {
  // The linear id over every dimension and over the parallel ones, row-major.
  OpBuilder builder = OpBuilder::atBlockBegin(&spawn.getBody().front());
  Location loc = spawn.getLoc();
  Value linear = constantIndex(builder, loc, 0);
  Value point = linear;
  for (unsigned dim = 0; dim < spawn.getRank(); ++dim) {
    Value size = GridDimOp::create(builder, loc, dim);
    Value index = GridIndexOp::create(builder, loc, dim);
    linear = arith::AddIOp::create(
        builder, loc, arith::MulIOp::create(builder, loc, linear, size), index);
    if (spawn.getDimSemantics(dim) == DimensionSemantics::parallel)
      point = arith::AddIOp::create(
          builder, loc, arith::MulIOp::create(builder, loc, point, size),
          index);
  }
  instance = linear;
  parallelPoint = point;
}

void SpawnInstrumenter::instrumentThreadLoop(scf::ParallelOp loop) {
  Location loc = loop.getLoc();
  OpBuilder builder(loop);
  SmallVector<Value> trips;
  for (auto [lower, upper, step] : llvm::zip_equal(
           loop.getLowerBound(), loop.getUpperBound(), loop.getStep())) {
    Value span = arith::SubIOp::create(builder, loc, upper, lower);
    Value count = arith::CeilDivSIOp::create(builder, loc, span, step);
    trips.push_back(arith::MaxSIOp::create(builder, loc, count,
                                           constantIndex(builder, loc, 0)));
  }
  int64_t site = sites.lookup(loop);
  Value execution = RaceThreadLoopOp::create(
      builder, loc, builder.getIndexType(), epoch, instance, /*thread=*/Value(),
      loop.getLowerBound(), loop.getStep(), trips,
      builder.getI64IntegerAttr(site));
  builder.setInsertionPointToStart(loop.getBody());
  Value iteration = constantIndex(builder, loc, 0);
  for (auto [iv, lower, step, count] :
       llvm::zip_equal(loop.getInductionVars(), loop.getLowerBound(),
                       loop.getStep(), trips)) {
    Value offset = arith::SubIOp::create(builder, loc, iv, lower);
    Value counter = arith::DivUIOp::create(builder, loc, offset, step);
    iteration = arith::AddIOp::create(
        builder, loc, arith::MulIOp::create(builder, loc, iteration, count),
        counter);
  }
  threadLoopContext[loop] = {execution, iteration};
}

/// Whether `access` reaches only an allocation made inside its own thread
/// loop: one per iteration, which no other iteration sees.
static bool reachesIterationAllocation(const Access &access) {
  if (!access.threadLoop || access.candidates.size() != 1)
    return false;
  const Access::Candidate &candidate = access.candidates.front();
  Operation *allocation =
      candidate.base ? candidate.base.getDefiningOp() : nullptr;
  return !candidate.root.isShared() && allocation &&
         access.threadLoop->isAncestor(allocation);
}

SmallVector<const Access::Candidate *>
SpawnInstrumenter::getPrivateRoots(const Access &access) {
  SmallVector<const Access::Candidate *> roots;
  for (const Access::Candidate &candidate : access.candidates)
    if (!candidate.root.isShared() && candidate.base &&
        rootIds.count(candidate.base) &&
        dominance.properlyDominates(candidate.base, access.op))
      roots.push_back(&candidate);
  return roots;
}

void SpawnInstrumenter::emitAccess(OpBuilder &builder, Location loc,
                                   const Access &access, Value memref,
                                   ValueRange indices, int64_t kind,
                                   Value inBounds, int64_t site) {
  auto type = cast<MemRefType>(memref.getType());
  int64_t elementBytes = getElementBytes(type);
  Value bytes = constantIndex(builder, loc, elementBytes);
  auto metadata =
      memref::ExtractStridedMetadataOp::create(builder, loc, memref);
  Value element = metadata.getOffset();
  for (auto [index, stride] : llvm::zip_equal(indices, metadata.getStrides()))
    element = arith::AddIOp::create(
        builder, loc, element,
        arith::MulIOp::create(builder, loc, index, stride));
  Value aligned =
      memref::ExtractAlignedPointerAsIndexOp::create(builder, loc, memref);
  Value address = arith::AddIOp::create(
      builder, loc, aligned,
      arith::MulIOp::create(builder, loc, element, bytes));
  Value execution = constantIndex(builder, loc, 0);
  Value iteration = execution;
  if (access.threadLoop) {
    auto [loopExecution, loopIteration] =
        threadLoopContext.lookup(access.threadLoop);
    execution = loopExecution;
    iteration = loopIteration;
  }
  // Scratch is one per parallel point, allocations one per instance: the
  // byte offset within them. A memref chosen among several roots (a select,
  // an if's result, an iter_arg) is told apart at run time by its pointer,
  // with selects (the check stays straight-line code, see RaceAccessOp);
  // read by its address, a private root would look shared (the stack slots
  // of instances run one after the other are one address).
  Value root = constantI64(builder, loc, -1);
  Value owner = constantIndex(builder, loc, 0);
  Value absolute = address;
  for (const Access::Candidate *candidate :
       llvm::reverse(getPrivateRoots(access))) {
    Value base = candidate->base;
    auto baseMetadata =
        memref::ExtractStridedMetadataOp::create(builder, loc, base);
    Value baseAligned =
        memref::ExtractAlignedPointerAsIndexOp::create(builder, loc, base);
    Value baseAddress = arith::AddIOp::create(
        builder, loc, baseAligned,
        arith::MulIOp::create(builder, loc, baseMetadata.getOffset(), bytes));
    Value relative = arith::SubIOp::create(builder, loc, absolute, baseAddress);
    Value candidateRoot = constantI64(builder, loc, rootIds.lookup(base));
    Value candidateOwner = candidate->root.kind == MemoryRoot::Kind::Scratch
                               ? parallelPoint
                               : instance;
    if (access.candidates.size() == 1) {
      root = candidateRoot;
      address = relative;
      owner = candidateOwner;
      break;
    }
    Value isRoot = arith::CmpIOp::create(builder, loc, arith::CmpIPredicate::eq,
                                         aligned, baseAligned);
    root = arith::SelectOp::create(builder, loc, isRoot, candidateRoot, root);
    address = arith::SelectOp::create(builder, loc, isRoot, relative, address);
    owner =
        arith::SelectOp::create(builder, loc, isRoot, candidateOwner, owner);
  }
  // Out of bounds: the runtime adds the flag to the kind.
  RaceAccessOp::create(builder, loc, epoch, parallelPoint, instance, execution,
                       iteration, owner, root, address, inBounds,
                       builder.getI64IntegerAttr(kind),
                       builder.getI64IntegerAttr(site));
}

/// The size of `memref` along `dim`: a constant where it is static, which
/// also keeps the checks of a CTA's private buffers uniform across its
/// threads (a barrier may be inside them).
static Value getBufferSize(OpBuilder &builder, Location loc, Value memref,
                           int64_t dim) {
  return getValueOrCreateConstantIndexOp(
      builder, loc, memref::getMixedSize(builder, loc, memref, dim));
}

/// Whether all `indices` of `memref` are within its sizes (unsigned).
static Value buildInBounds(OpBuilder &builder, Location loc, Value memref,
                           ValueRange indices) {
  Value inBounds = arith::ConstantIntOp::create(builder, loc, 1, 1);
  for (auto [dim, index] : llvm::enumerate(indices)) {
    Value size = getBufferSize(builder, loc, memref, dim);
    Value below = arith::CmpIOp::create(builder, loc, arith::CmpIPredicate::ult,
                                        index, size);
    inBounds = arith::AndIOp::create(builder, loc, inBounds, below);
  }
  return inBounds;
}

void SpawnInstrumenter::instrument(Operation *op,
                                   ArrayRef<const Access *> accesses) {
  OpBuilder builder(op);
  Location loc = op->getLoc();
  int64_t site = sites.lookup(op);
  for (const Access *access : accesses) {
    if (access->unmodelled || !access->buffer)
      continue;
    auto type = dyn_cast<MemRefType>(access->buffer.getType());
    if (!type || !getElementBytes(type))
      continue;
    if (reachesIterationAllocation(*access))
      continue;
    int64_t kind = access->isWrite() ? kWrite : kRead;
    if (access->atomicKind)
      kind |= (static_cast<int64_t>(*access->atomicKind) + 1)
              << kAtomicKindShift;
    if (access->wholeBuffer) {
      // Every element of the view, by a loop nest.
      SmallVector<Value> lowers, uppers, steps;
      for (int64_t dim = 0; dim < type.getRank(); ++dim) {
        lowers.push_back(constantIndex(builder, loc, 0));
        uppers.push_back(getBufferSize(builder, loc, access->buffer, dim));
        steps.push_back(constantIndex(builder, loc, 1));
      }
      scf::buildLoopNest(builder, loc, lowers, uppers, steps,
                         [&](OpBuilder &nested, Location loc, ValueRange ivs) {
                           emitAccess(nested, loc, *access, access->buffer, ivs,
                                      kind, Value(), site);
                         });
      continue;
    }
    SmallVector<Value> indices = access->indices;
    if (access->map) {
      indices.clear();
      for (unsigned result = 0; result < access->map.getNumResults(); ++result)
        indices.push_back(affine::AffineApplyOp::create(
            builder, loc, access->map.getSubMap({result}), access->indices));
    }
    if (access->vectorShape.empty()) {
      emitAccess(builder, loc, *access, access->buffer, indices, kind,
                 buildInBounds(builder, loc, access->buffer, indices), site);
      continue;
    }
    // The lanes of a vector along the trailing dimensions (they may run on
    // past a row: no bounds check).
    SmallVector<Value> lowers, uppers, steps;
    for (int64_t size : access->vectorShape) {
      lowers.push_back(constantIndex(builder, loc, 0));
      uppers.push_back(constantIndex(builder, loc, size));
      steps.push_back(constantIndex(builder, loc, 1));
    }
    unsigned first = indices.size() - access->vectorShape.size();
    scf::buildLoopNest(builder, loc, lowers, uppers, steps,
                       [&](OpBuilder &nested, Location loc, ValueRange lanes) {
                         SmallVector<Value> laneIndices = indices;
                         for (auto [offset, lane] : llvm::enumerate(lanes))
                           laneIndices[first + offset] = arith::AddIOp::create(
                               nested, loc, laneIndices[first + offset], lane);
                         emitAccess(nested, loc, *access, access->buffer,
                                    laneIndices, kind, Value(), site);
                       });
  }
}

void SpawnInstrumenter::run() {
  // Sites: the accesses and thread loops, in program order.
  SmallVector<Operation *> accessOps;
  for (const Access &access : analysis.getAccesses())
    if (!sites.count(access.op) && !access.unmodelled) {
      sites[access.op] = nextSite++;
      accessOps.push_back(access.op);
    }
  for (scf::ParallelOp loop : analysis.getThreadLoops())
    sites[loop] = nextSite++;
  OpBuilder host(spawn);
  registerSpawn(host);
  computeInstance();
  for (scf::ParallelOp loop : analysis.getThreadLoops())
    instrumentThreadLoop(loop);
  for (Operation *op : accessOps)
    instrument(op, analysis.getAccesses(op));
}

/// The kind of `access` as the runtime takes it: with the out-of-bounds bit
/// where its `in_bounds` flag is false.
static Value getKind(OpBuilder &builder, RaceAccessOp access) {
  Location loc = access.getLoc();
  Value kind = constantI64(builder, loc, access.getKind());
  if (!access.getInBounds())
    return kind;
  return arith::SelectOp::create(
      builder, loc, access.getInBounds(), kind,
      constantI64(builder, loc, access.getKind() | kOutOfBounds));
}

namespace {

struct VxInstrumentRacesPass
    : public vx::impl::VxInstrumentRacesBase<VxInstrumentRacesPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SymbolTable symbols(module);
    SmallVector<SpawnOp> spawns;
    module.walk([&](SpawnOp spawn) { spawns.push_back(spawn); });
    unsigned stringCounter = 0;
    // The spawns' accesses as vx-verify-semantics left them cached (each
    // spawn's instrumentation leaves the others alone), except in spawns
    // with affine.parallel: their affine ops are lowered first, as every
    // route does, so that an affine.parallel is checked as the thread loop
    // it becomes.
    for (SpawnOp spawn : spawns) {
      if (failed(verifyMemoryRootsTraceable(spawn))) {
        signalPassFailure();
        continue;
      }
      if (!hasAffineParallel(spawn)) {
        SpawnInstrumenter(
            spawn,
            SpawnAnalyses::getFor(spawn, module, getAnalysisManager())
                .get(spawn),
            module, symbols, stringCounter)
            .run();
        continue;
      }
      if (failed(lowerAffineInSpawns(spawn)))
        return signalPassFailure();
      SpawnAnalysis analysis(spawn);
      SpawnInstrumenter(spawn, analysis, module, symbols, stringCounter).run();
    }
  }
};

struct VxLowerRaceChecksPass
    : public vx::impl::VxLowerRaceChecksBase<VxLowerRaceChecksPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    module.walk([&](RaceAccessOp access) {
      OpBuilder builder(access);
      Location loc = access.getLoc();
      func::FuncOp callee =
          declareRuntimeFunction(module, "__vx_race_access", 10, false);
      func::CallOp::create(
          builder, loc, callee,
          ValueRange{access.getEpoch(),
                     constantI64(builder, loc, access.getSite()),
                     toI64(builder, loc, access.getParallelPoint()),
                     toI64(builder, loc, access.getInstance()),
                     toI64(builder, loc, access.getExecution()),
                     toI64(builder, loc, access.getIteration()),
                     access.getRoot(), toI64(builder, loc, access.getOwner()),
                     toI64(builder, loc, access.getAddress()),
                     getKind(builder, access)});
      access.erase();
    });
    module.walk([&](RaceThreadLoopOp loop) {
      OpBuilder builder(loop);
      Location loc = loop.getLoc();
      func::FuncOp begin =
          declareRuntimeFunction(module, "__vx_race_thread_loop", 5, true);
      func::FuncOp dim =
          declareRuntimeFunction(module, "__vx_race_thread_loop_dim", 5, false);
      Value execution =
          func::CallOp::create(
              builder, loc, begin,
              ValueRange{
                  loop.getEpoch(), constantI64(builder, loc, loop.getSite()),
                  constantI64(builder, loc, loop.getTrips().size()),
                  toI64(builder, loc, loop.getInstance()),
                  loop.getThread() ? toI64(builder, loc, loop.getThread())
                                   : constantI64(builder, loc, -1)})
              .getResult(0);
      for (auto [position, lower, step, trips] : llvm::enumerate(
               loop.getLowerBounds(), loop.getSteps(), loop.getTrips()))
        func::CallOp::create(
            builder, loc, dim,
            ValueRange{execution, constantI64(builder, loc, position),
                       toI64(builder, loc, lower), toI64(builder, loc, step),
                       toI64(builder, loc, trips)});
      Value index = arith::IndexCastOp::create(
          builder, loc, builder.getIndexType(), execution);
      loop.getExecution().replaceAllUsesWith(index);
      loop.erase();
    });
  }
};

} // namespace
