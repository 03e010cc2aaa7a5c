// Copies that TMA cannot carry stay copies, with the reason
// (matchTMATile in Vx/Conversion/VxTransferToNVGPU/TMA.h).
// RUN: vx-opt %s --test-vx-tma-copies -verify-diagnostics

#wg = #gpu.address_space<workgroup>
func.func @limits(%row: memref<4x64xf32>, %bytes: memref<64x64xi8>,
                  %dynamic: memref<?x?xf32>, %narrow: memref<64x6xf32>,
                  %tall: memref<512x4xf32>, %global: memref<64x64xf32, 1>,
                  %columns: memref<64x64xf32, strided<[1, 64]>>,
                  %shifted: memref<64x64xf32, strided<[64, 1], offset: 1>>,
                  %wide: memref<64x64xf32>, %six: memref<2x2x2x2x16x32xf32>,
                  %rows: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
      threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1)
      workgroup(%vector : memref<64xf32, #wg>, %i8 : memref<16x16xi8, #wg>,
                %f16x4 : memref<16x4xf32, #wg>, %f300x4 : memref<300x4xf32, #wg>,
                %f16x2 : memref<16x2xf32, #wg>, %f16x32 : memref<16x32xf32, #wg>,
                %f16x64 : memref<16x64xf32, #wg>) {
    %v = memref.subview %row[0, 0] [1, 64] [1, 1] : memref<4x64xf32> to memref<64xf32, strided<[1]>>
    // expected-remark @+1 {{stays a copy: TMA carries tiles of 2 or more dimensions here}}
    memref.copy %v, %vector : memref<64xf32, strided<[1]>> to memref<64xf32, #wg>
    %b = memref.subview %bytes[0, 0] [16, 16] [1, 1] : memref<64x64xi8> to memref<16x16xi8, strided<[64, 1]>>
    // expected-remark @+1 {{stays a copy: a tensor map holds f16, bf16, f32, f64, i32, i64 or unsigned integers}}
    memref.copy %b, %i8 : memref<16x16xi8, strided<[64, 1]>> to memref<16x16xi8, #wg>
    %d = memref.subview %dynamic[0, 0] [16, 32] [1, 1] : memref<?x?xf32> to memref<16x32xf32, strided<[?, 1]>>
    // expected-remark @+1 {{stays a copy: a tensor map needs the tensor's outer strides to be known multiples of 16 bytes}}
    memref.copy %d, %f16x32 : memref<16x32xf32, strided<[?, 1]>> to memref<16x32xf32, #wg>
    %n = memref.subview %narrow[0, 0] [16, 4] [1, 1] : memref<64x6xf32> to memref<16x4xf32, strided<[6, 1]>>
    // expected-remark @+1 {{stays a copy: a tensor map needs the tensor's outer strides to be known multiples of 16 bytes}}
    memref.copy %n, %f16x4 : memref<16x4xf32, strided<[6, 1]>> to memref<16x4xf32, #wg>
    %t = memref.subview %tall[0, 0] [300, 4] [1, 1] : memref<512x4xf32> to memref<300x4xf32, strided<[4, 1]>>
    // expected-remark @+1 {{stays a copy: a TMA box has at most 256 elements along each dimension}}
    memref.copy %t, %f300x4 : memref<300x4xf32, strided<[4, 1]>> to memref<300x4xf32, #wg>
    %w = memref.subview %wide[0, 0] [16, 2] [1, 1] : memref<64x64xf32> to memref<16x2xf32, strided<[64, 1]>>
    // expected-remark @+1 {{stays a copy: the innermost dimension of a TMA box must be a multiple of 16 bytes}}
    memref.copy %w, %f16x2 : memref<16x2xf32, strided<[64, 1]>> to memref<16x2xf32, #wg>
    %g = memref.subview %global[0, 0] [16, 32] [1, 1] : memref<64x64xf32, 1> to memref<16x32xf32, strided<[64, 1]>, 1>
    // expected-remark @+1 {{stays a copy: the tensor is not in global memory}}
    memref.copy %g, %f16x32 : memref<16x32xf32, strided<[64, 1]>, 1> to memref<16x32xf32, #wg>
    %c = memref.subview %columns[0, 0] [16, 32] [1, 1] : memref<64x64xf32, strided<[1, 64]>> to memref<16x32xf32, strided<[1, 64]>>
    // expected-remark @+1 {{stays a copy: a tensor map needs the tensor's innermost stride to be 1}}
    memref.copy %c, %f16x32 : memref<16x32xf32, strided<[1, 64]>> to memref<16x32xf32, #wg>
    %s = memref.subview %shifted[0, 0] [16, 32] [1, 1] : memref<64x64xf32, strided<[64, 1], offset: 1>> to memref<16x32xf32, strided<[64, 1], offset: 1>>
    // expected-remark @+1 {{stays a copy: a tensor map needs the tensor's offset to be a known multiple of 16 bytes}}
    memref.copy %s, %f16x32 : memref<16x32xf32, strided<[64, 1], offset: 1>> to memref<16x32xf32, #wg>
    %e = memref.subview %wide[0, 0] [16, 32] [1, 2] : memref<64x64xf32> to memref<16x32xf32, strided<[64, 2]>>
    // expected-remark @+1 {{stays a copy: TMA copies boxes of consecutive elements, and a memref.subview on the way to the tensor has a stride other than 1}}
    memref.copy %e, %f16x32 : memref<16x32xf32, strided<[64, 2]>> to memref<16x32xf32, #wg>
    %h = memref.subview %wide[0, 0] [16, 32] [1, 1] : memref<64x64xf32> to memref<16x32xf32, strided<[64, 1]>>
    %half = memref.subview %f16x64[0, 0] [16, 32] [1, 1] : memref<16x64xf32, #wg> to memref<16x32xf32, strided<[64, 1]>, #wg>
    // expected-remark @+1 {{stays a copy: TMA writes a contiguous row-major box at a 128-byte aligned address of shared memory, and the destination's layout does not prove one}}
    memref.copy %h, %half : memref<16x32xf32, strided<[64, 1]>> to memref<16x32xf32, strided<[64, 1]>, #wg>
    %x = memref.subview %six[0, 0, 0, 0, 0, 0] [1, 1, 1, 1, 16, 32] [1, 1, 1, 1, 1, 1] : memref<2x2x2x2x16x32xf32> to memref<16x32xf32, strided<[32, 1]>>
    // expected-remark @+1 {{stays a copy: a tensor map has at most 5 dimensions, and the tensor has 6}}
    memref.copy %x, %f16x32 : memref<16x32xf32, strided<[32, 1]>> to memref<16x32xf32, #wg>
    %r = memref.subview %wide[0, 0] [%rows, 32] [1, 1] : memref<64x64xf32> to memref<?x32xf32, strided<[64, 1]>>
    // expected-remark @+1 {{stays a copy: TMA copies boxes of a static shape}}
    memref.copy %r, %f16x32 : memref<?x32xf32, strided<[64, 1]>> to memref<16x32xf32, #wg>
    %inner = memref.alloca() : memref<16x32xf32>
    // expected-remark @+1 {{stays a copy: the tensor map is encoded on the host, and the tensor is defined in the kernel}}
    memref.copy %inner, %f16x32 : memref<16x32xf32> to memref<16x32xf32, #wg>
    %is_first = arith.cmpi eq, %tx, %c0 : index
    scf.if %is_first {
      // expected-remark @+1 {{stays a copy: the test lowers copies in the launch body or in an scf.for directly in it}}
      memref.copy %h, %f16x32 : memref<16x32xf32, strided<[64, 1]>> to memref<16x32xf32, #wg>
    }
    gpu.terminator
  }
  return
}
