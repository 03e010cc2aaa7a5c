//===- CUDA.cpp - NVIDIA chips and the CUDA toolkit -----------------------===//

#include "Vx/Target/CUDA.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"

#include <cstdlib>

using namespace mlir;
using namespace mlir::vx;

std::optional<unsigned> vx::getSMNumber(StringRef chip) {
  unsigned number;
  if (!chip.consume_front("sm_"))
    return std::nullopt;
  if (chip.ends_with("a") || chip.ends_with("f"))
    chip = chip.drop_back();
  if (chip.getAsInteger(10, number))
    return std::nullopt;
  return number;
}

StringRef vx::getDefaultPTXFeatures(unsigned smNumber) {
  if (smNumber >= 120)
    return "+ptx87";
  if (smNumber >= 110)
    return "+ptx90";
  if (smNumber >= 103)
    return "+ptx88";
  if (smNumber >= 100)
    return "+ptx86";
  return "+ptx80";
}

std::optional<std::string> vx::findCUDAToolkit(std::string &error) {
  SmallVector<std::string> candidates;
  if (const char *cudaHome = std::getenv("CUDA_HOME"); cudaHome && *cudaHome) {
    candidates.push_back(cudaHome);
  } else {
    // A ptxas on PATH may be a wrapper script outside any toolkit, so its
    // directory alone is not enough: follow symlinks, then check.
    if (llvm::ErrorOr<std::string> ptxas =
            llvm::sys::findProgramByName("ptxas")) {
      SmallString<256> realPtxas;
      if (!llvm::sys::fs::real_path(*ptxas, realPtxas))
        candidates.push_back(llvm::sys::path::parent_path(
                                 llvm::sys::path::parent_path(realPtxas))
                                 .str());
    }
    candidates.push_back("/usr/local/cuda");
  }
  auto holds = [](StringRef toolkit, StringRef relativePath) {
    SmallString<256> path(toolkit);
    llvm::sys::path::append(path, relativePath);
    return llvm::sys::fs::exists(path);
  };
  for (const std::string &toolkit : candidates)
    if (holds(toolkit, "bin/ptxas") &&
        holds(toolkit, "nvvm/libdevice/libdevice.10.bc"))
      return toolkit;
  error = "no CUDA toolkit with bin/ptxas and nvvm/libdevice/libdevice.10.bc "
          "found (tried " +
          llvm::join(candidates, ", ") + "); set CUDA_HOME";
  return std::nullopt;
}
