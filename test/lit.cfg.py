# -*- Python -*-

import os
import sys

import lit.formats
from lit.llvm import llvm_config
from lit.llvm.subst import ToolSubst

config.name = "VX"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".test"]
config.excludes = ["lit.cfg.py", "lit.site.cfg.py", "CMakeLists.txt", "Inputs"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.vx_obj_root, "test")

config.substitutions.append(("%PATH%", config.environment["PATH"]))
config.substitutions.append(("%mlir_lib_dir", config.mlir_lib_dir))
config.substitutions.append(("%vx_root", os.path.dirname(config.test_source_root)))
config.substitutions.append(("%python", sys.executable))
config.substitutions.append(
    ("%vx_plugin", os.path.join(config.vx_obj_root, "lib", "VxPlugin.so"))
)

# LD_PRELOAD and the sanitizer options reach the tools under scripts/sanitize.sh.
llvm_config.with_system_environment(["HOME", "INCLUDE", "LIB", "TMP", "TEMP", "LD_PRELOAD",
                                     "ASAN_OPTIONS", "UBSAN_OPTIONS"])
llvm_config.use_default_substitutions()

tool_dirs = [os.path.join(config.vx_obj_root, "bin"), config.llvm_tools_dir]
tools = [
    "vx-opt",
    "not",
    "FileCheck",
    "mlir-opt",
    "mlir-translate",
    "llc",
    "llvm-link",
    ToolSubst(
        "%mlir_runner",
        command=os.path.join(config.llvm_tools_dir, "mlir-runner"),
        extra_args=[
            "-entry-point-result=void",
            "-shared-libs=%s,%s,%s,%s"
            % (
                os.path.join(config.mlir_lib_dir, "libmlir_runner_utils.so"),
                os.path.join(config.mlir_lib_dir, "libmlir_c_runner_utils.so"),
                os.path.join(config.mlir_lib_dir, "libomp.so"),
                # The runtime of detect-races=true.
                os.path.join(config.vx_obj_root, "lib", "libvx_race_runtime.so"),
            ),
        ],
    ),
]
llvm_config.add_tool_substitutions(tools, tool_dirs)

config.substitutions.append(
    ("%extract_ptx", "%s %s" % (sys.executable,
                                os.path.join(config.test_source_root, "Inputs", "extract_ptx.py")))
)


def find_cuda_toolkit():
    """The CUDA toolkit vx-to-ptx uses: CUDA_HOME when set, else the first of
    the toolkit of the ptxas on PATH (through symlinks) and /usr/local/cuda
    that holds both ptxas and libdevice."""
    import shutil
    if os.environ.get("CUDA_HOME"):
        candidates = [os.environ["CUDA_HOME"]]
    else:
        ptxas_on_path = shutil.which("ptxas")
        candidates = [os.path.dirname(os.path.dirname(os.path.realpath(ptxas_on_path)))
                      ] if ptxas_on_path else []
        candidates.append("/usr/local/cuda")
    for toolkit in candidates:
        if os.access(os.path.join(toolkit, "bin", "ptxas"), os.X_OK) and os.path.isfile(
                os.path.join(toolkit, "nvvm", "libdevice", "libdevice.10.bc")):
            return toolkit
    return None


cuda_toolkit = find_cuda_toolkit()
if cuda_toolkit:
    config.available_features.add("ptxas")
    config.substitutions.append(("%ptxas", os.path.join(cuda_toolkit, "bin", "ptxas")))
    config.substitutions.append(("%cuda_toolkit", cuda_toolkit))
    config.substitutions.append(
        ("%cuda_libdevice", os.path.join(cuda_toolkit, "nvvm", "libdevice", "libdevice.10.bc")))

# Kernels run only where the CUDA runtime wrappers were built and a GPU is
# present at test time.
cuda_runtime = os.path.join(config.vx_obj_root, "lib", "libvx_cuda_runtime.so")
if os.path.exists(cuda_runtime) and os.path.exists("/dev/nvidia0"):
    config.available_features.add("gpu")
config.substitutions.append(("%vx_cuda_runtime", cuda_runtime))
