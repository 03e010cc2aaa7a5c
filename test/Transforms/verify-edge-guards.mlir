// RUN: vx-opt %s -split-input-file --vx-verify-semantics -o /dev/null 2>&1 | FileCheck %s --allow-empty --implicit-check-not=warning --implicit-check-not=error

// The usual edge guard of a 2-D tiled kernel, `r0 + i < H && q0 + j < W`
// with dynamic H and W and a grid of ceildiv(H, T) x ceildiv(W, T) tiles,
// used to make the checker give up ("too large to decide within the
// budget"): the guard was one constraint over both dimensions, and the
// wrap counts of the 64-bit tile offsets put a dozen columns with
// coefficients of 2^64 into one component. Each form of a conjunction is
// now a constraint of its own (the dimensions split into components),
// the wrap counts take the ranges the other constraints allow (a tile
// offset below H never wraps: a single case), and a component still too
// wide is decided without its wrap-around constraints where that relaxation
// is empty. Both kernels verify without a word.

func.func @transpose(%in: memref<?x?xf32>, %out: memref<?x?xf32>, %H: index, %W: index) {
  %c0 = arith.constant 0 : index
  %cT = arith.constant 32 : index
  %gh = arith.ceildivsi %H, %cT : index
  %gw = arith.ceildivsi %W, %cT : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  vx.spawn on tensor_core grid [%gh, %gw] semantics [parallel, parallel] threads 256 {
    %bi = vx.grid_index 0
    %bj = vx.grid_index 1
    %r0 = arith.muli %bi, %c32 : index
    %q0 = arith.muli %bj, %c32 : index
    %tile = vx.scratch smem : memref<32x33xf32>
    scf.parallel (%i, %j) = (%c0, %c0) to (%c32, %c32) step (%c1, %c1) {
      %r = arith.addi %r0, %i : index
      %q = arith.addi %q0, %j : index
      %rin = arith.cmpi slt, %r, %H : index
      %qin = arith.cmpi slt, %q, %W : index
      %ok = arith.andi %rin, %qin : i1
      scf.if %ok {
        %v = memref.load %in[%r, %q] : memref<?x?xf32>
        memref.store %v, %tile[%i, %j] : memref<32x33xf32>
      }
    }
    scf.parallel (%i, %j) = (%c0, %c0) to (%c32, %c32) step (%c1, %c1) {
      %r = arith.addi %q0, %i : index
      %q = arith.addi %r0, %j : index
      %rin = arith.cmpi slt, %r, %W : index
      %qin = arith.cmpi slt, %q, %H : index
      %ok = arith.andi %rin, %qin : i1
      scf.if %ok {
        %v = memref.load %tile[%j, %i] : memref<32x33xf32>
        memref.store %v, %out[%r, %q] : memref<?x?xf32>
      }
    }
  }
  return
}

// -----

func.func @stencil(%in: memref<?x?xf32>, %out: memref<?x?xf32>, %H: index, %W: index) {
  %c0 = arith.constant 0 : index
  %cT = arith.constant 16 : index
  %gh = arith.ceildivsi %H, %cT : index
  %gw = arith.ceildivsi %W, %cT : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c16 = arith.constant 16 : index
  %c18 = arith.constant 18 : index
  %zero = arith.constant 0.0 : f32
  vx.spawn on tensor_core grid [%gh, %gw] semantics [parallel, parallel] threads 256 {
    %bi = vx.grid_index 0
    %bj = vx.grid_index 1
    %r0 = arith.muli %bi, %c16 : index
    %q0 = arith.muli %bj, %c16 : index
    %tile = vx.scratch smem : memref<18x18xf32>
    scf.parallel (%i, %j) = (%c0, %c0) to (%c18, %c18) step (%c1, %c1) {
      %r1 = arith.addi %r0, %i : index
      %q1 = arith.addi %q0, %j : index
      %r = arith.subi %r1, %c1 : index
      %q = arith.subi %q1, %c1 : index
      %rlo = arith.cmpi sge, %r, %c0 : index
      %rhi = arith.cmpi slt, %r, %H : index
      %qlo = arith.cmpi sge, %q, %c0 : index
      %qhi = arith.cmpi slt, %q, %W : index
      %a = arith.andi %rlo, %rhi : i1
      %b = arith.andi %qlo, %qhi : i1
      %ok = arith.andi %a, %b : i1
      %v = scf.if %ok -> f32 {
        %x = memref.load %in[%r, %q] : memref<?x?xf32>
        scf.yield %x : f32
      } else {
        scf.yield %zero : f32
      }
      memref.store %v, %tile[%i, %j] : memref<18x18xf32>
    }
    scf.parallel (%i, %j) = (%c0, %c0) to (%c16, %c16) step (%c1, %c1) {
      %r = arith.addi %r0, %i : index
      %q = arith.addi %q0, %j : index
      %rin = arith.cmpi slt, %r, %H : index
      %qin = arith.cmpi slt, %q, %W : index
      %ok = arith.andi %rin, %qin : i1
      scf.if %ok {
        %i1 = arith.addi %i, %c1 : index
        %j1 = arith.addi %j, %c1 : index
        %i2 = arith.addi %i, %c2 : index
        %j2 = arith.addi %j, %c2 : index
        %n = memref.load %tile[%i, %j1] : memref<18x18xf32>
        %s = memref.load %tile[%i2, %j1] : memref<18x18xf32>
        %w = memref.load %tile[%i1, %j] : memref<18x18xf32>
        %e = memref.load %tile[%i1, %j2] : memref<18x18xf32>
        %c = memref.load %tile[%i1, %j1] : memref<18x18xf32>
        %t0 = arith.addf %n, %s : f32
        %t1 = arith.addf %w, %e : f32
        %t2 = arith.addf %t0, %t1 : f32
        %t3 = arith.addf %t2, %c : f32
        memref.store %t3, %out[%r, %q] : memref<?x?xf32>
      }
    }
  }
  return
}
