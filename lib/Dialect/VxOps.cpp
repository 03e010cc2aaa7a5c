//===- VxOps.cpp - Vx operations ------------------------------------------===//

#include "Vx/VxOps.h"
#include "Vx/Target/Limits.h"

#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/CallInterfaces.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/StringExtras.h"

using namespace mlir;
using namespace mlir::vx;

//===----------------------------------------------------------------------===//
// Custom directives
//===----------------------------------------------------------------------===//

/// The keywords of a vx enum for a diagnostic: 'a', 'b' or 'c'. The cases
/// are numbered from 0 without gaps, and an unknown value stringifies empty.
template <typename EnumT> static std::string describeKeywords() {
  SmallVector<std::string> keywords;
  for (uint32_t value = 0;; ++value) {
    StringRef keyword = stringifyEnum(static_cast<EnumT>(value));
    if (keyword.empty())
      break;
    keywords.push_back(("'" + keyword + "'").str());
  }
  std::string last = keywords.pop_back_val();
  return keywords.empty() ? last : llvm::join(keywords, ", ") + " or " + last;
}

/// Parses a vx enum attribute written as its bare keyword (`tensor_core`);
/// no value when the next token is not a keyword.
template <typename AttrT>
static OptionalParseResult parseOptionalEnumKeyword(OpAsmParser &parser,
                                                    AttrT &attr) {
  using EnumT = decltype(std::declval<AttrT>().getValue());
  SMLoc loc = parser.getCurrentLocation();
  StringRef keyword;
  if (failed(parser.parseOptionalKeyword(&keyword)))
    return std::nullopt;
  std::optional<EnumT> value = symbolizeEnum<EnumT>(keyword);
  if (!value)
    return parser.emitError(loc, "expected ")
           << describeKeywords<EnumT>() << ", got '" << keyword << "'";
  attr = AttrT::get(parser.getContext(), *value);
  return success();
}

template <typename AttrT>
static ParseResult parseEnumKeyword(OpAsmParser &parser, AttrT &attr) {
  using EnumT = decltype(std::declval<AttrT>().getValue());
  OptionalParseResult result = parseOptionalEnumKeyword(parser, attr);
  if (!result.has_value())
    return parser.emitError(parser.getCurrentLocation(), "expected ")
           << describeKeywords<EnumT>();
  return *result;
}

template <typename AttrT>
static void printOptionalEnumKeyword(OpAsmPrinter &printer, Operation *,
                                     AttrT attr) {
  printer << stringifyEnum(attr.getValue());
}

template <typename AttrT>
static void printEnumKeyword(OpAsmPrinter &printer, Operation *op, AttrT attr) {
  printOptionalEnumKeyword(printer, op, attr);
}

/// semantics-list ::= (`semantics` `[` keyword (`,` keyword)* `]`)?
/// When omitted, every dimension of `staticGrid` is `arbitrary`.
static ParseResult parseSemantics(OpAsmParser &parser, ArrayAttr &semantics,
                                  DenseI64ArrayAttr staticGrid) {
  MLIRContext *ctx = parser.getContext();
  SmallVector<Attribute> entries;
  if (failed(parser.parseOptionalKeyword("semantics"))) {
    entries.assign(staticGrid.size(), DimensionSemanticsAttr::get(
                                          ctx, DimensionSemantics::arbitrary));
    semantics = ArrayAttr::get(ctx, entries);
    return success();
  }
  auto parseOne = [&]() -> ParseResult {
    DimensionSemanticsAttr entry;
    if (parseEnumKeyword(parser, entry))
      return failure();
    entries.push_back(entry);
    return success();
  };
  if (parser.parseCommaSeparatedList(AsmParser::Delimiter::Square, parseOne))
    return failure();
  semantics = ArrayAttr::get(ctx, entries);
  return success();
}

static void printSemantics(OpAsmPrinter &printer, SpawnOp, ArrayAttr semantics,
                           DenseI64ArrayAttr) {
  printer << "semantics [";
  llvm::interleaveComma(semantics, printer, [&](Attribute attr) {
    printer << stringifyEnum(cast<DimensionSemanticsAttr>(attr).getValue());
  });
  printer << "]";
}

/// The integer of a `threads N` or `stages N` clause, checked by the
/// verifier; `expected` says what is missing when it is not an integer. A
/// clause of `earlierClauses` right after it is out of order: naming the
/// order beats the generic "expected '{'" that the region would give.
static ParseResult parseClauseCount(OpAsmParser &parser, IntegerAttr &count,
                                    StringRef clause, StringRef expected,
                                    ArrayRef<StringRef> earlierClauses) {
  SMLoc loc = parser.getCurrentLocation();
  int64_t value;
  OptionalParseResult result = parser.parseOptionalInteger(value);
  if (!result.has_value())
    return parser.emitError(loc, "expected ") << expected;
  if (failed(*result))
    return failure();
  count = parser.getBuilder().getI64IntegerAttr(value);
  SMLoc nextLoc = parser.getCurrentLocation();
  StringRef earlier;
  if (succeeded(parser.parseOptionalKeyword(&earlier, earlierClauses)))
    return parser.emitError(nextLoc, "'")
           << earlier << "' comes before '" << clause
           << "' (the clauses of vx.spawn are in the order semantics, "
              "threads, stages)";
  return success();
}

static ParseResult parseThreadCount(OpAsmParser &parser, IntegerAttr &threads) {
  return parseClauseCount(parser, threads, "threads",
                          "the number of threads per CTA after 'threads'",
                          {"semantics"});
}

static ParseResult parseStageCount(OpAsmParser &parser, IntegerAttr &stages) {
  return parseClauseCount(parser, stages, "stages",
                          "the number of pipeline stages after 'stages'",
                          {"semantics", "threads"});
}

static void printThreadCount(OpAsmPrinter &printer, SpawnOp,
                             IntegerAttr threads) {
  printer << threads.getInt();
}

static void printStageCount(OpAsmPrinter &printer, SpawnOp,
                            IntegerAttr stages) {
  printer << stages.getInt();
}

#define GET_OP_CLASSES
#include "Vx/VxOps.cpp.inc"

//===----------------------------------------------------------------------===//
// SpawnOp
//===----------------------------------------------------------------------===//

void SpawnOp::build(OpBuilder &builder, OperationState &state,
                    Topology topology, ArrayRef<OpFoldResult> grid,
                    ArrayRef<DimensionSemantics> semantics,
                    std::optional<int64_t> threads,
                    std::optional<int64_t> stages) {
  SmallVector<Value> dynamicGrid;
  SmallVector<int64_t> staticGrid;
  dispatchIndexOpFoldResults(grid, dynamicGrid, staticGrid);
  SmallVector<Attribute> semanticsAttrs =
      llvm::map_to_vector(semantics, [&](DimensionSemantics s) -> Attribute {
        return DimensionSemanticsAttr::get(builder.getContext(), s);
      });
  build(builder, state, TopologyAttr::get(builder.getContext(), topology),
        dynamicGrid, builder.getDenseI64ArrayAttr(staticGrid),
        builder.getArrayAttr(semanticsAttrs),
        threads ? builder.getI64IntegerAttr(*threads) : IntegerAttr(),
        stages ? builder.getI64IntegerAttr(*stages) : IntegerAttr());
  Region *body = state.regions.front().get();
  body->push_back(new Block());
  SpawnOp::ensureTerminator(*body, builder, state.location);
}

SmallVector<OpFoldResult> SpawnOp::getMixedGrid() {
  return getMixedValues(getStaticGrid(), getDynamicGrid(), getContext());
}

Value SpawnOp::getGridSize(OpBuilder &builder, Location loc, unsigned dim) {
  return getValueOrCreateConstantIndexOp(builder, loc, getMixedGrid()[dim]);
}

DimensionSemantics SpawnOp::getDimSemantics(unsigned dim) {
  return cast<DimensionSemanticsAttr>(getSemantics()[dim]).getValue();
}

LogicalResult SpawnOp::verify() {
  if ((*this)->getParentOfType<SpawnOp>())
    return emitOpError("may not be nested inside another 'vx.spawn'");
  ArrayRef<int64_t> staticGrid = getStaticGrid();
  if (staticGrid.empty())
    return emitOpError("grid must have at least one dimension");
  if (failed(verifyListOfOperandsOrIntegers(*this, "grid", staticGrid.size(),
                                            staticGrid, getDynamicGrid())))
    return failure();
  for (auto [dim, size] : llvm::enumerate(staticGrid))
    if (!ShapedType::isDynamic(size) && size < 1)
      return emitOpError("static grid size of dimension ")
             << dim << " must be >= 1, got " << size;
  if (getSemantics().size() != staticGrid.size())
    return emitOpError("expects one semantics per grid dimension (")
           << staticGrid.size() << "), got " << getSemantics().size();
  if (IntegerAttr threads = getThreadsAttr())
    if (threads.getInt() < 1 || threads.getInt() > kMaxThreadsPerBlock)
      return emitOpError("threads must be between 1 and ")
             << kMaxThreadsPerBlock << ", got " << threads.getInt();
  if (IntegerAttr stages = getStagesAttr(); stages && stages.getInt() < 1)
    return emitOpError("stages must be at least 1, got ") << stages.getInt();
  return success();
}

SmallVector<unsigned> SpawnOp::getParallelDims() {
  SmallVector<unsigned> dims;
  for (unsigned dim = 0; dim < getRank(); ++dim)
    if (getDimSemantics(dim) == DimensionSemantics::parallel)
      dims.push_back(dim);
  return dims;
}

SmallVector<unsigned> SpawnOp::getArbitraryDims() {
  SmallVector<unsigned> dims;
  for (unsigned dim = 0; dim < getRank(); ++dim)
    if (getDimSemantics(dim) == DimensionSemantics::arbitrary)
      dims.push_back(dim);
  return dims;
}

bool SpawnOp::isDefinedInBody(Value value) {
  return getBody().isAncestor(value.getParentRegion());
}

void SpawnOp::inlineBody(RewriterBase &rewriter, ArrayRef<Value> coords,
                         ArrayRef<Value> sizes) {
  SmallVector<Operation *> queries;
  getBody().walk([&](Operation *op) {
    if (isa<GridIndexOp, GridDimOp>(op))
      queries.push_back(op);
  });
  for (Operation *op : queries) {
    if (auto index = dyn_cast<GridIndexOp>(op))
      rewriter.replaceOp(index, coords[index.getDim()]);
    else
      rewriter.replaceOp(op, sizes[cast<GridDimOp>(op).getDim()]);
  }
  Block &body = getBody().front();
  rewriter.eraseOp(body.getTerminator());
  rewriter.inlineBlockBefore(&body, rewriter.getInsertionBlock(),
                             rewriter.getInsertionPoint());
  rewriter.eraseOp(*this);
}

void SpawnOp::getSuccessorRegions(RegionBranchPoint point,
                                  SmallVectorImpl<RegionSuccessor> &regions) {
  // The body runs once per instance, possibly not at all, and then control
  // returns to the spawn.
  regions.push_back(RegionSuccessor(&getBody()));
  regions.push_back(
      RegionSuccessor(getOperation(), getOperation()->getResults()));
}

namespace {
/// Moves constant grid sizes into the static list; a spawn with a constant
/// size < 1 runs no instance and is erased.
struct FoldConstantGridSizes : public OpRewritePattern<SpawnOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(SpawnOp op,
                                PatternRewriter &rewriter) const override {
    for (Value size : op.getDynamicGrid()) {
      APInt value;
      if (matchPattern(size, m_ConstantInt(&value)) &&
          value.getSExtValue() < 1) {
        rewriter.eraseOp(op);
        return success();
      }
    }
    SmallVector<OpFoldResult> grid = op.getMixedGrid();
    if (failed(foldDynamicIndexList(grid, /*onlyNonNegative=*/true,
                                    /*onlyNonZero=*/true)))
      return failure();
    SmallVector<Value> dynamicGrid;
    SmallVector<int64_t> staticGrid;
    dispatchIndexOpFoldResults(grid, dynamicGrid, staticGrid);
    rewriter.modifyOpInPlace(op, [&] {
      op.getDynamicGridMutable().assign(dynamicGrid);
      op.setStaticGrid(staticGrid);
    });
    return success();
  }
};
} // namespace

void SpawnOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                          MLIRContext *context) {
  results.add<FoldConstantGridSizes>(context);
}

//===----------------------------------------------------------------------===//
// GridIndexOp and GridDimOp
//===----------------------------------------------------------------------===//

/// Verifies that `op` is inside a spawn whose rank exceeds `dim`.
static LogicalResult verifyGridQuery(Operation *op, int64_t dim) {
  auto spawn = op->getParentOfType<SpawnOp>();
  if (!spawn)
    return op->emitOpError("must be inside a 'vx.spawn' body");
  if (dim < 0 || dim >= static_cast<int64_t>(spawn.getRank()))
    return op->emitOpError("dimension ")
           << dim << " is out of range for a grid of rank " << spawn.getRank();
  return success();
}

LogicalResult GridIndexOp::verify() { return verifyGridQuery(*this, getDim()); }

void GridIndexOp::getAsmResultNames(OpAsmSetValueNameFn setNameFn) {
  setNameFn(getResult(), "idx");
}

/// The static size of the grid dimension `dim` around `op`, if any.
static std::optional<int64_t> getStaticGridSize(Operation *op, int64_t dim) {
  auto spawn = op->getParentOfType<SpawnOp>();
  if (!spawn || dim < 0 || dim >= static_cast<int64_t>(spawn.getRank()))
    return std::nullopt;
  int64_t size = spawn.getStaticGrid()[dim];
  if (ShapedType::isDynamic(size))
    return std::nullopt;
  return size;
}

void GridIndexOp::inferResultRanges(ArrayRef<ConstantIntRanges>,
                                    SetIntRangeFn setResultRange) {
  unsigned width = IndexType::kInternalStorageBitWidth;
  // A dynamic size is at most the largest index.
  int64_t last = getStaticGridSize(*this, getDim())
                     .value_or(std::numeric_limits<int64_t>::max()) -
                 1;
  setResultRange(getResult(), ConstantIntRanges::fromSigned(
                                  APInt::getZero(width), APInt(width, last)));
}

LogicalResult GridDimOp::verify() { return verifyGridQuery(*this, getDim()); }

void GridDimOp::getAsmResultNames(OpAsmSetValueNameFn setNameFn) {
  setNameFn(getResult(), "dim");
}

void GridDimOp::inferResultRanges(ArrayRef<ConstantIntRanges>,
                                  SetIntRangeFn setResultRange) {
  unsigned width = IndexType::kInternalStorageBitWidth;
  std::optional<int64_t> size = getStaticGridSize(*this, getDim());
  // An instance runs only where every size is at least 1.
  setResultRange(
      getResult(),
      ConstantIntRanges::fromSigned(
          APInt(width, size.value_or(1)),
          APInt(width, size.value_or(std::numeric_limits<int64_t>::max()))));
}

OpFoldResult GridDimOp::fold(FoldAdaptor) {
  auto spawn = (*this)->getParentOfType<SpawnOp>();
  if (!spawn || getDim() >= spawn.getRank())
    return {};
  int64_t size = spawn.getStaticGrid()[getDim()];
  if (!ShapedType::isDynamic(size))
    return IntegerAttr::get(IndexType::get(getContext()), size);
  // The body is not isolated from above, so a dynamic size is visible here.
  return spawn.getMixedGrid()[getDim()];
}

//===----------------------------------------------------------------------===//
// ScratchOp
//===----------------------------------------------------------------------===//

void ScratchOp::getAsmResultNames(OpAsmSetValueNameFn setNameFn) {
  setNameFn(getResult(), "scratch");
}

/// Returns a use through which the buffer `value`, or a view of it, leaves
/// the spawn body: an operand of a call or of a terminator that returns from
/// the body. Buffers that region ops in the body receive (`scf.for`
/// iter_args) or yield (`scf.if`, `scf.for` results) are followed through
/// every result and region argument of those ops.
static OpOperand *findEscapingUse(Value value,
                                  llvm::SmallPtrSetImpl<Value> &visited) {
  if (!visited.insert(value).second)
    return nullptr;
  auto followAll = [&](Operation *regionOp) -> OpOperand * {
    for (Value result : regionOp->getResults())
      if (OpOperand *escape = findEscapingUse(result, visited))
        return escape;
    for (Region &region : regionOp->getRegions())
      for (BlockArgument argument : region.getArguments())
        if (OpOperand *escape = findEscapingUse(argument, visited))
          return escape;
    return nullptr;
  };
  for (OpOperand &use : value.getUses()) {
    Operation *user = use.getOwner();
    if (isa<CallOpInterface>(user))
      return &use;
    if (user->hasTrait<OpTrait::IsTerminator>()) {
      Operation *parent = user->getParentOp();
      if (!isa<RegionBranchTerminatorOpInterface>(user) || isa<SpawnOp>(parent))
        return &use;
      if (OpOperand *escape = followAll(parent))
        return escape;
      continue;
    }
    if (isa<RegionBranchOpInterface>(user)) {
      if (OpOperand *escape = followAll(user))
        return escape;
      continue;
    }
    auto view = dyn_cast<ViewLikeOpInterface>(user);
    if (!view || view.getViewSource() != value)
      continue;
    for (Value result : user->getResults())
      if (OpOperand *escape = findEscapingUse(result, visited))
        return escape;
  }
  return nullptr;
}

LogicalResult ScratchOp::verify() {
  if (!isa_and_nonnull<SpawnOp>((*this)->getParentOp()))
    return emitOpError("must be directly in a 'vx.spawn' body, not in a "
                       "nested region");
  MemRefType type = getType();
  if (!type.hasStaticShape())
    return emitOpError("must have a static shape, got ") << type;
  llvm::SmallPtrSet<Value, 8> visited;
  if (OpOperand *escape = findEscapingUse(getResult(), visited))
    return emitOpError("buffer escapes the spawn body through '")
           << escape->getOwner()->getName() << "'";
  return success();
}

//===----------------------------------------------------------------------===//
// TransferAsyncOp and AwaitOp
//===----------------------------------------------------------------------===//

LogicalResult TransferAsyncOp::verify() {
  if (!(*this)->getParentOfType<SpawnOp>())
    return emitOpError("must be inside a 'vx.spawn' body");
  MemRefType srcType = getSrc().getType();
  MemRefType dstType = getDst().getType();
  if (srcType.getShape() != dstType.getShape())
    return emitOpError("source shape ")
           << srcType.getShape() << " and destination shape "
           << dstType.getShape() << " differ";
  if (srcType.getElementType() != dstType.getElementType())
    return emitOpError("source element type ")
           << srcType.getElementType() << " and destination element type "
           << dstType.getElementType() << " differ";
  return success();
}

LogicalResult AwaitOp::verify() {
  if (!(*this)->getParentOfType<SpawnOp>())
    return emitOpError("must be inside a 'vx.spawn' body");
  return success();
}
