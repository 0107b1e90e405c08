// RUN: tile-opt %s -split-input-file -verify-diagnostics --pass-pipeline='builtin.module(tile.kernel(tile-lower-reductions))'

// A buffer reduction needs one slot per thread in shared memory; this
// kernel leaves 512 bytes, less than the 1024 of 256 threads' f32.
tile.kernel @no_room() grid [1] threads [8, 8, 4] {
  %big = tile.alloc_shared : memref<57984xf32, #gpu.address_space<workgroup>>
  %acc = tile.alloc_local : memref<4xf32>
  %one = arith.constant 1.0 : f32
  tile.fill %acc, %one : memref<4xf32>
  // expected-error @below {{'tile.thread_allreduce' op needs 1024 bytes of shared memory to combine its buffer (one element per thread), but the kernel leaves 512 of the 232448 a block may use}}
  tile.thread_allreduce add %acc across(z) : memref<4xf32>
}
