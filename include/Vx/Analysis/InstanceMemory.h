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

#include "Vx/VxOps.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "llvm/ADT/SmallVector.h"

namespace mlir {
namespace vx {
class SpawnAnalysis;
struct MemoryRoot;

/// The instance allocas of the analysis's spawn, in program order: the
/// memref.alloca ops outside its thread loops that a write in a thread
/// loop may touch (through any of its candidate roots).
SmallVector<memref::AllocaOp> getInstanceAllocas(SpawnAnalysis &analysis);

/// Reports each instance alloca that cannot be placed as scratch: one of
/// dynamic shape, with a layout or a memory space.
LogicalResult checkInstanceAllocas(SpawnAnalysis &analysis);

/// Where the CTA mapping places `alloca`, an instance alloca of the
/// analysis's spawn: private scratch, each thread keeping its part, where
/// every element belongs to one thread-loop iteration for any thread count;
/// smem, shared by the threads, otherwise.
Memory getInstanceAllocaPlacement(SpawnAnalysis &analysis,
                                  memref::AllocaOp alloca);

/// Whether several threads of a CTA see the memory of `root`: captured
/// memory and smem scratch. Private scratch keeps each thread's part; the
/// allocas left after the mapping places the instance allocas as scratch
/// are per iteration of a thread loop, or accessed only by code outside
/// thread loops, which every thread runs alike on its own copy.
bool isSharedByThreads(const MemoryRoot &root);

/// Refuses the ops outside the thread loops of the analysis's spawn (a
/// device spawn with thread loops: stores, copies, transfers, ...) that
/// write through a memref whose candidate roots include memory each thread
/// has its own copy of and memory the threads share, an instance alloca
/// counting as the memory the mapping places it in: thread 0 alone would
/// write only its own copy, and every thread would repeat the shared write.
/// The checker and the CTA mapping (before it places the instance allocas)
/// both apply it, so that the check accepts nothing the mapping refuses.
LogicalResult checkOnceWriteRoots(SpawnAnalysis &analysis);

} // namespace vx
} // namespace mlir

#endif // VX_ANALYSIS_INSTANCEMEMORY_H
