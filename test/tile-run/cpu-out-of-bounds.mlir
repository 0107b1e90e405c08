// The CPU target reports an out-of-bounds shared-memory access with the op,
// its index and the thread, instead of corrupting memory or crashing; the
// run fails. (On the GPU this kernel would silently write past the buffer.)
// RUN: not tile-run %s --target=cpu 2>&1 | FileCheck %s
// RUN: not tile-run %s --race-check 2>&1 | FileCheck %s
// CHECK: 1 out-of-bounds, 0 deadlocks
// CHECK-NEXT: @shift: out-of-bounds access at {{.*}}cpu-out-of-bounds.mlir:[[@LINE+9]]:3: memref.store on memref<256xf32, #gpu.address_space<workgroup>>: index [256] by thread (255, 0, 0) of block (0, 0, 0)
// CHECK-NOT: race on
tile.kernel @shift(%y: memref<256xf32>) grid [1] threads [256] {
  %c1 = arith.constant 1 : index
  %one = arith.constant 1.0 : f32
  %buf = tile.alloc_shared : memref<256xf32, #gpu.address_space<workgroup>>
  %tx = tile.thread_id x
  %next = arith.addi %tx, %c1 : index
  // Thread 255 writes buf[256].
  memref.store %one, %buf[%next] : memref<256xf32, #gpu.address_space<workgroup>>
  %v = memref.load %buf[%tx] : memref<256xf32, #gpu.address_space<workgroup>>
  memref.store %v, %y[%tx] : memref<256xf32>
}
