// RUN: tile-opt %s --tile-to-ptx='ptx-output=-' -o /dev/null | FileCheck %s

// Dynamic shared memory starts where the kernel's largest alignment asks
// (here a 128-byte swizzled tile past the 48 KB of static shared memory),
// and after any static shared memory: an external symbol, never a static
// variable that ptxas could place anywhere.
// CHECK: .extern .shared .align 128 .b8 __dynamic_shmem__0[];
// CHECK: .entry swizzled_dynamic
tile.kernel @swizzled_dynamic(%X: memref<128x64xf16>, %Y: memref<128x64xf16>) grid [1] threads [128] {
  %big = tile.alloc_shared : memref<192x128xf16, #gpu.address_space<workgroup>>
  %tile = tile.alloc_shared {swizzle = 128} : memref<128x64xf16, #gpu.address_space<workgroup>>
  %c0 = arith.constant 0 : index
  tile.copy %X[%c0, %c0] to %tile : memref<128x64xf16> to memref<128x64xf16, #gpu.address_space<workgroup>>
  tile.copy %tile to %big[%c0, %c0] : memref<128x64xf16, #gpu.address_space<workgroup>> to memref<192x128xf16, #gpu.address_space<workgroup>>
  tile.copy %tile to %Y[%c0, %c0] : memref<128x64xf16, #gpu.address_space<workgroup>> to memref<128x64xf16>
}
