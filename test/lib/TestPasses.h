//===- TestPasses.h - Passes that exercise Vx's building blocks -*- C++ -*-===//

#ifndef VX_TEST_LIB_TESTPASSES_H
#define VX_TEST_LIB_TESTPASSES_H

#include "mlir/Pass/Pass.h"

namespace mlir {
namespace vx {
namespace test {

#define GEN_PASS_DECL
#define GEN_PASS_REGISTRATION
#include "TestPasses.h.inc"

} // namespace test
} // namespace vx
} // namespace mlir

#endif // VX_TEST_LIB_TESTPASSES_H
