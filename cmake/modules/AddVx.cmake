# Vx's libraries are MLIR libraries (add_mlir_library: tablegen dependencies,
# LLVM's compile flags, mlir_target_link_libraries' choice of libMLIR.so) that
# install into Vx's export set, VxTargets, instead of MLIR's: a downstream
# project gets them from find_package(Vx CONFIG). A new library joins the
# package by using add_vx_library (or the dialect/conversion variant) instead
# of its add_mlir_* twin.
include_guard()

# Installs `name` into VxTargets: its archive or shared object in lib/, its
# users compiling against the installed include/ in C++17 (the headers are
# MLIR's dialect). Also for targets not made by add_vx_*_library (an
# INTERFACE library that groups others).
function(add_vx_library_install name)
  target_compile_features(${name} INTERFACE cxx_std_17)
  install(TARGETS ${name}
    EXPORT VxTargets
    LIBRARY DESTINATION lib${LLVM_LIBDIR_SUFFIX}
    ARCHIVE DESTINATION lib${LLVM_LIBDIR_SUFFIX}
    RUNTIME DESTINATION bin
    INCLUDES DESTINATION include)
  set_property(GLOBAL APPEND PROPERTY VX_EXPORTED_LIBS ${name})
endfunction()

function(add_vx_library name)
  add_mlir_library(${name} DISABLE_INSTALL ${ARGN})
  add_vx_library_install(${name})
endfunction()

function(add_vx_dialect_library name)
  add_mlir_dialect_library(${name} DISABLE_INSTALL ${ARGN})
  add_vx_library_install(${name})
endfunction()

function(add_vx_conversion_library name)
  add_mlir_conversion_library(${name} DISABLE_INSTALL ${ARGN})
  add_vx_library_install(${name})
endfunction()

# A runtime library that compiled programs load (mlir-runner -shared-libs,
# vx.compile's libraries, vx.run): built into lib/, installed, and copied
# into the Python package (lib/Bindings/Python). It needs only system
# libraries, so it has no RUNPATH: a copy beside a deployed library must not
# search the directory it was built or installed in, nor the working one.
function(add_vx_runtime_library name)
  add_library(${name} SHARED ${ARGN})
  set_target_properties(${name} PROPERTIES
    LIBRARY_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/lib
    INSTALL_RPATH "")
  add_vx_library_install(${name})
  set_property(GLOBAL APPEND PROPERTY VX_RUNTIME_LIBRARIES ${name})
endfunction()
