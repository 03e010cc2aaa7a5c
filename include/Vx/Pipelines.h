//===- Pipelines.h - The named Vx pipelines ---------------------*- C++ -*-===//

#ifndef VX_PIPELINES_H
#define VX_PIPELINES_H

#include "mlir/Pass/PassOptions.h"
#include "mlir/Support/LLVM.h"
#include "llvm/ADT/ArrayRef.h"
#include <string>

namespace mlir {
namespace vx {

struct VxToSCFOptions : public PassPipelineOptions<VxToSCFOptions> {
  PassOptions::Option<bool> allowRaces{
      *this, "allow-races",
      llvm::cl::desc("Report proven races as warnings, to run a mislabelled "
                     "kernel (the dynamic check with reverse-parallel)"),
      llvm::cl::init(false)};
  PassOptions::Option<bool> reverseParallel{
      *this, "reverse-parallel",
      llvm::cl::desc("Iterate the parallel dimensions from last to first"),
      llvm::cl::init(false)};
};

struct VxToGPUOptions : public PassPipelineOptions<VxToGPUOptions> {
  PassOptions::Option<unsigned> threadsPerBlock{
      *this, "threads-per-block",
      llvm::cl::desc("Threads per CTA along the innermost parallel dimension"),
      llvm::cl::init(1)};
};

/// The options of the stages that target a chip.
template <typename Derived>
struct VxTargetOptions : public PassPipelineOptions<Derived> {
  detail::PassOptions::Option<std::string> chip{
      *this, "chip", llvm::cl::desc("The NVIDIA chip to compile for"),
      llvm::cl::init("sm_90")};
  detail::PassOptions::Option<std::string> features{
      *this, "features",
      llvm::cl::desc("PTX features, e.g. +ptx80 (default: a PTX version the "
                     "chip accepts)"),
      llvm::cl::init("")};
  detail::PassOptions::Option<unsigned> threadsPerBlock{
      *this, "threads-per-block",
      llvm::cl::desc("Threads per CTA along the innermost parallel dimension"),
      llvm::cl::init(1)};
};

struct VxToNVVMOptions : public VxTargetOptions<VxToNVVMOptions> {};

struct VxToPTXOptions : public VxTargetOptions<VxToPTXOptions> {
  PassOptions::Option<std::string> format{
      *this, "format",
      llvm::cl::desc("isa (PTX text), bin (cubin) or fatbin"),
      llvm::cl::init("isa")};
};

struct VxToLLVMOptions : public PassPipelineOptions<VxToLLVMOptions> {
  PassOptions::Option<bool> allowRaces{
      *this, "allow-races",
      llvm::cl::desc("Report proven races as warnings, to run a mislabelled "
                     "kernel (the dynamic check with reverse-parallel)"),
      llvm::cl::init(false)};
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
  PassOptions::Option<unsigned> threadsPerBlock{
      *this, "threads-per-block",
      llvm::cl::desc("With via-gpu: threads per CTA along the innermost "
                     "parallel dimension"),
      llvm::cl::init(1)};
};

/// The pass pipeline text of each stage, or an error message for options
/// that cannot be honoured.
FailureOr<std::string> getVxToSCFPipeline(const VxToSCFOptions &options,
                                          std::string &error);
FailureOr<std::string> getVxToGPUPipeline(const VxToGPUOptions &options,
                                          std::string &error);
FailureOr<std::string> getVxToNVVMPipeline(const VxToNVVMOptions &options,
                                           std::string &error);
FailureOr<std::string> getVxToPTXPipeline(const VxToPTXOptions &options,
                                          std::string &error);
FailureOr<std::string> getVxToLLVMPipeline(const VxToLLVMOptions &options,
                                           std::string &error);

/// The stages of a vx module, in the order VX_SPEC lists them: "vx" (the
/// verified input), "scf", "gpu", "nvvm", "ptx", and "llvm" (the CPU path).
ArrayRef<StringRef> getVxStageNames();

/// The pass pipeline that takes vx input to `stage`, as pass-pipeline text
/// without an anchor; `options` in the pipeline-option syntax
/// (`chip=sm_100a threads-per-block=4`). On failure `error` says why.
FailureOr<std::string> getVxStagePipeline(StringRef stage, StringRef options,
                                          std::string &error);

/// The options of `stage` with their defaults, `{name=value ...}` as
/// PassOptions prints them; empty for a stage without options.
FailureOr<std::string> getVxStageOptionDefaults(StringRef stage);

} // namespace vx
} // namespace mlir

#endif // VX_PIPELINES_H
