// RUN: tile-opt %s --tile-to-ptx='gemm-lowering=wgmma ptx-output=%t.ptx' -o /dev/null
// RUN: FileCheck %s < %t.ptx
// RUN: tile-opt %s --tile-to-ptx='gemm-lowering=mma_sync ptx-output=%t.mma.ptx' -o /dev/null
// RUN: FileCheck %s --check-prefix=MMA < %t.mma.ptx

// The pipeline's gemm-lowering reaches every pass that depends on it, not
// only the fragment lowering: these gemms leave the choice, and with
// gemm-lowering=wgmma they get wgmma's layouts and descriptors, their waits
// deferred and the pingpong consumer's turns, as with the attribute on each
// (examples/attention/attention.mlir compiles to the same PTX either way).
// Regression: the layouts used to be inferred for mma.sync ("wgmma lowering
// splits the warps along M only; got warps [...]") and the turns left out.
// CHECK-LABEL: .entry auto_pingpong(
// CHECK: bar.arrive 2, 256;
// CHECK: bar.sync {{%r[0-9]+}}, 256;
// CHECK: wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16
// CHECK: bar.arrive {{%r[0-9]+}}, 256;
// CHECK: bar.sync 2, 256;
// With mma.sync there are no turns to take (pingpong orders wgmma issue).
// MMA-LABEL: .entry auto_pingpong(
// MMA-NOT: bar.arrive
// MMA: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
// MMA-NOT: bar.arrive
tile.kernel @auto_pingpong(%Q: memref<128x64xf16>, %K: memref<1024x64xf16>, %V: memref<1024x64xf16>, %O: memref<128x64xf32>)
    grid [1] threads [384] {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %two = arith.constant 2.0 : f32
  %Qs = tile.alloc_shared : memref<128x64xf16, #gpu.address_space<workgroup>>
  %Ks = tile.alloc_shared : memref<64x64xf16, #gpu.address_space<workgroup>>
  %Vs = tile.alloc_shared : memref<64x64xf16, #gpu.address_space<workgroup>>
  %S = tile.alloc_fragment : memref<128x64xf32, #tile.fragment>
  %P = tile.alloc_fragment : memref<128x64xf16, #tile.fragment>
  %acc = tile.alloc_fragment : memref<128x64xf32, #tile.fragment>
  tile.copy %Q[%c0, %c0] to %Qs : memref<128x64xf16> to memref<128x64xf16, #gpu.address_space<workgroup>>
  tile.clear %acc : memref<128x64xf32, #tile.fragment>
  tile.clear %P : memref<128x64xf16, #tile.fragment>
  tile.warp_specialize %c0 to %c8 step %c1 stages 2
      tiles(%Ks, %Vs : memref<64x64xf16, #gpu.address_space<workgroup>>, memref<64x64xf16, #gpu.address_space<workgroup>>)
      producer(%j, %st) threads 128 {
    %n0 = affine.apply affine_map<(j) -> (j * 64)>(%j)
    tile.copy %K[%n0, %c0] to %Ks : memref<1024x64xf16> to memref<64x64xf16, #gpu.address_space<workgroup>>
    tile.copy %V[%n0, %c0] to %Vs : memref<1024x64xf16> to memref<64x64xf16, #gpu.address_space<workgroup>>
  } consumer(%j, %st) threads 256 pingpong {
    tile.gemm %Qs, %Ks, %S {clear, transpose_b} : memref<128x64xf16, #gpu.address_space<workgroup>>, memref<64x64xf16, #gpu.address_space<workgroup>>, memref<128x64xf32, #tile.fragment>
    tile.parallel (%i, %d) in [128, 64] {
      %o = memref.load %acc[%i, %d] : memref<128x64xf32, #tile.fragment>
      %r = arith.mulf %o, %two : f32
      memref.store %r, %acc[%i, %d] : memref<128x64xf32, #tile.fragment>
    }
    tile.gemm %P, %Vs, %acc : memref<128x64xf16, #tile.fragment>, memref<64x64xf16, #gpu.address_space<workgroup>>, memref<128x64xf32, #tile.fragment>
    tile.parallel (%i, %c) in [128, 64] {
      %s = memref.load %S[%i, %c] : memref<128x64xf32, #tile.fragment>
      %e = math.exp2 %s : f32
      memref.store %e, %S[%i, %c] : memref<128x64xf32, #tile.fragment>
    }
    tile.copy %S to %P : memref<128x64xf32, #tile.fragment> to memref<128x64xf16, #tile.fragment>
  }
  tile.copy %acc to %O[%c0, %c0] : memref<128x64xf32, #tile.fragment> to memref<128x64xf32>
}
