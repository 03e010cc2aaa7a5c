//===- Library.cpp - Compiled libraries (vx.compile) ----------------------===//

#include "Vx/Target/Library.h"
#include "Vx/VxOps.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/Interfaces/CallInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/Transforms/Utils/ModuleUtils.h"

using namespace mlir;
using namespace mlir::vx;

//===----------------------------------------------------------------------===//
// Size requirements of library functions
//===----------------------------------------------------------------------===//

namespace {
/// Values ranging over [0, an argument size) in every execution of the body
/// of the op that defines them, and the other extents of that op.
struct IndexRange {
  ArgumentDim bound;
  SmallVector<ArgumentDim> whenPositive;
  /// The body block in which every access with the value happens.
  Block *body;
};
} // namespace

/// The argument size `value` is (memref.dim of a function argument with a
/// constant dimension), if it is one.
static std::optional<ArgumentDim> getArgumentDim(func::FuncOp function,
                                                 Value value) {
  auto dim = value.getDefiningOp<memref::DimOp>();
  if (!dim)
    return std::nullopt;
  auto argument = dyn_cast<BlockArgument>(dim.getSource());
  std::optional<int64_t> index = dim.getConstantIndex();
  if (!argument || argument.getOwner() != &function.getBody().front() || !index)
    return std::nullopt;
  return ArgumentDim(argument.getArgNumber(), *index);
}

/// The range of each dimension `d` of an op with extents `extents` (lower
/// bounds 0, steps 1) whose extent is an argument size, provided that every
/// other extent is a positive constant or an argument size.
static void addRanges(func::FuncOp function, ArrayRef<OpFoldResult> extents,
                      Block *body,
                      function_ref<void(unsigned, IndexRange)> addRange) {
  SmallVector<std::optional<ArgumentDim>> sizes;
  for (OpFoldResult extent : extents) {
    std::optional<int64_t> constant = getConstantIntValue(extent);
    if (constant && *constant < 1)
      return;
    sizes.push_back(constant ? std::nullopt
                             : getArgumentDim(function, cast<Value>(extent)));
    if (!constant && !sizes.back())
      return;
  }
  for (auto [dim, size] : llvm::enumerate(sizes)) {
    if (!size)
      continue;
    IndexRange range{*size, {}, body};
    for (auto [other, otherSize] : llvm::enumerate(sizes))
      if (other != dim && otherSize)
        range.whenPositive.push_back(*otherSize);
    addRange(dim, range);
  }
}

SmallVector<SizeRequirement>
vx::collectSizeRequirements(func::FuncOp function) {
  if (function.isExternal())
    return {};
  Block &entry = function.getBody().front();
  // The ranged values: grid indices by (spawn, dim), induction variables.
  DenseMap<std::pair<Operation *, unsigned>, IndexRange> spawnRanges;
  DenseMap<Value, IndexRange> ranges;
  auto isZero = [](OpFoldResult value) { return isConstantIntValue(value, 0); };
  auto isOne = [](OpFoldResult value) { return isConstantIntValue(value, 1); };
  for (Operation &op : entry) {
    if (auto spawn = dyn_cast<SpawnOp>(op)) {
      addRanges(function, spawn.getMixedGrid(), &spawn.getBody().front(),
                [&](unsigned dim, IndexRange range) {
                  spawnRanges.try_emplace({spawn, dim}, range);
                });
    } else if (auto loop = dyn_cast<scf::ForOp>(op)) {
      if (isZero(loop.getLowerBound()) && isOne(loop.getStep()))
        addRanges(function, {loop.getUpperBound()}, loop.getBody(),
                  [&](unsigned, IndexRange range) {
                    ranges.try_emplace(loop.getInductionVar(), range);
                  });
    } else if (auto loop = dyn_cast<scf::ParallelOp>(op)) {
      if (llvm::all_of(loop.getLowerBound(), isZero) &&
          llvm::all_of(loop.getStep(), isOne))
        addRanges(function, getAsOpFoldResult(loop.getUpperBound()),
                  loop.getBody(), [&](unsigned dim, IndexRange range) {
                    ranges.try_emplace(loop.getInductionVars()[dim], range);
                  });
    }
  }
  // Spawns hold loops that run in every instance too: a thread loop over an
  // argument size is an scf.parallel directly in a spawn body.
  for (auto &spawnRange : spawnRanges) {
    const IndexRange &range = spawnRange.second;
    for (auto loop : range.body->getOps<scf::ParallelOp>())
      if (llvm::all_of(loop.getLowerBound(), isZero) &&
          llvm::all_of(loop.getStep(), isOne))
        addRanges(function, getAsOpFoldResult(loop.getUpperBound()),
                  loop.getBody(), [&](unsigned dim, IndexRange inner) {
                    inner.whenPositive.append(range.whenPositive);
                    inner.whenPositive.push_back(range.bound);
                    ranges.try_emplace(loop.getInductionVars()[dim], inner);
                  });
  }

  auto rangeOf = [&](Value index) -> const IndexRange * {
    if (auto found = ranges.find(index); found != ranges.end())
      return &found->second;
    auto gridIndex = index.getDefiningOp<GridIndexOp>();
    if (!gridIndex)
      return nullptr;
    auto found = spawnRanges.find(
        {gridIndex->getParentOfType<SpawnOp>(), gridIndex.getDim()});
    return found == spawnRanges.end() ? nullptr : &found->second;
  };
  SmallVector<SizeRequirement> requirements;
  auto record = [&](Operation *access, Value memref, ValueRange indices) {
    auto argument = dyn_cast<BlockArgument>(memref);
    if (!argument || argument.getOwner() != &entry)
      return;
    for (auto [dim, index] : llvm::enumerate(indices)) {
      const IndexRange *range = rangeOf(index);
      ArgumentDim indexed(argument.getArgNumber(), dim);
      if (!range || range->body != access->getBlock() ||
          range->bound == indexed)
        continue;
      bool known = llvm::any_of(requirements, [&](const SizeRequirement &r) {
        return r.argument == indexed && r.bound == range->bound &&
               r.whenPositive == range->whenPositive;
      });
      if (!known)
        requirements.push_back({indexed, range->bound, range->whenPositive});
    }
  };
  function.walk([&](Operation *op) {
    if (auto load = dyn_cast<memref::LoadOp>(op))
      record(op, load.getMemRef(), load.getIndices());
    else if (auto store = dyn_cast<memref::StoreOp>(op))
      record(op, store.getMemRef(), store.getIndices());
    else if (auto load = dyn_cast<vector::LoadOp>(op))
      record(op, load.getBase(), load.getIndices());
    else if (auto store = dyn_cast<vector::StoreOp>(op))
      record(op, store.getBase(), store.getIndices());
  });
  return requirements;
}

//===----------------------------------------------------------------------===//
// Host code of CUDA libraries
//===----------------------------------------------------------------------===//

/// Whether `effect` reads, writes or allocates a memref (or unknown memory
/// while `op` has memref operands).
static bool touchesMemRefs(Operation *op,
                           const MemoryEffects::EffectInstance &effect) {
  if (isa<MemoryEffects::Free>(effect.getEffect()))
    return false;
  if (Value value = effect.getValue())
    return isa<BaseMemRefType>(value.getType());
  return llvm::any_of(op->getOperandTypes(), llvm::IsaPred<BaseMemRefType>);
}

LogicalResult vx::verifyHostCodeLeavesMemRefsToDevices(ModuleOp module) {
  bool valid = true;
  auto reject = [&](Operation *op, StringRef what) {
    op->emitError() << "'" << op->getName() << "' " << what
                    << " on the host; in a CUDA library memrefs hold device "
                       "memory, which only device spawns may access";
    valid = false;
  };
  module.walk<WalkOrder::PreOrder>([&](Operation *op) {
    auto spawn = dyn_cast<SpawnOp>(op);
    if ((spawn && spawn.isDeviceSpawn()) || isa<gpu::GPUModuleOp>(op))
      return WalkResult::skip();
    if (auto call = dyn_cast<CallOpInterface>(op)) {
      auto callee =
          dyn_cast_or_null<FunctionOpInterface>(call.resolveCallable());
      if ((!callee || callee.isExternal()) &&
          llvm::any_of(op->getOperandTypes(), llvm::IsaPred<BaseMemRefType>))
        reject(op, "passes a memref to a function outside the module");
      return WalkResult::advance();
    }
    auto effects = dyn_cast<MemoryEffectOpInterface>(op);
    if (!effects)
      return WalkResult::advance();
    SmallVector<MemoryEffects::EffectInstance> instances;
    effects.getEffects(instances);
    if (llvm::any_of(instances, [&](const MemoryEffects::EffectInstance &e) {
          return touchesMemRefs(op, e);
        }))
      reject(op, "accesses memref memory");
    return WalkResult::advance();
  });
  return success(valid);
}

//===----------------------------------------------------------------------===//
// Object emission
//===----------------------------------------------------------------------===//

/// `vx_call_<name>(ptr arguments)`: loads each argument of `function` from
/// the pointer in its slot, calls it, and stores a result through the
/// pointer in the slot after the arguments.
static void addPackedEntryPoint(llvm::Module &module, llvm::Function *function,
                                StringRef name) {
  llvm::LLVMContext &context = module.getContext();
  llvm::Type *pointer = llvm::PointerType::getUnqual(context);
  auto *type = llvm::FunctionType::get(llvm::Type::getVoidTy(context),
                                       {pointer}, /*isVarArg=*/false);
  auto *entry =
      llvm::Function::Create(type, llvm::GlobalValue::ExternalLinkage,
                             (kPackedEntryPrefix + name).str(), module);
  llvm::IRBuilder<> builder(llvm::BasicBlock::Create(context, "entry", entry));
  llvm::Value *slots = entry->getArg(0);
  auto slotPointer = [&](unsigned index) {
    llvm::Value *slot = builder.CreateConstGEP1_32(pointer, slots, index);
    return builder.CreateLoad(pointer, slot);
  };
  SmallVector<llvm::Value *> arguments;
  for (llvm::Argument &argument : function->args())
    arguments.push_back(builder.CreateLoad(argument.getType(),
                                           slotPointer(argument.getArgNo())));
  llvm::CallInst *result = builder.CreateCall(function, arguments);
  if (!result->getType()->isVoidTy())
    builder.CreateStore(result, slotPointer(function->arg_size()));
  builder.CreateRetVoid();
}

/// The JSON text as a constant in the metadata section, kept by llvm.used.
static void addMetadata(llvm::Module &module, StringRef metadata) {
  llvm::Constant *text =
      llvm::ConstantDataArray::getString(module.getContext(), metadata);
  auto *global = new llvm::GlobalVariable(
      module, text->getType(), /*isConstant=*/true,
      llvm::GlobalValue::InternalLinkage, text, "vx_library_metadata");
  global->setSection(kMetadataSection);
  global->setAlignment(llvm::Align(1));
  llvm::appendToUsed(module, {global});
}

/// The function that only the PTX simulator's runtime defines: a library
/// bound to libvx_ptx_sim sees its address, one bound to libvx_cuda_runtime
/// a null weak reference.
static constexpr StringLiteral kSimulatorFunction = "vxSimSetOrder";

/// Makes the constructor that loads device module `name` (upstream's
/// SelectObjectAttr: `@<name>_load` calls mgpuModuleLoad(@<name>_binary,
/// size)) load `ptx` instead where the library is bound to the simulator,
/// which runs PTX only (a fatbin compresses its PTX).
static LogicalResult addSimulatorPTX(llvm::Module &module, StringRef name,
                                     StringRef ptx, std::string &error) {
  llvm::Function *load = module.getFunction((name + "_load").str());
  llvm::GlobalVariable *binary = module.getGlobalVariable(
      (name + "_binary").str(), /*AllowInternal=*/true);
  llvm::CallInst *call = nullptr;
  if (load && binary)
    for (llvm::Instruction &instruction : llvm::instructions(*load))
      if (auto *candidate = dyn_cast<llvm::CallInst>(&instruction))
        if (candidate->getCalledFunction() &&
            candidate->getCalledFunction()->getName() == "mgpuModuleLoad" &&
            candidate->getArgOperand(0) == binary)
          call = candidate;
  if (!call) {
    error = ("no mgpuModuleLoad of @" + name + "_binary in @" + name +
             "_load to give the simulator PTX")
                .str();
    return failure();
  }
  llvm::LLVMContext &context = module.getContext();
  llvm::Constant *text = llvm::ConstantDataArray::getString(context, ptx);
  auto *global = new llvm::GlobalVariable(
      module, text->getType(), /*isConstant=*/true,
      llvm::GlobalValue::InternalLinkage, text, name + "_vx_ptx");
  global->setAlignment(llvm::Align(1));
  llvm::FunctionCallee simulator = module.getOrInsertFunction(
      kSimulatorFunction, llvm::Type::getVoidTy(context),
      llvm::PointerType::getUnqual(context));
  cast<llvm::Function>(simulator.getCallee())
      ->setLinkage(llvm::GlobalValue::ExternalWeakLinkage);
  llvm::IRBuilder<> builder(call);
  llvm::Value *simulated =
      builder.CreateIsNotNull(simulator.getCallee(), "simulated");
  call->setArgOperand(0, builder.CreateSelect(simulated, global, binary));
  call->setArgOperand(1, builder.CreateSelect(simulated,
                                              builder.getInt64(ptx.size() + 1),
                                              call->getArgOperand(1)));
  return success();
}

/// A target machine for the process's triple: for this very CPU (its name
/// and features) or for any CPU of the triple ("generic").
static llvm::TargetMachine *createTargetMachine(HostCPU cpu,
                                                std::string &error) {
  llvm::InitializeNativeTarget();
  llvm::InitializeNativeTargetAsmPrinter();
  llvm::Triple triple(llvm::sys::getProcessTriple());
  const llvm::Target *target =
      llvm::TargetRegistry::lookupTarget(triple, error);
  if (!target)
    return nullptr;
  std::string name = "generic";
  SmallVector<std::string> features;
  if (cpu == HostCPU::native) {
    name = llvm::sys::getHostCPUName().str();
    for (const auto &feature : llvm::sys::getHostCPUFeatures())
      features.push_back((feature.second ? "+" : "-") + feature.first().str());
  }
  return target->createTargetMachine(
      triple, name, llvm::join(features, ","), llvm::TargetOptions(),
      llvm::Reloc::PIC_, std::nullopt, llvm::CodeGenOptLevel::Default);
}

static llvm::TargetMachine *getHostTargetMachine(HostCPU cpu,
                                                 std::string &error) {
  static std::string errors[2];
  static llvm::TargetMachine *machines[2] = {
      createTargetMachine(HostCPU::native, errors[0]),
      createTargetMachine(HostCPU::generic, errors[1])};
  int index = cpu == HostCPU::native ? 0 : 1;
  error = errors[index];
  return machines[index];
}

std::string vx::getHostTargetDescription(HostCPU cpu) {
  std::string error;
  llvm::TargetMachine *machine = getHostTargetMachine(cpu, error);
  if (!machine)
    return "unavailable: " + error;
  return machine->getTargetTriple().str() + " " +
         machine->getTargetCPU().str() + " " +
         machine->getTargetFeatureString().str();
}

FailureOr<LibraryObject> vx::emitLibraryObject(
    ModuleOp module, ArrayRef<std::string> entryPoints, StringRef metadata,
    HostCPU cpu, ArrayRef<std::pair<std::string, std::string>> simulatorPTX) {
  std::string error;
  llvm::TargetMachine *machine = getHostTargetMachine(cpu, error);
  if (!machine)
    return module.emitError("no code generator for this host: ") << error;

  llvm::LLVMContext context;
  std::unique_ptr<llvm::Module> llvmModule =
      translateModuleToLLVMIR(module, context);
  if (!llvmModule)
    return module.emitError("could not translate the module to LLVM IR");
  llvmModule->setTargetTriple(machine->getTargetTriple());
  llvmModule->setDataLayout(machine->createDataLayout());

  for (const std::string &name : entryPoints) {
    llvm::Function *function = llvmModule->getFunction("_mlir_ciface_" + name);
    if (!function)
      return module.emitError("the lowered module has no C interface of @")
             << name;
    addPackedEntryPoint(*llvmModule, function, name);
    // One copy of each body: inlined into its C interface and that into the
    // packed entry point, it would be optimized and compiled three times.
    function->addFnAttr(llvm::Attribute::NoInline);
    if (llvm::Function *body = llvmModule->getFunction(name))
      body->addFnAttr(llvm::Attribute::NoInline);
  }
  addMetadata(*llvmModule, metadata);
  for (const auto &[name, ptx] : simulatorPTX)
    if (failed(addSimulatorPTX(*llvmModule, name, ptx, error)))
      return module.emitError(error);

  if (llvm::Error failure = makeOptimizingTransformer(
          /*optLevel=*/2, /*sizeLevel=*/0, machine)(llvmModule.get()))
    return module.emitError("LLVM optimization failed: ")
           << llvm::toString(std::move(failure));

  LibraryObject result;
  for (llvm::Function &function : *llvmModule) {
    if (!function.isDeclaration() || function.isIntrinsic())
      continue;
    for (llvm::User *user : function.users())
      if (auto *call = dyn_cast<llvm::CallBase>(user))
        result.externalCalls.emplace_back(function.getName().str(),
                                          call->getFunction()->getName().str());
  }

  SmallString<0> object;
  llvm::raw_svector_ostream os(object);
  llvm::legacy::PassManager codegen;
  if (machine->addPassesToEmitFile(codegen, os, nullptr,
                                   llvm::CodeGenFileType::ObjectFile))
    return module.emitError("the host target cannot emit object files");
  codegen.run(*llvmModule);
  result.object = std::string(object.str());
  return result;
}
