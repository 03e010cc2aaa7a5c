//===- CUDA.cpp - The CUDA toolkit ----------------------------------------===//

#include "Vx/Target/CUDA.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/ErrorHandling.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FileUtilities.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"

#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>

using namespace mlir;
using namespace mlir::vx;

/// The chips (`sm_*`) that the ptxas at `ptxas` lists as values of its
/// --gpu-name option.
static FailureOr<SmallVector<std::string>> queryPtxasChips(StringRef ptxas,
                                                           std::string &error) {
  SmallString<128> helpFile;
  if (llvm::sys::fs::createTemporaryFile("vx-ptxas-help", "txt", helpFile)) {
    error = "cannot create a temporary file for the output of ptxas --help";
    return failure();
  }
  llvm::FileRemover remover(helpFile);
  std::optional<StringRef> redirects[] = {std::nullopt, StringRef(helpFile),
                                          StringRef(helpFile)};
  if (llvm::sys::ExecuteAndWait(ptxas, {ptxas, "--help"}, std::nullopt,
                                redirects) != 0) {
    error = ("'" + ptxas + " --help' failed").str();
    return failure();
  }
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> help =
      llvm::MemoryBuffer::getFile(helpFile);
  if (!help) {
    error = "cannot read the output of ptxas --help";
    return failure();
  }
  // "--gpu-name ... Allowed values for this option: 'compute_100', ...,
  // 'sm_90a'."
  StringRef text = (*help)->getBuffer();
  size_t option = text.find("--gpu-name");
  size_t values = text.find("Allowed values for this option:", option);
  if (option == StringRef::npos || values == StringRef::npos) {
    error = ("'" + ptxas + " --help' lists no chips").str();
    return failure();
  }
  StringRef list = text.drop_front(values);
  list = list.take_front(list.find("'."));
  SmallVector<std::string> chips;
  while (true) {
    size_t start = list.find("'sm_");
    if (start == StringRef::npos)
      break;
    list = list.drop_front(start + 1);
    chips.push_back(list.take_until([](char c) { return c == '\''; }).str());
  }
  return chips;
}

LogicalResult vx::checkPtxasChip(StringRef toolkit, StringRef chip,
                                 std::string &error) {
  SmallString<256> ptxas(toolkit);
  llvm::sys::path::append(ptxas, "bin", "ptxas");
  // One query per ptxas for the life of the process.
  static std::mutex mutex;
  static llvm::StringMap<SmallVector<std::string>> cache;
  std::lock_guard<std::mutex> lock(mutex);
  auto cached = cache.find(ptxas);
  if (cached == cache.end()) {
    FailureOr<SmallVector<std::string>> chips = queryPtxasChips(ptxas, error);
    if (failed(chips))
      return failure();
    cached = cache.try_emplace(ptxas, std::move(*chips)).first;
  }
  if (llvm::is_contained(cached->second, chip))
    return success();
  error = ("the CUDA toolkit at " + toolkit + " cannot assemble for chip '" +
           chip + "'; its ptxas takes " + llvm::join(cached->second, ", "))
              .str();
  return failure();
}

/// Reads the resource lines of `ptxas -v` into `usage`, per entry function:
///   ptxas info    : Compiling entry function 'k' for 'sm_90'
///   ptxas info    : Function properties for k
///       8 bytes stack frame, 4 bytes spill stores, 4 bytes spill loads
///   ptxas info    : Used 92 registers, used 1 barriers, 16 bytes smem
static void parsePtxasUsage(StringRef log, llvm::StringMap<PtxasUsage> &usage) {
  // The function whose properties the next line gives, and the entry
  // function whose registers the next "Used" line gives.
  StringRef propertiesOf, entry;
  SmallVector<StringRef> lines;
  log.split(lines, '\n');
  auto numberBefore = [](StringRef line, StringRef unit) -> int64_t {
    size_t at = line.find(unit);
    if (at == StringRef::npos)
      return 0;
    StringRef digits = line.take_front(at).rtrim();
    digits = digits.drop_front(digits.find_last_of(" :,") + 1);
    int64_t value = 0;
    return digits.getAsInteger(10, value) ? 0 : value;
  };
  for (StringRef line : lines) {
    if (size_t at = line.find("Compiling entry function '");
        at != StringRef::npos) {
      entry = line.drop_front(at + strlen("Compiling entry function '"))
                  .take_until([](char c) { return c == '\''; });
      usage[entry];
      continue;
    }
    if (size_t at = line.find("Function properties for ");
        at != StringRef::npos) {
      propertiesOf =
          line.drop_front(at + strlen("Function properties for ")).trim();
      continue;
    }
    if (line.contains("bytes stack frame") && usage.contains(propertiesOf)) {
      PtxasUsage &entryUsage = usage[propertiesOf];
      entryUsage.stackBytes = numberBefore(line, "bytes stack frame");
      entryUsage.spillBytes = numberBefore(line, "bytes spill stores") +
                              numberBefore(line, "bytes spill loads");
      continue;
    }
    if (line.contains("Used ") && usage.contains(entry))
      usage[entry].registers = numberBefore(line, "registers");
  }
}

FailureOr<llvm::StringMap<PtxasUsage>> vx::queryPtxasUsage(StringRef toolkit,
                                                           StringRef chip,
                                                           StringRef ptx,
                                                           std::string &error) {
  SmallString<256> ptxas(toolkit);
  llvm::sys::path::append(ptxas, "bin", "ptxas");
  SmallString<128> ptxFile, cubinFile, logFile;
  if (llvm::sys::fs::createTemporaryFile("vx-report", "ptx", ptxFile) ||
      llvm::sys::fs::createTemporaryFile("vx-report", "cubin", cubinFile) ||
      llvm::sys::fs::createTemporaryFile("vx-report", "log", logFile)) {
    error = "cannot create temporary files for ptxas";
    return failure();
  }
  llvm::FileRemover removePtx(ptxFile), removeCubin(cubinFile),
      removeLog(logFile);
  {
    std::error_code failed;
    llvm::raw_fd_ostream output(ptxFile, failed);
    if (failed) {
      error = "cannot write " + ptxFile.str().str();
      return failure();
    }
    output << ptx;
  }
  std::optional<StringRef> redirects[] = {std::nullopt, StringRef(logFile),
                                          StringRef(logFile)};
  StringRef arguments[] = {ptxas, "-v",      "--gpu-name", chip,
                           "-o",  cubinFile, ptxFile};
  int status =
      llvm::sys::ExecuteAndWait(ptxas, arguments, std::nullopt, redirects);
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> log =
      llvm::MemoryBuffer::getFile(logFile);
  StringRef logText = log ? (*log)->getBuffer() : StringRef();
  if (status != 0) {
    error = ("'" + ptxas + "' failed on the PTX for " + chip + ":\n" +
             logText.rtrim())
                .str();
    return failure();
  }
  llvm::StringMap<PtxasUsage> usage;
  parsePtxasUsage(logText, usage);
  return usage;
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
