// RUN: tile-opt %s | tile-opt | FileCheck %s
// RUN: tile-opt %s --tile-to-ptx='ptx-output=%t.ptx' > /dev/null
// RUN: %if ptxas %{ %ptxas-each %t %}
// GPU-SUITE: --kernel conv2d_naive --shape A=14x14x16x8 --shape W=3x3x16x32 --shape B=14x14x32x8 --check
// GPU-SUITE: --kernel conv2d_tvm --check --bench --flops 118380036096
// CPU-SUITE: --kernel conv2d_naive --shape A=14x14x16x8 --shape W=3x3x16x32 --shape B=14x14x32x8 --check
// CPU-SUITE: --kernel conv2d_tvm --check --race-check=false
// CPU-SUITE: --kernel conv2d_tvm --race-check --blocks 64

// The TVM tutorial's direct 2-D convolution in HWCN layout: 14 x 14 pixels,
// 256 channels, batch 256, 512 filters of 3 x 3, padding 1, f32.
//
// @conv2d_naive, for any size:
// B[y, x, f, n] = sum over ry, rx < 3 and c of
//   A[y + ry - 1, x + rx - 1, c, n] * W[ry, rx, c, f]  (zero padding of 1).
// One thread per output, 64 consecutive batch elements per block (coalesced
// reads of A), one block per (batch tile, filter, pixel). It is the
// reference of the tuned kernels (on the GPU), and is itself checked against
// the CPU reference at a small size (the GPU-SUITE line above).

// CHECK-LABEL: tile.kernel @conv2d_naive
tile.kernel @conv2d_naive(%A: memref<?x?x?x?xf32>, %W: memref<3x3x?x?xf32>,
                          %B: memref<?x?x?x?xf32>)
    grid [?, ?, ?] threads [64] attributes {reference = @conv2d_reference} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c64 = arith.constant 64 : index
  %zero = arith.constant 0.0 : f32
  %h = memref.dim %A, %c0 : memref<?x?x?x?xf32>
  %w = memref.dim %A, %c1 : memref<?x?x?x?xf32>
  %channels = memref.dim %A, %c2 : memref<?x?x?x?xf32>
  %batch = memref.dim %A, %c3 : memref<?x?x?x?xf32>
  %bx = tile.block_id x
  %f = tile.block_id y
  %pixel = tile.block_id z
  %tx = tile.thread_id x
  %n0 = arith.muli %bx, %c64 : index
  %n = arith.addi %n0, %tx : index
  %yy = arith.divui %pixel, %w : index
  %xx = arith.remui %pixel, %w : index
  %in_batch = arith.cmpi ult, %n, %batch : index
  scf.if %in_batch {
    %r = scf.for %ry = %c0 to %c3 step %c1 iter_args(%acc_y = %zero) -> (f32) {
      %acc_row = scf.for %rx = %c0 to %c3 step %c1 iter_args(%acc_x = %acc_y) -> (f32) {
        %y0 = arith.addi %yy, %ry : index
        %x0 = arith.addi %xx, %rx : index
        %y = arith.subi %y0, %c1 : index
        %x = arith.subi %x0, %c1 : index
        // Unsigned compares also reject -1.
        %y_in = arith.cmpi ult, %y, %h : index
        %x_in = arith.cmpi ult, %x, %w : index
        %inside = arith.andi %y_in, %x_in : i1
        %acc_next = scf.if %inside -> (f32) {
          %acc_c = scf.for %c = %c0 to %channels step %c1 iter_args(%s = %acc_x) -> (f32) {
            %a = memref.load %A[%y, %x, %c, %n] : memref<?x?x?x?xf32>
            %k = memref.load %W[%ry, %rx, %c, %f] : memref<3x3x?x?xf32>
            %t = math.fma %a, %k, %s : f32
            scf.yield %t : f32
          }
          scf.yield %acc_c : f32
        } else {
          scf.yield %acc_x : f32
        }
        scf.yield %acc_next : f32
      }
      scf.yield %acc_row : f32
    }
    memref.store %r, %B[%yy, %xx, %f, %n] : memref<?x?x?x?xf32>
  }
} grid_size {
^bb0(%A: memref<?x?x?x?xf32>, %W: memref<3x3x?x?xf32>, %B: memref<?x?x?x?xf32>):
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c64 = arith.constant 64 : index
  %h = memref.dim %A, %c0 : memref<?x?x?x?xf32>
  %w = memref.dim %A, %c1 : memref<?x?x?x?xf32>
  %batch = memref.dim %A, %c3 : memref<?x?x?x?xf32>
  %filters = memref.dim %W, %c3 : memref<3x3x?x?xf32>
  %tiles = arith.ceildivui %batch, %c64 : index
  %pixels = arith.muli %h, %w : index
  tile.yield %tiles, %filters, %pixels : index, index, index
}

// @conv2d_tvm, the tutorial's schedule at its shape: per pixel, a block
// computes 64 filters x 64 batch elements with 8 x 8 threads, each an 8 x 8
// register tile split in four strided 4 x 4 pieces ("virtual threads", so
// that neighbouring threads read neighbouring 16-byte pieces). The
// reduction walks 32 channel steps of 8 x 3 x 3 taps; for each, the block
// fetches the 8 x 64 slices of A and W into shared memory cooperatively,
// 128-bit chunks. The padding costs nothing: slices outside the image read
// as zero (tile.copy's bounds handling).
// CHECK-LABEL: tile.kernel @conv2d_tvm
tile.kernel @conv2d_tvm(%A: memref<14x14x256x256xf32>, %W: memref<3x3x256x512xf32>,
                        %B: memref<14x14x512x256xf32>)
    grid [4, 8, 196] threads [8, 8] attributes {reference = @conv2d_naive} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %c14 = arith.constant 14 : index
  %c32 = arith.constant 32 : index
  %bx = tile.block_id x
  %by = tile.block_id y
  %bz = tile.block_id z
  %tx = tile.thread_id x
  %ty = tile.thread_id y
  %n0 = affine.apply affine_map<(b) -> (b * 64)>(%bx)
  %f0 = affine.apply affine_map<(b) -> (b * 64)>(%by)
  %yy = arith.divui %bz, %c14 : index
  %xx = arith.remui %bz, %c14 : index
  %AA = tile.alloc_shared : memref<1x1x8x64xf32, #gpu.address_space<workgroup>>
  %WW = tile.alloc_shared : memref<1x1x8x64xf32, #gpu.address_space<workgroup>>
  %acc = tile.alloc_local : memref<1x1x8x8xf32>
  %a = tile.alloc_local : memref<8xf32>
  %w = tile.alloc_local : memref<8xf32>
  tile.clear %acc : memref<1x1x8x8xf32>
  tile.serial %rco = %c0 to %c32 step %c1 {
    %ch = arith.muli %rco, %c8 : index
    tile.serial %ry = %c0 to %c3 step %c1 {
      tile.serial %rx = %c0 to %c3 step %c1 {
        %y = affine.apply affine_map<(a, b) -> (a + b - 1)>(%yy, %ry)
        %x = affine.apply affine_map<(a, b) -> (a + b - 1)>(%xx, %rx)
        tile.copy %A[%y, %x, %ch, %n0] to %AA : memref<14x14x256x256xf32> to memref<1x1x8x64xf32, #gpu.address_space<workgroup>>
        tile.copy %W[%ry, %rx, %ch, %f0] to %WW : memref<3x3x256x512xf32> to memref<1x1x8x64xf32, #gpu.address_space<workgroup>>
        tile.unroll %rci = %c0 to %c8 step %c1 {
          tile.unroll %h = %c0 to %c2 step %c1 {
            %an = affine.apply affine_map<(t, h) -> (t * 4 + h * 32)>(%tx, %h)
            %wf = affine.apply affine_map<(t, h) -> (t * 4 + h * 32)>(%ty, %h)
            %dst = arith.muli %h, %c4 : index
            tile.vectorized %e = %c0 to %c4 step %c1 {
              %ia = arith.addi %an, %e : index
              %iw = arith.addi %wf, %e : index
              %d = arith.addi %dst, %e : index
              %av = memref.load %AA[%c0, %c0, %rci, %ia] : memref<1x1x8x64xf32, #gpu.address_space<workgroup>>
              memref.store %av, %a[%d] : memref<8xf32>
              %wv = memref.load %WW[%c0, %c0, %rci, %iw] : memref<1x1x8x64xf32, #gpu.address_space<workgroup>>
              memref.store %wv, %w[%d] : memref<8xf32>
            }
          }
          tile.unroll %i = %c0 to %c8 step %c1 {
            tile.unroll %j = %c0 to %c8 step %c1 {
              %wi = memref.load %w[%i] : memref<8xf32>
              %aj = memref.load %a[%j] : memref<8xf32>
              %s = memref.load %acc[%c0, %c0, %i, %j] : memref<1x1x8x8xf32>
              %t = math.fma %wi, %aj, %s : f32
              memref.store %t, %acc[%c0, %c0, %i, %j] : memref<1x1x8x8xf32>
            }
          }
        }
      }
    }
  }
  // Filter f0 + 4 ty + 32 (i / 4) + i % 4, batch n0 + 4 tx + 32 h + [0, 4).
  tile.unroll %i = %c0 to %c8 step %c1 {
    %f = affine.apply affine_map<(b, t, i) -> (b + t * 4 + (i floordiv 4) * 32 + i mod 4)>(%f0, %ty, %i)
    tile.unroll %h = %c0 to %c2 step %c1 {
      %n = affine.apply affine_map<(b, t, h) -> (b + t * 4 + h * 32)>(%n0, %tx, %h)
      %src = arith.muli %h, %c4 : index
      tile.copy %acc[%c0, %c0, %i, %src] to %B[%yy, %xx, %f, %n] shape [1, 1, 1, 4] : memref<1x1x8x8xf32> to memref<14x14x512x256xf32>
    }
  }
}

// CHECK-LABEL: func.func @conv2d_reference
func.func @conv2d_reference(%A: memref<?x?x?x?xf32>, %W: memref<3x3x?x?xf32>,
                            %B: memref<?x?x?x?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %zero = arith.constant 0.0 : f32
  %h = memref.dim %A, %c0 : memref<?x?x?x?xf32>
  %w = memref.dim %A, %c1 : memref<?x?x?x?xf32>
  %channels = memref.dim %A, %c2 : memref<?x?x?x?xf32>
  %batch = memref.dim %A, %c3 : memref<?x?x?x?xf32>
  %filters = memref.dim %W, %c3 : memref<3x3x?x?xf32>
  scf.for %yy = %c0 to %h step %c1 {
    scf.for %xx = %c0 to %w step %c1 {
      scf.for %f = %c0 to %filters step %c1 {
        scf.for %n = %c0 to %batch step %c1 {
          %sum = scf.for %ry = %c0 to %c3 step %c1 iter_args(%s0 = %zero) -> (f32) {
            %s1 = scf.for %rx = %c0 to %c3 step %c1 iter_args(%s2 = %s0) -> (f32) {
              %y0 = arith.addi %yy, %ry : index
              %x0 = arith.addi %xx, %rx : index
              %y = arith.subi %y0, %c1 : index
              %x = arith.subi %x0, %c1 : index
              %y_in = arith.cmpi ult, %y, %h : index
              %x_in = arith.cmpi ult, %x, %w : index
              %inside = arith.andi %y_in, %x_in : i1
              %s3 = scf.if %inside -> (f32) {
                %s4 = scf.for %c = %c0 to %channels step %c1 iter_args(%s5 = %s2) -> (f32) {
                  %a = memref.load %A[%y, %x, %c, %n] : memref<?x?x?x?xf32>
                  %k = memref.load %W[%ry, %rx, %c, %f] : memref<3x3x?x?xf32>
                  %p = arith.mulf %a, %k : f32
                  %s6 = arith.addf %s5, %p : f32
                  scf.yield %s6 : f32
                }
                scf.yield %s4 : f32
              } else {
                scf.yield %s2 : f32
              }
              scf.yield %s3 : f32
            }
            scf.yield %s1 : f32
          }
          memref.store %sum, %B[%yy, %xx, %f, %n] : memref<?x?x?x?xf32>
        }
      }
    }
  }
  return
}
