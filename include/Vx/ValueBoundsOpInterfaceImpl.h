//===- ValueBoundsOpInterfaceImpl.h - Bounds of the grid queries -*- C++
//-*-===//
//
// `vx.grid_index d` lies in [0, size of d) and `vx.grid_dim d` equals the
// size, static or an SSA value: what ValueBoundsConstraintSet needs to prove
// bounds of index arithmetic in spawn bodies (as for gpu.thread_id).
//
//===----------------------------------------------------------------------===//

#ifndef VX_VALUEBOUNDSOPINTERFACEIMPL_H
#define VX_VALUEBOUNDSOPINTERFACEIMPL_H

namespace mlir {
class DialectRegistry;

namespace vx {
void registerValueBoundsOpInterfaceExternalModels(DialectRegistry &registry);
} // namespace vx
} // namespace mlir

#endif // VX_VALUEBOUNDSOPINTERFACEIMPL_H
