//===- VxModule.cpp - The vx._vx Python extension -------------------------===//
//
// The C++ half of the `vx` package: parsing, pass pipelines (keyword options
// checked into the typed VxPipelineOptions and built once), the launch and
// binary queries, and the object files of compiled libraries. The
// pure-Python half (python/vx) links and loads libraries, checks call
// arguments, and raises vx.VxError from the diagnostics that these
// functions collect.
//
//===----------------------------------------------------------------------===//

#include "Vx/InitAll.h"
#include "Vx/Location.h"
#include "Vx/Pipelines/Pipelines.h"
#include "Vx/Target/CUDA.h"
#include "Vx/Target/KernelReport.h"
#include "Vx/Target/Library.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/Passes.h"

#include <pybind11/functional.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <optional>

namespace py = pybind11;
using namespace mlir;

namespace {

/// One diagnostic as Python sees it: (severity, message, location, chain),
/// the chain being every file location in it (vx::formatLocation's form).
using DiagnosticTuple = std::tuple<std::string, std::string, std::string,
                                   std::vector<std::string>>;

/// A failure with the diagnostics that explain it; translated to vx.VxError.
struct DiagnosedError {
  std::string summary;
  std::vector<DiagnosticTuple> diagnostics;
};

/// Every file location in `loc`, innermost first: a call site's callee,
/// then its callers (the Python tracer's locations through helpers).
std::vector<std::string> getLocationChain(Location loc) {
  std::vector<std::string> chain;
  loc->walk([&](Location nested) {
    if (auto fileLoc = dyn_cast<FileLineColLoc>(nested))
      chain.push_back(vx::formatLocation(fileLoc));
    return WalkResult::advance();
  });
  return chain;
}

const char *getSeverityName(DiagnosticSeverity severity) {
  switch (severity) {
  case DiagnosticSeverity::Error:
    return "error";
  case DiagnosticSeverity::Warning:
    return "warning";
  case DiagnosticSeverity::Remark:
    return "remark";
  case DiagnosticSeverity::Note:
    return "note";
  }
  llvm_unreachable("unknown diagnostic severity");
}

/// Collects every diagnostic (notes as their own entries) while alive.
class DiagnosticCollector {
public:
  explicit DiagnosticCollector(MLIRContext *context)
      : handler(context, [this](Diagnostic &diagnostic) {
          record(diagnostic);
          for (Diagnostic &note : diagnostic.getNotes())
            record(note);
          return success();
        }) {}

  [[noreturn]] void fail(const std::string &summary) {
    throw DiagnosedError{summary, std::move(diagnostics)};
  }

  /// The warnings and remarks of a run that succeeded.
  std::vector<DiagnosticTuple> take() { return std::move(diagnostics); }

private:
  void record(Diagnostic &diagnostic) {
    diagnostics.emplace_back(getSeverityName(diagnostic.getSeverity()),
                             diagnostic.str(),
                             vx::formatLocation(diagnostic.getLocation()),
                             getLocationChain(diagnostic.getLocation()));
  }

  std::vector<DiagnosticTuple> diagnostics;
  ScopedDiagnosticHandler handler;
};

/// The one context every module lives in. It is never destroyed: Python
/// objects may outlive module teardown order.
MLIRContext *getContext() {
  static MLIRContext *context = [] {
    vx::registerAllPassesForVxTools();
    DialectRegistry registry;
    vx::registerAllDialectsForVxTools(registry);
    auto *created = new MLIRContext(registry);
    created->loadAllAvailableDialects();
    // A diagnostic's location says where; an op dump in a note per
    // diagnostic would drown that in Python tracebacks.
    created->printOpOnDiagnostic(false);
    return created;
  }();
  return context;
}

std::string printOp(Operation *op) {
  std::string text;
  llvm::raw_string_ostream os(text);
  op->print(os);
  return text;
}

/// A static size as an int, a dynamic one as None.
py::object getOptionalInt(int64_t size) {
  if (ShapedType::isDynamic(size))
    return py::none();
  return py::int_(size);
}

/// A static launch dimension as an int, a dynamic one as None.
py::object getConstantDim(Value value) {
  APInt constant;
  if (matchPattern(value, m_ConstantInt(&constant)))
    return py::int_(constant.getSExtValue());
  return py::none();
}

/// The type of a function argument or result, as vx.run checks it.
py::tuple describeType(Type type) {
  std::string printed;
  llvm::raw_string_ostream os(printed);
  type.print(os);
  auto memref = dyn_cast<MemRefType>(type);
  if (!memref) {
    bool scalar = type.isIntOrIndexOrFloat();
    return py::make_tuple(scalar ? "scalar" : "unsupported", printed);
  }
  py::list shape;
  for (int64_t size : memref.getShape())
    shape.append(getOptionalInt(size));
  py::object strides = py::none(), offset = py::int_(0);
  if (!memref.getLayout().isIdentity()) {
    SmallVector<int64_t> staticStrides;
    int64_t staticOffset;
    if (failed(memref.getStridesAndOffset(staticStrides, staticOffset)))
      return py::make_tuple("unsupported", printed);
    py::list strideList;
    for (int64_t stride : staticStrides)
      strideList.append(getOptionalInt(stride));
    strides = strideList;
    offset = getOptionalInt(staticOffset);
  }
  std::string element;
  llvm::raw_string_ostream elementOs(element);
  memref.getElementType().print(elementOs);
  return py::make_tuple("memref", printed, element, shape, strides, offset);
}

/// The stage named `name`, or a ValueError.
vx::Stage getStage(const std::string &name) {
  std::optional<vx::Stage> stage = vx::parseStage(name);
  if (!stage)
    throw py::value_error("unknown stage '" + name + "'");
  return *stage;
}

/// An option's name as a Python keyword: `threads_per_block`.
std::string getKeyword(StringRef optionName) {
  std::string keyword = optionName.str();
  std::replace(keyword.begin(), keyword.end(), '-', '_');
  return keyword;
}

/// `type(value).__name__`.
std::string getTypeName(py::handle value) {
  return py::str(py::type::handle_of(value).attr("__name__"));
}

/// The typed value of keyword option `keyword`, or a TypeError (wrong kind)
/// or ValueError (a value that the pipeline text could not spell).
void setOption(const std::string &keyword, py::handle value, bool &field) {
  if (!PyBool_Check(value.ptr()))
    throw py::type_error("option '" + keyword + "' takes a bool, got " +
                         getTypeName(value));
  field = value.ptr() == Py_True;
}

void setOption(const std::string &keyword, py::handle value, int64_t &field) {
  // An int (or numpy integer), not a bool.
  if (PyBool_Check(value.ptr()) || !PyIndex_Check(value.ptr()))
    throw py::type_error("option '" + keyword + "' takes an int, got " +
                         getTypeName(value));
  py::int_ integer =
      py::reinterpret_steal<py::int_>(PyNumber_Index(value.ptr()));
  int overflow = 0;
  long long result = PyLong_AsLongLongAndOverflow(integer.ptr(), &overflow);
  if (overflow)
    throw py::value_error("option '" + keyword + "': invalid value " +
                          std::string(py::repr(value)) +
                          " (not a 64-bit integer)");
  field = result;
}

void setOption(const std::string &keyword, py::handle value,
               std::string &field) {
  if (!py::isinstance<py::str>(value))
    throw py::type_error("option '" + keyword + "' takes a str, got " +
                         getTypeName(value));
  field = py::cast<std::string>(value);
  // vx.pipeline prints the pipeline: its text must read back the same.
  if (field.empty() || field.find_first_of(" {}=") != std::string::npos)
    throw py::value_error("option '" + keyword + "': invalid value " +
                          std::string(py::repr(value)));
}

/// A stage's pipeline from Python keyword options, built once: each option
/// is checked against the kind of its typed field here, the whole set by
/// buildVxPipeline (the checks vx-opt runs); lowering, compiling and
/// vx.pipeline's text all use the one pass manager.
class PyStagePipeline {
public:
  PyStagePipeline(const std::string &stageName, const py::dict &keywords)
      : stage(getStage(stageName)),
        options(vx::VxPipelineOptions::getDefaults(stage)),
        passManager("builtin.module") {
    SmallVector<const vx::PipelineOptionInfo *> known =
        vx::getStageOptions(stage);
    for (std::pair<py::handle, py::handle> item : keywords) {
      std::string keyword = py::str(item.first);
      py::handle value = item.second;
      const vx::PipelineOptionInfo *const *info =
          llvm::find_if(known, [&](const vx::PipelineOptionInfo *option) {
            return getKeyword(option->name) == keyword;
          });
      if (info == known.end()) {
        std::string valid = known.empty() ? "none" : "";
        for (const vx::PipelineOptionInfo *option : known)
          valid += (valid.empty() ? "" : ", ") + getKeyword(option->name);
        throw py::type_error("stage '" + stageName + "' has no option '" +
                             keyword + "'; its options are: " + valid);
      }
      std::visit([&](auto field) { setOption(keyword, value, options.*field); },
                 (*info)->field);
    }
    std::string error;
    if (failed(vx::buildVxPipeline(passManager, stage, options,
                                   [&](const Twine &message) {
                                     error = message.str();
                                     return failure();
                                   })))
      throw DiagnosedError{stageName + ": " + error, {}};
  }

  /// The textual pipeline (for `vx-opt --pass-pipeline=`).
  std::string getText() const {
    std::string text;
    llvm::raw_string_ostream os(text);
    passManager.printAsTextualPipeline(os);
    return text;
  }

  /// {keyword: value} of every option of the stage; with `changedOnly`,
  /// only those that differ from the stage's defaults (one cache entry
  /// for one compile, however it is spelt).
  py::dict getOptions(bool changedOnly) const {
    vx::VxPipelineOptions defaults = vx::VxPipelineOptions::getDefaults(stage);
    py::dict result;
    for (const vx::PipelineOptionInfo *info : vx::getStageOptions(stage))
      std::visit(
          [&](auto field) {
            if (!changedOnly || options.*field != defaults.*field)
              result[py::str(getKeyword(info->name))] =
                  py::cast(options.*field);
          },
          info->field);
    return result;
  }

  const OpPassManager &getPassManager() const { return passManager; }

private:
  vx::Stage stage;
  vx::VxPipelineOptions options;
  OpPassManager passManager;
};

/// A module owned by Python.
class PyModule {
public:
  explicit PyModule(OwningOpRef<ModuleOp> module) : module(std::move(module)) {}

  static PyModule parse(const std::string &text, const std::string &filename) {
    MLIRContext *context = getContext();
    DiagnosticCollector diagnostics(context);
    ParserConfig config(context);
    OwningOpRef<ModuleOp> parsed =
        parseSourceString<ModuleOp>(text, config, filename);
    if (!parsed)
      diagnostics.fail("could not parse " + filename);
    return PyModule(std::move(parsed));
  }

  std::string str() { return printOp(module.get()); }

  /// The module's text with every op's location: what diagnostics name
  /// (and the code of detect-races, which reports the accesses' locations).
  std::string textWithLocations() {
    std::string text;
    llvm::raw_string_ostream os(text);
    module->print(os, OpPrintingFlags().enableDebugInfo());
    return text;
  }

  void verify() {
    DiagnosticCollector diagnostics(getContext());
    if (failed(mlir::verify(module.get())))
      diagnostics.fail("the module does not verify");
  }

  /// A copy of this module after `pipeline`, with the warnings and remarks
  /// of the run.
  std::pair<PyModule, std::vector<DiagnosticTuple>>
  lower(const PyStagePipeline &pipeline) {
    OwningOpRef<ModuleOp> copy = module->clone();
    std::vector<DiagnosticTuple> warnings =
        runPassesOn(*copy, pipeline.getPassManager());
    return {PyModule(std::move(copy)), std::move(warnings)};
  }

  std::size_t countOps(const std::string &name) {
    std::size_t count = 0;
    module->walk([&](Operation *op) {
      if (op->getName().getStringRef() == name)
        ++count;
    });
    return count;
  }

  /// (kernel, (gx, gy, gz), (bx, by, bz), location) per gpu.launch_func, in
  /// order; the kernel is named by its gpu.module, as the PTX of ptx() is.
  py::list launches() {
    py::list result;
    module->walk([&](gpu::LaunchFuncOp launch) {
      gpu::KernelDim3 grid = launch.getGridSizeOperandValues();
      gpu::KernelDim3 block = launch.getBlockSizeOperandValues();
      result.append(py::make_tuple(
          launch.getKernelModuleName().str(),
          py::make_tuple(getConstantDim(grid.x), getConstantDim(grid.y),
                         getConstantDim(grid.z)),
          py::make_tuple(getConstantDim(block.x), getConstantDim(block.y),
                         getConstantDim(block.z)),
          vx::formatLocation(launch.getLoc())));
    });
    return result;
  }

  /// (binary name, target, format, bytes) per object of every gpu.binary.
  py::list binaries() {
    py::list result;
    module->walk([&](gpu::BinaryOp binary) {
      for (Attribute attr : binary.getObjects()) {
        auto object = cast<gpu::ObjectAttr>(attr);
        result.append(py::make_tuple(
            binary.getSymName().str(), printAttr(object.getTarget()),
            gpu::stringifyCompilationTarget(object.getFormat()).str(),
            py::bytes(object.getObject().getValue().str())));
      }
    });
    return result;
  }

  /// One tuple per gpu.launch_func, as vx.KernelReport takes it: (kernel,
  /// grid, block, instances per CTA, shared bytes, stages, registers, spill
  /// bytes, stack bytes), None where unknown (KernelReport.h).
  py::list kernelReports() {
    DiagnosticCollector diagnostics(getContext());
    std::string error;
    FailureOr<SmallVector<vx::KernelReport>> reports =
        vx::collectKernelReports(module.get(), error);
    if (failed(reports))
      throw DiagnosedError{error, {}};
    auto optional = [](std::optional<int64_t> value) {
      return value ? py::object(py::int_(*value)) : py::object(py::none());
    };
    auto dims = [&](const std::array<std::optional<int64_t>, 3> &values) {
      return py::make_tuple(optional(values[0]), optional(values[1]),
                            optional(values[2]));
    };
    py::list result;
    for (const vx::KernelReport &report : *reports) {
      std::optional<vx::PtxasUsage> usage = report.usage;
      result.append(py::make_tuple(
          report.kernel, dims(report.grid), dims(report.block),
          optional(report.instancesPerCTA), optional(report.sharedBytes),
          optional(report.stages),
          optional(usage ? std::optional(usage->registers) : std::nullopt),
          optional(usage ? std::optional(usage->spillBytes) : std::nullopt),
          optional(usage ? std::optional(usage->stackBytes) : std::nullopt)));
    }
    return result;
  }

  /// The size requirements of func.func @name (Vx/Target/Library.h), each
  /// ((argument, dim), (bound argument, bound dim), [(argument, dim)...]).
  py::list sizeRequirements(const std::string &name) {
    py::list result;
    for (const vx::SizeRequirement &requirement :
         vx::collectSizeRequirements(lookupFunction(name)))
      result.append(py::make_tuple(
          requirement.argument, requirement.bound,
          std::vector<vx::ArgumentDim>(requirement.whenPositive.begin(),
                                       requirement.whenPositive.end())));
    return result;
  }

  /// (argument types, result types) of func.func @name, each from
  /// describeType.
  std::pair<py::list, py::list> signature(const std::string &name) {
    func::FuncOp function = lookupFunction(name);
    py::list arguments, results;
    for (Type type : function.getArgumentTypes())
      arguments.append(describeType(type));
    for (Type type : function.getResultTypes())
      results.append(describeType(type));
    return {arguments, results};
  }

  /// The public functions with a body, in order: what a library exports.
  std::vector<std::string> publicFunctions() {
    std::vector<std::string> names;
    for (auto function : module->getOps<func::FuncOp>())
      if (function.isPublic() && !function.isExternal())
        names.push_back(function.getSymName().str());
    return names;
  }

  /// A copy in which only the functions `names` stay public, and what they
  /// do not reach is removed.
  PyModule keepOnly(const std::vector<std::string> &names) {
    OwningOpRef<ModuleOp> copy = module->clone();
    for (const std::string &name : names)
      lookupFunction(name, *copy);
    for (auto function : copy->getOps<func::FuncOp>())
      if (!llvm::is_contained(names, function.getSymName()))
        function.setPrivate();
    OpPassManager symbolDCE("builtin.module");
    symbolDCE.addPass(createSymbolDCEPass());
    runPassesOn(*copy, symbolDCE);
    return PyModule(std::move(copy));
  }

  /// Raises where host code accesses memrefs, which a CUDA library's
  /// callers fill with device pointers.
  void verifyHostCodeForDevices() {
    DiagnosticCollector diagnostics(getContext());
    if (failed(vx::verifyHostCodeLeavesMemRefsToDevices(module.get())))
      diagnostics.fail("the module's host code cannot run with device memory");
  }

  /// Lowers a copy with `pipeline`, with the C interface of `entryPoints`,
  /// and compiles it to an object file for this CPU (`native`) or any of
  /// its triple (Vx/Target/Library.h), with the metadata that
  /// `makeMetadata` returns for the warnings and remarks of the lowering.
  /// Returns (object bytes, [(external function, caller)], warnings).
  py::tuple emitLibraryObject(
      const PyStagePipeline &pipeline,
      const std::vector<std::string> &entryPoints,
      const std::function<std::string(std::vector<DiagnosticTuple>)>
          &makeMetadata,
      bool native,
      const std::vector<std::pair<std::string, std::string>> &simulatorPTX) {
    OwningOpRef<ModuleOp> copy = module->clone();
    for (const std::string &name : entryPoints)
      lookupFunction(name, *copy)
          ->setAttr(LLVM::LLVMDialect::getEmitCWrapperAttrName(),
                    UnitAttr::get(getContext()));
    std::vector<DiagnosticTuple> warnings =
        runPassesOn(*copy, pipeline.getPassManager());
    std::string metadata = makeMetadata(warnings);
    DiagnosticCollector diagnostics(getContext());
    FailureOr<vx::LibraryObject> object = vx::emitLibraryObject(
        *copy, entryPoints, metadata,
        native ? vx::HostCPU::native : vx::HostCPU::generic, simulatorPTX);
    if (failed(object))
      diagnostics.fail("could not compile the module for the host");
    return py::make_tuple(py::bytes(object->object), object->externalCalls,
                          warnings);
  }

private:
  static std::string printAttr(Attribute attr) {
    std::string text;
    llvm::raw_string_ostream os(text);
    attr.print(os);
    return text;
  }

  func::FuncOp lookupFunction(const std::string &name) {
    return lookupFunction(name, module.get());
  }

  static func::FuncOp lookupFunction(const std::string &name, ModuleOp in) {
    auto function = in.lookupSymbol<func::FuncOp>(name);
    if (!function || function.isExternal())
      throw py::value_error("the module has no function @" + name +
                            " with a body");
    return function;
  }

  /// Runs a copy of `passes` (anchored at builtin.module) on `target`.
  static std::vector<DiagnosticTuple> runPassesOn(ModuleOp target,
                                                  const OpPassManager &passes) {
    MLIRContext *context = getContext();
    DiagnosticCollector diagnostics(context);
    PassManager pm(context, passes.getOpAnchorName());
    static_cast<OpPassManager &>(pm) = passes;
    if (failed(pm.run(target)))
      diagnostics.fail("the pipeline failed");
    return diagnostics.take();
  }

  OwningOpRef<ModuleOp> module;
};

} // namespace

PYBIND11_MODULE(_vx, m) {
  m.doc() = "The C++ half of the vx package; use `import vx`.";

  py::register_exception_translator([](std::exception_ptr pointer) {
    try {
      if (pointer)
        std::rethrow_exception(pointer);
    } catch (const DiagnosedError &error) {
      py::object errorType = py::module_::import("vx").attr("VxError");
      py::object raised = errorType(error.summary, error.diagnostics);
      PyErr_SetObject(errorType.ptr(), raised.ptr());
    }
  });

  m.def("stages", [] {
    std::vector<std::string> names;
    for (StringRef name : vx::getStageNames())
      names.push_back(name.str());
    return names;
  });
  m.def("later_stages", [](const std::string &stage) {
    std::vector<std::string> names;
    for (vx::Stage later : vx::getLaterStages(getStage(stage)))
      names.push_back(vx::getStageNames()[static_cast<int>(later)].str());
    return names;
  });
  py::class_<PyStagePipeline>(m, "StagePipeline")
      .def(py::init<const std::string &, const py::dict &>(), py::arg("stage"),
           py::arg("options"))
      .def("text", &PyStagePipeline::getText)
      .def("options", &PyStagePipeline::getOptions,
           py::arg("changed_only") = false);
  m.def("cuda_toolkit", [] {
    std::string error;
    std::optional<std::string> toolkit = vx::findCUDAToolkit(error);
    return toolkit ? py::object(py::str(*toolkit)) : py::object(py::none());
  });
  m.def("parse", &PyModule::parse, py::arg("text"), py::arg("filename"));
  m.def(
      "host_target",
      [](bool native) {
        return vx::getHostTargetDescription(native ? vx::HostCPU::native
                                                   : vx::HostCPU::generic);
      },
      py::arg("native"));

  py::class_<PyModule>(m, "Module")
      .def("__str__", &PyModule::str)
      .def("text_with_locations", &PyModule::textWithLocations)
      .def("verify", &PyModule::verify)
      .def("lower", &PyModule::lower, py::arg("pipeline"))
      .def("count_ops", &PyModule::countOps, py::arg("name"))
      .def("launches", &PyModule::launches)
      .def("binaries", &PyModule::binaries)
      .def("kernel_reports", &PyModule::kernelReports)
      .def("size_requirements", &PyModule::sizeRequirements, py::arg("name"))
      .def("signature", &PyModule::signature, py::arg("name"))
      .def("public_functions", &PyModule::publicFunctions)
      .def("keep_only", &PyModule::keepOnly, py::arg("names"))
      .def("verify_host_code_for_devices", &PyModule::verifyHostCodeForDevices)
      .def("emit_library_object", &PyModule::emitLibraryObject,
           py::arg("pipeline"), py::arg("entry_points"),
           py::arg("make_metadata"), py::arg("native"),
           py::arg("simulator_ptx") =
               std::vector<std::pair<std::string, std::string>>());
}
