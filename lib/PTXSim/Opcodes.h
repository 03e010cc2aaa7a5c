//===- Opcodes.h - Decoding PTX opcodes -------------------------*- C++ -*-===//
//
// A dotted opcode (`ld.global.v4.f32`) as an Instruction's opcode, types and
// modifiers (Opcodes.cpp), and the targets that instruction forms need.
//
//===----------------------------------------------------------------------===//

#ifndef VX_LIB_PTXSIM_OPCODES_H
#define VX_LIB_PTXSIM_OPCODES_H

#include "Program.h"

#include <string>

namespace vx::ptxsim {

/// Decodes `opcode` into `instr`; false when the simulator does not
/// implement it or one of its modifiers.
bool decodeInstruction(Instruction &instr, const std::string &opcode);

/// The oldest .target and PTX ISA .version of an instruction (or form) the
/// simulator implements that is newer than sm_70 / PTX 6.0, from the
/// "Target ISA notes" and "PTX ISA notes" of each in the PTX ISA.
struct TargetRequirement {
  const char *feature;
  unsigned smVersion;
  unsigned ptxVersion;       // 10 * major + minor
  bool archSpecific = false; // only on sm_90a (not sm_90 or later)
};

/// What `instr` needs, or null when sm_70 and PTX 6.0 run it.
const TargetRequirement *getTargetRequirement(const Instruction &instr);

} // namespace vx::ptxsim

#endif // VX_LIB_PTXSIM_OPCODES_H
