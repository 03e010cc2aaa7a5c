//===- Pipelines.h - The named Vx pipelines ---------------------*- C++ -*-===//

#ifndef VX_PIPELINES_H
#define VX_PIPELINES_H

#include "mlir/Pass/PassOptions.h"
#include <string>

namespace mlir {
namespace vx {

struct VxToSCFOptions : public PassPipelineOptions<VxToSCFOptions> {
  PassOptions::Option<bool> reverseParallel{
      *this, "reverse-parallel",
      llvm::cl::desc("Iterate the parallel dimensions from last to first"),
      llvm::cl::init(false)};
};

struct VxToLLVMOptions : public PassPipelineOptions<VxToLLVMOptions> {
  PassOptions::Option<bool> openmp{
      *this, "openmp",
      llvm::cl::desc("Run the parallel loops with OpenMP"),
      llvm::cl::init(false)};
  PassOptions::Option<bool> reverseParallel{
      *this, "reverse-parallel",
      llvm::cl::desc("Iterate the parallel dimensions from last to first"),
      llvm::cl::init(false)};
  PassOptions::Option<bool> viaGpu{
      *this, "via-gpu",
      llvm::cl::desc("Send device spawns through the GPU mapping and run the "
                     "launches on the CPU"),
      llvm::cl::init(false)};
};

/// The pass pipeline text of each stage.
std::string getVxToSCFPipeline(const VxToSCFOptions &options);
std::string getVxToLLVMPipeline(const VxToLLVMOptions &options);

} // namespace vx
} // namespace mlir

#endif // VX_PIPELINES_H
