// RUN: tile-opt %s | tile-opt | FileCheck %s
// RUN: tile-opt %s --tile-to-ptx='ptx-output=%t.ptx' > /dev/null
// RUN: FileCheck %s --check-prefix=PTX < %t.ptx
// RUN: %if ptxas %{ %ptxas-each %t %}
// GPU-SUITE: --check --bench --flops 2147483648

// An FFMA GEMM for the seed's shape (M = 1024, N = 512, K = 2048, f32):
// register blocking over shared-memory tiles, with the next K tile
// prefetched into registers while the current one is consumed. (Our best,
// gemm/best.mlir, and gemm/pipelined.mlir move the tiles with cp.async.)
// - 64 x 64 outputs per block (128 blocks: one wave on 132 SMs), 256
//   threads, a 4 x 4 register tile per thread: rows ty + 16 r (the two rows
//   a warp reads from the A tile sit in different banks), columns
//   4 tx .. 4 tx + 3 (one 128-bit read of the B tile per k).
// - K tiles of 16. Each thread owns one 16-byte piece of the A tile and one
//   of the B tile: it loads the pieces of tile k + 1 from global memory into
//   registers before computing tile k, and writes them to shared memory
//   after, so global latency overlaps the FMAs. Barrier insertion places
//   the two barriers per tile (before the compute, before the writes).
// - Per k: four scalar reads of A (broadcasts), one 128-bit read of B,
//   sixteen FMAs; the results leave with 128-bit stores.

// CHECK-LABEL: tile.kernel @gemm_prefetch
// PTX-LABEL: .entry gemm_prefetch(
// PTX: ld.shared.v4
// PTX: fma.rn.f32
// PTX: st.global.v4
tile.kernel @gemm_prefetch(%A: memref<1024x2048xf32>, %B: memref<2048x512xf32>,
                       %C: memref<1024x512xf32>)
    grid [8, 16] threads [16, 16] attributes {reference = @gemm_reference} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c16 = arith.constant 16 : index
  %c127 = arith.constant 127 : index
  %c128 = arith.constant 128 : index
  %bx = tile.block_id x
  %by = tile.block_id y
  %tx = tile.thread_id x
  %ty = tile.thread_id y
  %m0 = affine.apply affine_map<(b) -> (b * 64)>(%by)
  %n0 = affine.apply affine_map<(b) -> (b * 64)>(%bx)
  %col0 = arith.muli %tx, %c4 : index
  // This thread's pieces: A tile row l / 4, columns 4 (l % 4) + [0, 4);
  // B tile row l / 16, columns 4 (l % 16) + [0, 4); l = 16 ty + tx.
  %a_row = affine.apply affine_map<(y, x) -> ((y * 16 + x) floordiv 4)>(%ty, %tx)
  %a_col = affine.apply affine_map<(y, x) -> (((y * 16 + x) mod 4) * 4)>(%ty, %tx)
  %b_row = arith.addi %ty, %c0 : index
  %b_col = arith.muli %tx, %c4 : index
  %a_grow = arith.addi %m0, %a_row : index
  %b_gcol = arith.addi %n0, %b_col : index
  %As = tile.alloc_shared : memref<64x16xf32, #gpu.address_space<workgroup>>
  %Bs = tile.alloc_shared : memref<16x64xf32, #gpu.address_space<workgroup>>
  %ra = tile.alloc_local : memref<1x4xf32>
  %rb = tile.alloc_local : memref<1x4xf32>
  %acc = tile.alloc_local : memref<4x4xf32>
  %a = tile.alloc_local : memref<4xf32>
  %b = tile.alloc_local : memref<4xf32>
  tile.clear %acc : memref<4x4xf32>
  // K tile 0.
  tile.copy %A[%a_grow, %a_col] to %ra : memref<1024x2048xf32> to memref<1x4xf32>
  tile.copy %B[%b_row, %b_gcol] to %rb : memref<2048x512xf32> to memref<1x4xf32>
  tile.copy %ra to %As[%a_row, %a_col] : memref<1x4xf32> to memref<64x16xf32, #gpu.address_space<workgroup>>
  tile.copy %rb to %Bs[%b_row, %b_col] : memref<1x4xf32> to memref<16x64xf32, #gpu.address_space<workgroup>>
  tile.serial %kt = %c0 to %c128 step %c1 {
    %more = arith.cmpi ult, %kt, %c127 : index
    // Tile kt + 1 into registers.
    scf.if %more {
      %k_next = affine.apply affine_map<(k) -> ((k + 1) * 16)>(%kt)
      %a_gcol = arith.addi %k_next, %a_col : index
      %b_grow = arith.addi %k_next, %b_row : index
      tile.copy %A[%a_grow, %a_gcol] to %ra : memref<1024x2048xf32> to memref<1x4xf32>
      tile.copy %B[%b_grow, %b_gcol] to %rb : memref<2048x512xf32> to memref<1x4xf32>
    }
    tile.unroll %k = %c0 to %c16 step %c1 {
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
    scf.if %more {
      tile.copy %ra to %As[%a_row, %a_col] : memref<1x4xf32> to memref<64x16xf32, #gpu.address_space<workgroup>>
      tile.copy %rb to %Bs[%b_row, %b_col] : memref<1x4xf32> to memref<16x64xf32, #gpu.address_space<workgroup>>
    }
  }
  %n = arith.addi %n0, %col0 : index
  tile.unroll %r = %c0 to %c4 step %c1 {
    %row = affine.apply affine_map<(m, t, r) -> (m + t + r * 16)>(%m0, %ty, %r)
    tile.copy %acc[%r, %c0] to %C[%row, %n] shape [1, 4] : memref<4x4xf32> to memref<1024x512xf32>
  }
}

// The reference, written once for the GEMM examples, is in reference.mlir.
func.func private @gemm_reference(memref<?x?xf32>, memref<?x?xf32>, memref<?x?xf32>)
    attributes {tile.defined_in = "reference.mlir"}
