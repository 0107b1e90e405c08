// RUN: tile-opt %s -split-input-file --pass-pipeline='builtin.module(tile.kernel(tile-infer-layouts))' -verify-diagnostics | FileCheck %s

// Rule 2: a tile.gemm's accumulator takes the mma.sync accumulator layout
// of the warp grid chosen for it (4 warps over 64x64: 2x2, 32x32 per warp,
// 2x4 m16n8 tiles of 4 registers: 32), recorded on the gemm.
// Rule 5: its shared operands are swizzled.
// CHECK-LABEL: tile.kernel @gemm_accumulator
// CHECK: tile.alloc_shared {swizzle = 128 : i64} : memref<64x32xf16
// CHECK: tile.alloc_shared {swizzle = 128 : i64} : memref<32x64xf16
// CHECK: tile.alloc_fragment {layout = #tile.layout<shape = [64, 64], threads = 128, registers = 32, map = (d0, d1) -> ((d0 floordiv 64) * 32 + (d1 floordiv 16) * 16 + (d0 mod 32) floordiv 4 + ((d1 mod 4) floordiv 2) * 8, ((d0 floordiv 32) mod 2) * 32 + ((d1 floordiv 4) mod 4) * 8 + (d0 mod 4) * 2 + d1 mod 2)>}
// CHECK: tile.gemm {{.*}} {warps = array<i64: 2, 2>}
tile.kernel @gemm_accumulator() grid [1] threads [128] {
  %As = tile.alloc_shared : memref<64x32xf16, #gpu.address_space<workgroup>>
  %Bs = tile.alloc_shared : memref<32x64xf16, #gpu.address_space<workgroup>>
  %acc = tile.alloc_fragment : memref<64x64xf32, #tile.fragment>
  tile.gemm %As, %Bs, %acc : memref<64x32xf16, #gpu.address_space<workgroup>>, memref<32x64xf16, #gpu.address_space<workgroup>>, memref<64x64xf32, #tile.fragment>
}

// -----

// Rule 1: a layout written on the allocation is kept (here a blocked one
// over 32 threads). Rule 5: swizzle = 0 keeps a gemm operand plain.
// CHECK-LABEL: tile.kernel @explicit_layout
// CHECK: tile.alloc_shared {swizzle = 0 : i64}
// CHECK: tile.alloc_fragment {layout = #tile.layout<shape = [32, 8], threads = 32, registers = 8, map = (d0, d1) -> (d0, d1)>}
tile.kernel @explicit_layout(%C: memref<32x8xf32>) grid [1] threads [32] {
  %As = tile.alloc_shared {swizzle = 0} : memref<32x16xf16, #gpu.address_space<workgroup>>
  %f = tile.alloc_fragment {layout = #tile.layout<shape = [32, 8], threads = 32, registers = 8, map = (d0, d1) -> (d0, d1)>} : memref<32x8xf32, #tile.fragment>
  tile.copy %f to %C : memref<32x8xf32, #tile.fragment> to memref<32x8xf32>
}

// -----

// Rule 3: fragments touched by one tile.parallel share a layout, and the
// parallel iterates in it; the gemm's accumulator layout reaches %bias
// through the loop and %out through the copy.
// CHECK-LABEL: tile.kernel @parallel_and_copy
// CHECK: %[[ACC:.+]] = tile.alloc_fragment {layout = [[MMA:#tile.layout<shape = \[32, 32\], threads = 64, registers = 16, map = .*>]]}
// CHECK: %[[BIAS:.+]] = tile.alloc_fragment {layout = [[MMA]]}
// CHECK: %[[OUT:.+]] = tile.alloc_fragment {layout = [[MMA]]}
// CHECK: tile.parallel (%{{.+}}, %{{.+}}) in [32, 32] {
// CHECK: } {layout = [[MMA]]}
tile.kernel @parallel_and_copy(%C: memref<32x32xf16>) grid [1] threads [64] {
  %As = tile.alloc_shared : memref<32x16xf16, #gpu.address_space<workgroup>>
  %Bs = tile.alloc_shared : memref<16x32xf16, #gpu.address_space<workgroup>>
  %acc = tile.alloc_fragment : memref<32x32xf32, #tile.fragment>
  %bias = tile.alloc_fragment : memref<32x32xf32, #tile.fragment>
  %out = tile.alloc_fragment : memref<32x32xf16, #tile.fragment>
  tile.clear %bias : memref<32x32xf32, #tile.fragment>
  tile.gemm %As, %Bs, %acc {clear} : memref<32x16xf16, #gpu.address_space<workgroup>>, memref<16x32xf16, #gpu.address_space<workgroup>>, memref<32x32xf32, #tile.fragment>
  tile.parallel (%i, %j) in [32, 32] {
    %a = memref.load %acc[%i, %j] : memref<32x32xf32, #tile.fragment>
    %b = memref.load %bias[%i, %j] : memref<32x32xf32, #tile.fragment>
    %s = arith.addf %a, %b : f32
    memref.store %s, %acc[%i, %j] : memref<32x32xf32, #tile.fragment>
  }
  tile.copy %acc to %out : memref<32x32xf32, #tile.fragment> to memref<32x32xf16, #tile.fragment>
  tile.copy %out to %C : memref<32x32xf16, #tile.fragment> to memref<32x32xf16>
}

// -----

// Rule 4: a fragment nothing constrains gets the blocked layout: runs of
// 16 bytes (4 f32) dealt round-robin to the 32 threads.
// CHECK-LABEL: tile.kernel @blocked
// CHECK: tile.alloc_fragment {layout = #tile.layout<shape = [8, 32], threads = 32, registers = 8, map = (d0, d1) -> ((((d1 floordiv 4) * 32 + d0) * 4 + d1 mod 4) floordiv 32, (((d1 floordiv 4) * 32 + d0) * 4 + d1 mod 4) mod 32)>}
tile.kernel @blocked(%A: memref<8x32xf32>) grid [1] threads [32] {
  %f = tile.alloc_fragment : memref<8x32xf32, #tile.fragment>
  tile.copy %A to %f : memref<8x32xf32> to memref<8x32xf32, #tile.fragment>
  tile.copy %f to %A : memref<8x32xf32, #tile.fragment> to memref<8x32xf32>
}

// -----

// Two gemms asking for different warp grids of one accumulator.
tile.kernel @conflict() grid [1] threads [128] {
  %As = tile.alloc_shared : memref<64x16xf16, #gpu.address_space<workgroup>>
  %Bs = tile.alloc_shared : memref<16x64xf16, #gpu.address_space<workgroup>>
  %acc = tile.alloc_fragment : memref<64x64xf32, #tile.fragment>
  // expected-note @+1 {{this op fixed the mma accumulator layout with warps [2, 2]}}
  tile.gemm %As, %Bs, %acc : memref<64x16xf16, #gpu.address_space<workgroup>>, memref<16x64xf16, #gpu.address_space<workgroup>>, memref<64x64xf32, #tile.fragment>
  // expected-error @+1 {{conflicting fragment layouts: this op needs the mma accumulator layout with warps [4, 1] for the fragment at}}
  tile.gemm %As, %Bs, %acc {warps = array<i64: 4, 1>} : memref<64x16xf16, #gpu.address_space<workgroup>>, memref<16x64xf16, #gpu.address_space<workgroup>>, memref<64x64xf32, #tile.fragment>
}

// -----

// An explicit layout and a gemm that needs another, joined by a parallel.
tile.kernel @conflict_through_parallel() grid [1] threads [32] {
  %As = tile.alloc_shared : memref<16x16xf16, #gpu.address_space<workgroup>>
  %Bs = tile.alloc_shared : memref<16x16xf16, #gpu.address_space<workgroup>>
  %acc = tile.alloc_fragment : memref<16x16xf32, #tile.fragment>
  // expected-note @+1 {{this op fixed its explicit layout}}
  %other = tile.alloc_fragment {layout = #tile.layout<shape = [16, 16], threads = 32, registers = 8, map = (d0, d1) -> (d0 floordiv 2, (d0 mod 2) * 8 + d1)>} : memref<16x16xf32, #tile.fragment>
  // expected-error @+1 {{conflicting fragment layouts: this op needs the mma accumulator layout with warps [1, 1]}}
  tile.gemm %As, %Bs, %acc : memref<16x16xf16, #gpu.address_space<workgroup>>, memref<16x16xf16, #gpu.address_space<workgroup>>, memref<16x16xf32, #tile.fragment>
  tile.parallel (%i, %j) in [16, 16] {
    %a = memref.load %acc[%i, %j] : memref<16x16xf32, #tile.fragment>
    memref.store %a, %other[%i, %j] : memref<16x16xf32, #tile.fragment>
  }
}

// -----

tile.kernel @element_outside_parallel() grid [1] threads [32] {
  %c0 = arith.constant 0 : index
  %f = tile.alloc_fragment : memref<8x32xf32, #tile.fragment>
  // expected-error @+1 {{'memref.load' op accesses a fragment element outside of a 'tile.parallel' over the fragment's index space at its induction variables}}
  %v = memref.load %f[%c0, %c0] : memref<8x32xf32, #tile.fragment>
}

// -----

tile.kernel @parallel_other_indices() grid [1] threads [32] {
  %f = tile.alloc_fragment : memref<8x32xf32, #tile.fragment>
  tile.parallel (%i, %j) in [8, 32] {
    // expected-error @+1 {{'memref.load' op accesses a fragment element outside of a 'tile.parallel'}}
    %v = memref.load %f[%i, %i] : memref<8x32xf32, #tile.fragment>
  }
}

// -----

tile.kernel @unsupported_user() grid [1] threads [32] {
  %f = tile.alloc_fragment : memref<8x32xf32, #tile.fragment>
  // expected-error @+1 {{'memref.subview' op cannot use a fragment: fragments are accessed by tile.copy, tile.fill, tile.clear, tile.gemm, tile.reduce, and by loads and stores inside a tile.parallel over their index space}}
  %v = memref.subview %f[0, 0] [4, 32] [1, 1] : memref<8x32xf32, #tile.fragment> to memref<4x32xf32, strided<[32, 1]>, #tile.fragment>
}

// -----

tile.kernel @uneven() grid [1] threads [64] {
  // expected-error @+1 {{'tile.alloc_fragment' op a fragment of 15 elements cannot be spread evenly over the block's 64 threads}}
  %f = tile.alloc_fragment : memref<3x5xf32, #tile.fragment>
  tile.clear %f : memref<3x5xf32, #tile.fragment>
}

// -----

tile.kernel @no_warp_split() grid [1] threads [256] {
  %As = tile.alloc_shared : memref<16x16xf16, #gpu.address_space<workgroup>>
  %Bs = tile.alloc_shared : memref<16x16xf16, #gpu.address_space<workgroup>>
  %acc = tile.alloc_fragment : memref<16x16xf32, #tile.fragment>
  // expected-error @+1 {{'tile.gemm' op no split of the block's 8 warps gives each warp whole 16x8 tiles of the 16x16 accumulator}}
  tile.gemm %As, %Bs, %acc : memref<16x16xf16, #gpu.address_space<workgroup>>, memref<16x16xf16, #gpu.address_space<workgroup>>, memref<16x16xf32, #tile.fragment>
}

// -----

// A fragment used in a pipeline's consumer role lives in the consumer's
// threads (the block's first 128 of 256): its blocked layout spreads it
// over them, and a gemm there splits the consumer's warps.
// CHECK-LABEL: tile.kernel @fragment_in_role
// CHECK: tile.alloc_fragment {layout = #tile.layout<shape = [8, 128], threads = 128,
// CHECK: tile.gemm {{.*}}warps = array<i64: 2, 2>
tile.kernel @fragment_in_role(%A: memref<8x128xf16>) grid [1] threads [256] {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %buf = tile.alloc_shared : memref<2x8x128xf16, #gpu.address_space<workgroup>>
  %f = tile.alloc_fragment : memref<8x128xf32, #tile.fragment>
  %As = tile.alloc_shared : memref<32x16xf16, #gpu.address_space<workgroup>>
  %Bs = tile.alloc_shared : memref<16x16xf16, #gpu.address_space<workgroup>>
  %acc = tile.alloc_fragment : memref<32x16xf32, #tile.fragment>
  tile.warp_specialize %c0 to %c2 step %c1 stages 2
      buffers(%buf : memref<2x8x128xf16, #gpu.address_space<workgroup>>)
      producer(%k, %s) threads 128 {
  } consumer(%k, %s) threads 128 {
    tile.clear %f : memref<8x128xf32, #tile.fragment>
    tile.gemm %As, %Bs, %acc : memref<32x16xf16, #gpu.address_space<workgroup>>, memref<16x16xf16, #gpu.address_space<workgroup>>, memref<32x16xf32, #tile.fragment>
  }
}

// -----

// Rule 5 only swizzles buffers whose every use is an access the swizzle
// rewrite knows: this one is also read through a view, so it stays plain.
// CHECK-LABEL: tile.kernel @viewed_operand
// CHECK: tile.alloc_shared : memref<16x16xf16
tile.kernel @viewed_operand(%C: memref<8x16xf16>) grid [1] threads [32] {
  %As = tile.alloc_shared : memref<16x16xf16, #gpu.address_space<workgroup>>
  %Bs = tile.alloc_shared : memref<16x8xf16, #gpu.address_space<workgroup>>
  %acc = tile.alloc_fragment : memref<16x8xf32, #tile.fragment>
  tile.gemm %As, %Bs, %acc : memref<16x16xf16, #gpu.address_space<workgroup>>, memref<16x8xf16, #gpu.address_space<workgroup>>, memref<16x8xf32, #tile.fragment>
  %v = memref.subview %As[0, 0] [8, 16] [1, 1] : memref<16x16xf16, #gpu.address_space<workgroup>> to memref<8x16xf16, strided<[16, 1]>, #gpu.address_space<workgroup>>
  tile.copy %v to %C : memref<8x16xf16, strided<[16, 1]>, #gpu.address_space<workgroup>> to memref<8x16xf16>
}

// -----

// Rule 6: a fragment A operand (attention's P in O += P V) takes the
// accumulator layout of an M x K product with the warps split along M
// only, and so does the gemm that computes it (S = Q K^T, copied to P in
// f16): S, P and O all get warps [4, 1], 16 rows per warp.
// CHECK-LABEL: tile.kernel @fragment_a_operand
// CHECK: %[[S:.+]] = tile.alloc_fragment {layout = [[SP:#tile.layout<shape = \[64, 64\], threads = 128, registers = 32, map = \(d0, d1\) -> \(\(d0 floordiv 32\) \* 16 .*>]]}
// CHECK: %[[P:.+]] = tile.alloc_fragment {layout = [[SP]]}
// CHECK: %[[O:.+]] = tile.alloc_fragment {layout = #tile.layout<shape = [64, 32], threads = 128, registers = 16, map = (d0, d1) -> ((d0 floordiv 32) * 16
// CHECK: tile.gemm {{.*}} {clear, transpose_b, warps = array<i64: 4, 1>}
// CHECK: tile.gemm %[[P]], {{.*}} {warps = array<i64: 4, 1>}
tile.kernel @fragment_a_operand() grid [1] threads [128] {
  %Qs = tile.alloc_shared : memref<64x64xf16, #gpu.address_space<workgroup>>
  %Ks = tile.alloc_shared : memref<64x64xf16, #gpu.address_space<workgroup>>
  %Vs = tile.alloc_shared : memref<64x32xf16, #gpu.address_space<workgroup>>
  %S = tile.alloc_fragment : memref<64x64xf32, #tile.fragment>
  %P = tile.alloc_fragment : memref<64x64xf16, #tile.fragment>
  %O = tile.alloc_fragment : memref<64x32xf32, #tile.fragment>
  tile.gemm %Qs, %Ks, %S {clear, transpose_b} : memref<64x64xf16, #gpu.address_space<workgroup>>, memref<64x64xf16, #gpu.address_space<workgroup>>, memref<64x64xf32, #tile.fragment>
  tile.copy %S to %P : memref<64x64xf32, #tile.fragment> to memref<64x64xf16, #tile.fragment>
  tile.gemm %P, %Vs, %O : memref<64x64xf16, #tile.fragment>, memref<64x32xf16, #gpu.address_space<workgroup>>, memref<64x32xf32, #tile.fragment>
}

// -----

// The gemm that computes a fragment A operand was given warps [2, 2]: the
// two layouts conflict, and both ops are named.
tile.kernel @fragment_a_conflict() grid [1] threads [128] {
  %Qs = tile.alloc_shared : memref<64x64xf16, #gpu.address_space<workgroup>>
  %Ks = tile.alloc_shared : memref<64x64xf16, #gpu.address_space<workgroup>>
  %Vs = tile.alloc_shared : memref<64x32xf16, #gpu.address_space<workgroup>>
  %S = tile.alloc_fragment : memref<64x64xf16, #tile.fragment>
  %O = tile.alloc_fragment : memref<64x32xf32, #tile.fragment>
  // expected-note @+1 {{this op fixed the mma accumulator layout with warps [2, 2]}}
  tile.gemm %Qs, %Ks, %S {clear, warps = array<i64: 2, 2>} : memref<64x64xf16, #gpu.address_space<workgroup>>, memref<64x64xf16, #gpu.address_space<workgroup>>, memref<64x64xf16, #tile.fragment>
  // expected-error @+1 {{conflicting fragment layouts: this op needs the mma A-operand layout with warps [4, 1]}}
  tile.gemm %S, %Vs, %O : memref<64x64xf16, #tile.fragment>, memref<64x32xf16, #gpu.address_space<workgroup>>, memref<64x32xf32, #tile.fragment>
}

// -----

// tile.for_each_owned: the fragments its body touches at the coordinates
// share the iterated fragment's layout (here the gemm's); another index is
// an error.
// CHECK-LABEL: tile.kernel @for_each_owned
// CHECK: tile.alloc_fragment {layout = [[MMA:#tile.layout<.*>]]} : memref<32x32xf32
// CHECK: tile.alloc_fragment {layout = [[MMA]]} : memref<32x32xf16
tile.kernel @for_each_owned() grid [1] threads [64] {
  %As = tile.alloc_shared : memref<32x16xf16, #gpu.address_space<workgroup>>
  %Bs = tile.alloc_shared : memref<16x32xf16, #gpu.address_space<workgroup>>
  %acc = tile.alloc_fragment : memref<32x32xf32, #tile.fragment>
  %out = tile.alloc_fragment : memref<32x32xf16, #tile.fragment>
  tile.gemm %As, %Bs, %acc {clear} : memref<32x16xf16, #gpu.address_space<workgroup>>, memref<16x32xf16, #gpu.address_space<workgroup>>, memref<32x32xf32, #tile.fragment>
  tile.for_each_owned %acc (%r, %i, %j) : memref<32x32xf32, #tile.fragment> {
    %x = memref.load %acc[%i, %j] : memref<32x32xf32, #tile.fragment>
    %y = arith.truncf %x : f32 to f16
    memref.store %y, %out[%i, %j] : memref<32x32xf16, #tile.fragment>
  }
}

// -----

tile.kernel @for_each_owned_other_index() grid [1] threads [64] {
  %f = tile.alloc_fragment : memref<32x32xf32, #tile.fragment>
  tile.for_each_owned %f (%r, %i, %j) : memref<32x32xf32, #tile.fragment> {
    // expected-error @+1 {{'memref.load' op accesses a fragment element in a 'tile.for_each_owned' at other indices than its coordinates: only the element at the coordinates is held by the running thread}}
    %x = memref.load %f[%j, %i] : memref<32x32xf32, #tile.fragment>
  }
}

// -----

// Rule 7: a copy between fragments with `convert_layout` does not join
// them: each keeps its own layout, and the copy becomes two copies through
// a shared tile of the target's element type.
// CHECK-LABEL: tile.kernel @convert_layout
// CHECK: %[[SCRATCH:.+]] = tile.alloc_shared : memref<32x32xf16, #gpu.address_space<workgroup>>
// CHECK: %[[ACC:.+]] = tile.alloc_fragment {layout = #tile.layout<shape = [32, 32], threads = 64, registers = 16, map = (d0, d1) -> ((d0 floordiv 64) * 32
// CHECK: %[[OUT:.+]] = tile.alloc_fragment {layout = #tile.layout<shape = [32, 32], threads = 64, registers = 16, map = (d0, d1) -> (d0 floordiv 2, (d0 mod 2) * 16 + d1)>}
// CHECK: tile.copy %[[ACC]] to %[[SCRATCH]] : memref<32x32xf32, #tile.fragment> to memref<32x32xf16, #gpu.address_space<workgroup>>
// CHECK-NEXT: tile.copy %[[SCRATCH]] to %[[OUT]] : memref<32x32xf16, #gpu.address_space<workgroup>> to memref<32x32xf16, #tile.fragment>
// CHECK-NOT: convert_layout
tile.kernel @convert_layout() grid [1] threads [64] {
  %As = tile.alloc_shared : memref<32x16xf16, #gpu.address_space<workgroup>>
  %Bs = tile.alloc_shared : memref<16x32xf16, #gpu.address_space<workgroup>>
  %acc = tile.alloc_fragment : memref<32x32xf32, #tile.fragment>
  %out = tile.alloc_fragment {layout = #tile.layout<shape = [32, 32], threads = 64, registers = 16, map = (d0, d1) -> (d0 floordiv 2, (d0 mod 2) * 16 + d1)>} : memref<32x32xf16, #tile.fragment>
  tile.gemm %As, %Bs, %acc {clear} : memref<32x16xf16, #gpu.address_space<workgroup>>, memref<16x32xf16, #gpu.address_space<workgroup>>, memref<32x32xf32, #tile.fragment>
  tile.copy %acc to %out {convert_layout} : memref<32x32xf32, #tile.fragment> to memref<32x32xf16, #tile.fragment>
}

// -----

// A wgmma gemm: the warps split M (one per 16 rows: [8, 1] for two warp
// groups), and its shared operands are swizzled and aligned to a 1024-byte
// swizzle atom, the layout its descriptors read.
// CHECK-LABEL: tile.kernel @wgmma_operands
// CHECK: tile.alloc_shared {alignment = 1024 : i64, swizzle = 128 : i64} : memref<128x64xf16
// CHECK: tile.alloc_shared {alignment = 1024 : i64, swizzle = 128 : i64} : memref<64x256xf16
// CHECK: tile.gemm {{.+}}warps = array<i64: 8, 1>
tile.kernel @wgmma_operands() grid [1] threads [256] {
  %As = tile.alloc_shared : memref<128x64xf16, #gpu.address_space<workgroup>>
  %Bs = tile.alloc_shared : memref<64x256xf16, #gpu.address_space<workgroup>>
  %acc = tile.alloc_fragment : memref<128x256xf32, #tile.fragment>
  tile.gemm %As, %Bs, %acc {clear, lowering = #tile.gemm_lowering<wgmma>} : memref<128x64xf16, #gpu.address_space<workgroup>>, memref<64x256xf16, #gpu.address_space<workgroup>>, memref<128x256xf32, #tile.fragment>
}

// -----

// A tf32 wgmma gemm with B stored K x N is computed as C^T = B^T A^T: the
// warps split N ([1, 4]), and C takes the transposed accumulator layout of
// the 64 x 64 product (each thread's registers pair along M: rows 2q and
// 2q + 1, column 16 w + l / 4).
// CHECK-LABEL: tile.kernel @wgmma_tf32_transposed
// CHECK: tile.alloc_fragment {layout = #tile.layout<shape = [64, 64], threads = 128, registers = 32, map = (d0, d1) -> (((d1 floordiv 4) mod 8) * 8 + (d0 mod 4) * 2 + d1 mod 2, (d0 floordiv 32) * 16 + (d1 floordiv 32) * 16 + (d0 mod 32) floordiv 4 + ((d1 mod 4) floordiv 2) * 8)>}
// CHECK: tile.gemm {{.+}}warps = array<i64: 1, 4>
tile.kernel @wgmma_tf32_transposed() grid [1] threads [128] {
  %As = tile.alloc_shared : memref<64x32xf32, #gpu.address_space<workgroup>>
  %Bs = tile.alloc_shared : memref<32x64xf32, #gpu.address_space<workgroup>>
  %acc = tile.alloc_fragment : memref<64x64xf32, #tile.fragment>
  tile.gemm %As, %Bs, %acc {clear, lowering = #tile.gemm_lowering<wgmma>} : memref<64x32xf32, #gpu.address_space<workgroup>>, memref<32x64xf32, #gpu.address_space<workgroup>>, memref<64x64xf32, #tile.fragment>
}

// -----

tile.kernel @wgmma_view_operand() grid [1] threads [128] {
  %As = tile.alloc_shared : memref<64x128xf16, #gpu.address_space<workgroup>>
  %Bs = tile.alloc_shared : memref<64x64xf16, #gpu.address_space<workgroup>>
  %acc = tile.alloc_fragment : memref<64x64xf32, #tile.fragment>
  %a = memref.subview %As[0, 0] [64, 64] [1, 1] : memref<64x128xf16, #gpu.address_space<workgroup>> to memref<64x64xf16, strided<[128, 1]>, #gpu.address_space<workgroup>>
  // expected-error @+1 {{'tile.gemm' op wgmma lowering reads operand A through a shared-memory descriptor: it must be a whole 'tile.alloc_shared' buffer (or an 'arith.select' of such buffers), not a view}}
  tile.gemm %a, %Bs, %acc {lowering = #tile.gemm_lowering<wgmma>} : memref<64x64xf16, strided<[128, 1]>, #gpu.address_space<workgroup>>, memref<64x64xf16, #gpu.address_space<workgroup>>, memref<64x64xf32, #tile.fragment>
}

// -----

// A descriptor operand chosen at run time: an arith.select of whole tiles.
// Both tiles it chooses among are swizzled and aligned alike.
// CHECK-LABEL: tile.kernel @wgmma_selected_operand
// CHECK: tile.alloc_shared {alignment = 1024 : i64, swizzle = 128 : i64} : memref<64x64xf16
// CHECK: tile.alloc_shared {alignment = 1024 : i64, swizzle = 128 : i64} : memref<64x64xf16
// CHECK: tile.alloc_shared {alignment = 1024 : i64, swizzle = 128 : i64} : memref<64x64xf16
tile.kernel @wgmma_selected_operand() grid [2] threads [128] {
  %c0 = arith.constant 0 : index
  %A0 = tile.alloc_shared : memref<64x64xf16, #gpu.address_space<workgroup>>
  %A1 = tile.alloc_shared : memref<64x64xf16, #gpu.address_space<workgroup>>
  %Bs = tile.alloc_shared : memref<64x64xf16, #gpu.address_space<workgroup>>
  %acc = tile.alloc_fragment : memref<64x64xf32, #tile.fragment>
  %x = tile.block_id x
  %second = arith.cmpi ne, %x, %c0 : index
  %As = arith.select %second, %A1, %A0 : memref<64x64xf16, #gpu.address_space<workgroup>>
  tile.gemm %As, %Bs, %acc {lowering = #tile.gemm_lowering<wgmma>} : memref<64x64xf16, #gpu.address_space<workgroup>>, memref<64x64xf16, #gpu.address_space<workgroup>>, memref<64x64xf32, #tile.fragment>
}

// -----

tile.kernel @wgmma_selected_view(%second: i1) grid [1] threads [128] {
  %A0 = tile.alloc_shared : memref<64x128xf16, #gpu.address_space<workgroup>>
  %A1 = tile.alloc_shared : memref<64x128xf16, #gpu.address_space<workgroup>>
  %Bs = tile.alloc_shared : memref<64x64xf16, #gpu.address_space<workgroup>>
  %acc = tile.alloc_fragment : memref<64x64xf32, #tile.fragment>
  %a1 = memref.subview %A1[0, 0] [64, 64] [1, 1] : memref<64x128xf16, #gpu.address_space<workgroup>> to memref<64x64xf16, strided<[128, 1]>, #gpu.address_space<workgroup>>
  %a0 = memref.subview %A0[0, 0] [64, 64] [1, 1] : memref<64x128xf16, #gpu.address_space<workgroup>> to memref<64x64xf16, strided<[128, 1]>, #gpu.address_space<workgroup>>
  %As = arith.select %second, %a1, %a0 : memref<64x64xf16, strided<[128, 1]>, #gpu.address_space<workgroup>>
  // expected-error @+1 {{'tile.gemm' op wgmma lowering reads operand A through a shared-memory descriptor: it must be a whole 'tile.alloc_shared' buffer (or an 'arith.select' of such buffers), not a view}}
  tile.gemm %As, %Bs, %acc {lowering = #tile.gemm_lowering<wgmma>} : memref<64x64xf16, strided<[128, 1]>, #gpu.address_space<workgroup>>, memref<64x64xf16, #gpu.address_space<workgroup>>, memref<64x64xf32, #tile.fragment>
}

// -----

tile.kernel @wgmma_unswizzled_operand() grid [1] threads [128] {
  %As = tile.alloc_shared {swizzle = 0} : memref<64x64xf16, #gpu.address_space<workgroup>>
  %Bs = tile.alloc_shared : memref<64x64xf16, #gpu.address_space<workgroup>>
  %acc = tile.alloc_fragment : memref<64x64xf32, #tile.fragment>
  // expected-error @+1 {{'tile.gemm' op wgmma lowering reads operand A as a 128-byte swizzled tile, but its allocation asks for swizzle = 0}}
  tile.gemm %As, %Bs, %acc {lowering = #tile.gemm_lowering<wgmma>} : memref<64x64xf16, #gpu.address_space<workgroup>>, memref<64x64xf16, #gpu.address_space<workgroup>>, memref<64x64xf32, #tile.fragment>
}

// -----

// Another use of the operand reads it through a view, which cannot address
// the swizzled layout the descriptor needs.
tile.kernel @wgmma_operand_viewed_elsewhere(%out: memref<64xf16>) grid [1] threads [128] {
  %c0 = arith.constant 0 : index
  %tx = tile.thread_id x
  %As = tile.alloc_shared : memref<64x64xf16, #gpu.address_space<workgroup>>
  %Bs = tile.alloc_shared : memref<64x64xf16, #gpu.address_space<workgroup>>
  %acc = tile.alloc_fragment : memref<64x64xf32, #tile.fragment>
  // expected-error @+1 {{'tile.gemm' op wgmma lowering reads operand B as a 128-byte swizzled tile, but another use of it cannot address a swizzled tile}}
  tile.gemm %As, %Bs, %acc {lowering = #tile.gemm_lowering<wgmma>} : memref<64x64xf16, #gpu.address_space<workgroup>>, memref<64x64xf16, #gpu.address_space<workgroup>>, memref<64x64xf32, #tile.fragment>
  %row = memref.subview %Bs[0, 0] [1, 64] [1, 1] : memref<64x64xf16, #gpu.address_space<workgroup>> to memref<64xf16, strided<[1]>, #gpu.address_space<workgroup>>
  %v = memref.load %row[%c0] : memref<64xf16, strided<[1]>, #gpu.address_space<workgroup>>
  memref.store %v, %out[%tx] : memref<64xf16>
}

// -----

// Rule 8: the target of a tile.reduce takes the source's layout without the
// reduced coordinate (same threads and registers: replicated), and a
// fragment a tile.parallel reads at its induction variables without one
// dimension (a broadcast of a reduced row) takes the parallel's layout
// without that dimension. Here %max is both and the two agree; %bias, read
// only as a broadcast along rows, gets the accumulator's columns.
// CHECK-LABEL: tile.kernel @reduced_layouts
// CHECK: tile.alloc_fragment {layout = #tile.layout<shape = [32, 32], threads = 64, registers = 16, map = (d0, d1) -> ((d0 floordiv 32) * 16 + (d1 floordiv 16) * 16 + (d0 mod 32) floordiv 4 + ((d1 mod 4) floordiv 2) * 8, ((d1 floordiv 4) mod 4) * 8 + (d0 mod 4) * 2 + d1 mod 2)>}
// CHECK: tile.alloc_fragment {layout = #tile.layout<shape = [32], threads = 64, registers = 16, map = (d0, d1) -> ((d0 floordiv 32) * 16 + (d1 floordiv 16) * 16 + (d0 mod 32) floordiv 4 + ((d1 mod 4) floordiv 2) * 8)>}
// CHECK: tile.alloc_fragment {layout = #tile.layout<shape = [32], threads = 64, registers = 16, map = (d0, d1) -> (((d1 floordiv 4) mod 4) * 8 + (d0 mod 4) * 2 + d1 mod 2)>}
tile.kernel @reduced_layouts() grid [1] threads [64] {
  %As = tile.alloc_shared : memref<32x16xf16, #gpu.address_space<workgroup>>
  %Bs = tile.alloc_shared : memref<16x32xf16, #gpu.address_space<workgroup>>
  %acc = tile.alloc_fragment : memref<32x32xf32, #tile.fragment>
  %max = tile.alloc_fragment : memref<32xf32, #tile.fragment>
  %bias = tile.alloc_fragment : memref<32xf32, #tile.fragment>
  tile.gemm %As, %Bs, %acc {warps = array<i64: 2, 1>} : memref<32x16xf16, #gpu.address_space<workgroup>>, memref<16x32xf16, #gpu.address_space<workgroup>>, memref<32x32xf32, #tile.fragment>
  tile.reduce max %acc into %max dim 1 clear : memref<32x32xf32, #tile.fragment> into memref<32xf32, #tile.fragment>
  tile.parallel (%i, %j) in [32, 32] {
    %x = memref.load %acc[%i, %j] : memref<32x32xf32, #tile.fragment>
    %m = memref.load %max[%i] : memref<32xf32, #tile.fragment>
    %b = memref.load %bias[%j] : memref<32xf32, #tile.fragment>
    %d = arith.subf %x, %m : f32
    %y = arith.addf %d, %b : f32
    memref.store %y, %acc[%i, %j] : memref<32x32xf32, #tile.fragment>
  }
}

// -----

// Rule 8, in order: a reduction's target waits for its source, which gets
// the blocked layout as a free group (4 rows of 64 over 64 threads, runs of
// 4: a thread holds part of every row).
// CHECK-LABEL: tile.kernel @reduce_blocked
// CHECK: tile.alloc_fragment {layout = #tile.layout<shape = [4], threads = 64, registers = 4, map = (d0, d1) -> (d1)>}
// CHECK: tile.alloc_fragment {layout = #tile.layout<shape = [4, 64], threads = 64, registers = 4, map = (d0, d1) -> (d1, d0)>}
tile.kernel @reduce_blocked(%X: memref<4x64xf32>) grid [1] threads [64] {
  %c0 = arith.constant 0 : index
  %sum = tile.alloc_fragment : memref<4xf32, #tile.fragment>
  %x = tile.alloc_fragment {layout = #tile.layout<shape = [4, 64], threads = 64, registers = 4, map = (d0, d1) -> (d1, d0)>} : memref<4x64xf32, #tile.fragment>
  tile.copy %X[%c0, %c0] to %x : memref<4x64xf32> to memref<4x64xf32, #tile.fragment>
  tile.reduce add %x into %sum dim 1 clear : memref<4x64xf32, #tile.fragment> into memref<4xf32, #tile.fragment>
}

// -----

// Rule 8 across widths: attention's row statistics are reduced from the
// 32x16 scores (8 registers) and broadcast over the 32x32 output (16
// registers). The two reduced layouts number the registers differently but
// give every thread the same rows: one distribution, so %l keeps the first
// (from the reduction) and the broadcast reads it.
// CHECK-LABEL: tile.kernel @reduced_widths
// CHECK: tile.alloc_fragment {layout = #tile.layout<shape = [32], threads = 64, registers = 8, map = (d0, d1) -> ((d0 floordiv 32) * 16 + (d1 floordiv 8) * 16 + (d0 mod 32) floordiv 4 + ((d1 mod 4) floordiv 2) * 8)>} : memref<32xf32, #tile.fragment>
tile.kernel @reduced_widths() grid [1] threads [64] {
  %Qs = tile.alloc_shared : memref<32x16xf16, #gpu.address_space<workgroup>>
  %Ks = tile.alloc_shared : memref<16x16xf16, #gpu.address_space<workgroup>>
  %Vs = tile.alloc_shared : memref<16x32xf16, #gpu.address_space<workgroup>>
  %S = tile.alloc_fragment : memref<32x16xf32, #tile.fragment>
  %O = tile.alloc_fragment : memref<32x32xf32, #tile.fragment>
  %l = tile.alloc_fragment : memref<32xf32, #tile.fragment>
  tile.gemm %Qs, %Ks, %S {clear, warps = array<i64: 2, 1>} : memref<32x16xf16, #gpu.address_space<workgroup>>, memref<16x16xf16, #gpu.address_space<workgroup>>, memref<32x16xf32, #tile.fragment>
  tile.gemm %Qs, %Vs, %O {clear, warps = array<i64: 2, 1>} : memref<32x16xf16, #gpu.address_space<workgroup>>, memref<16x32xf16, #gpu.address_space<workgroup>>, memref<32x32xf32, #tile.fragment>
  tile.reduce add %S into %l dim 1 clear : memref<32x16xf32, #tile.fragment> into memref<32xf32, #tile.fragment>
  tile.parallel (%i, %j) in [32, 32] {
    %o = memref.load %O[%i, %j] : memref<32x32xf32, #tile.fragment>
    %li = memref.load %l[%i] : memref<32xf32, #tile.fragment>
    %r = arith.divf %o, %li : f32
    memref.store %r, %O[%i, %j] : memref<32x32xf32, #tile.fragment>
  }
}

// -----

// Reduced layouts that spread the rows differently still conflict: here
// the warps split the output's columns, so a thread holds other rows of it
// than of the scores.
tile.kernel @reduced_widths_conflict() grid [1] threads [64] {
  %Qs = tile.alloc_shared : memref<32x16xf16, #gpu.address_space<workgroup>>
  %Ks = tile.alloc_shared : memref<16x16xf16, #gpu.address_space<workgroup>>
  %Vs = tile.alloc_shared : memref<16x32xf16, #gpu.address_space<workgroup>>
  %S = tile.alloc_fragment : memref<32x16xf32, #tile.fragment>
  %O = tile.alloc_fragment : memref<32x32xf32, #tile.fragment>
  %l = tile.alloc_fragment : memref<32xf32, #tile.fragment>
  tile.gemm %Qs, %Ks, %S {clear, warps = array<i64: 2, 1>} : memref<32x16xf16, #gpu.address_space<workgroup>>, memref<16x16xf16, #gpu.address_space<workgroup>>, memref<32x16xf32, #tile.fragment>
  tile.gemm %Qs, %Vs, %O {clear, warps = array<i64: 1, 2>} : memref<32x16xf16, #gpu.address_space<workgroup>>, memref<16x32xf16, #gpu.address_space<workgroup>>, memref<32x32xf32, #tile.fragment>
  // expected-note @+1 {{this op fixed the layout of the fragment it reduces, without dimension 1}}
  tile.reduce add %S into %l dim 1 clear : memref<32x16xf32, #tile.fragment> into memref<32xf32, #tile.fragment>
  tile.parallel (%i, %j) in [32, 32] {
    %o = memref.load %O[%i, %j] : memref<32x32xf32, #tile.fragment>
    // expected-error @+1 {{conflicting fragment layouts: this op needs the layout of the fragment it reduces, without dimension 1}}
    %li = memref.load %l[%i] : memref<32xf32, #tile.fragment>
    %r = arith.divf %o, %li : f32
    memref.store %r, %O[%i, %j] : memref<32x32xf32, #tile.fragment>
  }
}

// -----

// A reduction target whose layout another op fixed differently.
tile.kernel @reduce_conflict() grid [1] threads [64] {
  %As = tile.alloc_shared : memref<32x16xf16, #gpu.address_space<workgroup>>
  %Bs = tile.alloc_shared : memref<16x32xf16, #gpu.address_space<workgroup>>
  %acc = tile.alloc_fragment : memref<32x32xf32, #tile.fragment>
  // expected-note @+1 {{this op fixed its explicit layout}}
  %max = tile.alloc_fragment {layout = #tile.layout<shape = [32], threads = 64, registers = 16, map = (d0, d1) -> (d1 * 2 + d0 floordiv 32)>} : memref<32xf32, #tile.fragment>
  tile.gemm %As, %Bs, %acc {warps = array<i64: 2, 1>} : memref<32x16xf16, #gpu.address_space<workgroup>>, memref<16x32xf16, #gpu.address_space<workgroup>>, memref<32x32xf32, #tile.fragment>
  // expected-error @+1 {{conflicting fragment layouts: this op needs the layout of the fragment it reduces, without dimension 1}}
  tile.reduce max %acc into %max dim 1 clear : memref<32x32xf32, #tile.fragment> into memref<32xf32, #tile.fragment>
}

// -----

// A broadcast read may not be a write: every iteration along the dropped
// dimension would write the element.
tile.kernel @broadcast_store() grid [1] threads [64] {
  %f = tile.alloc_fragment : memref<32x32xf32, #tile.fragment>
  %r = tile.alloc_fragment : memref<32xf32, #tile.fragment>
  tile.parallel (%i, %j) in [32, 32] {
    %x = memref.load %f[%i, %j] : memref<32x32xf32, #tile.fragment>
    // expected-error @+1 {{'memref.store' op writes a fragment at the induction variables without dimension 1: every iteration along it would write the same element}}
    memref.store %x, %r[%i] : memref<32xf32, #tile.fragment>
  }
}

// -----

// A broadcast needs a fragment of the parallel's whole index space, whose
// layout the loop iterates in.
tile.kernel @broadcast_alone(%Y: memref<32x32xf32>) grid [1] threads [64] {
  %r = tile.alloc_fragment : memref<32xf32, #tile.fragment>
  // expected-error @+1 {{'tile.parallel' op reads a reduced fragment (a broadcast along dimension 1) but touches no fragment of its whole index space, whose layout it would iterate in}}
  tile.parallel (%i, %j) in [32, 32] {
    %x = memref.load %r[%i] : memref<32xf32, #tile.fragment>
    memref.store %x, %Y[%i, %j] : memref<32x32xf32>
  }
}
