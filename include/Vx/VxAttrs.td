//===- VxAttrs.td - Vx attributes --------------------------*- tablegen -*-===//

#ifndef VX_ATTRS
#define VX_ATTRS

include "Vx/VxDialect.td"
include "mlir/IR/EnumAttr.td"

def Vx_Topology : I32EnumAttr<"Topology", "where a spawn's instances run", [
    I32EnumAttrCase<"host", 0>,
    I32EnumAttrCase<"tensor_core", 1>,
    I32EnumAttrCase<"tensor_core5", 2>
  ]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::mlir::vx";
}

def Vx_TopologyAttr : EnumAttr<Vx_Dialect, Vx_Topology, "topology"> {
  let summary = "Topology a spawn runs on";
  let description = [{
    `host` runs the grid on the CPU; `tensor_core` on a GPU (sm_90 by
    default); `tensor_core5` on a Blackwell GPU (sm_100 or newer).

    Example: `#vx.topology<tensor_core>`; inside `vx.spawn` the bare keyword:
    `vx.spawn on tensor_core grid [4] ...`.
  }];
  let assemblyFormat = "`<` $value `>`";
}

def Vx_DimensionSemantics : I32EnumAttr<"DimensionSemantics",
    "semantics of one grid dimension", [
      I32EnumAttrCase<"parallel", 0>,
      I32EnumAttrCase<"arbitrary", 1>
    ]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::mlir::vx";
}

def Vx_DimensionSemanticsAttr
    : EnumAttr<Vx_Dialect, Vx_DimensionSemantics, "semantics"> {
  let summary = "Semantics of one grid dimension";
  let description = [{
    `parallel`: instances that differ in this coordinate are independent and
    may run concurrently, in any order. `arbitrary`: for a fixed point of the
    parallel dimensions, instances run one at a time in lexicographic order of
    the arbitrary coordinates, so state may be carried across them.

    Example: `#vx.semantics<parallel>`.
  }];
  let assemblyFormat = "`<` $value `>`";
}

def Vx_DimensionSemanticsArrayAttr
    : TypedArrayAttrBase<Vx_DimensionSemanticsAttr,
                         "array of dimension semantics">;

def Vx_Memory : I32EnumAttr<"Memory", "placement of a scratch buffer", [
    I32EnumAttrCase<"private_", 0, "private">,
    I32EnumAttrCase<"smem", 1>
  ]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::mlir::vx";
}

def Vx_MemoryAttr : EnumAttr<Vx_Dialect, Vx_Memory, "memory"> {
  let summary = "Placement of a scratch buffer";
  let description = [{
    `private`: memory private to one grid instance (registers or local
    memory on a GPU). `smem`: the shared memory of the CTA that runs the
    instance (gpu workgroup memory).

    Example: `#vx.memory<smem>`; in `vx.scratch` the bare keyword.
  }];
  let assemblyFormat = "`<` $value `>`";
}

def Vx_LaunchPlanAttr : AttrDef<Vx_Dialect, "LaunchPlan"> {
  let mnemonic = "launch_plan";
  let summary = "How a device spawn maps onto the GPU, step by step";
  let description = [{
    The GPU mapping's record on a device `vx.spawn`, in its discardable
    attribute `vx.launch_plan`: each pass of the mapping reads what the
    earlier ones decided and adds its own decision, so that every step can
    be run and tested alone. `vx-plan-launch` sets `kernel` (the name of
    the kernel and of its module), `threads` (the CTA size) and
    `cooperative` (one grid instance per CTA, the body having thread loops;
    otherwise each thread runs its own instance); `vx-map-cta` sets
    `mapped` once the body is what every thread runs; `vx-pipeline-transfers`
    sets `stages` (1: nothing pipelined; 0, the default, not yet decided).
    `convert-vx-to-gpu` reads it and runs the steps whose result is missing.

    Example:

    ```mlir
    vx.spawn on tensor_core grid [4, 8] semantics [parallel, arbitrary] {
      ...
    } {vx.launch_plan = #vx.launch_plan<kernel = "f_kernel", threads = 256,
                                        cooperative = true, mapped = true,
                                        stages = 2>}
    ```
  }];
  let parameters = (ins "StringAttr":$kernel, "int64_t":$threads,
                        "bool":$cooperative,
                        DefaultValuedParameter<"bool", "false">:$mapped,
                        DefaultValuedParameter<"int64_t", "0">:$stages);
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// The discardable attribute of a device spawn that holds its plan.
    static constexpr StringLiteral kAttrName = "vx.launch_plan";
    /// The plan of `op`, or null.
    static LaunchPlanAttr lookup(Operation *op) {
      return op->getAttrOfType<LaunchPlanAttr>(kAttrName);
    }
    /// The grid instances that share a CTA.
    int64_t getInstancesPerCTA() const {
      return getCooperative() ? 1 : getThreads();
    }
    /// This plan with `mapped` set, or with `stages` decided.
    LaunchPlanAttr withMapped() const;
    LaunchPlanAttr withStages(int64_t stages) const;
  }];
}

#endif // VX_ATTRS
