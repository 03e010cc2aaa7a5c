//===- Chip.h - An NVIDIA chip, parsed once ---------------------*- C++ -*-===//
//
// A chip option ("sm_90", "sm_90a", "sm_100f") is parsed into a Chip once,
// where the option is read; the mapping and the pipelines then ask it what
// the chip has (cp.async, TMA, wgmma, the sm_100 tensor cores, its shared
// memory, its PTX versions) instead of comparing names or numbers.
//
//===----------------------------------------------------------------------===//

#ifndef VX_TARGET_CHIP_H
#define VX_TARGET_CHIP_H

#include "mlir/Support/LLVM.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <string>

namespace mlir {
namespace vx {

/// An NVIDIA chip that LLVM 22's NVPTX target knows.
class Chip {
public:
  /// The chip named `name` ("sm_XY", with an optional "a" (architecture-
  /// specific) or "f" (family) suffix), checked against LLVM's NVPTX
  /// processors. On failure `error` says why and lists the chips; nothing
  /// is printed.
  static FailureOr<Chip> parse(StringRef name, std::string &error);

  /// The chip that every stage compiles for when none is named: sm_90.
  static Chip getDefault();

  /// The name as parsed, e.g. "sm_90a".
  StringRef getName() const { return name; }
  /// The SM number: 90 for sm_90 and sm_90a.
  unsigned getSMNumber() const { return smNumber; }
  /// Whether the name ends in "a": features of exactly this chip.
  bool isArchSpecific() const { return suffix == 'a'; }

  /// cp.async (`nvgpu.device_async_copy`): sm_80 and newer.
  bool hasCpAsync() const { return smNumber >= 80; }
  /// TMA (`cp.async.bulk.tensor`) and mbarrier transaction counts: sm_90
  /// and newer.
  bool hasTMA() const { return smNumber >= 90; }
  /// wgmma.mma_async: sm_90a only (neither plain sm_90 nor Blackwell).
  bool hasWgmma() const { return smNumber == 90 && isArchSpecific(); }
  /// The fifth-generation tensor cores of `tensor_core5` spawns: sm_100
  /// and newer.
  bool hasTensorCore5() const { return smNumber >= 100; }

  /// The most shared memory, in bytes, that one CTA may use (the opt-in
  /// limit of dynamic shared memory: 227 KiB on sm_90 and sm_100).
  int64_t getMaxSharedMemoryPerBlock() const;

  /// What one SM holds at once, which bounds the CTAs resident on it.
  struct SMLimits {
    /// The shared memory of the SM, and what it reserves for each CTA.
    int64_t sharedBytes;
    int64_t reservedSharedBytesPerBlock;
    /// The most threads and CTAs resident at once.
    int64_t threads;
    int64_t blocks;
    /// The bytes of global-memory loads that must be in flight on one SM
    /// to keep its share of the DRAM bandwidth busy (Little's law: the
    /// bandwidth per SM times the memory latency) of this generation's
    /// data-center part.
    int64_t bytesInFlight;
  };
  SMLimits getSMLimits() const;

  /// The lowest PTX ISA version (80 for 8.0) that LLVM 22 accepts for the
  /// chip; the suffix matters (sm_90a needs more than sm_90).
  unsigned getMinimumPTXVersion() const;

  /// The PTX ISA version, as an NVPTX feature (`+ptx80`), that Vx uses: the
  /// lowest that LLVM 22 accepts, and at least 8.0.
  std::string getDefaultPTXFeatures() const;

  /// Checks `features` (comma-separated `+name` or `-name`; may be empty)
  /// against LLVM 22's NVPTX features and the chip's lowest PTX version.
  LogicalResult checkFeatures(StringRef features, std::string &error) const;

private:
  Chip(StringRef name, unsigned smNumber, char suffix)
      : name(name.str()), smNumber(smNumber), suffix(suffix) {}

  std::string name;
  unsigned smNumber;
  /// 'a', 'f' or 0.
  char suffix;
};

} // namespace vx
} // namespace mlir

#endif // VX_TARGET_CHIP_H
