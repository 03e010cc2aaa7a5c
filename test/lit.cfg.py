# -*- Python -*-

import os
import shlex
import shutil
import sys

import lit.formats
from lit.llvm import llvm_config
from lit.llvm.subst import ToolSubst

config.name = "VX"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".test"]
config.excludes = ["lit.cfg.py", "lit.site.cfg.py", "CMakeLists.txt", "Inputs", "lib"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.vx_obj_root, "test")

config.substitutions.append(("%PATH%", config.environment["PATH"]))
config.substitutions.append(("%mlir_lib_dir", config.mlir_lib_dir))
config.substitutions.append(("%vx_root", os.path.dirname(config.test_source_root)))
config.substitutions.append(("%vx_build", config.vx_obj_root))
config.substitutions.append(("%python", sys.executable))
# The C++ compiler that builds host programs of the tests (bench/cuda's
# emulated check).
config.substitutions.append(("%clangxx", os.path.join(config.llvm_tools_dir, "clang++")))
config.substitutions.append(
    ("%vx_python_packages", os.path.join(config.vx_obj_root, "python_packages")))
# The Python the bindings are built for (numpy, the vx extension).
config.substitutions.append(("%vx_python", config.vx_python))
config.substitutions.append(
    ("%vx_plugin", os.path.join(config.vx_obj_root, "lib", "VxPlugin.so"))
)
config.substitutions.append(("%vx_obj_root", config.vx_obj_root))
config.substitutions.append(("%vx_version", config.vx_version))
config.substitutions.append(("%llvm_version", config.llvm_version))
config.substitutions.append(("%mlir_include_dir", config.mlir_include_dir))
config.substitutions.append(
    ("%cmake_configure", "%s -G %s -DCMAKE_MAKE_PROGRAM=%s -DCMAKE_CXX_COMPILER=%s"
     % (config.cmake, shlex.quote(config.cmake_generator),
        config.cmake_make_program, config.host_cxx)))
config.substitutions.append(("%cmake", config.cmake))
config.substitutions.append(("%host_cc", config.host_cc))
# A -DVX_SANITIZE build installs instrumented libraries, which a downstream
# project would have to link with the same sanitizer runtime.
if config.vx_sanitize:
    config.available_features.add("sanitized")

# LD_PRELOAD and the sanitizer options reach the tools under scripts/sanitize.sh;
# CUDA_HOME, so that the tools find the toolkit that the ptxas feature found.
llvm_config.with_system_environment(["HOME", "INCLUDE", "LIB", "TMP", "TEMP", "LD_PRELOAD",
                                     "ASAN_OPTIONS", "UBSAN_OPTIONS", "CUDA_HOME"])
llvm_config.use_default_substitutions()


def mlir_runner(name, shared_libs):
    """mlir-runner running @main-style entry points with `shared_libs`."""
    return ToolSubst(name, command=os.path.join(config.llvm_tools_dir, "mlir-runner"),
                     extra_args=["-entry-point-result=void",
                                 "-shared-libs=" + ",".join(shared_libs)])


tool_dirs = [os.path.join(config.vx_obj_root, "bin"), config.llvm_tools_dir]
tools = [
    "vx-opt",
    "vx-capi-test",
    "not",
    "FileCheck",
    "mlir-opt",
    "mlir-tblgen",
    "mlir-translate",
    "llc",
    "llvm-link",
    mlir_runner("%mlir_runner", [
        os.path.join(config.mlir_lib_dir, "libmlir_runner_utils.so"),
        os.path.join(config.mlir_lib_dir, "libmlir_c_runner_utils.so"),
        os.path.join(config.mlir_lib_dir, "libomp.so"),
        # The runtime of detect-races=true.
        os.path.join(config.vx_obj_root, "lib", "libvx_race_runtime.so"),
    ]),
    # The PTX simulator as the mgpu* runtime: the output of
    # --vx-to-llvm="ptx-sim=true" runs every launch's PTX on the CPU.
    mlir_runner("%mlir_runner_sim", [
        os.path.join(config.vx_obj_root, "lib", "libvx_ptx_sim.so"),
        os.path.join(config.mlir_lib_dir, "libmlir_runner_utils.so"),
        os.path.join(config.mlir_lib_dir, "libmlir_c_runner_utils.so"),
    ]),
]
llvm_config.add_tool_substitutions(tools, tool_dirs)

# Static bank conflicts of a PTX kernel's shared accesses and ldmatrix.
config.substitutions.append(
    ("%bank_conflicts", "%s %s" % (sys.executable, os.path.join(
        config.test_source_root, "..", "bench", "bank_conflicts.py")))
)
config.substitutions.append(
    ("%extract_ptx", "%s %s" % (sys.executable,
                                os.path.join(config.test_source_root, "Inputs", "extract_ptx.py")))
)


def find_cuda_toolkit():
    """The CUDA toolkit vx-to-ptx uses, found by the same C++ code
    (lib/Target/CUDA.cpp) through the Python extension, loaded on its own
    (lit's interpreter is the one the extension is built for, but the vx
    package around it may need modules lit does not)."""
    import glob
    import importlib.util
    [extension] = glob.glob(os.path.join(config.vx_obj_root, "python_packages",
                                         "vx", "_vx.*.so"))
    spec = importlib.util.spec_from_file_location("_vx", extension)
    native = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(native)
    return native.cuda_toolkit()


cuda_toolkit = find_cuda_toolkit()
if cuda_toolkit:
    config.available_features.add("ptxas")
    config.substitutions.append(("%ptxas", os.path.join(cuda_toolkit, "bin", "ptxas")))
    config.substitutions.append(("%cuda_toolkit", cuda_toolkit))
    config.substitutions.append(
        ("%cuda_libdevice", os.path.join(cuda_toolkit, "nvvm", "libdevice", "libdevice.10.bc")))

# bench.py counts instructions per call of the CPU kernels with callgrind.
if shutil.which("valgrind"):
    config.available_features.add("valgrind")

# The README names the toolkit at /usr/local/cuda; its CUDA commands run
# where that one is and the tools find a toolkit.
config.substitutions.append(
    ("%readme_cuda", "--cuda" if cuda_toolkit and os.path.isfile("/usr/local/cuda/bin/ptxas") and os.path.isfile(
        "/usr/local/cuda/nvvm/libdevice/libdevice.10.bc") else ""))

# Kernels run only where the CUDA runtime wrappers were built and a GPU is
# present at test time.
cuda_runtime = os.path.join(config.vx_obj_root, "lib", "libvx_cuda_runtime.so")
if os.path.exists(cuda_runtime) and os.path.exists("/dev/nvidia0"):
    config.available_features.add("gpu")
config.substitutions.append(("%vx_cuda_runtime", cuda_runtime))
