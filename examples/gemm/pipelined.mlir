// RUN: tile-opt %s | tile-opt | FileCheck %s
// RUN: tile-opt %s --tile-to-ptx='ptx-output=-' -o /dev/null | FileCheck %s --check-prefix=PTX
// RUN: tile-opt %s --tile-to-ptx='ptx-output=%t.ptx' -o /dev/null
// RUN: %if ptxas %{ %ptxas-each %t %}
// GPU-SUITE: --check --check-repeat 100 --bench --flops 2147483648

// The seed's GEMM (M = 1024, N = 512, K = 2048, f32) as a software-pipelined
// loop: the same 64 x 64 block tile, 4 x 4 register tile per thread and
// K tiles of 16 as gemm/prefetch.mlir, but the K tiles go straight from global
// into shared memory with `tile.copy` in a 4-stage `tile.pipelined` loop,
// and tile-software-pipeline makes them cp.async copies running 3 tiles
// ahead, into a buffer per stage, with one barrier per tile.
// gemm/pipelined_stages.mlir has the same kernel with 1 to 3 stages.
// The 16 steps of a tile run as 4 unrolled groups of 4: fully unrolled
// (with the pipeline's unrolling by the stage count, 1024 FMAs in the loop)
// it was 2.5% faster but took 130 ms to compile.
// H200, 2026-11-22: 4 stages 69.2 us (fully unrolled 67.5), 3 stages 70.7,
// 2 stages 84.5, 1 stage 146.5; gemm/prefetch.mlir, which prefetches through
// registers, 85.0; cuBLAS FFMA 57.5.

// CHECK-LABEL: tile.kernel @gemm_pipelined
tile.kernel @gemm_pipelined(%A: memref<1024x2048xf32>, %B: memref<2048x512xf32>,
                            %C: memref<1024x512xf32>)
    grid [8, 16] threads [16, 16] attributes {reference = @gemm_reference} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c16 = arith.constant 16 : index
  %c128 = arith.constant 128 : index
  %bx = tile.block_id x
  %by = tile.block_id y
  %tx = tile.thread_id x
  %ty = tile.thread_id y
  %m0 = affine.apply affine_map<(b) -> (b * 64)>(%by)
  %n0 = affine.apply affine_map<(b) -> (b * 64)>(%bx)
  %col0 = arith.muli %tx, %c4 : index
  %As = tile.alloc_shared : memref<64x16xf32, #gpu.address_space<workgroup>>
  %Bs = tile.alloc_shared : memref<16x64xf32, #gpu.address_space<workgroup>>
  %acc = tile.alloc_local : memref<4x4xf32>
  %a = tile.alloc_local : memref<4xf32>
  %b = tile.alloc_local : memref<4xf32>
  tile.clear %acc : memref<4x4xf32>
  tile.pipelined %kt = %c0 to %c128 step %c1 stages 4 {
    %k0 = affine.apply affine_map<(k) -> (k * 16)>(%kt)
    tile.copy %A[%m0, %k0] to %As : memref<1024x2048xf32> to memref<64x16xf32, #gpu.address_space<workgroup>>
    tile.copy %B[%k0, %n0] to %Bs : memref<2048x512xf32> to memref<16x64xf32, #gpu.address_space<workgroup>>
    tile.serial %kb = %c0 to %c16 step %c4 {
    tile.unroll %kk = %c0 to %c4 step %c1 {
      %k = arith.addi %kb, %kk : index
      tile.unroll %r = %c0 to %c4 step %c1 {
        %row = affine.apply affine_map<(t, r) -> (t + r * 16)>(%ty, %r)
        %v = memref.load %As[%row, %k] : memref<64x16xf32, #gpu.address_space<workgroup>>
        memref.store %v, %a[%r] : memref<4xf32>
      }
      tile.vectorized %c = %c0 to %c4 step %c1 {
        %col = arith.addi %col0, %c : index
        %v = memref.load %Bs[%k, %col] : memref<16x64xf32, #gpu.address_space<workgroup>>
        memref.store %v, %b[%c] : memref<4xf32>
      }
      tile.unroll %r = %c0 to %c4 step %c1 {
        tile.unroll %c = %c0 to %c4 step %c1 {
          %av = memref.load %a[%r] : memref<4xf32>
          %bv = memref.load %b[%c] : memref<4xf32>
          %s = memref.load %acc[%r, %c] : memref<4x4xf32>
          %t = math.fma %av, %bv, %s : f32
          memref.store %t, %acc[%r, %c] : memref<4x4xf32>
        }
      }
    }
    }
  }
  %n = arith.addi %n0, %col0 : index
  tile.unroll %r = %c0 to %c4 step %c1 {
    %row = affine.apply affine_map<(m, t, r) -> (m + t + r * 16)>(%m0, %ty, %r)
    tile.copy %acc[%r, %c0] to %C[%row, %n] shape [1, 4] : memref<4x4xf32> to memref<1024x512xf32>
  }
}

// The 4-stage kernel: three K tiles in flight in the prologue, then per
// tile a wait for the oldest group, one barrier, the copies three tiles
// ahead (16-byte cp.async.cg, bypassing L1) and their group.
// PTX-LABEL: .entry gemm_pipelined(
// PTX-COUNT-2: cp.async.cg.shared.global [{{.*}}], [{{.*}}], 16;
// PTX: cp.async.commit_group;
// PTX: cp.async.wait_group 2;
// PTX-NEXT: bar.sync 0;
// PTX: cp.async.cg.shared.global
// PTX: cp.async.commit_group;
// PTX: cp.async.wait_group 0;
// PTX-NOT: ld.global

// The reference, written once for the GEMM examples, is in reference.mlir.
func.func private @gemm_reference(memref<?x?xf32>, memref<?x?xf32>, memref<?x?xf32>)
    attributes {tile.defined_in = "reference.mlir"}
