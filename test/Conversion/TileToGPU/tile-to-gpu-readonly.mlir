// RUN: tile-opt %s -split-input-file --tile-to-gpu | FileCheck %s

// Memref arguments the kernel never writes are `llvm.readonly` on the
// gpu.func (tile-serialize-to-ptx makes their pointers noalias, and the
// NVPTX backend loads them with ld.global.nc). Reads through views and
// through the base buffer of their metadata keep an argument read-only; a
// store, an atomic, a store through a view, or a pointer taken as an
// integer (it escapes) do not.
// CHECK-LABEL: gpu.module @read_only_module
// CHECK: gpu.func @read_only(%{{.+}}: memref<64xf32> {llvm.readonly}, %{{.+}}: memref<8x64xf32> {llvm.readonly}, %{{.+}}: memref<64xf32> {llvm.readonly}, %{{.+}}: memref<64xf32>, %{{.+}}: memref<64xf32>, %{{.+}}: memref<8x64xf32>, %{{.+}}: memref<64xf32>, %{{.+}}: f32) kernel
tile.kernel @read_only(%A: memref<64xf32>, %B: memref<8x64xf32>,
                       %M: memref<64xf32>, %C: memref<64xf32>,
                       %D: memref<64xf32>, %E: memref<8x64xf32>,
                       %P: memref<64xf32>, %x: f32)
    grid [1] threads [64] {
  %c0 = arith.constant 0 : index
  %tx = tile.thread_id x
  %a = memref.load %A[%tx] : memref<64xf32>
  %row = memref.subview %B[1, 0] [1, 64] [1, 1] : memref<8x64xf32> to memref<64xf32, strided<[1], offset: 64>>
  %b = vector.load %row[%c0] : memref<64xf32, strided<[1], offset: 64>>, vector<4xf32>
  %base, %offset, %size, %stride = memref.extract_strided_metadata %M : memref<64xf32> -> memref<f32>, index, index, index
  %m = memref.load %base[] : memref<f32>
  %sum = arith.addf %a, %m : f32
  memref.store %sum, %C[%tx] : memref<64xf32>
  %old = memref.atomic_rmw addf %x, %D[%tx] : (f32, memref<64xf32>) -> f32
  %erow = memref.subview %E[2, 0] [1, 64] [1, 1] : memref<8x64xf32> to memref<64xf32, strided<[1], offset: 128>>
  vector.store %b, %erow[%c0] : memref<64xf32, strided<[1], offset: 128>>, vector<4xf32>
  %pointer = memref.extract_aligned_pointer_as_index %P : memref<64xf32> -> index
}

// -----

// A write inside a loop counts too.
// CHECK-LABEL: gpu.module @loop_module
// CHECK: gpu.func @loop(%{{.+}}: memref<64xf32> {llvm.readonly}, %{{.+}}: memref<64xf32>) kernel
tile.kernel @loop(%A: memref<64xf32>, %C: memref<64xf32>)
    grid [1] threads [1] {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  scf.for %i = %c0 to %c64 step %c1 {
    %a = memref.load %A[%i] : memref<64xf32>
    memref.store %a, %C[%i] : memref<64xf32>
  }
}
