//===- Passes.h - Vx passes and pipelines -----------------------*- C++ -*-===//

#ifndef VX_PASSES_H
#define VX_PASSES_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Pass/Pass.h"

namespace mlir {
namespace vx {

#define GEN_PASS_DECL
#include "Vx/VxPasses.h.inc"

#define GEN_PASS_REGISTRATION
#include "Vx/VxPasses.h.inc"

/// Registers the named pipelines vx-to-scf, vx-to-gpu, vx-to-nvvm,
/// vx-to-ptx and vx-to-llvm.
void registerVxPipelines();

/// Registers every Vx pass and pipeline.
inline void registerAllVxPasses() {
  registerVxPasses();
  registerVxPipelines();
}

} // namespace vx
} // namespace mlir

#endif // VX_PASSES_H
