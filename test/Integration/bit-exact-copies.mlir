// Copies move bits (VX_SPEC: every route runs to the same numbers): each
// element type, bf16 and f16 subnormals and signalling NaNs included, goes
// through global memory, shared memory (a transfer: TMA on sm_90a but for
// i8 and i16, which a tensor map cannot encode) and a
// guarded thread loop, and must arrive bit for bit. A bf16 value carried
// between blocks (the guard, the detect-races checks) used to be rounded
// through f32 by the x86 backend: subnormals flushed, NaNs quieted.
// RUN: vx-opt %s --vx-to-llvm | %mlir_runner -e main | FileCheck %s
// RUN: vx-opt %s --vx-to-llvm="openmp=true" | %mlir_runner -e main | FileCheck %s
// RUN: vx-opt %s --vx-to-llvm="via-gpu=true" | %mlir_runner -e main | FileCheck %s
// RUN: vx-opt %s --vx-to-llvm="via-gpu=true reverse-parallel=true threads-per-block=3" | %mlir_runner -e main | FileCheck %s
// RUN: vx-opt %s --vx-to-llvm="detect-races=true" | %mlir_runner -e main | FileCheck %s
// RUN: vx-opt %s --vx-to-llvm="detect-races=true via-gpu=true" | %mlir_runner -e main | FileCheck %s
// RUN: vx-opt %s --convert-vx-to-gpu="chip=sm_90a" | vx-opt --vx-to-llvm="via-gpu=true" | %mlir_runner -e main | FileCheck %s
// RUN: vx-opt %s --convert-vx-to-gpu="chip=sm_90a" | vx-opt --vx-to-llvm="via-gpu=true reverse-parallel=true" | %mlir_runner -e main | FileCheck %s
// RUN: vx-opt %s --convert-vx-to-gpu="chip=sm_90a" | FileCheck %s --check-prefix=TMA

// The source bytes: bf16 specials (subnormals, signalling and quiet NaNs,
// infinities, -0), then f16 ones, then f32 and f64 ones as 16-bit halves,
// then arbitrary bits.
memref.global "private" constant @bits : memref<512xi16> = dense<[1, -32767, 127, -32641, 32641, -127, 32703, 32704, 32640, -128, -32768, 0, 16256, 32639, 64, -1, 1, -32767, 1023, -31745, 31745, -1023, 32255, 32256, 31744, -1024, -32768, 0, 15360, 31743, 512, -1, 1, 32640, 0, -96, 1, 0, -1, -32641, 0, 32704, 0, 32640, 0, -32768, -1, 32639, 0, 64, -1, 32703, 0, 16256, 0, 0, 1, -32768, 1, -128, -1, 32767, -1, 0, 1, 0, 0, 32752, 0, 0, 0, -12, 1, 0, 0, 0, -1, -1, -1, -32753, 0, 0, 0, 32760, 0, 0, 0, 32752, 0, 0, 0, -32768, -1, -1, -1, 32751, -2637, -29201, -28053, 25742, 9692, 8568, -32191, -21881, -32387, -16729, -12727, 24030, 32484, 31434, -1158, 9350, 10319, -9803, -10761, 6909, -7933, -19699, 1586, -2817, -32383, 18026, -21256, 29815, 18477, 12941, -14164, -25948, 4925, 11130, 22306, -5299, 19872, -30795, 6674, 22663, 1972, -6283, 19820, -20139, -11035, 8517, -25177, -8168, -4245, -19307, 1662, -18228, 20575, -30750, 23292, -2228, -18692, 8058, 32668, 22276, 27257, -1424, 11986, -21681, -21186, 7497, -14015, -20482, 14983, -25957, -32198, 10800, -26239, -5692, -4791, -28212, 15381, 2948, -28185, 28390, -2932, 15850, 509, 7536, -16662, 24856, -26718, 12726, 4209, -10105, -11713, -5165, 454, 23685, -19435, 1904, 24930, 29735, -15601, 25141, -22367, -15246, 8231, -20335, 5565, 24046, 8198, 10267, -26942, 30504, 17987, -4933, -2945, 13432, 30469, -17239, -28787, 3980, -1188, 21143, -24604, -4268, 28029, -8236, -25693, 26668, 19691, -22013, 7608, 29727, 16383, -4017, 10390, 31996, -8687, -23868, -25406, 5723, 16539, 13562, -13029, 11381, -16462, 26752, 21747, 2660, 24562, -7337, 6623, -7357, 6646, 29081, -28795, 26564, 12354, -7385, -17610, -22322, 27327, -14170, 25006, 21206, 1105, -19712, 31543, 26271, -23351, -15729, -3867, -21226, 8674, 32080, 9639, 6286, 17054, 6149, -1333, 12284, -6847, 13577, 17599, -25278, -1828, -22067, -15421, -21490, 8308, -16, -20240, -18136, -2334, -26083, -1624, 24653, 29005, 31462, 29218, -19769, 14165, -25128, -26835, 21616, -12684, -1494, -30616, -10466, -31215, 3724, 23555, 14353, -5033, 5393, 7440, -7033, 31618, -31101, 12967, 14525, 19974, 32003, -26501, -8769, -31619, -29584, 5347, 22801, 7301, -5694, 16212, 11185, 32027, -21433, 19675, 14456, 3047, 29838, 3211, -31931, -825, -21050, 383, -9755, 11163, 2901, -16584, -28663, 12535, 16267, 23391, 19705, 23125, 2504, -28135, -1764, 5892, -16732, 16179, -995, 19824, -22471, -4579, -21288, -28741, 26230, -21833, -31601, 25264, -11754, -5139, 17765, 8540, -9050, -8517, -14123, -15070, -20826, -8532, -8425, 20996, 9188, 16147, 18310, -9185, 24662, 18620, -28466, -1183, -14490, -22038, 23480, -30403, -21712, 12283, 13271, 9295, -765, 21673, -10631, 3703, 1938, 1367, 24114, -32193, -1645, 2789, -25305, -2136, 16086, -627, -12157, -14110, -14575, -23097, -22720, 32009, 216, -32506, 1540, -6856, 2811, -10196, 21622, -16167, 7517, 28901, -10374, 5677, -29487, 24617, 16760, 16977, -1568, 25302, 1263, -206, -8117, -1222, 25216, 10671, -15270, 20928, 27331, -2049, -30214, 30736, -25389, -4214, -10789, 6478, -1680, -15725, -7665, 27063, 12533, -26373, -28726, 18994, 6726, 14592, 14608, -17536, -5434, -11889, -3063, -12883, 28851, -11717, 19042, -25079, 8907, -4893, -31557, -8276, -260, 4704, 4333, -879, 829, -1734, 10301, -32392, 23926, 22219, -28780, -496, -6596, -884, -15521, -9907, 12508, -5706, 32619, -3533, 2353, -10647, 28332, 5876, -16236, -22576, 11635, -31202, -28279, -1038, -17566, 31848, -11184, 12875, -19397, 27454, 28490, -15961, 20889, 8536, -2414, 6768, 30535]>
func.func @copy_i8(%a: memref<4x32xi8>, %b: memref<4x32xi8>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  vx.spawn on tensor_core grid [4, 2] semantics [parallel, arbitrary] threads 8 {
    %tile = vx.scratch smem : memref<1x16xi8>
    %p = vx.grid_index 0
    %s = vx.grid_index 1
    %q = arith.muli %s, %c16 : index
    %src = memref.subview %a[%p, %q] [1, 16] [1, 1] : memref<4x32xi8> to memref<1x16xi8, strided<[32, 1], offset: ?>>
    %tok = vx.transfer_async %src to %tile : memref<1x16xi8, strided<[32, 1], offset: ?>> to memref<1x16xi8>
    vx.await %tok
    scf.parallel (%t) = (%c0) to (%c16) step (%c1) {
      %x = memref.load %tile[%c0, %t] : memref<1x16xi8>
      %column = arith.addi %q, %t : index
      %inside = arith.cmpi ult, %column, %n : index
      scf.if %inside {
        memref.store %x, %b[%p, %column] : memref<4x32xi8>
      }
      scf.reduce
    }
  }
  return
}
func.func @copy_i16(%a: memref<4x32xi16>, %b: memref<4x32xi16>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  vx.spawn on tensor_core grid [4, 2] semantics [parallel, arbitrary] threads 8 {
    %tile = vx.scratch smem : memref<1x16xi16>
    %p = vx.grid_index 0
    %s = vx.grid_index 1
    %q = arith.muli %s, %c16 : index
    %src = memref.subview %a[%p, %q] [1, 16] [1, 1] : memref<4x32xi16> to memref<1x16xi16, strided<[32, 1], offset: ?>>
    %tok = vx.transfer_async %src to %tile : memref<1x16xi16, strided<[32, 1], offset: ?>> to memref<1x16xi16>
    vx.await %tok
    scf.parallel (%t) = (%c0) to (%c16) step (%c1) {
      %x = memref.load %tile[%c0, %t] : memref<1x16xi16>
      %column = arith.addi %q, %t : index
      %inside = arith.cmpi ult, %column, %n : index
      scf.if %inside {
        memref.store %x, %b[%p, %column] : memref<4x32xi16>
      }
      scf.reduce
    }
  }
  return
}
// TMA-LABEL: func.func @copy_i32
// TMA: nvgpu.tma.async.load
func.func @copy_i32(%a: memref<4x32xi32>, %b: memref<4x32xi32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  vx.spawn on tensor_core grid [4, 2] semantics [parallel, arbitrary] threads 8 {
    %tile = vx.scratch smem : memref<1x16xi32>
    %p = vx.grid_index 0
    %s = vx.grid_index 1
    %q = arith.muli %s, %c16 : index
    %src = memref.subview %a[%p, %q] [1, 16] [1, 1] : memref<4x32xi32> to memref<1x16xi32, strided<[32, 1], offset: ?>>
    %tok = vx.transfer_async %src to %tile : memref<1x16xi32, strided<[32, 1], offset: ?>> to memref<1x16xi32>
    vx.await %tok
    scf.parallel (%t) = (%c0) to (%c16) step (%c1) {
      %x = memref.load %tile[%c0, %t] : memref<1x16xi32>
      %column = arith.addi %q, %t : index
      %inside = arith.cmpi ult, %column, %n : index
      scf.if %inside {
        memref.store %x, %b[%p, %column] : memref<4x32xi32>
      }
      scf.reduce
    }
  }
  return
}
// TMA-LABEL: func.func @copy_i64
// TMA: nvgpu.tma.async.load
func.func @copy_i64(%a: memref<4x32xi64>, %b: memref<4x32xi64>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  vx.spawn on tensor_core grid [4, 2] semantics [parallel, arbitrary] threads 8 {
    %tile = vx.scratch smem : memref<1x16xi64>
    %p = vx.grid_index 0
    %s = vx.grid_index 1
    %q = arith.muli %s, %c16 : index
    %src = memref.subview %a[%p, %q] [1, 16] [1, 1] : memref<4x32xi64> to memref<1x16xi64, strided<[32, 1], offset: ?>>
    %tok = vx.transfer_async %src to %tile : memref<1x16xi64, strided<[32, 1], offset: ?>> to memref<1x16xi64>
    vx.await %tok
    scf.parallel (%t) = (%c0) to (%c16) step (%c1) {
      %x = memref.load %tile[%c0, %t] : memref<1x16xi64>
      %column = arith.addi %q, %t : index
      %inside = arith.cmpi ult, %column, %n : index
      scf.if %inside {
        memref.store %x, %b[%p, %column] : memref<4x32xi64>
      }
      scf.reduce
    }
  }
  return
}
// TMA-LABEL: func.func @copy_f16
// TMA: nvgpu.tma.async.load
func.func @copy_f16(%a: memref<4x32xf16>, %b: memref<4x32xf16>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  vx.spawn on tensor_core grid [4, 2] semantics [parallel, arbitrary] threads 8 {
    %tile = vx.scratch smem : memref<1x16xf16>
    %p = vx.grid_index 0
    %s = vx.grid_index 1
    %q = arith.muli %s, %c16 : index
    %src = memref.subview %a[%p, %q] [1, 16] [1, 1] : memref<4x32xf16> to memref<1x16xf16, strided<[32, 1], offset: ?>>
    %tok = vx.transfer_async %src to %tile : memref<1x16xf16, strided<[32, 1], offset: ?>> to memref<1x16xf16>
    vx.await %tok
    scf.parallel (%t) = (%c0) to (%c16) step (%c1) {
      %x = memref.load %tile[%c0, %t] : memref<1x16xf16>
      %column = arith.addi %q, %t : index
      %inside = arith.cmpi ult, %column, %n : index
      scf.if %inside {
        memref.store %x, %b[%p, %column] : memref<4x32xf16>
      }
      scf.reduce
    }
  }
  return
}
// TMA-LABEL: func.func @copy_bf16
// TMA: nvgpu.tma.async.load
func.func @copy_bf16(%a: memref<4x32xbf16>, %b: memref<4x32xbf16>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  vx.spawn on tensor_core grid [4, 2] semantics [parallel, arbitrary] threads 8 {
    %tile = vx.scratch smem : memref<1x16xbf16>
    %p = vx.grid_index 0
    %s = vx.grid_index 1
    %q = arith.muli %s, %c16 : index
    %src = memref.subview %a[%p, %q] [1, 16] [1, 1] : memref<4x32xbf16> to memref<1x16xbf16, strided<[32, 1], offset: ?>>
    %tok = vx.transfer_async %src to %tile : memref<1x16xbf16, strided<[32, 1], offset: ?>> to memref<1x16xbf16>
    vx.await %tok
    scf.parallel (%t) = (%c0) to (%c16) step (%c1) {
      %x = memref.load %tile[%c0, %t] : memref<1x16xbf16>
      %column = arith.addi %q, %t : index
      %inside = arith.cmpi ult, %column, %n : index
      scf.if %inside {
        memref.store %x, %b[%p, %column] : memref<4x32xbf16>
      }
      scf.reduce
    }
  }
  return
}
// TMA-LABEL: func.func @copy_f32
// TMA: nvgpu.tma.async.load
func.func @copy_f32(%a: memref<4x32xf32>, %b: memref<4x32xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  vx.spawn on tensor_core grid [4, 2] semantics [parallel, arbitrary] threads 8 {
    %tile = vx.scratch smem : memref<1x16xf32>
    %p = vx.grid_index 0
    %s = vx.grid_index 1
    %q = arith.muli %s, %c16 : index
    %src = memref.subview %a[%p, %q] [1, 16] [1, 1] : memref<4x32xf32> to memref<1x16xf32, strided<[32, 1], offset: ?>>
    %tok = vx.transfer_async %src to %tile : memref<1x16xf32, strided<[32, 1], offset: ?>> to memref<1x16xf32>
    vx.await %tok
    scf.parallel (%t) = (%c0) to (%c16) step (%c1) {
      %x = memref.load %tile[%c0, %t] : memref<1x16xf32>
      %column = arith.addi %q, %t : index
      %inside = arith.cmpi ult, %column, %n : index
      scf.if %inside {
        memref.store %x, %b[%p, %column] : memref<4x32xf32>
      }
      scf.reduce
    }
  }
  return
}
// TMA-LABEL: func.func @copy_f64
// TMA: nvgpu.tma.async.load
func.func @copy_f64(%a: memref<4x32xf64>, %b: memref<4x32xf64>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  vx.spawn on tensor_core grid [4, 2] semantics [parallel, arbitrary] threads 8 {
    %tile = vx.scratch smem : memref<1x16xf64>
    %p = vx.grid_index 0
    %s = vx.grid_index 1
    %q = arith.muli %s, %c16 : index
    %src = memref.subview %a[%p, %q] [1, 16] [1, 1] : memref<4x32xf64> to memref<1x16xf64, strided<[32, 1], offset: ?>>
    %tok = vx.transfer_async %src to %tile : memref<1x16xf64, strided<[32, 1], offset: ?>> to memref<1x16xf64>
    vx.await %tok
    scf.parallel (%t) = (%c0) to (%c16) step (%c1) {
      %x = memref.load %tile[%c0, %t] : memref<1x16xf64>
      %column = arith.addi %q, %t : index
      %inside = arith.cmpi ult, %column, %n : index
      scf.if %inside {
        memref.store %x, %b[%p, %column] : memref<4x32xf64>
      }
      scf.reduce
    }
  }
  return
}
// The number of bytes of `b` that differ from `a`.
func.func @differences(%a: memref<?xi8>, %b: memref<?xi8>) -> i64 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0 : i64
  %one = arith.constant 1 : i64
  %size = memref.dim %a, %c0 : memref<?xi8>
  %count = scf.for %k = %c0 to %size step %c1 iter_args(%sum = %zero) -> i64 {
    %x = memref.load %a[%k] : memref<?xi8>
    %y = memref.load %b[%k] : memref<?xi8>
    %same = arith.cmpi eq, %x, %y : i8
    %add = arith.select %same, %zero, %one : i64
    %next = arith.addi %sum, %add : i64
    scf.yield %next : i64
  }
  return %count : i64
}

func.func @main() {
  %c0 = arith.constant 0 : index
  %n = arith.constant 32 : index
  %bits = memref.get_global @bits : memref<512xi16>
  %a_i8_bytes = memref.alloc() : memref<128xi8>
  %b_i8_bytes = memref.alloc() : memref<128xi8>
  %a_i8_halves = memref.view %a_i8_bytes[%c0][] : memref<128xi8> to memref<64xi16>
  %bits_i8 = memref.subview %bits[0] [64] [1] : memref<512xi16> to memref<64xi16, strided<[1]>>
  memref.copy %bits_i8, %a_i8_halves : memref<64xi16, strided<[1]>> to memref<64xi16>
  %a_i8 = memref.view %a_i8_bytes[%c0][] : memref<128xi8> to memref<4x32xi8>
  %b_i8 = memref.view %b_i8_bytes[%c0][] : memref<128xi8> to memref<4x32xi8>
  call @copy_i8(%a_i8, %b_i8, %n) : (memref<4x32xi8>, memref<4x32xi8>, index) -> ()
  %a_i8_any = memref.cast %a_i8_bytes : memref<128xi8> to memref<?xi8>
  %b_i8_any = memref.cast %b_i8_bytes : memref<128xi8> to memref<?xi8>
  %diff_i8 = call @differences(%a_i8_any, %b_i8_any) : (memref<?xi8>, memref<?xi8>) -> i64
  // CHECK: i8 differing bytes: 0
  vector.print str "i8 differing bytes: "
  vector.print %diff_i8 : i64
  memref.dealloc %a_i8_bytes : memref<128xi8>
  memref.dealloc %b_i8_bytes : memref<128xi8>
  %a_i16_bytes = memref.alloc() : memref<256xi8>
  %b_i16_bytes = memref.alloc() : memref<256xi8>
  %a_i16_halves = memref.view %a_i16_bytes[%c0][] : memref<256xi8> to memref<128xi16>
  %bits_i16 = memref.subview %bits[0] [128] [1] : memref<512xi16> to memref<128xi16, strided<[1]>>
  memref.copy %bits_i16, %a_i16_halves : memref<128xi16, strided<[1]>> to memref<128xi16>
  %a_i16 = memref.view %a_i16_bytes[%c0][] : memref<256xi8> to memref<4x32xi16>
  %b_i16 = memref.view %b_i16_bytes[%c0][] : memref<256xi8> to memref<4x32xi16>
  call @copy_i16(%a_i16, %b_i16, %n) : (memref<4x32xi16>, memref<4x32xi16>, index) -> ()
  %a_i16_any = memref.cast %a_i16_bytes : memref<256xi8> to memref<?xi8>
  %b_i16_any = memref.cast %b_i16_bytes : memref<256xi8> to memref<?xi8>
  %diff_i16 = call @differences(%a_i16_any, %b_i16_any) : (memref<?xi8>, memref<?xi8>) -> i64
  // CHECK: i16 differing bytes: 0
  vector.print str "i16 differing bytes: "
  vector.print %diff_i16 : i64
  memref.dealloc %a_i16_bytes : memref<256xi8>
  memref.dealloc %b_i16_bytes : memref<256xi8>
  %a_i32_bytes = memref.alloc() : memref<512xi8>
  %b_i32_bytes = memref.alloc() : memref<512xi8>
  %a_i32_halves = memref.view %a_i32_bytes[%c0][] : memref<512xi8> to memref<256xi16>
  %bits_i32 = memref.subview %bits[0] [256] [1] : memref<512xi16> to memref<256xi16, strided<[1]>>
  memref.copy %bits_i32, %a_i32_halves : memref<256xi16, strided<[1]>> to memref<256xi16>
  %a_i32 = memref.view %a_i32_bytes[%c0][] : memref<512xi8> to memref<4x32xi32>
  %b_i32 = memref.view %b_i32_bytes[%c0][] : memref<512xi8> to memref<4x32xi32>
  call @copy_i32(%a_i32, %b_i32, %n) : (memref<4x32xi32>, memref<4x32xi32>, index) -> ()
  %a_i32_any = memref.cast %a_i32_bytes : memref<512xi8> to memref<?xi8>
  %b_i32_any = memref.cast %b_i32_bytes : memref<512xi8> to memref<?xi8>
  %diff_i32 = call @differences(%a_i32_any, %b_i32_any) : (memref<?xi8>, memref<?xi8>) -> i64
  // CHECK: i32 differing bytes: 0
  vector.print str "i32 differing bytes: "
  vector.print %diff_i32 : i64
  memref.dealloc %a_i32_bytes : memref<512xi8>
  memref.dealloc %b_i32_bytes : memref<512xi8>
  %a_i64_bytes = memref.alloc() : memref<1024xi8>
  %b_i64_bytes = memref.alloc() : memref<1024xi8>
  %a_i64_halves = memref.view %a_i64_bytes[%c0][] : memref<1024xi8> to memref<512xi16>
  %bits_i64 = memref.subview %bits[0] [512] [1] : memref<512xi16> to memref<512xi16, strided<[1]>>
  memref.copy %bits_i64, %a_i64_halves : memref<512xi16, strided<[1]>> to memref<512xi16>
  %a_i64 = memref.view %a_i64_bytes[%c0][] : memref<1024xi8> to memref<4x32xi64>
  %b_i64 = memref.view %b_i64_bytes[%c0][] : memref<1024xi8> to memref<4x32xi64>
  call @copy_i64(%a_i64, %b_i64, %n) : (memref<4x32xi64>, memref<4x32xi64>, index) -> ()
  %a_i64_any = memref.cast %a_i64_bytes : memref<1024xi8> to memref<?xi8>
  %b_i64_any = memref.cast %b_i64_bytes : memref<1024xi8> to memref<?xi8>
  %diff_i64 = call @differences(%a_i64_any, %b_i64_any) : (memref<?xi8>, memref<?xi8>) -> i64
  // CHECK: i64 differing bytes: 0
  vector.print str "i64 differing bytes: "
  vector.print %diff_i64 : i64
  memref.dealloc %a_i64_bytes : memref<1024xi8>
  memref.dealloc %b_i64_bytes : memref<1024xi8>
  %a_f16_bytes = memref.alloc() : memref<256xi8>
  %b_f16_bytes = memref.alloc() : memref<256xi8>
  %a_f16_halves = memref.view %a_f16_bytes[%c0][] : memref<256xi8> to memref<128xi16>
  %bits_f16 = memref.subview %bits[0] [128] [1] : memref<512xi16> to memref<128xi16, strided<[1]>>
  memref.copy %bits_f16, %a_f16_halves : memref<128xi16, strided<[1]>> to memref<128xi16>
  %a_f16 = memref.view %a_f16_bytes[%c0][] : memref<256xi8> to memref<4x32xf16>
  %b_f16 = memref.view %b_f16_bytes[%c0][] : memref<256xi8> to memref<4x32xf16>
  call @copy_f16(%a_f16, %b_f16, %n) : (memref<4x32xf16>, memref<4x32xf16>, index) -> ()
  %a_f16_any = memref.cast %a_f16_bytes : memref<256xi8> to memref<?xi8>
  %b_f16_any = memref.cast %b_f16_bytes : memref<256xi8> to memref<?xi8>
  %diff_f16 = call @differences(%a_f16_any, %b_f16_any) : (memref<?xi8>, memref<?xi8>) -> i64
  // CHECK: f16 differing bytes: 0
  vector.print str "f16 differing bytes: "
  vector.print %diff_f16 : i64
  memref.dealloc %a_f16_bytes : memref<256xi8>
  memref.dealloc %b_f16_bytes : memref<256xi8>
  %a_bf16_bytes = memref.alloc() : memref<256xi8>
  %b_bf16_bytes = memref.alloc() : memref<256xi8>
  %a_bf16_halves = memref.view %a_bf16_bytes[%c0][] : memref<256xi8> to memref<128xi16>
  %bits_bf16 = memref.subview %bits[0] [128] [1] : memref<512xi16> to memref<128xi16, strided<[1]>>
  memref.copy %bits_bf16, %a_bf16_halves : memref<128xi16, strided<[1]>> to memref<128xi16>
  %a_bf16 = memref.view %a_bf16_bytes[%c0][] : memref<256xi8> to memref<4x32xbf16>
  %b_bf16 = memref.view %b_bf16_bytes[%c0][] : memref<256xi8> to memref<4x32xbf16>
  call @copy_bf16(%a_bf16, %b_bf16, %n) : (memref<4x32xbf16>, memref<4x32xbf16>, index) -> ()
  %a_bf16_any = memref.cast %a_bf16_bytes : memref<256xi8> to memref<?xi8>
  %b_bf16_any = memref.cast %b_bf16_bytes : memref<256xi8> to memref<?xi8>
  %diff_bf16 = call @differences(%a_bf16_any, %b_bf16_any) : (memref<?xi8>, memref<?xi8>) -> i64
  // CHECK: bf16 differing bytes: 0
  vector.print str "bf16 differing bytes: "
  vector.print %diff_bf16 : i64
  memref.dealloc %a_bf16_bytes : memref<256xi8>
  memref.dealloc %b_bf16_bytes : memref<256xi8>
  %a_f32_bytes = memref.alloc() : memref<512xi8>
  %b_f32_bytes = memref.alloc() : memref<512xi8>
  %a_f32_halves = memref.view %a_f32_bytes[%c0][] : memref<512xi8> to memref<256xi16>
  %bits_f32 = memref.subview %bits[0] [256] [1] : memref<512xi16> to memref<256xi16, strided<[1]>>
  memref.copy %bits_f32, %a_f32_halves : memref<256xi16, strided<[1]>> to memref<256xi16>
  %a_f32 = memref.view %a_f32_bytes[%c0][] : memref<512xi8> to memref<4x32xf32>
  %b_f32 = memref.view %b_f32_bytes[%c0][] : memref<512xi8> to memref<4x32xf32>
  call @copy_f32(%a_f32, %b_f32, %n) : (memref<4x32xf32>, memref<4x32xf32>, index) -> ()
  %a_f32_any = memref.cast %a_f32_bytes : memref<512xi8> to memref<?xi8>
  %b_f32_any = memref.cast %b_f32_bytes : memref<512xi8> to memref<?xi8>
  %diff_f32 = call @differences(%a_f32_any, %b_f32_any) : (memref<?xi8>, memref<?xi8>) -> i64
  // CHECK: f32 differing bytes: 0
  vector.print str "f32 differing bytes: "
  vector.print %diff_f32 : i64
  memref.dealloc %a_f32_bytes : memref<512xi8>
  memref.dealloc %b_f32_bytes : memref<512xi8>
  %a_f64_bytes = memref.alloc() : memref<1024xi8>
  %b_f64_bytes = memref.alloc() : memref<1024xi8>
  %a_f64_halves = memref.view %a_f64_bytes[%c0][] : memref<1024xi8> to memref<512xi16>
  %bits_f64 = memref.subview %bits[0] [512] [1] : memref<512xi16> to memref<512xi16, strided<[1]>>
  memref.copy %bits_f64, %a_f64_halves : memref<512xi16, strided<[1]>> to memref<512xi16>
  %a_f64 = memref.view %a_f64_bytes[%c0][] : memref<1024xi8> to memref<4x32xf64>
  %b_f64 = memref.view %b_f64_bytes[%c0][] : memref<1024xi8> to memref<4x32xf64>
  call @copy_f64(%a_f64, %b_f64, %n) : (memref<4x32xf64>, memref<4x32xf64>, index) -> ()
  %a_f64_any = memref.cast %a_f64_bytes : memref<1024xi8> to memref<?xi8>
  %b_f64_any = memref.cast %b_f64_bytes : memref<1024xi8> to memref<?xi8>
  %diff_f64 = call @differences(%a_f64_any, %b_f64_any) : (memref<?xi8>, memref<?xi8>) -> i64
  // CHECK: f64 differing bytes: 0
  vector.print str "f64 differing bytes: "
  vector.print %diff_f64 : i64
  memref.dealloc %a_f64_bytes : memref<1024xi8>
  memref.dealloc %b_f64_bytes : memref<1024xi8>
  return
}
