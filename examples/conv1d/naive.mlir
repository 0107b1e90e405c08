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

// The reference, written once for the conv1d examples, is in reference.mlir.
func.func private @conv1d_reference(memref<?xf32>, memref<32xf32>, memref<?xf32>)
    attributes {tile.defined_in = "reference.mlir"}
