// On a GPU, kernels reach host allocations once they are registered.
func.func @make_device_visible_f32(%m: memref<*xf32>) {
  gpu.host_register %m : memref<*xf32>
  return
}
func.func @make_device_visible_i64(%m: memref<*xi64>) {
  gpu.host_register %m : memref<*xi64>
  return
}
func.func @make_device_visible_bf16(%m: memref<*xbf16>) {
  gpu.host_register %m : memref<*xbf16>
  return
}
