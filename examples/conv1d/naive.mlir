// RUN: tile-opt %s | tile-opt | FileCheck %s
// RUN: tile-opt %s --tile-to-ptx='ptx-output=%t.ptx' > /dev/null
// RUN: %if ptxas %{ %ptxas-each %t %}
// GPU-SUITE: --check --bench

// TVM conv1d tutorial, naive schedule: B = np.convolve(A, W) for a signal of
// M = 16384 and N = 32 taps (16415 outputs). One block of one thread per
// output, which walks the whole signal and tests whether each position
// meets the kernel; the sum accumulates in global memory as in the TVM IR.

// CHECK-LABEL: tile.kernel @conv1d_naive
tile.kernel @conv1d_naive(%A: memref<16384xf32>, %W: memref<32xf32>, %B: memref<16415xf32>)
    grid [16415] threads [1] attributes {reference = @conv1d_reference} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %c16384 = arith.constant 16384 : index
  %c16415 = arith.constant 16415 : index
  %zero = arith.constant 0.0 : f32
  %n = tile.block_id x
  memref.store %zero, %B[%n] : memref<16415xf32>
  tile.serial %k = %c0 to %c16415 step %c1 {
    %r = arith.subi %n, %k : index
    %in_signal = arith.cmpi ult, %k, %c16384 : index
    %in_kernel = arith.cmpi ult, %r, %c32 : index
    %both = arith.andi %in_signal, %in_kernel : i1
    scf.if %both {
      %a = memref.load %A[%k] : memref<16384xf32>
      %w = memref.load %W[%r] : memref<32xf32>
      %p = arith.mulf %a, %w : f32
      %acc = memref.load %B[%n] : memref<16415xf32>
      %s = arith.addf %acc, %p : f32
      memref.store %s, %B[%n] : memref<16415xf32>
    }
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
