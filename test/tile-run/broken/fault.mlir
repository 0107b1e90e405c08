// A kernel that writes far outside its buffer: tile-run must report the
// fault and name the kernel, not crash or hang.
// RUN: tile-opt %s --tile-to-ptx -o /dev/null
// RUN: %if cuda %{ not tile-run %s --check 2>&1 | FileCheck %s %}
// CHECK: tile-run: kernel 'out_of_bounds' failed: CUDA_ERROR_ILLEGAL_ADDRESS
// EXPECT: CUDA_ERROR_ILLEGAL_ADDRESS
// CPU-EXPECT: out-of-bounds access at
tile.kernel @out_of_bounds(%y: memref<256xf32>)
    grid [1] threads [256] attributes {reference = @fill} {
  %far = arith.constant 1099511627776 : index
  %tx = tile.thread_id x
  %i = arith.addi %far, %tx : index
  %f = arith.constant 1.0 : f32
  memref.store %f, %y[%i] : memref<256xf32>
}

func.func @fill(%y: memref<256xf32>) {
  return
}
