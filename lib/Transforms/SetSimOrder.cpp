//===- SetSimOrder.cpp - The PTX simulator's thread order -----------------===//
//
// The order must be set before the first device module loads: the
// gpu.binary ops become global constructors of priority 123 (upstream's
// SelectObjectAttr) that load the modules, and constructors run in
// ascending priority, in an ELF library (.init_array.NNNNN sections) as
// under mlir-runner (ORC sorts llvm.global_ctors by priority). 101 is the
// first priority not reserved for the C and C++ runtimes.
//
//===----------------------------------------------------------------------===//

#include "Vx/Transforms/Passes.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"

namespace mlir {
namespace vx {
#define GEN_PASS_DEF_VXSETSIMORDER
#include "Vx/Transforms/Passes.h.inc"
} // namespace vx
} // namespace mlir

using namespace mlir;

static constexpr int32_t kSimOrderPriority = 101;
static constexpr StringLiteral kSetOrder = "vxSimSetOrder";
static constexpr StringLiteral kConstructor = "vx_set_sim_order";
static constexpr StringLiteral kOrderText = "vx_sim_order";

bool vx::isSimOrder(StringRef order) {
  if (order == "forward" || order == "reverse" || order == "shuffle")
    return true;
  uint64_t seed;
  // getAsInteger takes digits only, and fails on an empty or too long seed.
  return order.consume_front("shuffle:") && !order.getAsInteger(10, seed);
}

namespace {
struct VxSetSimOrder : public vx::impl::VxSetSimOrderBase<VxSetSimOrder> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (!vx::isSimOrder(order)) {
      module.emitError("vx-set-sim-order: order must be 'forward', "
                       "'reverse', 'shuffle' or 'shuffle:SEED', got '")
          << order << "'";
      return signalPassFailure();
    }
    for (StringRef name : {kConstructor, kOrderText})
      if (SymbolTable::lookupSymbolIn(module, name)) {
        module.emitError("vx-set-sim-order: the module already defines @")
            << name;
        return signalPassFailure();
      }

    Location loc = module.getLoc();
    auto builder = OpBuilder::atBlockEnd(module.getBody());
    MLIRContext *context = &getContext();
    auto pointer = LLVM::LLVMPointerType::get(context);
    auto voidType = LLVM::LLVMVoidType::get(context);
    auto setOrderType = LLVM::LLVMFunctionType::get(voidType, {pointer});

    // The simulator's function, declared unless the module has it.
    auto setOrder = module.lookupSymbol<LLVM::LLVMFuncOp>(kSetOrder);
    if (!setOrder && SymbolTable::lookupSymbolIn(module, kSetOrder)) {
      module.emitError("vx-set-sim-order: @")
          << kSetOrder << " is not an llvm.func";
      return signalPassFailure();
    }
    if (setOrder && setOrder.getFunctionType() != setOrderType) {
      setOrder.emitError("vx-set-sim-order: @")
          << kSetOrder << " must have type " << setOrderType;
      return signalPassFailure();
    }
    if (!setOrder)
      setOrder =
          LLVM::LLVMFuncOp::create(builder, loc, kSetOrder, setOrderType);

    // The order as a NUL-terminated constant.
    std::string text = order + '\0';
    auto textType = LLVM::LLVMArrayType::get(builder.getI8Type(), text.size());
    LLVM::GlobalOp::create(builder, loc, textType, /*isConstant=*/true,
                           LLVM::Linkage::Internal, kOrderText,
                           builder.getStringAttr(text));

    auto constructor = LLVM::LLVMFuncOp::create(
        builder, loc, kConstructor, LLVM::LLVMFunctionType::get(voidType, {}),
        LLVM::Linkage::Internal);
    OpBuilder body =
        OpBuilder::atBlockBegin(constructor.addEntryBlock(builder));
    Value address = LLVM::AddressOfOp::create(body, loc, pointer, kOrderText);
    LLVM::CallOp::create(body, loc, setOrder, ValueRange{address});
    LLVM::ReturnOp::create(body, loc, ValueRange{});

    // Appended to the module's constructors, if it has some.
    SmallVector<Attribute> ctors, priorities, data;
    auto existing = module.getOps<LLVM::GlobalCtorsOp>();
    if (!existing.empty()) {
      LLVM::GlobalCtorsOp ctorsOp = *existing.begin();
      llvm::append_range(ctors, ctorsOp.getCtors());
      llvm::append_range(priorities, ctorsOp.getPriorities());
      llvm::append_range(data, ctorsOp.getData());
      ctorsOp.erase();
    }
    ctors.push_back(FlatSymbolRefAttr::get(constructor));
    priorities.push_back(builder.getI32IntegerAttr(kSimOrderPriority));
    data.push_back(LLVM::ZeroAttr::get(context));
    LLVM::GlobalCtorsOp::create(builder, loc, builder.getArrayAttr(ctors),
                                builder.getArrayAttr(priorities),
                                builder.getArrayAttr(data));
  }
};
} // namespace
