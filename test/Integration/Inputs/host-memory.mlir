// On the CPU, host memory is what kernels see: nothing to register.
func.func @make_device_visible_f32(%m: memref<*xf32>) {
  return
}
func.func @make_device_visible_i64(%m: memref<*xi64>) {
  return
}
func.func @make_device_visible_bf16(%m: memref<*xbf16>) {
  return
}
