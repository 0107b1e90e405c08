// RUN: tile-opt %s -split-input-file --pass-pipeline='builtin.module(gpu.module(tile-lower-affine))' | FileCheck %s

// A thread id of a block of 256 threads is in [0, 255]: its floordiv and
// mod by powers of two are a shift and a mask, with no test of its sign;
// a subexpression whose range is one value is that constant:
// (t mod 4 + 60) floordiv 64 is 0 for every thread, so the map is t mod 4.
// CHECK-LABEL: gpu.func @thread_maps
// CHECK: %[[T:.+]] = gpu.thread_id x
// CHECK-DAG: %[[C5:.+]] = arith.constant 5 : index
// CHECK-DAG: %[[C7:.+]] = arith.constant 7 : index
// CHECK-DAG: %[[C3:.+]] = arith.constant 3 : index
// CHECK-DAG: %[[Q:.+]] = arith.shrui %[[T]], %[[C5]] : index
// CHECK-DAG: %[[R:.+]] = arith.andi %[[T]], %[[C7]] : index
// CHECK-DAG: %[[M:.+]] = arith.andi %[[T]], %[[C3]] : index
// CHECK-NOT: arith.select
// CHECK-NOT: arith.cmpi
// CHECK-NOT: affine.apply
// CHECK: memref.store %{{.+}}, %{{.+}}[%[[Q]]]
// CHECK: memref.store %{{.+}}, %{{.+}}[%[[R]]]
// CHECK: memref.store %{{.+}}, %{{.+}}[%[[M]]]
gpu.module @m {
  gpu.func @thread_maps(%out: memref<256xf32>, %v: f32) kernel
      attributes {known_block_size = array<i32: 256, 1, 1>} {
    %t = gpu.thread_id x
    %q = affine.apply affine_map<(d0) -> (d0 floordiv 32)>(%t)
    %r = affine.apply affine_map<(d0) -> (d0 mod 8)>(%t)
    %m = affine.apply affine_map<(d0) -> (d0 mod 4 + ((d0 mod 4 + 60) floordiv 64) * 16)>(%t)
    memref.store %v, %out[%q] : memref<256xf32>
    memref.store %v, %out[%r] : memref<256xf32>
    memref.store %v, %out[%m] : memref<256xf32>
    gpu.return
  }
}

// -----

// Other divisors are unsigned divisions; a ceildiv adds c - 1 first; a
// negative coefficient is a subtraction, in either order.
// CHECK-LABEL: gpu.func @other_divisors
// CHECK-SAME: %[[N:[a-z0-9]+]]: index)
// CHECK: %[[T:.+]] = gpu.thread_id x
// CHECK: arith.divui %[[T]], %{{.+}} : index
// CHECK: arith.remui %[[T]], %{{.+}} : index
// CHECK: %[[UP:.+]] = arith.addi %[[T]], %{{.+}} : index
// CHECK: arith.shrui %[[UP]], %{{.+}} : index
// CHECK: %[[P:.+]] = arith.muli %[[T]], %{{.+}} : index
// CHECK: arith.subi %[[N]], %[[P]] : index
// CHECK-NOT: arith.select
// CHECK-NOT: affine.apply
gpu.module @m {
  gpu.func @other_divisors(%out: memref<1024xf32>, %v: f32, %n: index) kernel
      attributes {known_block_size = array<i32: 32, 1, 1>} {
    %t = gpu.thread_id x
    %a = affine.apply affine_map<(d0) -> (d0 floordiv 3)>(%t)
    %b = affine.apply affine_map<(d0) -> (d0 mod 3)>(%t)
    %c = affine.apply affine_map<(d0) -> (d0 ceildiv 4)>(%t)
    %d = affine.apply affine_map<(d0)[s0] -> (s0 - d0 * 2)>(%t)[%n]
    memref.store %v, %out[%a] : memref<1024xf32>
    memref.store %v, %out[%b] : memref<1024xf32>
    memref.store %v, %out[%c] : memref<1024xf32>
    memref.store %v, %out[%d] : memref<1024xf32>
    gpu.return
  }
}

// -----

// An operand of unknown sign (an argument) keeps the signed semantics:
// arith.floordivsi for arith-expand, a remainder made non-negative.
// CHECK-LABEL: gpu.func @unknown_sign
// CHECK-SAME: (%{{.+}}: memref<64xf32>, %{{.+}}: f32, %[[N:.+]]: index)
// CHECK: arith.floordivsi %[[N]], %{{.+}} : index
// CHECK: %[[REM:.+]] = arith.remsi %[[N]], %{{.+}} : index
// CHECK: %[[NEG:.+]] = arith.cmpi slt, %[[REM]], %{{.+}} : index
// CHECK: %[[UP:.+]] = arith.addi %[[REM]], %{{.+}} : index
// CHECK: arith.select %[[NEG]], %[[UP]], %[[REM]] : index
gpu.module @m {
  gpu.func @unknown_sign(%out: memref<64xf32>, %v: f32, %n: index) kernel {
    %a = affine.apply affine_map<(d0) -> (d0 floordiv 8)>(%n)
    %b = affine.apply affine_map<(d0) -> (d0 mod 8)>(%n)
    memref.store %v, %out[%a] : memref<64xf32>
    memref.store %v, %out[%b] : memref<64xf32>
    gpu.return
  }
}

// -----

// A loop counter is in its loop's range: from 0, non-negative; from 32 to
// 64, i mod 32 is within one period, a difference. What is not an apply
// with constant divisors (affine.min, an apply with a symbolic divisor) is
// left to upstream's lower-affine, which then runs.
// CHECK-LABEL: gpu.func @loops_and_the_rest
// CHECK: scf.for %[[I:.+]] =
// CHECK: arith.shrui %[[I]], %{{.+}} : index
// CHECK: scf.for %[[J:.+]] =
// CHECK: %[[C32:.+]] = arith.constant 32 : index
// CHECK: arith.subi %[[J]], %[[C32]] : index
// CHECK: arith.minsi
// CHECK-NOT: affine.
gpu.module @m {
  gpu.func @loops_and_the_rest(%out: memref<64xf32>, %v: f32, %n: index) kernel {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c32 = arith.constant 32 : index
    %c64 = arith.constant 64 : index
    scf.for %i = %c0 to %c64 step %c1 {
      %a = affine.apply affine_map<(d0) -> (d0 floordiv 2)>(%i)
      memref.store %v, %out[%a] : memref<64xf32>
    }
    scf.for %j = %c32 to %c64 step %c1 {
      %a = affine.apply affine_map<(d0) -> (d0 mod 32)>(%j)
      memref.store %v, %out[%a] : memref<64xf32>
    }
    %m = affine.min affine_map<(d0) -> (d0, 63)>(%n)
    %s = affine.apply affine_map<(d0)[s0] -> (d0 floordiv s0)>(%m)[%n]
    memref.store %v, %out[%s] : memref<64xf32>
    gpu.return
  }
}
