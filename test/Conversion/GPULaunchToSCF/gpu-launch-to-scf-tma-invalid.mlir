// TMA and mbarrier ops that cannot run on the CPU are errors that say why.
// RUN: vx-opt %s --convert-gpu-launch-to-scf -split-input-file -verify-diagnostics

#wg = #gpu.address_space<workgroup>
!barriers = !nvgpu.mbarrier.group<memorySpace = #wg>
!map = !nvgpu.tensormap.descriptor<tensor = memref<16x32xf32, #wg>, swizzle = none, l2promo = none, oob = zero, interleave = none>

func.func @pointer() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
      threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    %barriers = nvgpu.mbarrier.create -> !barriers
    // expected-error @+1 {{'nvgpu.mbarrier.get' op has no CPU execution}}
    %pointer = nvgpu.mbarrier.get %barriers[%c0] : !barriers -> i32
    gpu.terminator
  }
  return
}

// -----

#wg = #gpu.address_space<workgroup>
!barriers = !nvgpu.mbarrier.group<memorySpace = #wg>
!map = !nvgpu.tensormap.descriptor<tensor = memref<16x32xf32, #wg>, swizzle = none, l2promo = none, oob = zero, interleave = none>

func.func @divergent_wait() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %ticks = arith.constant 1000 : index
  %false = arith.constant false
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
      threads(%tx, %ty, %tz) in (%sx = %c32, %sy = %c1, %sz = %c1) {
    %barriers = nvgpu.mbarrier.create -> !barriers
    nvgpu.mbarrier.init %barriers[%c0], %c32 : !barriers
    %token = nvgpu.mbarrier.arrive %barriers[%c0] : !barriers -> !nvgpu.mbarrier.token
    %first = arith.cmpi eq, %tx, %c0 : index
    // expected-note @+1 {{the condition of this 'scf.if' may differ between the threads of a block}}
    scf.if %first {
      // expected-error @+1 {{'nvgpu.mbarrier.try_wait.parity' op is in divergent control flow: on the CPU every thread of the block must reach it}}
      nvgpu.mbarrier.try_wait.parity %barriers[%c0], %false, %ticks : !barriers
    }
    gpu.terminator
  }
  return
}

// -----

#wg = #gpu.address_space<workgroup>
!barriers = !nvgpu.mbarrier.group<memorySpace = #wg>
!map = !nvgpu.tensormap.descriptor<tensor = memref<16x32xf32, #wg>, swizzle = none, l2promo = none, oob = zero, interleave = none>

func.func @carried_token(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
      threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    %barriers = nvgpu.mbarrier.create -> !barriers
    nvgpu.mbarrier.init %barriers[%c0], %c1 : !barriers
    // expected-error @+1 {{'nvgpu.mbarrier.arrive' op has a token that, on the CPU, only nvgpu.mbarrier.test.wait may use}}
    %token = nvgpu.mbarrier.arrive %barriers[%c0] : !barriers -> !nvgpu.mbarrier.token
    %last = scf.for %i = %c0 to %n step %c1 iter_args(%t = %token) -> !nvgpu.mbarrier.token {
      scf.yield %t : !nvgpu.mbarrier.token
    }
    gpu.terminator
  }
  return
}

// -----

#wg = #gpu.address_space<workgroup>
!barriers = !nvgpu.mbarrier.group<memorySpace = #wg>
!map = !nvgpu.tensormap.descriptor<tensor = memref<16x32xf32, #wg>, swizzle = none, l2promo = none, oob = zero, interleave = none>

func.func @barriers_from_the_host() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %barriers = nvgpu.mbarrier.create -> !barriers
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
      threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    // expected-error @+1 {{'nvgpu.mbarrier.init' op runs on the CPU only on mbarriers that nvgpu.mbarrier.create makes in the launch}}
    nvgpu.mbarrier.init %barriers[%c0], %c1 : !barriers
    gpu.terminator
  }
  return
}

// -----

#wg = #gpu.address_space<workgroup>
!barriers = !nvgpu.mbarrier.group<memorySpace = #wg>
!map = !nvgpu.tensormap.descriptor<tensor = memref<16x32xf32, #wg>, swizzle = none, l2promo = none, oob = zero, interleave = none>

func.func @map_argument(%map: !map) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
      threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1)
      workgroup(%buffer : memref<16x32xf32, #wg>) {
    %tile = memref.memory_space_cast %buffer : memref<16x32xf32, #wg> to memref<16x32xf32>
    %target = memref.memory_space_cast %tile : memref<16x32xf32> to memref<16x32xf32, #wg>
    %barriers = nvgpu.mbarrier.create -> !barriers
    // expected-error @+1 {{'nvgpu.tma.async.load' op runs on the CPU only with a tensor map that nvgpu.tma.create.descriptor makes from memory in the default space}}
    nvgpu.tma.async.load %map[%c0, %c0], %barriers[%c0] to %target : !map, !barriers -> memref<16x32xf32, #wg>
    gpu.terminator
  }
  return
}

// -----

#wg = #gpu.address_space<workgroup>
!barriers = !nvgpu.mbarrier.group<memorySpace = #wg>
!map = !nvgpu.tensormap.descriptor<tensor = memref<16x32xf32, #wg>, swizzle = none, l2promo = none, oob = zero, interleave = none>

func.func @into_the_attribution(%a: memref<64x32xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  %unranked = memref.cast %a : memref<64x32xf32> to memref<*xf32>
  %map = nvgpu.tma.create.descriptor %unranked box[%c16, %c32] : memref<*xf32> -> !map
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
      threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1)
      workgroup(%buffer : memref<16x32xf32, #wg>) {
    %barriers = nvgpu.mbarrier.create -> !barriers
    // expected-error @+1 {{'nvgpu.tma.async.load' op runs on the CPU only into workgroup memory seen through memref.memory_space_cast (and memref.expand_shape) of memory in the default space}}
    nvgpu.tma.async.load %map[%c0, %c0], %barriers[%c0] to %buffer : !map, !barriers -> memref<16x32xf32, #wg>
    gpu.terminator
  }
  return
}

// -----

#wg = #gpu.address_space<workgroup>
!barriers = !nvgpu.mbarrier.group<memorySpace = #wg>
!map = !nvgpu.tensormap.descriptor<tensor = memref<16x32xf32, #wg>, swizzle = none, l2promo = none, oob = zero, interleave = none>

func.func @multicast(%a: memref<64x32xf32>, %mask: i16) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  %unranked = memref.cast %a : memref<64x32xf32> to memref<*xf32>
  %map = nvgpu.tma.create.descriptor %unranked box[%c16, %c32] : memref<*xf32> -> !map
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
      threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1)
      workgroup(%buffer : memref<16x32xf32, #wg>) {
    %tile = memref.memory_space_cast %buffer : memref<16x32xf32, #wg> to memref<16x32xf32>
    %target = memref.memory_space_cast %tile : memref<16x32xf32> to memref<16x32xf32, #wg>
    %barriers = nvgpu.mbarrier.create -> !barriers
    // expected-error @+1 {{'nvgpu.tma.async.load' op with a multicast mask cannot run on the CPU}}
    nvgpu.tma.async.load %map[%c0, %c0], %barriers[%c0] to %target multicast_mask = %mask : !map, !barriers -> memref<16x32xf32, #wg>
    gpu.terminator
  }
  return
}

// -----

#wg = #gpu.address_space<workgroup>
!barriers = !nvgpu.mbarrier.group<memorySpace = #wg>
!map = !nvgpu.tensormap.descriptor<tensor = memref<16x32xf32, #wg>, swizzle = none, l2promo = none, oob = zero, interleave = none>

func.func @group_carried(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
      threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    %barriers = nvgpu.mbarrier.create -> !barriers
    // expected-error @+1 {{'scf.for' op uses an mbarrier group; on the CPU mbarrier groups are only initialized, arrived on, tested, waited for and loaded into}}
    %last = scf.for %i = %c0 to %n step %c1 iter_args(%b = %barriers) -> !barriers {
      scf.yield %b : !barriers
    }
    gpu.terminator
  }
  return
}
