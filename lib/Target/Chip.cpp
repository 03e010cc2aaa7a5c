//===- Chip.cpp - An NVIDIA chip, parsed once -----------------------------===//

#include "Vx/Target/Chip.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/Twine.h"
#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/ErrorHandling.h"
#include "llvm/TargetParser/Triple.h"

#include <algorithm>
#include <memory>

extern "C" void LLVMInitializeNVPTXTargetInfo();
extern "C" void LLVMInitializeNVPTXTargetMC();

using namespace mlir;
using namespace mlir::vx;

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

FailureOr<Chip> Chip::parse(StringRef name, std::string &error) {
  const llvm::MCSubtargetInfo &info = getNVPTXSubtargetInfo();
  // LLVM's processors are sm_XY[a|f]: whatever it knows has that form.
  StringRef digits = name;
  unsigned smNumber = 0;
  char suffix = 0;
  if (digits.consume_front("sm_") && !digits.empty() &&
      (digits.back() == 'a' || digits.back() == 'f')) {
    suffix = digits.back();
    digits = digits.drop_back();
  }
  bool wellFormed = name.starts_with("sm_") &&
                    !digits.getAsInteger(10, smNumber) && smNumber > 0;
  if (!wellFormed || !info.isCPUStringValid(name)) {
    SmallVector<StringRef> chips;
    for (const llvm::SubtargetSubTypeKV &entry :
         info.getAllProcessorDescriptions())
      if (StringRef(entry.Key).starts_with("sm_"))
        chips.push_back(entry.Key);
    error = ("chip '" + name +
             "' is not an NVIDIA chip that LLVM 22 knows; the chips are " +
             llvm::join(chips, ", "))
                .str();
    return failure();
  }
  return Chip(name, smNumber, suffix);
}

Chip Chip::getDefault() { return Chip("sm_90", 90, 0); }

/// The PTX ISA version (80 for 8.0) of a feature named `ptxNN`.
static std::optional<unsigned> getPTXVersion(StringRef feature) {
  unsigned version;
  if (!feature.consume_front("ptx") || feature.getAsInteger(10, version))
    return std::nullopt;
  return version;
}

unsigned Chip::getMinimumPTXVersion() const {
  unsigned sm = smNumber;
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

LogicalResult Chip::checkFeatures(StringRef features,
                                  std::string &error) const {
  const llvm::MCSubtargetInfo &info = getNVPTXSubtargetInfo();
  unsigned ptxVersion = 0;
  SmallVector<StringRef> entries;
  features.split(entries, ',', /*MaxSplit=*/-1, /*KeepEmpty=*/false);
  for (StringRef entry : entries) {
    StringRef featureName = entry.drop_front();
    bool known = llvm::any_of(info.getAllProcessorFeatures(),
                              [&](const llvm::SubtargetFeatureKV &feature) {
                                return featureName == feature.Key;
                              });
    if (!(entry.starts_with("+") || entry.starts_with("-")) || !known) {
      error = ("feature '" + entry +
               "' is not an NVPTX feature of LLVM 22 (features are "
               "'+name' or '-name', such as '+ptx80')")
                  .str();
      return failure();
    }
    if (entry.starts_with("+"))
      ptxVersion = std::max(ptxVersion, getPTXVersion(featureName).value_or(0));
  }
  unsigned minimum = getMinimumPTXVersion();
  if (ptxVersion && ptxVersion < minimum) {
    error = ("chip '" + name + "' needs PTX " + formatPTXVersion(minimum) +
             " or newer (features=+ptx" + Twine(minimum) + "), got PTX " +
             formatPTXVersion(ptxVersion))
                .str();
    return failure();
  }
  return success();
}

std::string Chip::getDefaultPTXFeatures() const {
  // PTX 8.0 (CUDA 12.0) at least: what the toolkits Vx is tested with
  // accept for every chip.
  return "+ptx" + std::to_string(std::max(80u, getMinimumPTXVersion()));
}

int64_t Chip::getMaxSharedMemoryPerBlock() const {
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

Chip::SMLimits Chip::getSMLimits() const {
  // Shared memory, threads and CTAs per SM from the CUDA C++ Programming
  // Guide's table of compute capabilities (1 KiB of each CTA's shared
  // memory is the system's from sm_80). Bytes in flight: H100/H200 (3.4 to
  // 4.8 TB/s over 132 SMs, about 800 ns) 32 KiB, A100 (2 TB/s over 108
  // SMs) 16 KiB, the rest 8 KiB.
  constexpr int64_t kib = 1024;
  if (smNumber >= 120)
    return {100 * kib, kib, 1536, 32, 8 * kib};
  if (smNumber >= 90)
    return {228 * kib, kib, 2048, 32, 32 * kib};
  switch (smNumber) {
  case 80:
    return {164 * kib, kib, 2048, 32, 16 * kib};
  case 87:
    return {164 * kib, kib, 2048, 16, 8 * kib};
  case 86:
  case 88:
    return {100 * kib, kib, 1536, 16, 8 * kib};
  case 89:
    return {100 * kib, kib, 1536, 24, 8 * kib};
  case 75:
    return {64 * kib, 0, 1024, 16, 8 * kib};
  case 70:
  case 72:
    return {96 * kib, 0, 2048, 32, 8 * kib};
  default:
    return {64 * kib, 0, 2048, 32, 8 * kib};
  }
}
