//===- InstanceMemory.h - Allocas that a CTA's threads share ----*- C++ -*-===//
//
// The allocas of a cooperative spawn body (one with thread loops, VX_SPEC
// 2.1) in the one model of which memory is per thread (docs/design.md, "The
// per-thread memory model"): an alloca inside a thread loop is one per
// iteration; one outside thread loops is allocated once per instance, so
// what a thread loop writes into it the rest of the instance sees. The
// checker reports such an alloca that cannot be placed; the CTA mapping
// places the others as scratch (CTAMapping.cpp). One that only code outside
// thread loops writes stays one per thread: every thread runs that code
// alike, so every copy holds what the instance's would.
//
//===----------------------------------------------------------------------===//

#ifndef VX_ANALYSIS_INSTANCEMEMORY_H
#define VX_ANALYSIS_INSTANCEMEMORY_H

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "llvm/ADT/SmallVector.h"

namespace mlir {
namespace vx {
class SpawnAnalysis;

/// The instance allocas of the analysis's spawn, in program order: the
/// memref.alloca ops outside its thread loops that a write in a thread
/// loop may touch (through any of its candidate roots).
SmallVector<memref::AllocaOp> getInstanceAllocas(SpawnAnalysis &analysis);

/// Reports each instance alloca that cannot be placed as scratch: one of
/// dynamic shape, with a layout or a memory space.
LogicalResult checkInstanceAllocas(SpawnAnalysis &analysis);

} // namespace vx
} // namespace mlir

#endif // VX_ANALYSIS_INSTANCEMEMORY_H
