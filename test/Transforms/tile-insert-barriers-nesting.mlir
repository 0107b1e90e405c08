// RUN: timeout 30 tile-opt %s --tile-insert-barriers | FileCheck %s

// Regression (timeout turns a hang into a failure): each loop level
// appended the accesses pending before it again (before the loop, carried
// into it, and after it), so the pending set tripled per nesting level: this
// file took over a minute, the conv2d example 157 ms.
// Repeated accesses are now dropped. The reads of s[0] and the write of
// s[tx] after the nest race: one barrier, between them.
// CHECK-LABEL: tile.kernel @nested_loops
// CHECK: memref.load %{{.*}}[%tx]
// CHECK-NEXT: tile.barrier
// CHECK-NEXT: memref.store
// CHECK-NOT: tile.barrier
tile.kernel @nested_loops(%A: memref<64xf32>) grid [1] threads [64] {
  %tx = tile.thread_id x
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %s = tile.alloc_shared : memref<64xf32, #gpu.address_space<workgroup>>
  %v0 = memref.load %s[%c0] : memref<64xf32, #gpu.address_space<workgroup>>
  tile.serial %i0 = %c0 to %c2 step %c1 {
    %v1 = memref.load %s[%c0] : memref<64xf32, #gpu.address_space<workgroup>>
    tile.serial %i1 = %c0 to %c2 step %c1 {
      %v2 = memref.load %s[%c0] : memref<64xf32, #gpu.address_space<workgroup>>
      tile.serial %i2 = %c0 to %c2 step %c1 {
        %v3 = memref.load %s[%c0] : memref<64xf32, #gpu.address_space<workgroup>>
        tile.serial %i3 = %c0 to %c2 step %c1 {
          %v4 = memref.load %s[%c0] : memref<64xf32, #gpu.address_space<workgroup>>
          tile.serial %i4 = %c0 to %c2 step %c1 {
            %v5 = memref.load %s[%c0] : memref<64xf32, #gpu.address_space<workgroup>>
            tile.serial %i5 = %c0 to %c2 step %c1 {
              %v6 = memref.load %s[%c0] : memref<64xf32, #gpu.address_space<workgroup>>
              tile.serial %i6 = %c0 to %c2 step %c1 {
                %v7 = memref.load %s[%c0] : memref<64xf32, #gpu.address_space<workgroup>>
                tile.serial %i7 = %c0 to %c2 step %c1 {
                  %v8 = memref.load %s[%c0] : memref<64xf32, #gpu.address_space<workgroup>>
                  tile.serial %i8 = %c0 to %c2 step %c1 {
                    %v9 = memref.load %s[%c0] : memref<64xf32, #gpu.address_space<workgroup>>
                    tile.serial %i9 = %c0 to %c2 step %c1 {
                      %w = memref.load %s[%c0] : memref<64xf32, #gpu.address_space<workgroup>>
                    }
                  }
                }
              }
            }
          }
        }
      }
    }
  }
  %x = memref.load %A[%tx] : memref<64xf32>
  memref.store %x, %s[%tx] : memref<64xf32, #gpu.address_space<workgroup>>
}
