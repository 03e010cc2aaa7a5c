# -*- Python -*-

import os

import lit.formats
from lit.llvm import llvm_config
from lit.llvm.subst import ToolSubst

config.name = "VX"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir"]
config.excludes = ["lit.cfg.py", "lit.site.cfg.py", "CMakeLists.txt", "Inputs"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.vx_obj_root, "test")

config.substitutions.append(("%PATH%", config.environment["PATH"]))
config.substitutions.append(("%mlir_lib_dir", config.mlir_lib_dir))
config.substitutions.append(
    ("%vx_plugin", os.path.join(config.vx_obj_root, "lib", "VxPlugin.so"))
)

llvm_config.with_system_environment(["HOME", "INCLUDE", "LIB", "TMP", "TEMP"])
llvm_config.use_default_substitutions()

tool_dirs = [os.path.join(config.vx_obj_root, "bin"), config.llvm_tools_dir]
tools = [
    "vx-opt",
    "not",
    "FileCheck",
    "mlir-opt",
    "mlir-translate",
    ToolSubst(
        "%mlir_runner",
        command=os.path.join(config.llvm_tools_dir, "mlir-runner"),
        extra_args=[
            "-entry-point-result=void",
            "-shared-libs=%s,%s,%s"
            % (
                os.path.join(config.mlir_lib_dir, "libmlir_runner_utils.so"),
                os.path.join(config.mlir_lib_dir, "libmlir_c_runner_utils.so"),
                os.path.join(config.mlir_lib_dir, "libomp.so"),
            ),
        ],
    ),
]
llvm_config.add_tool_substitutions(tools, tool_dirs)
