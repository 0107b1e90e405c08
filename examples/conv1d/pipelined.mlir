// RUN: tile-opt %s | tile-opt | FileCheck %s
// RUN: tile-opt %s --tile-to-ptx='ptx-output=%t.ptx' -o /dev/null
// RUN: %if ptxas %{ %ptxas-each %t %}
// GPU-SUITE: --kernel conv1d_pipelined --check --check-repeat 10 --bench
// GPU-SUITE: --kernel conv1d_pipelined_3 --check --bench

// conv1d at M = 2^24 (np.convolve with 32 taps) as a persistent,
// software-pipelined kernel: each block walks tiles of 1024 outputs
// (bx, bx + G, ...) and a tile.pipelined loop copies each tile's 1056 inputs
// into shared memory with cp.async several tiles ahead; each thread then
// takes its 40 inputs from there into registers and computes 8 outputs.

// CHECK-LABEL: tile.kernel @conv1d_pipelined
tile.kernel @conv1d_pipelined(%A: memref<16777216xf32>, %W: memref<32xf32>, %B: memref<16777247xf32>)
    grid [528] threads [128] attributes {reference = @conv1d_reference} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c32 = arith.constant 32 : index
  %c_grid = arith.constant 528 : index
  %c_last = arith.constant 16384 : index
  %bx = tile.block_id x
  %tx = tile.thread_id x
  // Tiles bx, bx + G, ... of the 16385 tiles of 1024 outputs.
  %rest = arith.subi %c_last, %bx : index
  %tiles = affine.apply affine_map<(r) -> (r floordiv 528 + 1)>(%rest)
  %w = tile.alloc_local : memref<32xf32>
  tile.copy %W to %w : memref<32xf32> to memref<32xf32>
  %window = tile.alloc_shared : memref<1056xf32, #gpu.address_space<workgroup>>
  %x = tile.alloc_local : memref<40xf32>
  %y = tile.alloc_local : memref<8xf32>
  %zero = arith.constant 0.0 : f32
  %first = arith.muli %tx, %c8 : index
  tile.pipelined %it = %c0 to %tiles step %c1 stages 4 {
    %tile = affine.apply affine_map<(i, b) -> (i * 528 + b)>(%it, %bx)
    // The tile's 1024 inputs and the 32 before them (zero below the start
    // and past the end of the signal).
    %start = affine.apply affine_map<(t) -> (t * 1024 - 32)>(%tile)
    tile.copy %A[%start] to %window : memref<16777216xf32> to memref<1056xf32, #gpu.address_space<workgroup>>
    tile.copy %window[%first] to %x : memref<1056xf32, #gpu.address_space<workgroup>> to memref<40xf32>
    tile.unroll %j = %c0 to %c8 step %c1 {
      %acc = tile.alloc_local : memref<1xf32>
      memref.store %zero, %acc[%c0] : memref<1xf32>
      tile.unroll %r = %c0 to %c32 step %c1 {
        %i = affine.apply affine_map<(j, r) -> (j + 32 - r)>(%j, %r)
        %a = memref.load %x[%i] : memref<40xf32>
        %b = memref.load %w[%r] : memref<32xf32>
        %s = memref.load %acc[%c0] : memref<1xf32>
        %t = math.fma %a, %b, %s : f32
        memref.store %t, %acc[%c0] : memref<1xf32>
      }
      %v = memref.load %acc[%c0] : memref<1xf32>
      memref.store %v, %y[%j] : memref<8xf32>
    }
    %n = affine.apply affine_map<(t, f) -> (t * 1024 + f)>(%tile, %first)
    tile.copy %y to %B[%n] : memref<8xf32> to memref<16777247xf32>
  }
}

// CHECK-LABEL: tile.kernel @conv1d_pipelined_3
tile.kernel @conv1d_pipelined_3(%A: memref<16777216xf32>, %W: memref<32xf32>, %B: memref<16777247xf32>)
    grid [1056] threads [128] attributes {reference = @conv1d_reference} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c32 = arith.constant 32 : index
  %c_grid = arith.constant 1056 : index
  %c_last = arith.constant 16384 : index
  %bx = tile.block_id x
  %tx = tile.thread_id x
  // Tiles bx, bx + G, ... of the 16385 tiles of 1024 outputs.
  %rest = arith.subi %c_last, %bx : index
  %tiles = affine.apply affine_map<(r) -> (r floordiv 1056 + 1)>(%rest)
  %w = tile.alloc_local : memref<32xf32>
  tile.copy %W to %w : memref<32xf32> to memref<32xf32>
  %window = tile.alloc_shared : memref<1056xf32, #gpu.address_space<workgroup>>
  %x = tile.alloc_local : memref<40xf32>
  %y = tile.alloc_local : memref<8xf32>
  %zero = arith.constant 0.0 : f32
  %first = arith.muli %tx, %c8 : index
  tile.pipelined %it = %c0 to %tiles step %c1 stages 3 {
    %tile = affine.apply affine_map<(i, b) -> (i * 1056 + b)>(%it, %bx)
    // The tile's 1024 inputs and the 32 before them (zero below the start
    // and past the end of the signal).
    %start = affine.apply affine_map<(t) -> (t * 1024 - 32)>(%tile)
    tile.copy %A[%start] to %window : memref<16777216xf32> to memref<1056xf32, #gpu.address_space<workgroup>>
    tile.copy %window[%first] to %x : memref<1056xf32, #gpu.address_space<workgroup>> to memref<40xf32>
    tile.unroll %j = %c0 to %c8 step %c1 {
      %acc = tile.alloc_local : memref<1xf32>
      memref.store %zero, %acc[%c0] : memref<1xf32>
      tile.unroll %r = %c0 to %c32 step %c1 {
        %i = affine.apply affine_map<(j, r) -> (j + 32 - r)>(%j, %r)
        %a = memref.load %x[%i] : memref<40xf32>
        %b = memref.load %w[%r] : memref<32xf32>
        %s = memref.load %acc[%c0] : memref<1xf32>
        %t = math.fma %a, %b, %s : f32
        memref.store %t, %acc[%c0] : memref<1xf32>
      }
      %v = memref.load %acc[%c0] : memref<1xf32>
      memref.store %v, %y[%j] : memref<8xf32>
    }
    %n = affine.apply affine_map<(t, f) -> (t * 1024 + f)>(%tile, %first)
    tile.copy %y to %B[%n] : memref<8xf32> to memref<16777247xf32>
  }
}

// The CPU reference, for any signal length: np.convolve(A, W), "full".
// CHECK-LABEL: func.func @conv1d_reference
func.func @conv1d_reference(%A: memref<?xf32>, %W: memref<32xf32>,
                            %B: memref<?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %zero = arith.constant 0.0 : f32
  %m = memref.dim %A, %c0 : memref<?xf32>
  %n_out = memref.dim %B, %c0 : memref<?xf32>
  scf.for %n = %c0 to %n_out step %c1 {
    %sum = scf.for %r = %c0 to %c32 step %c1 iter_args(%acc = %zero) -> (f32) {
      %i = arith.subi %n, %r : index
      %inside = arith.cmpi ult, %i, %m : index
      %term = scf.if %inside -> (f32) {
        %a = memref.load %A[%i] : memref<?xf32>
        %w = memref.load %W[%r] : memref<32xf32>
        %p = arith.mulf %a, %w : f32
        scf.yield %p : f32
      } else {
        scf.yield %zero : f32
      }
      %next = arith.addf %acc, %term : f32
      scf.yield %next : f32
    }
    memref.store %sum, %B[%n] : memref<?xf32>
  }
  return
}
