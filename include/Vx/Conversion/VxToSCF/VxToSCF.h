//===- VxToSCF.h - vx.spawn to scf loops ------------------------*- C++ -*-===//
//
// The reference lowering: a spawn becomes one scf.parallel over its parallel
// dimensions around an scf.for nest over its arbitrary dimensions, and a
// transfer a synchronous loop copy.
//
//===----------------------------------------------------------------------===//

#ifndef VX_CONVERSION_VXTOSCF_VXTOSCF_H
#define VX_CONVERSION_VXTOSCF_VXTOSCF_H

#include "mlir/Pass/Pass.h"

#include <functional>

namespace mlir {
class ConversionTarget;
class RewritePatternSet;
class TypeConverter;

namespace vx {

#define GEN_PASS_DECL_CONVERTVXTOSCF
#include "Vx/Conversion/Passes.h.inc"

/// Lowers every `vx.spawn` to scf loops; `reverseParallel` walks the
/// parallel dimensions from their last index to 0.
void populateVxToSCFConversionPatterns(RewritePatternSet &patterns,
                                       bool reverseParallel);

/// Marks the vx dialect illegal and everything else legal.
void configureVxToSCFConversionLegality(ConversionTarget &target);

/// Lowers the `vx.transfer_async` / `vx.await` pairs of the ops for which
/// `inScope` holds to synchronous loop copies (the copy completes at the
/// transfer), converting tokens, also those carried by scf ops, to i1.
void populateVxTransferToLoopsConversionPatterns(
    TypeConverter &typeConverter, RewritePatternSet &patterns,
    ConversionTarget &target, std::function<bool(Operation *)> inScope);

/// Lowers the affine ops in the spawn bodies under `root` to scf, arith,
/// memref and vector ops. A spawn's lowering makes `vx.grid_index` a loop
/// induction variable or a thread coordinate, which is no affine dimension
/// or symbol, so affine ops that use it would no longer verify.
LogicalResult lowerAffineInSpawns(Operation *root);

/// Lowers `memref.copy` to an element-by-element scf.for nest, which runs in
/// device code, where memref.copy of strided views would be a host call.
void populateMemRefCopyToLoopsPatterns(RewritePatternSet &patterns);

} // namespace vx
} // namespace mlir

#endif // VX_CONVERSION_VXTOSCF_VXTOSCF_H
