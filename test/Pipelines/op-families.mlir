// One kernel per op family that the device-legality check admits, through
// every route: each pipeline lowers it completely (vx-check-lowered ends
// every pipeline), the PTX assembles, and every CPU route computes the same
// numbers as the reference route (plain --vx-to-llvm).
// RUN: rm -rf %t && mkdir -p %t
// RUN: vx-opt %s --vx-to-scf -o /dev/null
// RUN: vx-opt %s --vx-to-gpu -o /dev/null
// RUN: vx-opt %s --vx-to-nvvm -o /dev/null
// RUN: vx-opt %s --vx-to-llvm | %mlir_runner -e main > %t/reference.txt
// RUN: FileCheck %s < %t/reference.txt
// RUN: vx-opt %s --vx-to-llvm="openmp=true" | %mlir_runner -e main > %t/openmp.txt
// RUN: diff %t/reference.txt %t/openmp.txt
// RUN: vx-opt %s --vx-to-llvm="via-gpu=true" | %mlir_runner -e main > %t/via-gpu.txt
// RUN: diff %t/reference.txt %t/via-gpu.txt
// RUN: vx-opt %s --vx-to-llvm="via-gpu=true threads-per-block=3 openmp=true" | %mlir_runner -e main > %t/via-gpu-3.txt
// RUN: diff %t/reference.txt %t/via-gpu-3.txt
// The ptx route and ptxas, where a toolkit is: op-families-ptxas.test.

// Every kernel reports the sum of what it wrote; the atomics add 8 + 8.
// CHECK-COUNT-14: sum {{.*}}
// CHECK-NEXT: sum 16
// CHECK-NEXT: done

memref.global "private" constant @table : memref<4xf32> = dense<[1.0, 2.0, 3.0, 4.0]>

func.func private @printF64(f64)
func.func private @printNewline()

// Integer arithmetic.
func.func @arith_int(%in: memref<64xi32>, %out: memref<64xi32>) {
  vx.spawn on tensor_core grid [8] semantics [parallel] {
    %i = vx.grid_index 0
    %c8 = arith.constant 8 : index
    %base = arith.muli %i, %c8 : index
    %a = memref.load %in[%base] : memref<64xi32>
    %c3 = arith.constant 3 : i32
    %cm7 = arith.constant -7 : i32
    %b = arith.addi %a, %cm7 : i32
    %r0 = arith.divsi %b, %c3 : i32
    %r1 = arith.remsi %b, %c3 : i32
    %r2 = arith.ceildivsi %b, %c3 : i32
    %r3 = arith.floordivsi %b, %c3 : i32
    %r4 = arith.divui %a, %c3 : i32
    %r5 = arith.remui %a, %c3 : i32
    %s0 = arith.shli %a, %c3 : i32
    %s1 = arith.shrsi %b, %c3 : i32
    %s2 = arith.shrui %a, %c3 : i32
    %x0 = arith.xori %s0, %s1 : i32
    %x1 = arith.andi %x0, %s2 : i32
    %x2 = arith.ori %x1, %r5 : i32
    %m0 = arith.maxsi %r0, %r1 : i32
    %m1 = arith.minui %r2, %r4 : i32
    %lo, %hi = arith.mului_extended %a, %c3 : i32
    %slo, %shi = arith.mulsi_extended %b, %c3 : i32
    %sum, %carry = arith.addui_extended %a, %c3 : i32, i1
    %w = arith.extsi %r3 : i32 to i64
    %n = arith.trunci %w : i64 to i16
    %e = arith.extui %n : i16 to i32
    %cmp = arith.cmpi slt, %b, %a : i32
    %sel = arith.select %cmp, %m0, %m1 : i32
    %ix = arith.index_cast %sel : i32 to index
    %iu = arith.index_castui %ix : index to i32
    %t0 = arith.addi %x2, %e : i32
    %t1 = arith.addi %t0, %hi : i32
    %t2 = arith.addi %t1, %shi : i32
    %t3 = arith.addi %t2, %sum : i32
    %t4 = arith.addi %t3, %iu : i32
    %t5 = arith.subi %t4, %lo : i32
    %t6 = arith.muli %t5, %slo : i32
    memref.store %t6, %out[%base] : memref<64xi32>
  }
  return
}

// Floating-point arithmetic, arith.remf included.
func.func @arith_float(%in: memref<64xf32>, %out: memref<64xf32>) {
  vx.spawn on tensor_core grid [8] semantics [parallel] {
    %i = vx.grid_index 0
    %c8 = arith.constant 8 : index
    %base = arith.muli %i, %c8 : index
    %a = memref.load %in[%base] : memref<64xf32>
    %c3 = arith.constant 3.5 : f32
    %r0 = arith.remf %a, %c3 : f32
    %r1 = arith.divf %a, %c3 : f32
    %r2 = arith.negf %r1 : f32
    %r3 = arith.maximumf %r0, %r2 : f32
    %r4 = arith.minnumf %r0, %r2 : f32
    %r5 = arith.maxnumf %r3, %r4 : f32
    %r6 = arith.minimumf %r3, %r4 : f32
    %h = arith.truncf %r5 : f32 to f16
    %hx = arith.extf %h : f16 to f32
    %si = arith.fptosi %r6 : f32 to i32
    %ui = arith.fptoui %a : f32 to i32
    %sf = arith.sitofp %si : i32 to f32
    %uf = arith.uitofp %ui : i32 to f32
    %bits = arith.bitcast %uf : f32 to i32
    %back = arith.bitcast %bits : i32 to f32
    %d = arith.extf %back : f32 to f64
    %dt = arith.truncf %d : f64 to f32
    %cmp = arith.cmpf olt, %hx, %sf : f32
    %sel = arith.select %cmp, %hx, %sf : f32
    %s0 = arith.addf %sel, %dt : f32
    %s1 = arith.subf %s0, %r0 : f32
    %s2 = arith.mulf %s1, %c3 : f32
    memref.store %s2, %out[%base] : memref<64xf32>
  }
  return
}

// The math dialect: libm on the CPU, libdevice or instructions on the GPU.
func.func @math(%in: memref<64xf32>, %out: memref<64xf32>) {
  vx.spawn on tensor_core grid [8, 2] semantics [parallel, arbitrary] {
    %i = vx.grid_index 0
    %k = vx.grid_index 1
    %c8 = arith.constant 8 : index
    %row = arith.muli %i, %c8 : index
    %base = arith.addi %row, %k : index
    %x = memref.load %in[%base] : memref<64xf32>
    %c01 = arith.constant 0.01 : f32
    %small = arith.mulf %x, %c01 : f32
    %one = arith.constant 1.0 : f32
    %abs = math.absf %x : f32
    // At least 1: in the domain of every function below.
    %y0 = arith.addf %abs, %one : f32
    %y1 = math.acos %small : f32
    %y2 = math.acosh %y0 : f32
    %y3 = math.asin %small : f32
    %y4 = math.asinh %x : f32
    %y5 = math.atan %x : f32
    %y6 = math.atanh %small : f32
    %y7 = math.atan2 %x, %y0 : f32
    %y8 = math.cbrt %x : f32
    %y9 = math.ceil %x : f32
    %y10 = math.copysign %y0, %x : f32
    %y11 = math.cos %x : f32
    %y12 = math.cosh %small : f32
    %y13 = math.sin %x : f32
    %y14 = math.sinh %small : f32
    %y15 = math.erf %small : f32
    %y16 = math.erfc %small : f32
    %y17 = math.exp %small : f32
    %y18 = math.exp2 %small : f32
    %y19 = math.expm1 %small : f32
    %y20 = math.floor %x : f32
    %y21 = math.fma %x, %small, %y0 : f32
    %y22 = math.log %y0 : f32
    %y23 = math.log10 %y0 : f32
    %y24 = math.log1p %y0 : f32
    %y25 = math.log2 %y0 : f32
    %y26 = math.powf %y0, %small : f32
    %y27 = math.rsqrt %y0 : f32
    %y28 = math.sqrt %y0 : f32
    %y29 = math.tan %small : f32
    %y30 = math.tanh %x : f32
    %y31 = math.roundeven %x : f32
    %y32 = math.round %x : f32
    %y33 = math.trunc %x : f32
    %c2 = arith.constant 2 : i32
    %y34 = math.fpowi %x, %c2 : f32, i32
    %xi = arith.fptosi %x : f32 to i32
    %z0 = math.absi %xi : i32
    %z1 = math.ctlz %z0 : i32
    %z2 = math.cttz %z0 : i32
    %z3 = math.ctpop %z0 : i32
    %z4 = math.ipowi %xi, %c2 : i32
    %b0 = math.isfinite %x : f32
    %b1 = math.isnan %x : f32
    %sn, %cs = math.sincos %small : f32
    %ys = arith.addf %y1, %y2 : f32
    %y35 = arith.addf %ys, %y3 : f32
    %y36 = arith.addf %y35, %y4 : f32
    %y37 = arith.addf %y36, %y5 : f32
    %y38 = arith.addf %y37, %y6 : f32
    %y39 = arith.addf %y38, %y7 : f32
    %y40 = arith.addf %y39, %y8 : f32
    %y41 = arith.addf %y40, %y9 : f32
    %y42 = arith.addf %y41, %y10 : f32
    %y43 = arith.addf %y42, %y11 : f32
    %y44 = arith.addf %y43, %y12 : f32
    %y45 = arith.addf %y44, %y13 : f32
    %y46 = arith.addf %y45, %y14 : f32
    %y47 = arith.addf %y46, %y15 : f32
    %y48 = arith.addf %y47, %y16 : f32
    %y49 = arith.addf %y48, %y17 : f32
    %y50 = arith.addf %y49, %y18 : f32
    %y51 = arith.addf %y50, %y19 : f32
    %y52 = arith.addf %y51, %y20 : f32
    %y53 = arith.addf %y52, %y21 : f32
    %y54 = arith.addf %y53, %y22 : f32
    %y55 = arith.addf %y54, %y23 : f32
    %y56 = arith.addf %y55, %y24 : f32
    %y57 = arith.addf %y56, %y25 : f32
    %y58 = arith.addf %y57, %y26 : f32
    %y59 = arith.addf %y58, %y27 : f32
    %y60 = arith.addf %y59, %y28 : f32
    %y61 = arith.addf %y60, %y29 : f32
    %y62 = arith.addf %y61, %y30 : f32
    %y63 = arith.addf %y62, %y31 : f32
    %y64 = arith.addf %y63, %y32 : f32
    %y65 = arith.addf %y64, %y33 : f32
    %y66 = arith.addf %y65, %y34 : f32
    %zs0 = arith.addi %z1, %z2 : i32
    %zs1 = arith.addi %zs0, %z3 : i32
    %zs2 = arith.addi %zs1, %z4 : i32
    %zf = arith.sitofp %zs2 : i32 to f32
    %bb = arith.xori %b0, %b1 : i1
    %bf = arith.uitofp %bb : i1 to f32
    %y67 = arith.addf %y66, %zf : f32
    %y68 = arith.addf %y67, %bf : f32
    %y69 = arith.addf %y68, %sn : f32
    %y70 = arith.addf %y69, %cs : f32
    memref.store %y70, %out[%base] : memref<64xf32>
  }
  return
}

// The index dialect.
func.func @index_ops(%in: memref<64xi32>, %out: memref<64xi32>) {
  vx.spawn on tensor_core grid [8] semantics [parallel] {
    %i = vx.grid_index 0
    %c8 = index.constant 8
    %c3 = index.constant 3
    %base = index.mul %i, %c8
    %a32 = memref.load %in[%base] : memref<64xi32>
    %a = index.casts %a32 : i32 to index
    %b = index.sub %a, %c8
    %r0 = index.divs %b, %c3
    %r1 = index.divu %a, %c3
    %r2 = index.ceildivs %b, %c3
    %r3 = index.ceildivu %a, %c3
    %r4 = index.floordivs %b, %c3
    %r5 = index.rems %b, %c3
    %r6 = index.remu %a, %c3
    %r7 = index.maxs %r0, %r1
    %r8 = index.maxu %r2, %r3
    %r9 = index.mins %r4, %r5
    %r10 = index.minu %r6, %r7
    %r11 = index.shl %r8, %c3
    %r12 = index.shrs %b, %c3
    %r13 = index.shru %a, %c3
    %r14 = index.and %r11, %r12
    %r15 = index.or %r14, %r13
    %r16 = index.xor %r15, %r9
    %r17 = index.add %r16, %r10
    %size = index.sizeof
    %cmp = index.cmp slt(%b, %a)
    %true = index.bool.constant true
    %both = arith.andi %cmp, %true : i1
    %r18 = arith.select %both, %r17, %size : index
    %u = index.castu %r18 : index to i32
    memref.store %u, %out[%base] : memref<64xi32>
  }
  return
}

// Structured control flow: for, if, while, index_switch, execute_region,
// forall, and an scf.parallel whose reduction is more than one op.
func.func @scf_ops(%in: memref<64xf32>, %out: memref<64xf32>) {
  vx.spawn on tensor_core grid [8] semantics [parallel] {
    %i = vx.grid_index 0
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    %zero = arith.constant 0.0 : f32
    %base = arith.muli %i, %c8 : index
    %s = scf.for %k = %c0 to %c8 step %c1 iter_args(%acc = %zero) -> f32 {
      %idx = arith.addi %base, %k : index
      %x = memref.load %in[%idx] : memref<64xf32>
      %pos = arith.cmpf ogt, %x, %zero : f32
      %y = scf.if %pos -> f32 {
        scf.yield %x : f32
      } else {
        %n = arith.negf %x : f32
        scf.yield %n : f32
      }
      %a = arith.addf %acc, %y : f32
      scf.yield %a : f32
    }
    %w = scf.while (%j = %c0) : (index) -> index {
      %more = arith.cmpi slt, %j, %i : index
      scf.condition(%more) %j : index
    } do {
    ^bb0(%j: index):
      %j1 = arith.addi %j, %c1 : index
      scf.yield %j1 : index
    }
    %sw = scf.index_switch %i -> f32
    case 2 {
      %two = arith.constant 2.0 : f32
      scf.yield %two : f32
    }
    default {
      scf.yield %zero : f32
    }
    %er = scf.execute_region -> f32 {
      %wf = arith.index_cast %w : index to i32
      %f = arith.sitofp %wf : i32 to f32
      scf.yield %f : f32
    }
    %one = arith.constant 1.0 : f32
    %p = scf.parallel (%k) = (%c0) to (%c8) step (%c1) init (%one) -> f32 {
      %idx = arith.addi %base, %k : index
      %x = memref.load %in[%idx] : memref<64xf32>
      scf.reduce(%x : f32) {
      ^bb0(%l: f32, %r: f32):
        %m = arith.mulf %l, %r : f32
        %q = arith.maximumf %m, %l : f32
        scf.reduce.return %q : f32
      }
    }
    %t0 = arith.addf %s, %sw : f32
    %t1 = arith.addf %t0, %er : f32
    %t2 = arith.addf %t1, %p : f32
    scf.forall (%k) in (7) {
      %k1 = arith.addi %k, %c1 : index
      %idx = arith.addi %base, %k1 : index
      %x = memref.load %in[%idx] : memref<64xf32>
      memref.store %x, %out[%idx] : memref<64xf32>
    }
    memref.store %t2, %out[%base] : memref<64xf32>
  }
  return
}

// Affine ops, with grid indices as operands of their maps.
func.func @affine_ops(%in: memref<64xf32>, %out: memref<64xf32>) {
  vx.spawn on tensor_core grid [8, 8] semantics [parallel, parallel] {
    %b = vx.grid_index 0
    %t = vx.grid_index 1
    %zero = arith.constant 0.0 : f32
    %x = affine.load %in[%b * 8 + %t] : memref<64xf32>
    %s = affine.for %k = 0 to 8 iter_args(%acc = %zero) -> f32 {
      %y = affine.load %in[%b * 8 + %k] : memref<64xf32>
      %a = arith.addf %acc, %y : f32
      affine.yield %a : f32
    }
    %lim = affine.min affine_map<(d0, d1) -> (d0 + d1, 9)>(%b, %t)
    %lo = affine.max affine_map<(d0) -> (d0 - 3, 0)>(%b)
    %idx = affine.apply affine_map<(d0, d1) -> (d0 + d1)>(%lim, %lo)
    %v = affine.if affine_set<(d0) : (d0 - 4 >= 0)>(%t) -> f32 {
      affine.yield %s : f32
    } else {
      affine.yield %x : f32
    }
    %vi = arith.index_cast %idx : index to i32
    %vf = arith.sitofp %vi : i32 to f32
    %r = arith.addf %v, %vf : f32
    affine.store %r, %out[%b * 8 + %t] : memref<64xf32>
  }
  return
}

// Vector ops: masked and unmasked transfers, loads, gathers, reductions,
// shuffles, contractions.
func.func @vector_ops(%in: memref<8x8xf32>, %out: memref<8x8xf32>) {
  vx.spawn on tensor_core grid [8] semantics [parallel] {
    %i = vx.grid_index 0
    %c0 = arith.constant 0 : index
    %c2 = arith.constant 2 : index
    %c3 = arith.constant 3 : index
    %c4 = arith.constant 4 : index
    %pad = arith.constant 0.0 : f32
    %row = memref.subview %in[%i, 0] [1, 5] [1, 1] : memref<8x8xf32> to memref<5xf32, strided<[1], offset: ?>>
    // Out of bounds past 5: the mask keeps the padding.
    %v = vector.transfer_read %row[%c0], %pad : memref<5xf32, strided<[1], offset: ?>>, vector<8xf32>
    %mask = vector.create_mask %c3 : vector<8xi1>
    %vm = vector.transfer_read %row[%c0], %pad, %mask : memref<5xf32, strided<[1], offset: ?>>, vector<8xf32>
    %l = vector.load %in[%i, %c0] : memref<8x8xf32>, vector<4xf32>
    %cmask = vector.constant_mask [2] : vector<4xi1>
    %passthru = arith.constant dense<1.0> : vector<4xf32>
    %ml = vector.maskedload %in[%i, %c2], %cmask, %passthru : memref<8x8xf32>, vector<4xi1>, vector<4xf32> into vector<4xf32>
    %sum4 = arith.addf %l, %ml : vector<4xf32>
    %wide = vector.broadcast %pad : f32 to vector<8xf32>
    %ins = vector.insert_strided_slice %sum4, %wide {offsets = [2], strides = [1]} : vector<4xf32> into vector<8xf32>
    %f = vector.fma %v, %vm, %ins : vector<8xf32>
    %sh = vector.shuffle %f, %v [7, 6, 5, 4, 3, 2, 1, 0] : vector<8xf32>, vector<8xf32>
    %e = vector.extract %sh[3] : f32 from vector<8xf32>
    %red = vector.reduction <add>, %sh : vector<8xf32> into f32
    %s = arith.addf %e, %red : f32
    %res = vector.insert %s, %sh[0] : f32 into vector<8xf32>
    %orow = memref.subview %out[%i, 0] [1, 6] [1, 1] : memref<8x8xf32> to memref<6xf32, strided<[1], offset: ?>>
    // A masked write: only 6 of the 8 lanes are in bounds.
    vector.transfer_write %res, %orow[%c0] : vector<8xf32>, memref<6xf32, strided<[1], offset: ?>>
    %steps = vector.step : vector<8xindex>
    %all = vector.constant_mask [8] : vector<8xi1>
    %g = vector.gather %in[%i, %c0] [%steps], %all, %wide : memref<8x8xf32>, vector<8xindex>, vector<8xi1>, vector<8xf32> into vector<8xf32>
    %g2 = vector.shape_cast %g : vector<8xf32> to vector<2x4xf32>
    %gt = vector.transpose %g2, [1, 0] : vector<2x4xf32> to vector<4x2xf32>
    %op = vector.outerproduct %v, %g : vector<8xf32>, vector<8xf32>
    %oprow = vector.extract %op[1] : vector<8xf32> from vector<8x8xf32>
    %dot = vector.contract {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> ()>], iterator_types = ["reduction"], kind = #vector.kind<add>} %oprow, %g, %pad : vector<8xf32>, vector<8xf32> into f32
    %gtrow = vector.extract %gt[3] : vector<2xf32> from vector<4x2xf32>
    %gte = vector.extract %gtrow[1] : f32 from vector<2xf32>
    %quad = vector.from_elements %dot, %gte, %e, %s : vector<4xf32>
    vector.store %quad, %out[%i, %c4] : memref<8x8xf32>, vector<4xf32>
    %smask = vector.create_mask %c2 : vector<4xi1>
    %part = vector.extract_strided_slice %res {offsets = [4], sizes = [4], strides = [1]} : vector<8xf32> to vector<4xf32>
    vector.maskedstore %out[%i, %c0], %smask, %part : memref<8x8xf32>, vector<4xi1>, vector<4xf32>
  }
  return
}

// Memref ops: views, reshapes, atomics, copies, globals.
func.func @memref_ops(%in: memref<64xf32>, %out: memref<64xf32>, %counts: memref<8xi32>) {
  vx.spawn on tensor_core grid [8] semantics [parallel] {
    %i = vx.grid_index 0
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    %base = arith.muli %i, %c8 : index
    %row = memref.subview %in[%base] [8] [1] : memref<64xf32> to memref<8xf32, strided<[1], offset: ?>>
    %tile = memref.alloca() : memref<8xf32>
    memref.copy %row, %tile : memref<8xf32, strided<[1], offset: ?>> to memref<8xf32>
    %sq = memref.expand_shape %tile [[0, 1]] output_shape [2, 4] : memref<8xf32> into memref<2x4xf32>
    %tr = memref.transpose %sq (d0, d1) -> (d1, d0) : memref<2x4xf32> to memref<4x2xf32, strided<[1, 4]>>
    %x = memref.load %tr[%c1, %c1] : memref<4x2xf32, strided<[1, 4]>>
    %flat = memref.collapse_shape %sq [[0, 1]] : memref<2x4xf32> into memref<8xf32>
    %cast = memref.cast %flat : memref<8xf32> to memref<?xf32>
    %n = memref.dim %cast, %c0 : memref<?xf32>
    %re = memref.reinterpret_cast %tile to offset: [1], sizes: [4], strides: [2] : memref<8xf32> to memref<4xf32, strided<[2], offset: 1>>
    %y = memref.load %re[%c1] : memref<4xf32, strided<[2], offset: 1>>
    %buf, %off, %size, %stride = memref.extract_strided_metadata %row : memref<8xf32, strided<[1], offset: ?>> -> memref<f32>, index, index, index
    memref.prefetch %in[%base], read, locality<3>, data : memref<64xf32>
    %table = memref.get_global @table : memref<4xf32>
    %tv = memref.load %table[%c1] : memref<4xf32>
    %t = memref.alloca() : memref<1xf32>
    memref.store %y, %t[%c0] : memref<1xf32>
    %z = memref.load %t[%c0] : memref<1xf32>
    %one = arith.constant 1 : i32
    %slot = arith.remui %i, %c1 : index
    %old = memref.atomic_rmw addi %one, %counts[%slot] : (i32, memref<8xi32>) -> i32
    %g = memref.generic_atomic_rmw %counts[%c1] : memref<8xi32> {
    ^bb0(%cur: i32):
      %next = arith.addi %cur, %one : i32
      memref.atomic_yield %next : i32
    }
    %nf = arith.index_cast %n : index to i32
    %nff = arith.sitofp %nf : i32 to f32
    %offi = arith.index_cast %off : index to i32
    %offf = arith.sitofp %offi : i32 to f32
    %s0 = arith.addf %x, %z : f32
    %s1 = arith.addf %s0, %nff : f32
    %s2 = arith.subf %s1, %offf : f32
    %s3 = arith.addf %s2, %tv : f32
    memref.store %s3, %out[%base] : memref<64xf32>
  }
  return
}

// Linalg on memrefs.
func.func @linalg_ops(%a: memref<8x8xf32>, %b: memref<8x8xf32>, %c: memref<8x8xf32>) {
  vx.spawn on tensor_core grid [4] semantics [parallel] {
    %i = vx.grid_index 0
    %c2 = arith.constant 2 : index
    %r = arith.muli %i, %c2 : index
    %zero = arith.constant 0.0 : f32
    %as = memref.subview %a[%r, 0] [2, 8] [1, 1] : memref<8x8xf32> to memref<2x8xf32, strided<[8, 1], offset: ?>>
    %cs = memref.subview %c[%r, 0] [2, 8] [1, 1] : memref<8x8xf32> to memref<2x8xf32, strided<[8, 1], offset: ?>>
    linalg.fill ins(%zero : f32) outs(%cs : memref<2x8xf32, strided<[8, 1], offset: ?>>)
    linalg.matmul ins(%as, %b : memref<2x8xf32, strided<[8, 1], offset: ?>>, memref<8x8xf32>) outs(%cs : memref<2x8xf32, strided<[8, 1], offset: ?>>)
    linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>],
                    iterator_types = ["parallel", "parallel"]}
        ins(%as : memref<2x8xf32, strided<[8, 1], offset: ?>>) outs(%cs : memref<2x8xf32, strided<[8, 1], offset: ?>>) {
    ^bb0(%x: f32, %acc: f32):
      %s = arith.addf %x, %acc : f32
      linalg.yield %s : f32
    }
    %sums = memref.subview %c[%r, 7] [2, 1] [1, 1] : memref<8x8xf32> to memref<2xf32, strided<[8], offset: ?>>
    linalg.reduce ins(%as : memref<2x8xf32, strided<[8, 1], offset: ?>>) outs(%sums : memref<2xf32, strided<[8], offset: ?>>) dimensions = [1]
      (%x: f32, %acc: f32) {
        %s = arith.addf %x, %acc : f32
        linalg.yield %s : f32
      }
  }
  return
}

// ub.poison where a value is never used, and complex arithmetic.
func.func @ub_complex(%in: memref<64xf32>, %out: memref<64xf32>) {
  vx.spawn on tensor_core grid [8] semantics [parallel] {
    %i = vx.grid_index 0
    %c8 = arith.constant 8 : index
    %base = arith.muli %i, %c8 : index
    %x = memref.load %in[%base] : memref<64xf32>
    %p = ub.poison : f32
    %true = arith.constant true
    %v = arith.select %true, %x, %p : f32
    %half = arith.constant 0.5 : f32
    %z = complex.create %v, %half : complex<f32>
    %w = complex.constant [1.0 : f32, -2.0 : f32] : complex<f32>
    %s = complex.add %z, %w : complex<f32>
    %m = complex.mul %s, %z : complex<f32>
    %d = complex.div %m, %w : complex<f32>
    %e = complex.exp %d : complex<f32>
    %c = complex.conj %e : complex<f32>
    %a = complex.abs %c : complex<f32>
    %re = complex.re %c : complex<f32>
    %im = complex.im %m : complex<f32>
    %r0 = arith.addf %a, %re : f32
    %r1 = arith.addf %r0, %im : f32
    memref.store %r1, %out[%base] : memref<64xf32>
  }
  return
}

// vx's own ops: scratch in both placements, transfers, grid queries.
func.func @vx_ops(%in: memref<64xf32>, %out: memref<64xf32>) {
  vx.spawn on tensor_core grid [8, 2] semantics [parallel, arbitrary] {
    %i = vx.grid_index 0
    %k = vx.grid_index 1
    %n = vx.grid_dim 1
    %c0 = arith.constant 0 : index
    %c4 = arith.constant 4 : index
    %c8 = arith.constant 8 : index
    %tile = vx.scratch smem : memref<4xf32>
    %acc = vx.scratch : memref<1xf32>
    %row = arith.muli %i, %c8 : index
    %col = arith.muli %k, %c4 : index
    %start = arith.addi %row, %col : index
    %src = memref.subview %in[%start] [4] [1] : memref<64xf32> to memref<4xf32, strided<[1], offset: ?>>
    %t = vx.transfer_async %src to %tile : memref<4xf32, strided<[1], offset: ?>> to memref<4xf32>
    %first = arith.cmpi eq, %k, %c0 : index
    scf.if %first {
      %zero = arith.constant 0.0 : f32
      memref.store %zero, %acc[%c0] : memref<1xf32>
    }
    vx.await %t
    %v = vector.load %tile[%c0] : memref<4xf32>, vector<4xf32>
    %s = vector.reduction <add>, %v : vector<4xf32> into f32
    %a = memref.load %acc[%c0] : memref<1xf32>
    %b = arith.addf %a, %s : f32
    memref.store %b, %acc[%c0] : memref<1xf32>
    %c1 = arith.constant 1 : index
    %last = arith.subi %n, %c1 : index
    %done = arith.cmpi eq, %k, %last : index
    scf.if %done {
      memref.store %b, %out[%row] : memref<64xf32>
    }
  }
  return
}

// Atomics of every kind LLVM has, on floats and integers of several
// widths (the values are small integers, so sums do not depend on order).
func.func @atomics(%in: memref<64xi32>, %facc: memref<64xf32>, %iacc: memref<64xi32>) {
  vx.spawn on tensor_core grid [8] semantics [parallel] {
    %i = vx.grid_index 0
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c3 = arith.constant 3 : index
    %c4 = arith.constant 4 : index
    %c5 = arith.constant 5 : index
    %c6 = arith.constant 6 : index
    %c7 = arith.constant 7 : index
    %c8 = arith.constant 8 : index
    %base = arith.muli %i, %c8 : index
    %v = memref.load %in[%base] : memref<64xi32>
    %f = arith.sitofp %v : i32 to f32
    %one = arith.constant 1.0 : f32
    %a0 = memref.atomic_rmw addf %f, %facc[%c0] : (f32, memref<64xf32>) -> f32
    %a1 = memref.atomic_rmw maximumf %f, %facc[%c1] : (f32, memref<64xf32>) -> f32
    %a2 = memref.atomic_rmw minimumf %f, %facc[%c2] : (f32, memref<64xf32>) -> f32
    %a3 = memref.atomic_rmw maxnumf %f, %facc[%c3] : (f32, memref<64xf32>) -> f32
    %a4 = memref.atomic_rmw minnumf %f, %facc[%c4] : (f32, memref<64xf32>) -> f32
    // An atomic assign is a race between instances: one instance assigns.
    %only = arith.cmpi eq, %i, %c0 : index
    scf.if %only {
      %a5 = memref.atomic_rmw assign %one, %facc[%c5] : (f32, memref<64xf32>) -> f32
    }
    %b0 = memref.atomic_rmw addi %v, %iacc[%c0] : (i32, memref<64xi32>) -> i32
    %b1 = memref.atomic_rmw maxs %v, %iacc[%c1] : (i32, memref<64xi32>) -> i32
    %b2 = memref.atomic_rmw mins %v, %iacc[%c2] : (i32, memref<64xi32>) -> i32
    %b3 = memref.atomic_rmw maxu %v, %iacc[%c3] : (i32, memref<64xi32>) -> i32
    %b4 = memref.atomic_rmw minu %v, %iacc[%c4] : (i32, memref<64xi32>) -> i32
    %b5 = memref.atomic_rmw ori %v, %iacc[%c5] : (i32, memref<64xi32>) -> i32
    %b6 = memref.atomic_rmw andi %v, %iacc[%c6] : (i32, memref<64xi32>) -> i32
    %b7 = memref.atomic_rmw xori %v, %iacc[%c7] : (i32, memref<64xi32>) -> i32
    %g = memref.generic_atomic_rmw %iacc[%c8] : memref<64xi32> {
    ^bb0(%cur: i32):
      %twice = arith.addi %v, %v : i32
      %next = arith.addi %cur, %twice : i32
      memref.atomic_yield %next : i32
    }
  }
  return
}

// Narrow floats (f16, bf16) and more affine and vector forms: affine.parallel,
// affine vector loads, permuted and broadcast masked transfers, and an
// scf.parallel with two reductions.
func.func @narrow_and_forms(%in: memref<8x8xf32>, %out: memref<8x8xf32>) {
  vx.spawn on tensor_core grid [8] semantics [parallel] {
    %i = vx.grid_index 0
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c3 = arith.constant 3 : index
    %c8 = arith.constant 8 : index
    %pad = arith.constant 0.0 : f32
    affine.parallel (%k) = (0) to (4) {
      %v = affine.load %in[%i, %k] : memref<8x8xf32>
      affine.store %v, %out[%i, %k] : memref<8x8xf32>
    }
    %vv = affine.vector_load %in[%i, 0] : memref<8x8xf32>, vector<4xf32>
    affine.vector_store %vv, %out[%i, 4] : memref<8x8xf32>, vector<4xf32>
    affine.prefetch %in[%i, 0], read, locality<3>, data : memref<8x8xf32>
    %mask = vector.create_mask %c3, %c1 : vector<4x2xi1>
    %t = vector.transfer_read %in[%c0, %i], %pad, %mask {permutation_map = affine_map<(d0, d1) -> (d1, d0)>} : memref<8x8xf32>, vector<2x4xf32>
    %b = vector.transfer_read %in[%i, %c0], %pad {permutation_map = affine_map<(d0, d1) -> (0)>} : memref<8x8xf32>, vector<4xf32>
    %r0 = vector.extract %t[0, 2] : f32 from vector<2x4xf32>
    %r1 = vector.extract %b[3] : f32 from vector<4xf32>
    %s1, %s2 = scf.parallel (%k) = (%c0) to (%c8) step (%c1) init (%pad, %pad) -> (f32, f32) {
      %v = memref.load %in[%i, %k] : memref<8x8xf32>
      scf.reduce(%v, %v : f32, f32) {
      ^bb0(%l: f32, %r: f32):
        %a = arith.addf %l, %r : f32
        scf.reduce.return %a : f32
      }, {
      ^bb0(%l: f32, %r: f32):
        %a = arith.maximumf %l, %r : f32
        scf.reduce.return %a : f32
      }
    }
    %h = arith.truncf %s1 : f32 to f16
    %hb = arith.truncf %s2 : f32 to bf16
    %h2 = arith.addf %h, %h : f16
    %hb2 = arith.mulf %hb, %hb : bf16
    %small = arith.constant 0.01 : f16
    %hs = arith.mulf %h, %small : f16
    %he = math.exp %hs : f16
    %e0 = arith.extf %h2 : f16 to f32
    %e1 = arith.extf %hb2 : bf16 to f32
    %e2 = arith.extf %he : f16 to f32
    %x0 = arith.addf %e0, %e1 : f32
    %x1 = arith.addf %x0, %e2 : f32
    %x2 = arith.addf %x1, %r0 : f32
    %x3 = arith.addf %x2, %r1 : f32
    memref.store %x3, %out[%i, %c0] : memref<8x8xf32>
  }
  return
}

func.func @report_f32(%m: memref<64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %zero = arith.constant 0.0 : f64
  %s = scf.for %k = %c0 to %c64 step %c1 iter_args(%a = %zero) -> f64 {
    %x = memref.load %m[%k] : memref<64xf32>
    %xd = arith.extf %x : f32 to f64
    %y = arith.addf %a, %xd : f64
    scf.yield %y : f64
  }
  vector.print str "sum "
  func.call @printF64(%s) : (f64) -> ()
  func.call @printNewline() : () -> ()
  %fz = arith.constant 0.0 : f32
  linalg.fill ins(%fz : f32) outs(%m : memref<64xf32>)
  return
}

func.func @report_i32(%m: memref<64xi32>) {
  %f = memref.alloc() : memref<64xf32>
  linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>],
                  iterator_types = ["parallel"]}
      ins(%m : memref<64xi32>) outs(%f : memref<64xf32>) {
  ^bb0(%x: i32, %y: f32):
    %v = arith.sitofp %x : i32 to f32
    linalg.yield %v : f32
  }
  func.call @report_f32(%f) : (memref<64xf32>) -> ()
  memref.dealloc %f : memref<64xf32>
  %z = arith.constant 0 : i32
  linalg.fill ins(%z : i32) outs(%m : memref<64xi32>)
  return
}

func.func @main() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c64 = arith.constant 64 : index
  %fin = memref.alloc() : memref<64xf32>
  %iin = memref.alloc() : memref<64xi32>
  %fout = memref.alloc() : memref<64xf32>
  %iout = memref.alloc() : memref<64xi32>
  %counts = memref.alloc() : memref<8xi32>
  scf.for %k = %c0 to %c64 step %c1 {
    %ki = arith.index_cast %k : index to i32
    %c37 = arith.constant 37 : i32
    %c64i = arith.constant 64 : i32
    %m = arith.muli %ki, %c37 : i32
    %r = arith.remui %m, %c64i : i32
    %c20 = arith.constant 20 : i32
    %v = arith.subi %r, %c20 : i32
    memref.store %v, %iin[%k] : memref<64xi32>
    %f = arith.sitofp %v : i32 to f32
    %c025 = arith.constant 0.25 : f32
    %g = arith.mulf %f, %c025 : f32
    memref.store %g, %fin[%k] : memref<64xf32>
  }
  %fz = arith.constant 0.0 : f32
  %iz = arith.constant 0 : i32
  linalg.fill ins(%fz : f32) outs(%fout : memref<64xf32>)
  linalg.fill ins(%iz : i32) outs(%iout : memref<64xi32>)
  linalg.fill ins(%iz : i32) outs(%counts : memref<8xi32>)
  call @arith_int(%iin, %iout) : (memref<64xi32>, memref<64xi32>) -> ()
  call @report_i32(%iout) : (memref<64xi32>) -> ()
  call @arith_float(%fin, %fout) : (memref<64xf32>, memref<64xf32>) -> ()
  call @report_f32(%fout) : (memref<64xf32>) -> ()
  call @math(%fin, %fout) : (memref<64xf32>, memref<64xf32>) -> ()
  call @report_f32(%fout) : (memref<64xf32>) -> ()
  call @index_ops(%iin, %iout) : (memref<64xi32>, memref<64xi32>) -> ()
  call @report_i32(%iout) : (memref<64xi32>) -> ()
  call @scf_ops(%fin, %fout) : (memref<64xf32>, memref<64xf32>) -> ()
  call @report_f32(%fout) : (memref<64xf32>) -> ()
  call @affine_ops(%fin, %fout) : (memref<64xf32>, memref<64xf32>) -> ()
  call @report_f32(%fout) : (memref<64xf32>) -> ()
  %fin2 = memref.expand_shape %fin [[0, 1]] output_shape [8, 8] : memref<64xf32> into memref<8x8xf32>
  %fout2 = memref.expand_shape %fout [[0, 1]] output_shape [8, 8] : memref<64xf32> into memref<8x8xf32>
  call @vector_ops(%fin2, %fout2) : (memref<8x8xf32>, memref<8x8xf32>) -> ()
  call @report_f32(%fout) : (memref<64xf32>) -> ()
  call @memref_ops(%fin, %fout, %counts) : (memref<64xf32>, memref<64xf32>, memref<8xi32>) -> ()
  call @report_f32(%fout) : (memref<64xf32>) -> ()
  %b2 = memref.alloc() : memref<8x8xf32>
  linalg.copy ins(%fin2 : memref<8x8xf32>) outs(%b2 : memref<8x8xf32>)
  call @linalg_ops(%fin2, %b2, %fout2) : (memref<8x8xf32>, memref<8x8xf32>, memref<8x8xf32>) -> ()
  call @report_f32(%fout) : (memref<64xf32>) -> ()
  call @ub_complex(%fin, %fout) : (memref<64xf32>, memref<64xf32>) -> ()
  call @report_f32(%fout) : (memref<64xf32>) -> ()
  call @vx_ops(%fin, %fout) : (memref<64xf32>, memref<64xf32>) -> ()
  call @report_f32(%fout) : (memref<64xf32>) -> ()
  call @atomics(%iin, %fout, %iout) : (memref<64xi32>, memref<64xf32>, memref<64xi32>) -> ()
  call @report_f32(%fout) : (memref<64xf32>) -> ()
  call @report_i32(%iout) : (memref<64xi32>) -> ()
  call @narrow_and_forms(%fin2, %fout2) : (memref<8x8xf32>, memref<8x8xf32>) -> ()
  call @report_f32(%fout) : (memref<64xf32>) -> ()
  %counts64 = memref.alloc() : memref<64xi32>
  linalg.fill ins(%iz : i32) outs(%counts64 : memref<64xi32>)
  %csub = memref.subview %counts64[0] [8] [1] : memref<64xi32> to memref<8xi32, strided<[1]>>
  memref.copy %counts, %csub : memref<8xi32> to memref<8xi32, strided<[1]>>
  call @report_i32(%counts64) : (memref<64xi32>) -> ()
  vector.print str "done\n"
  return
}
