//===- DropCompileTimes.cpp - Reproducible gpu.binary ops -----------------===//

#include "Vx/Transforms/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "llvm/ADT/StringSet.h"

namespace mlir {
namespace vx {
#define GEN_PASS_DEF_VXDROPCOMPILETIMES
#include "Vx/Transforms/Passes.h.inc"
} // namespace vx
} // namespace mlir

using namespace mlir;

namespace {
struct VxDropCompileTimesPass
    : public vx::impl::VxDropCompileTimesBase<VxDropCompileTimesPass> {
  void runOnOperation() override {
    // The properties upstream's serializers record the durations in.
    static const llvm::StringSet<> timings = {"LLVMIRToISATimeInMs",
                                              "ISAToBinaryTimeInMs"};
    getOperation().walk([&](gpu::BinaryOp binary) {
      SmallVector<Attribute> objects;
      for (Attribute attr : binary.getObjects()) {
        auto object = cast<gpu::ObjectAttr>(attr);
        DictionaryAttr properties = object.getProperties();
        if (properties) {
          SmallVector<NamedAttribute> kept;
          for (NamedAttribute property : properties)
            if (!timings.contains(property.getName()))
              kept.push_back(property);
          properties = kept.empty() ? DictionaryAttr()
                                    : DictionaryAttr::get(&getContext(), kept);
        }
        objects.push_back(gpu::ObjectAttr::get(
            &getContext(), object.getTarget(), object.getFormat(),
            object.getObject(), properties, object.getKernels()));
      }
      binary.setObjectsAttr(ArrayAttr::get(&getContext(), objects));
    });
  }
};
} // namespace
