//===- RaceDetectorABI.h - detect-races' call encoding ----------*- C++ -*-===//
//
// What vx-lower-race-checks (lib/Transforms/DetectRaces.cpp) encodes in the
// i64 arguments of its `__vx_race_*` calls and what the runtime
// (lib/Runtime/RaceDetector.cpp) decodes: declared once, for both. Plain
// C++, as the runtime links nothing of LLVM.
//
//===----------------------------------------------------------------------===//

#ifndef VX_RUNTIME_RACEDETECTORABI_H
#define VX_RUNTIME_RACEDETECTORABI_H

#include <cstdint>

namespace mlir {
namespace vx {
namespace race {

/// The `kind` argument of `__vx_race_access`: read and/or write bits, the
/// atomic kind plus one in bits 8-15 (0: not atomic), and the out-of-bounds
/// bit of an access outside its buffer.
inline constexpr int64_t kWrite = 1;
inline constexpr int64_t kRead = 2;
inline constexpr int kAtomicKindShift = 8;
inline constexpr int64_t kAtomicKindMask = 0xff;
inline constexpr int64_t kOutOfBounds = int64_t(1) << 16;

/// The argument of `vxRaceSetMode`: exit on the first race (mlir-runner),
/// record it for vx.runtime to raise, or report one race per spawn
/// execution and exit at the end (VX_RACE_CONTINUE=1).
enum Mode : int { ExitOnRace = 0, RecordFirst = 1, ReportAll = 2 };

} // namespace race
} // namespace vx
} // namespace mlir

#endif // VX_RUNTIME_RACEDETECTORABI_H
