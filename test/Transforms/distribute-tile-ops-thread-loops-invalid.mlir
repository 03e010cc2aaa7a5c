// RUN: vx-opt %s -split-input-file -verify-diagnostics --vx-distribute-tile-ops="chip=sm_80" -o /dev/null
// RUN: vx-opt %s -split-input-file -verify-diagnostics --vx-verify-semantics="chip=sm_80" -o /dev/null

// A thread loop of the user's over a private tile of a fragment group
// (VX_SPEC 2.3) that the fragment layout cannot run is an error naming the
// loop, the access and the tile ops it conflicts with: never a fallback or
// a copy (the loops that it can run: distribute-tile-ops-thread-loops.mlir).

func.func @transposed(%a: memref<16x16xbf16>, %b: memref<16x16xbf16>,
                      %c: memref<16x16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  vx.spawn on tensor_core grid [1] semantics [parallel] threads 32 {
    %acc = vx.scratch : memref<16x16xf32>
    // expected-note @+1 {{the tile op 'linalg.matmul' it conflicts with}}
    linalg.matmul ins(%a, %b : memref<16x16xbf16>, memref<16x16xbf16>)
                  outs(%acc : memref<16x16xf32>)
    // expected-error @+1 {{this thread loop touches private tiles that tile ops compute in the mma.sync fragment layout, and cannot be mapped onto it: it indexes a tile with other values than its induction variables in order ([r, c] of a tile, [r] of a row vector)}}
    scf.parallel (%i, %j) = (%c0, %c0) to (%c16, %c16) step (%c1, %c1) {
      // expected-note @+1 {{the access}}
      %x = memref.load %acc[%j, %i] : memref<16x16xf32>
      memref.store %x, %c[%i, %j] : memref<16x16xf32>
    }
  }
  return
}

// -----

func.func @not_an_induction_variable(%a: memref<16x16xbf16>,
                                     %b: memref<16x16xbf16>,
                                     %c: memref<16x16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  vx.spawn on tensor_core grid [1] semantics [parallel] threads 32 {
    %acc = vx.scratch : memref<16x16xf32>
    %zero = arith.constant 0.0 : f32
    // expected-note @+1 {{the tile op 'linalg.fill' it conflicts with}}
    linalg.fill ins(%zero : f32) outs(%acc : memref<16x16xf32>)
    // expected-note @+1 {{the tile op 'linalg.matmul' it conflicts with}}
    linalg.matmul ins(%a, %b : memref<16x16xbf16>, memref<16x16xbf16>)
                  outs(%acc : memref<16x16xf32>)
    // expected-error @+1 {{cannot be mapped onto it: it indexes a tile with other values than its induction variables in order}}
    scf.parallel (%i, %j) = (%c0, %c0) to (%c16, %c16) step (%c1, %c1) {
      // expected-note @+1 {{the access}}
      %x = memref.load %acc[%i, %c0] : memref<16x16xf32>
      memref.store %x, %c[%i, %j] : memref<16x16xf32>
    }
  }
  return
}

// -----

func.func @part_of_the_rows(%a: memref<32x16xbf16>, %b: memref<16x16xbf16>,
                            %c: memref<32x16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  vx.spawn on tensor_core grid [1] semantics [parallel] threads 64 {
    %acc = vx.scratch : memref<32x16xf32>
    // expected-note @+1 {{the tile op 'linalg.matmul' it conflicts with}}
    linalg.matmul ins(%a, %b : memref<32x16xbf16>, memref<16x16xbf16>)
                  outs(%acc : memref<32x16xf32>)
    // expected-error @+1 {{cannot be mapped onto it: it spans 16 of the tile's 32 rows}}
    scf.parallel (%i, %j) = (%c0, %c0) to (%c16, %c16) step (%c1, %c1) {
      // expected-note @+1 {{the access}}
      %x = memref.load %acc[%i, %j] : memref<32x16xf32>
      memref.store %x, %c[%i, %j] : memref<32x16xf32>
    }
  }
  return
}

// -----

func.func @through_a_vector_load(%a: memref<16x16xbf16>,
                                 %b: memref<16x16xbf16>,
                                 %c: memref<16x16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  vx.spawn on tensor_core grid [1] semantics [parallel] threads 32 {
    %acc = vx.scratch : memref<16x16xf32>
    // expected-note @+1 {{the tile op 'linalg.matmul' it conflicts with}}
    linalg.matmul ins(%a, %b : memref<16x16xbf16>, memref<16x16xbf16>)
                  outs(%acc : memref<16x16xf32>)
    // expected-error @+1 {{cannot be mapped onto it: it accesses a tile with 'vector.load', not memref.load or memref.store}}
    scf.parallel (%i, %j) = (%c0, %c0) to (%c16, %c16) step (%c1, %c1) {
      // expected-note @+1 {{the access}}
      %x = vector.load %acc[%i, %j] : memref<16x16xf32>, vector<1xf32>
      vector.store %x, %c[%i, %j] : memref<16x16xf32>, vector<1xf32>
    }
  }
  return
}

// -----

// A loop over rows runs on each of the four lanes that hold a row: it may
// update the group's row vectors there, but not write other memory.
func.func @rows_written_out(%a: memref<16x16xbf16>, %b: memref<16x16xbf16>,
                            %out: memref<16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  vx.spawn on tensor_core grid [1] semantics [parallel] threads 32 {
    %acc = vx.scratch : memref<16x16xf32>
    %m = vx.scratch : memref<16xf32>
    linalg.matmul ins(%a, %b : memref<16x16xbf16>, memref<16x16xbf16>)
                  outs(%acc : memref<16x16xf32>)
    // expected-note @+1 {{the tile op 'linalg.reduce' it conflicts with}}
    linalg.reduce ins(%acc : memref<16x16xf32>) outs(%m : memref<16xf32>)
        dimensions = [1]
      (%x: f32, %y: f32) {
        %max = arith.maximumf %x, %y : f32
        linalg.yield %max : f32
      }
    // expected-error @+1 {{cannot be mapped onto it: it runs over rows only, which the four lanes of a quad each hold, and may write other memory than the group's tiles}}
    scf.parallel (%i) = (%c0) to (%c16) step (%c1) {
      %x = memref.load %m[%i] : memref<16xf32>
      // expected-note @+1 {{the access}}
      memref.store %x, %out[%i] : memref<16xf32>
    }
  }
  return
}

// -----

func.func @a_reduction(%a: memref<16x16xbf16>, %b: memref<16x16xbf16>,
                       %out: memref<f32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %zero = arith.constant 0.0 : f32
  vx.spawn on tensor_core grid [1] semantics [parallel] threads 32 {
    %acc = vx.scratch : memref<16x16xf32>
    // expected-note @+1 {{the tile op 'linalg.matmul' it conflicts with}}
    linalg.matmul ins(%a, %b : memref<16x16xbf16>, memref<16x16xbf16>)
                  outs(%acc : memref<16x16xf32>)
    // expected-error @+1 {{cannot be mapped onto it: it reduces across the threads}}
    %sum = scf.parallel (%i, %j) = (%c0, %c0) to (%c16, %c16)
        step (%c1, %c1) init (%zero) -> f32 {
      %x = memref.load %acc[%i, %j] : memref<16x16xf32>
      scf.reduce(%x : f32) {
      ^bb0(%l: f32, %r: f32):
        %s = arith.addf %l, %r : f32
        scf.reduce.return %s : f32
      }
    }
    memref.store %sum, %out[] : memref<f32>
  }
  return
}

// -----

// Columns of the fragment layout come in fragments of 8.
func.func @columns_not_whole_fragments(%a: memref<16x16xbf16>,
                                       %b: memref<16x16xbf16>,
                                       %out: memref<16x12xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c12 = arith.constant 12 : index
  %c16 = arith.constant 16 : index
  vx.spawn on tensor_core grid [1] semantics [parallel] threads 32 {
    %acc = vx.scratch : memref<16x16xf32>
    %m = vx.scratch : memref<16xf32>
    linalg.matmul ins(%a, %b : memref<16x16xbf16>, memref<16x16xbf16>)
                  outs(%acc : memref<16x16xf32>)
    // expected-note @+1 {{the tile op 'linalg.reduce' it conflicts with}}
    linalg.reduce ins(%acc : memref<16x16xf32>) outs(%m : memref<16xf32>)
        dimensions = [1]
      (%x: f32, %y: f32) {
        %max = arith.maximumf %x, %y : f32
        linalg.yield %max : f32
      }
    // expected-error @+1 {{cannot be mapped onto it: its 12 columns are not a multiple of 8 (a fragment's)}}
    scf.parallel (%i, %j) = (%c0, %c0) to (%c16, %c12) step (%c1, %c1) {
      %x = memref.load %m[%i] : memref<16xf32>
      memref.store %x, %out[%i, %j] : memref<16x12xf32>
    }
  }
  return
}
