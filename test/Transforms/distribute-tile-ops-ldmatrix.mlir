// RUN: vx-opt %s -split-input-file -verify-diagnostics --vx-distribute-tile-ops="chip=sm_80" | FileCheck %s
// RUN: vx-opt %s -split-input-file -verify-diagnostics --vx-verify-semantics="chip=sm_80" --vx-distribute-tile-ops="chip=sm_80" -o /dev/null
// RUN: vx-opt %s -split-input-file --vx-distribute-tile-ops="chip=sm_90" 2>/dev/null | FileCheck %s --check-prefix=SM90
// RUN: vx-opt %s -split-input-file --vx-distribute-tile-ops="chip=sm_90" 2>&1 >/dev/null | FileCheck %s --check-prefix=SM90-REMARK

// On sm_80 the A and B fragments of mma.sync come from shared memory with
// ldmatrix.x4 (.trans where the tile is stored with K not contiguous, as a
// K x N B tile is), and every shared tile that ldmatrix reads gets a row
// pitch that is an odd multiple of 16 bytes, so the eight rows of each 8x8
// matrix fall on distinct banks: a dense pitch that is an even multiple gets
// 16 bytes of padding, and the tile becomes a view of the wider scratch,
// which its transfer fills like the tile. On sm_90 (TMA, and mma.sync
// without the `a` features) a tile that a TMA copy may write keeps TMA's
// dense layout; one that only thread loops write is padded. A remark names
// each tile's layout. Run before the distribution, the checker adds no
// diagnostic.

// CHECK-LABEL: func.func @padded_tiles
// CHECK: %[[AP:.*]] = vx.scratch smem : memref<64x40xbf16>
// CHECK-NEXT: %[[AS:.*]] = memref.subview %[[AP]][0, 0] [64, 32] [1, 1] : memref<64x40xbf16> to memref<64x32xbf16, strided<[40, 1]>>
// CHECK: %[[BP:.*]] = vx.scratch smem : memref<32x72xbf16>
// CHECK-NEXT: %[[BS:.*]] = memref.subview %[[BP]][0, 0] [32, 64] [1, 1] : memref<32x72xbf16> to memref<32x64xbf16, strided<[72, 1]>>
// CHECK: vx.transfer_async %{{.*}} to %[[AS]] : memref<64x32xbf16> to memref<64x32xbf16, strided<[40, 1]>>
// CHECK: vx.transfer_async %{{.*}} to %[[BS]] : memref<32x64xbf16> to memref<32x64xbf16, strided<[72, 1]>>
// Loops along K (2 steps), the warp's M fragments (2) and its pairs of N
// fragments (2 of its 4): each iteration loads A's 16x16 fragment and two 8-column
// B fragments with one ldmatrix.x4 each and issues two mma.sync.
// CHECK: scf.parallel
// CHECK: scf.for %{{.*}} = %{{.*}} to %c2{{(_[0-9]+)?}} step
// CHECK-NEXT: scf.for %{{.*}} = %{{.*}} to %c2{{(_[0-9]+)?}} step
// CHECK-NEXT: scf.for %{{.*}} = %{{.*}} to %c2{{(_[0-9]+)?}} step
// CHECK: %[[ASW:.*]] = memref.memory_space_cast %[[AS]] : memref<64x32xbf16, strided<[40, 1]>> to memref<64x32xbf16, strided<[40, 1]>, #gpu.address_space<workgroup>>
// CHECK: nvgpu.ldmatrix %[[ASW]][%{{.*}}, %{{.*}}] {numTiles = 4 : i32, transpose = false, vx.tensor_core} : memref<64x32xbf16, strided<[40, 1]>, #gpu.address_space<workgroup>> -> vector<4x2xbf16>
// CHECK: %[[BSW:.*]] = memref.memory_space_cast %[[BS]]
// CHECK: nvgpu.ldmatrix %[[BSW]][%{{.*}}, %{{.*}}] {numTiles = 4 : i32, transpose = true, vx.tensor_core} : memref<32x64xbf16, strided<[72, 1]>, #gpu.address_space<workgroup>> -> vector<4x2xbf16>
// CHECK-COUNT-2: nvvm.mma.sync
// CHECK-NOT: nvvm.mma.sync
// CHECK-NOT: memref.load %[[AS]]
// CHECK-NOT: memref.load %[[BS]]
// SM90-REMARK: remark: ldmatrix reads this tile with dense rows of 64 bytes, the layout TMA writes on sm_90: 4-way bank conflicts
// SM90-REMARK: remark: ldmatrix reads this tile with dense rows of 128 bytes, the layout TMA writes on sm_90: 8-way bank conflicts
// A tile that only a thread loop writes is padded on sm_90 too:
// SM90-REMARK: remark: ldmatrix reads this tile with rows padded from 32 to 48 bytes: bank-conflict-free
// SM90-LABEL: func.func @padded_tiles
// SM90: vx.scratch smem : memref<64x32xbf16>
// SM90: vx.scratch smem : memref<32x64xbf16>
// SM90: nvgpu.ldmatrix {{.*}} : memref<64x32xbf16, #gpu.address_space<workgroup>> -> vector<4x2xbf16>
func.func @padded_tiles(%a: memref<64x32xbf16>, %b: memref<32x64xbf16>,
                        %c: memref<64x64xf32>) {
  %zero = arith.constant 0.0 : f32
  vx.spawn on tensor_core grid [1] semantics [parallel] threads 128 {
    // expected-remark @+1 {{ldmatrix reads this tile with rows padded from 64 to 80 bytes: bank-conflict-free}}
    %as = vx.scratch smem : memref<64x32xbf16>
    // expected-remark @+1 {{ldmatrix reads this tile with rows padded from 128 to 144 bytes: bank-conflict-free}}
    %bs = vx.scratch smem : memref<32x64xbf16>
    %acc = vx.scratch : memref<64x64xf32>
    %ta = vx.transfer_async %a to %as : memref<64x32xbf16> to memref<64x32xbf16>
    %tb = vx.transfer_async %b to %bs : memref<32x64xbf16> to memref<32x64xbf16>
    vx.await %ta
    vx.await %tb
    linalg.fill ins(%zero : f32) outs(%acc : memref<64x64xf32>)
    // expected-remark @+1 {{computed on the tensor cores: mma.sync.m16n8k16 on 4 warps (2x2), 32x32 of the accumulator per warp}}
    linalg.matmul ins(%as, %bs : memref<64x32xbf16>, memref<32x64xbf16>)
                  outs(%acc : memref<64x64xf32>)
    linalg.copy ins(%acc : memref<64x64xf32>) outs(%c : memref<64x64xf32>)
  }
  return
}

// -----

// A thread loop writes the tiles: it writes them through the padded view.
// A is stored transposed (K x M: ldmatrix .trans); B is a K x N tile of 24
// columns, whose dense rows of 48 bytes are conflict-free already, and
// whose three 8-column fragments per warp (an odd number) take an
// ldmatrix.x2 each: loops along K (2), M (1) and N (3).
// CHECK-LABEL: func.func @thread_loop_writer
// CHECK: %[[AP:.*]] = vx.scratch smem : memref<32x24xf16>
// CHECK-NEXT: %[[AT:.*]] = memref.subview %[[AP]][0, 0] [32, 16] [1, 1]
// CHECK: %[[BS:.*]] = vx.scratch smem : memref<32x24xf16>
// CHECK: scf.parallel
// CHECK: memref.store %{{.*}}, %[[AT]][%{{.*}}, %{{.*}}] : memref<32x16xf16, strided<[24, 1]>>
// CHECK: memref.store %{{.*}}, %[[BS]][%{{.*}}, %{{.*}}] : memref<32x24xf16>
// CHECK: scf.for %{{.*}} = %{{.*}} to %c2{{(_[0-9]+)?}} step
// CHECK-NEXT: scf.for %{{.*}} = %{{.*}} to %c1{{(_[0-9]+)?}} step
// CHECK-NEXT: scf.for %{{.*}} = %{{.*}} to %c3{{(_[0-9]+)?}} step
// CHECK: nvgpu.ldmatrix {{.*}} {numTiles = 4 : i32, transpose = true, vx.tensor_core} : memref<32x16xf16, strided<[24, 1]>, #gpu.address_space<workgroup>> -> vector<4x2xf16>
// CHECK: nvgpu.ldmatrix {{.*}} {numTiles = 2 : i32, transpose = true, vx.tensor_core} : memref<32x24xf16, #gpu.address_space<workgroup>> -> vector<2x2xf16>
// CHECK-NOT: nvgpu.ldmatrix
// CHECK: nvvm.mma.sync
// CHECK-NOT: nvvm.mma.sync
func.func @thread_loop_writer(%a: memref<32x16xf16>, %b: memref<32x24xf16>,
                              %c: memref<16x24xf32>) {
  %zero = arith.constant 0.0 : f32
  vx.spawn on tensor_core grid [1] semantics [parallel] threads 32 {
    // expected-remark @+1 {{ldmatrix reads this tile with rows padded from 32 to 48 bytes: bank-conflict-free}}
    %at = vx.scratch smem : memref<32x16xf16>
    // expected-remark @+1 {{ldmatrix reads this tile with dense rows of 48 bytes: bank-conflict-free}}
    %bs = vx.scratch smem : memref<32x24xf16>
    %acc = vx.scratch : memref<16x24xf32>
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c32 = arith.constant 32 : index
    %c16 = arith.constant 16 : index
    %c24 = arith.constant 24 : index
    scf.parallel (%k, %m) = (%c0, %c0) to (%c32, %c16) step (%c1, %c1) {
      %x = memref.load %a[%k, %m] : memref<32x16xf16>
      memref.store %x, %at[%k, %m] : memref<32x16xf16>
      scf.reduce
    }
    scf.parallel (%k, %n) = (%c0, %c0) to (%c32, %c24) step (%c1, %c1) {
      %y = memref.load %b[%k, %n] : memref<32x24xf16>
      memref.store %y, %bs[%k, %n] : memref<32x24xf16>
      scf.reduce
    }
    linalg.fill ins(%zero : f32) outs(%acc : memref<16x24xf32>)
    // expected-remark @+1 {{computed on the tensor cores: mma.sync.m16n8k16 on 1 warps (1x1), 16x24 of the accumulator per warp}}
    linalg.matmul
        indexing_maps = [affine_map<(m, n, k) -> (k, m)>,
                         affine_map<(m, n, k) -> (k, n)>,
                         affine_map<(m, n, k) -> (m, n)>]
        ins(%at, %bs : memref<32x16xf16>, memref<32x24xf16>)
        outs(%acc : memref<16x24xf32>)
    linalg.copy ins(%acc : memref<16x24xf32>) outs(%c : memref<16x24xf32>)
  }
  return
}

// -----

// An operand in global memory has no ldmatrix: its registers are loaded
// element by element, with a remark; the shared one uses ldmatrix.
// CHECK-LABEL: func.func @global_operand
// CHECK: memref.load %{{.*}} : memref<16x16xbf16>
// CHECK: nvgpu.ldmatrix {{.*}} {numTiles = 2 : i32, transpose = true, vx.tensor_core}
func.func @global_operand(%a: memref<16x16xbf16>, %b: memref<16x8xbf16>,
                          %c: memref<16x8xf32>) {
  %zero = arith.constant 0.0 : f32
  vx.spawn on tensor_core grid [1] semantics [parallel] threads 32 {
    // expected-remark @+1 {{ldmatrix reads this tile with dense rows of 16 bytes: bank-conflict-free}}
    %bs = vx.scratch smem : memref<16x8xbf16>
    %acc = vx.scratch : memref<16x8xf32>
    memref.copy %b, %bs : memref<16x8xbf16> to memref<16x8xbf16>
    linalg.fill ins(%zero : f32) outs(%acc : memref<16x8xf32>)
    // expected-remark @+2 {{computed on the tensor cores: mma.sync.m16n8k16 on 1 warps (1x1), 16x8 of the accumulator per warp}}
    // expected-remark @+1 {{operand A is loaded element by element, not with ldmatrix: it is not shared-memory scratch}}
    linalg.matmul ins(%a, %bs : memref<16x16xbf16>, memref<16x8xbf16>)
                  outs(%acc : memref<16x8xf32>)
    linalg.copy ins(%acc : memref<16x8xf32>) outs(%c : memref<16x8xf32>)
  }
  return
}

// -----

// Views of shared tiles that ldmatrix cannot read: A's rows start 8 bytes
// into each 16-byte chunk (column offset 4), B's elements are two apart
// along its rows. Both are loaded element by element, with a remark each.
// CHECK-LABEL: func.func @unaligned_views
// CHECK-NOT: nvgpu.ldmatrix
// CHECK: nvvm.mma.sync
func.func @unaligned_views(%c: memref<16x8xf32>) {
  %zero = arith.constant 0.0 : f32
  vx.spawn on tensor_core grid [1] semantics [parallel] threads 32 {
    %as = vx.scratch smem : memref<16x24xbf16>
    %bs = vx.scratch smem : memref<16x16xbf16>
    %a = memref.subview %as[0, 4] [16, 16] [1, 1]
        : memref<16x24xbf16> to memref<16x16xbf16, strided<[24, 1], offset: 4>>
    %b = memref.subview %bs[0, 0] [16, 8] [1, 2]
        : memref<16x16xbf16> to memref<16x8xbf16, strided<[16, 2]>>
    %acc = vx.scratch : memref<16x8xf32>
    linalg.fill ins(%zero : f32) outs(%acc : memref<16x8xf32>)
    // expected-remark @+3 {{computed on the tensor cores: mma.sync.m16n8k16 on 1 warps (1x1), 16x8 of the accumulator per warp}}
    // expected-remark @+2 {{operand A is loaded element by element, not with ldmatrix: its rows are not 16-byte aligned}}
    // expected-remark @+1 {{operand B is loaded element by element, not with ldmatrix: its rows are not contiguous at a static pitch}}
    linalg.matmul ins(%a, %b : memref<16x16xbf16, strided<[24, 1], offset: 4>>, memref<16x8xbf16, strided<[16, 2]>>)
                  outs(%acc : memref<16x8xf32>)
    linalg.copy ins(%acc : memref<16x8xf32>) outs(%c : memref<16x8xf32>)
  }
  return
}
