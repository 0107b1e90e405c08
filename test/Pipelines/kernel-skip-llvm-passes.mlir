// A kernel skips LLVM passes of its own (`skip_llvm_passes`) beside the
// default list; tile-to-gpu puts the list on the kernel's gpu.module, and a
// list given to tile-to-ptx replaces both.
// RUN: rm -f %t.*.ptx
// RUN: tile-opt %s --tile-to-gpu | FileCheck %s --check-prefix=GPU
// RUN: tile-opt %s --tile-to-ptx='ptx-output=%t.ptx' -o /dev/null
// RUN: FileCheck %s --check-prefix=ROLLED < %t.own.ptx
// RUN: FileCheck %s --check-prefix=UNROLLED < %t.default.ptx
// RUN: rm -f %t.*.ptx
// RUN: tile-opt %s --tile-to-ptx='ptx-output=%t.ptx skip-llvm-passes=default' -o /dev/null
// RUN: FileCheck %s --check-prefix=UNROLLED < %t.own.ptx
// A name that is not an LLVM pass is an error on the kernel's module.
// RUN: sed 's/"loop-unroll-full,loop-unroll"/"loop-unroll-full,no-such-pass"/' %s | not tile-opt --tile-to-ptx='ptx-output=/dev/null' -o /dev/null 2>&1 | FileCheck %s --check-prefix=BAD

// GPU: gpu.module @own_module attributes {tile.skip_llvm_passes = "loop-unroll-full,loop-unroll"}
// GPU: gpu.module @default_module {
// BAD: error: skip_llvm_passes: 'no-such-pass' is not an LLVM pass

// Without the unrollers the loop of four iterations stays; O3 unrolls it.
// ROLLED-LABEL: .entry own(
// ROLLED: {{ld(.global)?.b32}}
// ROLLED-NOT: {{ld(.global)?.b32}}
// ROLLED: bra
// UNROLLED-NOT: bra
// UNROLLED-COUNT-4: ld.global.b32
// UNROLLED-NOT: bra
// UNROLLED: ret;
tile.kernel @own(%x: memref<?xf32>, %y: memref<?xf32>) grid [1] threads [32]
    attributes {skip_llvm_passes = "loop-unroll-full,loop-unroll"} {
  %t = tile.thread_id x
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c32 = arith.constant 32 : index
  %zero = arith.constant 0.0 : f32
  %sum = scf.for %i = %c0 to %c4 step %c1 iter_args(%acc = %zero) -> (f32) {
    %o = arith.muli %i, %c32 : index
    %j = arith.addi %o, %t : index
    %v = memref.load %x[%j] : memref<?xf32>
    %n = arith.addf %acc, %v : f32
    scf.yield %n : f32
  }
  memref.store %sum, %y[%t] : memref<?xf32>
}

tile.kernel @default(%x: memref<?xf32>, %y: memref<?xf32>) grid [1] threads [32] {
  %t = tile.thread_id x
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c32 = arith.constant 32 : index
  %zero = arith.constant 0.0 : f32
  %sum = scf.for %i = %c0 to %c4 step %c1 iter_args(%acc = %zero) -> (f32) {
    %o = arith.muli %i, %c32 : index
    %j = arith.addi %o, %t : index
    %v = memref.load %x[%j] : memref<?xf32>
    %n = arith.addf %acc, %v : f32
    scf.yield %n : f32
  }
  memref.store %sum, %y[%t] : memref<?xf32>
}
