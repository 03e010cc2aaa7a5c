//===- CarryBF16AsIntegers.cpp - bf16 bits across blocks as i16 -----------===//
//
// The x86 backend promotes a bf16 value that lives across blocks to f32 and
// rounds it back with __truncsfbf2, which quiets signalling NaNs and flushes
// subnormals: a copy whose load and store are in different blocks (a guard,
// a detect-races check) changed the bits. Within a block the backend moves
// bf16 as 16 bits, so values cross blocks as i16 here.
//
//===----------------------------------------------------------------------===//

#include "Vx/Transforms/Passes.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/Builders.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"

namespace mlir {
namespace vx {
#define GEN_PASS_DEF_VXCARRYBF16ASINTEGERS
#include "Vx/Transforms/Passes.h.inc"
} // namespace vx
} // namespace mlir

using namespace mlir;

/// The integer type with the bits of `type` when it is bf16 or a vector of
/// bf16, else null.
static Type getBitsType(Type type) {
  Type i16 = IntegerType::get(type.getContext(), 16);
  if (type.isBF16())
    return i16;
  if (auto vector = dyn_cast<VectorType>(type);
      vector && vector.getElementType().isBF16())
    return vector.clone(i16);
  return {};
}

/// Replaces the uses of `value` in blocks other than `home` by a bitcast of
/// `bits` back to the value's type, one per using block before its first
/// user there.
static void useBitsElsewhere(Value value, Value bits, Block *home) {
  DenseMap<Block *, Operation *> firstUsers;
  for (Operation *user : value.getUsers()) {
    Block *block = user->getBlock();
    if (block == home)
      continue;
    Operation *&first = firstUsers[block];
    if (!first || user->isBeforeInBlock(first))
      first = user;
  }
  for (auto [block, first] : firstUsers) {
    OpBuilder builder(first);
    Value back = LLVM::BitcastOp::create(builder, first->getLoc(),
                                         value.getType(), bits);
    value.replaceUsesWithIf(back, [&, block = block](OpOperand &use) {
      return use.getOwner()->getBlock() == block;
    });
  }
}

/// Turns the bf16 argument `index` of `block` into its bits: predecessors
/// pass bitcasts, and the block casts back. Returns false, changing nothing,
/// when a predecessor's terminator cannot be followed.
static bool carryArgumentAsBits(Block *block, unsigned index, Type bitsType) {
  SmallVector<OpOperand *> forwarded;
  for (auto it = block->pred_begin(); it != block->pred_end(); ++it) {
    auto branch = dyn_cast<BranchOpInterface>((*it)->getTerminator());
    if (!branch)
      return false;
    SuccessorOperands operands =
        branch.getSuccessorOperands(it.getSuccessorIndex());
    if (index < operands.getProducedOperandCount())
      return false;
    forwarded.push_back(&operands.getMutableForwardedOperands()
                             [index - operands.getProducedOperandCount()]);
  }
  for (OpOperand *operand : forwarded) {
    OpBuilder builder(operand->getOwner());
    operand->set(LLVM::BitcastOp::create(builder, operand->getOwner()->getLoc(),
                                         bitsType, operand->get()));
  }
  BlockArgument argument = block->getArgument(index);
  Type type = argument.getType();
  argument.setType(bitsType);
  OpBuilder builder = OpBuilder::atBlockBegin(block);
  auto back =
      LLVM::BitcastOp::create(builder, argument.getLoc(), type, argument);
  argument.replaceAllUsesExcept(back, back);
  return true;
}

/// Folds the bitcast pairs left behind: bits cast to bf16 and back are the
/// bits (never the other way: that bf16 would cross blocks again), a store
/// of bits cast to bf16 stores the bits; unused casts go.
static void foldBitcasts(Operation *root) {
  root->walk([](LLVM::BitcastOp cast) {
    if (auto inner = cast.getArg().getDefiningOp<LLVM::BitcastOp>();
        inner && inner.getArg().getType() == cast.getType() &&
        getBitsType(inner.getType()) == cast.getType())
      cast.replaceAllUsesWith(inner.getArg());
  });
  root->walk([](LLVM::StoreOp store) {
    if (auto cast = store.getValue().getDefiningOp<LLVM::BitcastOp>();
        cast && getBitsType(cast.getType()) &&
        cast.getArg().getType() == getBitsType(cast.getType()))
      store.getValueMutable().assign(cast.getArg());
  });
  SmallVector<LLVM::BitcastOp> casts;
  root->walk([&](LLVM::BitcastOp cast) { casts.push_back(cast); });
  // Users come after their operands in a walk: erase in reverse.
  for (LLVM::BitcastOp cast : llvm::reverse(casts))
    if (cast->use_empty())
      cast->erase();
}

namespace {
struct CarryBF16AsIntegersPass
    : vx::impl::VxCarryBF16AsIntegersBase<CarryBF16AsIntegersPass> {
  void runOnOperation() override {
    Operation *root = getOperation();
    // Block arguments first: the bitcasts their predecessors pass are uses
    // the values below may have in other blocks.
    root->walk([](Block *block) {
      if (block->isEntryBlock())
        return;
      for (BlockArgument argument : block->getArguments())
        if (Type bitsType = getBitsType(argument.getType()))
          carryArgumentAsBits(block, argument.getArgNumber(), bitsType);
    });
    SmallVector<OpResult> crossing;
    root->walk([&](Operation *op) {
      if (op->hasTrait<OpTrait::IsTerminator>())
        return;
      for (OpResult result : op->getResults())
        if (getBitsType(result.getType()) &&
            llvm::any_of(result.getUsers(), [&](Operation *user) {
              return user->getBlock() != op->getBlock();
            }))
          crossing.push_back(result);
    });
    for (OpResult result : crossing) {
      Operation *op = result.getOwner();
      OpBuilder builder = OpBuilder(op->getContext());
      builder.setInsertionPointAfter(op);
      Value bits = LLVM::BitcastOp::create(
          builder, op->getLoc(), getBitsType(result.getType()), result);
      useBitsElsewhere(result, bits, op->getBlock());
    }
    foldBitcasts(root);
  }
};
} // namespace
