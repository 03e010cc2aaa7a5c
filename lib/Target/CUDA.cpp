//===- CUDA.cpp - NVIDIA chips and the CUDA toolkit -----------------------===//

#include "Vx/Target/CUDA.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/ErrorHandling.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FileUtilities.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/TargetParser/Triple.h"

#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>

extern "C" void LLVMInitializeNVPTXTargetInfo();
extern "C" void LLVMInitializeNVPTXTargetMC();

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

/// LLVM's NVPTX subtarget description, created once (the target is
/// initialized for it): the processors and features LLVM 22 knows.
static const llvm::MCSubtargetInfo &getNVPTXSubtargetInfo() {
  static const std::unique_ptr<llvm::MCSubtargetInfo> info = [] {
    LLVMInitializeNVPTXTargetInfo();
    LLVMInitializeNVPTXTargetMC();
    llvm::Triple triple("nvptx64-nvidia-cuda");
    std::string error;
    const llvm::Target *target =
        llvm::TargetRegistry::lookupTarget(triple, error);
    if (!target)
      llvm::report_fatal_error("LLVM's NVPTX target is missing: " +
                               llvm::Twine(error));
    // No CPU: a subtarget for an unknown one would print a warning.
    return std::unique_ptr<llvm::MCSubtargetInfo>(
        target->createMCSubtargetInfo(triple, "", ""));
  }();
  return *info;
}

/// The PTX ISA version (80 for 8.0) of a feature named `ptxNN`.
static std::optional<unsigned> getPTXVersion(StringRef feature) {
  unsigned version;
  if (!feature.consume_front("ptx") || feature.getAsInteger(10, version))
    return std::nullopt;
  return version;
}

/// The lowest PTX ISA version that LLVM 22 accepts for `chip`, a processor
/// it knows (NVPTXSubtarget's table, which the MC layer does not expose; a
/// lower version is a fatal error there). The suffix matters: sm_90a needs
/// more than sm_90, sm_100f more than sm_100.
static unsigned getMinimumPTXVersion(StringRef chip) {
  unsigned sm = getSMNumber(chip).value_or(0);
  char suffix = chip.back();
  if (suffix == 'f' &&
      (sm == 100 || sm == 101 || sm == 103 || sm == 120 || sm == 121))
    return 88;
  switch (sm) {
  case 20:
  case 21:
  case 30:
  case 35:
    return 32;
  case 32:
  case 50:
    return 40;
  case 37:
  case 52:
    return 41;
  case 53:
    return 42;
  case 60:
  case 61:
  case 62:
    return 50;
  case 70:
    return 60;
  case 72:
    return 61;
  case 75:
    return 63;
  case 80:
    return 70;
  case 86:
    return 71;
  case 87:
    return 74;
  case 89:
    return 78;
  case 90:
    return suffix == 'a' ? 80 : 78;
  case 100:
  case 101:
    return 86;
  case 120:
    return 87;
  case 103:
  case 121:
    return 88;
  case 88:
  case 110:
    return 90;
  default:
    // A chip newer than this table: the newest version it knows.
    return 90;
  }
}

/// "8.6" for 86.
static std::string formatPTXVersion(unsigned version) {
  return std::to_string(version / 10) + "." + std::to_string(version % 10);
}

LogicalResult vx::checkNVPTXTarget(StringRef chip, StringRef features,
                                   std::string &error) {
  const llvm::MCSubtargetInfo &info = getNVPTXSubtargetInfo();
  if (!info.isCPUStringValid(chip)) {
    SmallVector<StringRef> chips;
    for (const llvm::SubtargetSubTypeKV &entry :
         info.getAllProcessorDescriptions())
      if (StringRef(entry.Key).starts_with("sm_"))
        chips.push_back(entry.Key);
    error = ("chip '" + chip +
             "' is not an NVIDIA chip that LLVM 22 knows; the chips are " +
             llvm::join(chips, ", "))
                .str();
    return failure();
  }
  unsigned ptxVersion = 0;
  SmallVector<StringRef> entries;
  features.split(entries, ',', /*MaxSplit=*/-1, /*KeepEmpty=*/false);
  for (StringRef entry : entries) {
    StringRef name = entry.drop_front();
    bool known = llvm::any_of(info.getAllProcessorFeatures(),
                              [&](const llvm::SubtargetFeatureKV &feature) {
                                return name == feature.Key;
                              });
    if (!(entry.starts_with("+") || entry.starts_with("-")) || !known) {
      error = ("feature '" + entry +
               "' is not an NVPTX feature of LLVM 22 (features are "
               "'+name' or '-name', such as '+ptx80')")
                  .str();
      return failure();
    }
    if (entry.starts_with("+"))
      ptxVersion = std::max(ptxVersion, getPTXVersion(name).value_or(0));
  }
  unsigned minimum = getMinimumPTXVersion(chip);
  if (ptxVersion && ptxVersion < minimum) {
    error = ("chip '" + chip + "' needs PTX " + formatPTXVersion(minimum) +
             " or newer (features=+ptx" + Twine(minimum) + "), got PTX " +
             formatPTXVersion(ptxVersion))
                .str();
    return failure();
  }
  return success();
}

std::string vx::getDefaultPTXFeatures(StringRef chip) {
  // PTX 8.0 (CUDA 12.0) at least: what the toolkits Vx is tested with
  // accept for every chip.
  return "+ptx" + std::to_string(std::max(80u, getMinimumPTXVersion(chip)));
}

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

int64_t vx::getMaxSharedMemoryPerBlock(unsigned smNumber) {
  // The opt-in maximum of dynamic shared memory per block, per the CUDA
  // C++ Programming Guide's table of compute capabilities.
  constexpr int64_t kib = 1024;
  if (smNumber >= 120)
    return 99 * kib;
  if (smNumber >= 90)
    return 227 * kib;
  switch (smNumber) {
  case 80:
  case 87:
    return 163 * kib;
  case 86:
  case 88:
  case 89:
    return 99 * kib;
  case 75:
    return 64 * kib;
  case 70:
  case 72:
    return 96 * kib;
  default:
    return 48 * kib;
  }
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
