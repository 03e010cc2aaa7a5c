//===- Library.h - Compiled libraries (vx.compile) --------------*- C++ -*-===//
//
// vx.compile turns a module into a shared library that runs without MLIR:
// this is its C++ half. The module is lowered by a stage pipeline, then
// translated to LLVM IR and compiled for the host in-process; the system
// linker makes the shared object (python/vx/_compiler.py).
//
// The ABI of a compiled library (docs/design.md, "Compiled libraries"):
// - `_mlir_ciface_<fn>` per exported function: MLIR's C interface (memref
//   arguments as pointers to descriptors, scalars by value);
// - `vx_call_<fn>(void **arguments)`: the packed form of it (as MLIR's
//   ExecutionEngine calls functions): `arguments[i]` points to the i-th C
//   interface argument, and `arguments[n]`, for a function with a result, to
//   where the result is stored;
// - the section `vx_metadata`: a NUL-terminated JSON text describing the
//   library and each function's signature, readable without loading the
//   library (a CUDA library's constructors load its kernels at dlopen);
// - in a CUDA library, each device module's PTX beside its cubin or fatbin:
//   the constructor loading the module passes the PTX to mgpuModuleLoad
//   when the runtime the library binds to defines `vxSimSetOrder`, as only
//   the PTX simulator does (vx.runtime.load(path, simulate=True)).
//
//===----------------------------------------------------------------------===//

#ifndef VX_TARGET_LIBRARY_H
#define VX_TARGET_LIBRARY_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Support/LLVM.h"

#include <string>
#include <utility>
#include <vector>

namespace mlir {
namespace vx {

/// The prefix of the packed entry points of a compiled library.
inline constexpr StringLiteral kPackedEntryPrefix = "vx_call_";
/// The section holding a compiled library's metadata.
inline constexpr StringLiteral kMetadataSection = "vx_metadata";

/// Checks, for a CUDA library, that the host code of a vx module (the code
/// outside device spawns) does not read, write or allocate memref memory:
/// its memref arguments hold device pointers. Emits an error per offending
/// op.
LogicalResult verifyHostCodeLeavesMemRefsToDevices(ModuleOp module);

/// A size of an argument of a library function, as (argument position,
/// dimension).
using ArgumentDim = std::pair<unsigned, unsigned>;

/// A relation between argument sizes that a function relies on: `dim` of
/// argument `argument` is at least `bound`, where it is indexed with a value
/// that ranges over [0, bound) (vx.grid_index of a spawn, the induction
/// variable of an scf.for or scf.parallel from 0 with step 1) up to another
/// argument's size (memref.dim). Recorded only where the access is certain
/// to happen for every value of the range: the loop or spawn runs
/// unconditionally (in the function's entry block), the access is directly
/// in its body, and the other extents of the loop or spawn are positive
/// constants or argument sizes (`whenPositive`: then the relation holds only
/// when those are positive).
struct SizeRequirement {
  ArgumentDim argument;
  ArgumentDim bound;
  SmallVector<ArgumentDim> whenPositive;
};

/// The size requirements of `function` (a vx or scf level function),
/// without duplicates, in the order of their accesses.
SmallVector<SizeRequirement> collectSizeRequirements(func::FuncOp function);

/// An object file for the host and the external functions it calls.
struct LibraryObject {
  std::string object;
  /// (declared function, a function that calls it) for every external
  /// function the code calls: the linker must resolve these.
  std::vector<std::pair<std::string, std::string>> externalCalls;
};

/// The CPUs an object runs on: this machine's (its features, as a JIT
/// would use them) or every CPU of this machine's triple (a library that
/// may be carried to another machine).
enum class HostCPU { native, generic };

/// Translates `module` (LLVM dialect, with any gpu.binary embedded) to LLVM
/// IR, adds the packed entry point of each of `entryPoints` (functions whose
/// C interface `_mlir_ciface_<name>` the lowering emitted) and the metadata
/// section, optimizes at -O2 (as the JIT that vx.run used did) and compiles
/// it for `cpu`. `simulatorPTX` maps gpu.binary names to the PTX that the
/// PTX simulator loads in place of their cubin or fatbin. Emits an error on
/// `module` and fails where a step does.
FailureOr<LibraryObject> emitLibraryObject(
    ModuleOp module, ArrayRef<std::string> entryPoints, StringRef metadata,
    HostCPU cpu,
    ArrayRef<std::pair<std::string, std::string>> simulatorPTX = {});

/// The triple, CPU and features that emitLibraryObject compiles for.
std::string getHostTargetDescription(HostCPU cpu);

} // namespace vx
} // namespace mlir

#endif // VX_TARGET_LIBRARY_H
