// RUN: tile-opt %s | tile-opt | FileCheck %s
// RUN: rm -f %t.*.ptx
// RUN: tile-opt %s --tile-to-ptx='ptx-output=%t.ptx' -o /dev/null
// RUN: FileCheck %s --check-prefix=PTX < %t.layer_norm_resident.ptx
// RUN: FileCheck %s --check-prefix=PTX-8K < %t.layer_norm_resident_8k.ptx
// RUN: FileCheck %s --check-prefix=PTX-16K < %t.layer_norm_resident_16k.ptx
// RUN: FileCheck %s --check-prefix=PTX-32K < %t.layer_norm_resident_32k.ptx
// RUN: %if ptxas %{ %ptxas-each %t %}
// GPU-SUITE: --kernel layer_norm_resident --shape X=1000x3000 --shape W=3000 --shape B=3000 --shape Y=1000x3000 --check
// GPU-SUITE: --kernel layer_norm_resident --shape X=300x9000 --shape W=9000 --shape B=9000 --shape Y=300x9000 --check
// GPU-SUITE: --kernel layer_norm_resident --shape X=8192x3000 --shape W=3000 --shape B=3000 --shape Y=8192x3000 --check --bench
// CPU-SUITE: --kernel layer_norm_resident --shape X=5x3000 --shape W=3000 --shape B=3000 --shape Y=5x3000 --check --race-check
// CPU-SUITE: --kernel layer_norm_resident --shape X=3x9000 --shape W=9000 --shape B=9000 --shape Y=3x9000 --check
// GPU-SUITE: --kernel layer_norm_resident_8k --shape X=300x20000 --shape W=20000 --shape B=20000 --shape Y=300x20000 --check
// GPU-SUITE: --kernel layer_norm_resident_8k --shape X=4096x8192 --shape W=8192 --shape B=8192 --shape Y=4096x8192 --check --bench
// CPU-SUITE: --kernel layer_norm_resident_8k --shape X=3x8000 --shape W=8000 --shape B=8000 --shape Y=3x8000 --check --race-check
// GPU-SUITE: --kernel layer_norm_resident_16k --shape X=300x40000 --shape W=40000 --shape B=40000 --shape Y=300x40000 --check
// GPU-SUITE: --kernel layer_norm_resident_16k --shape X=2048x16384 --shape W=16384 --shape B=16384 --shape Y=2048x16384 --check --bench
// CPU-SUITE: --kernel layer_norm_resident_16k --shape X=2x20000 --shape W=20000 --shape B=20000 --shape Y=2x20000 --check --race-check
// GPU-SUITE: --kernel layer_norm_resident_32k --shape X=300x70000 --shape W=70000 --shape B=70000 --shape Y=300x70000 --check
// GPU-SUITE: --kernel layer_norm_resident_32k --shape X=1024x32768 --shape W=32768 --shape B=32768 --shape Y=1024x32768 --check --bench
// CPU-SUITE: --kernel layer_norm_resident_32k --shape X=2x40000 --shape W=40000 --shape B=40000 --shape Y=2x40000 --check --race-check

// skip_llvm_passes = "vector-combine": without LLVM's load scalarization
// these kernels compile in 9-19% fewer instructions to PTX that runs as
// fast (docs/Pipeline.md, "Not skipped, measured").
// layer_norm_resident_32k keeps it: it runs 4.5% slower without.
//
// Layer norm with rows kept in registers (layer_norm.mlir's computation):
// one row per block of 256 threads, streamed in chunks of 4096 columns (16
// per thread, 16-byte loads). When the row fits in one chunk (up to 4096
// columns) the second pass normalizes the registers the first pass read,
// so the row is read once; longer rows read each chunk again. The squares
// go to a fragment of their own, so that the row stays.
// CHECK-LABEL: tile.kernel @layer_norm_resident
tile.kernel @layer_norm_resident(%X: memref<?x?xf32> {tile.multiple_of = 4},
                                 %W: memref<?xf32> {tile.multiple_of = 4},
                                 %B: memref<?xf32> {tile.multiple_of = 4},
                                 %Y: memref<?x?xf32> {tile.multiple_of = 4})
    grid [?] threads [256] attributes {reference = @layer_norm_reference,
                                       skip_llvm_passes = "vector-combine"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4096 = arith.constant 4096 : index
  %eps = arith.constant 1.0e-5 : f32
  %r0 = tile.block_id x
  %n = memref.dim %X, %c1 : memref<?x?xf32>
  %n_i64 = arith.index_cast %n : index to i64
  %nf = arith.uitofp %n_i64 : i64 to f32
  %chunks = arith.ceildivui %n, %c4096 : index
  // Thread t holds columns 1024 q + 4 t .. 1024 q + 4 t + 3 in registers
  // 4 q .. 4 q + 3.
  %x = tile.alloc_fragment {layout = #tile.layout<shape = [1, 4096], threads = 256, registers = 16, map = (d0, d1) -> (0, (d1 floordiv 4) * 1024 + d0 * 4 + d1 mod 4)>} : memref<1x4096xf32, #tile.fragment>
  %sq = tile.alloc_fragment : memref<1x4096xf32, #tile.fragment>
  %w = tile.alloc_fragment : memref<4096xf32, #tile.fragment>
  %b = tile.alloc_fragment : memref<4096xf32, #tile.fragment>
  %mean = tile.alloc_fragment : memref<1xf32, #tile.fragment>
  %rstd = tile.alloc_fragment : memref<1xf32, #tile.fragment>
  tile.clear %mean : memref<1xf32, #tile.fragment>
  tile.clear %rstd : memref<1xf32, #tile.fragment>

  // CHECK: tile.reduce add
  tile.serial %k = %c0 to %chunks step %c1 {
    %c0k = arith.muli %k, %c4096 : index
    tile.copy %X[%r0, %c0k] to %x : memref<?x?xf32> to memref<1x4096xf32, #tile.fragment>
    tile.parallel (%i, %j) in [1, 4096] {
      %v = memref.load %x[%i, %j] : memref<1x4096xf32, #tile.fragment>
      %v2 = arith.mulf %v, %v : f32
      memref.store %v2, %sq[%i, %j] : memref<1x4096xf32, #tile.fragment>
    }
    // Side by side, the two sums share one trip through shared memory.
    tile.reduce add %x into %mean dim 1 : memref<1x4096xf32, #tile.fragment> into memref<1xf32, #tile.fragment>
    tile.reduce add %sq into %rstd dim 1 : memref<1x4096xf32, #tile.fragment> into memref<1xf32, #tile.fragment>
  }
  // The sums become the mean and 1 / sqrt(var + eps).
  tile.parallel (%i) in [1] {
    %s = memref.load %mean[%i] : memref<1xf32, #tile.fragment>
    %s2 = memref.load %rstd[%i] : memref<1xf32, #tile.fragment>
    %mu = arith.divf %s, %nf : f32
    %ex2 = arith.divf %s2, %nf : f32
    %mu2 = arith.mulf %mu, %mu : f32
    %var = arith.subf %ex2, %mu2 : f32
    %ve = arith.addf %var, %eps : f32
    %r = math.rsqrt %ve : f32
    memref.store %mu, %mean[%i] : memref<1xf32, #tile.fragment>
    memref.store %r, %rstd[%i] : memref<1xf32, #tile.fragment>
  }
  %resident = arith.cmpi eq, %chunks, %c1 : index
  tile.serial %k = %c0 to %chunks step %c1 {
    %c0k = arith.muli %k, %c4096 : index
    // One chunk: %x still holds the row.
    scf.if %resident {
    } else {
      tile.copy %X[%r0, %c0k] to %x : memref<?x?xf32> to memref<1x4096xf32, #tile.fragment>
    }
    tile.copy %W[%c0k] to %w : memref<?xf32> to memref<4096xf32, #tile.fragment>
    tile.copy %B[%c0k] to %b : memref<?xf32> to memref<4096xf32, #tile.fragment>
    tile.parallel (%i, %j) in [1, 4096] {
      %v = memref.load %x[%i, %j] : memref<1x4096xf32, #tile.fragment>
      %mu = memref.load %mean[%i] : memref<1xf32, #tile.fragment>
      %r = memref.load %rstd[%i] : memref<1xf32, #tile.fragment>
      %wj = memref.load %w[%j] : memref<4096xf32, #tile.fragment>
      %bj = memref.load %b[%j] : memref<4096xf32, #tile.fragment>
      %d = arith.subf %v, %mu : f32
      %nrm = arith.mulf %d, %r : f32
      %y = math.fma %nrm, %wj, %bj : f32
      memref.store %y, %x[%i, %j] : memref<1x4096xf32, #tile.fragment>
    }
    tile.copy %x to %Y[%r0, %c0k] : memref<1x4096xf32, #tile.fragment> to memref<?x?xf32>
  }
} grid_size {
^bb0(%X: memref<?x?xf32>, %W: memref<?xf32>, %B: memref<?xf32>, %Y: memref<?x?xf32>):
  %c0 = arith.constant 0 : index
  %rows = memref.dim %X, %c0 : memref<?x?xf32>
  tile.yield %rows : index
}

// PTX-LABEL: .entry layer_norm_resident(
// PTX-DAG: ld.global.v4.b32
// PTX-DAG: bar.sync
// PTX-DAG: st.global.v4.b32

// The same kernel for longer rows, one chunk of 8192 columns over 512
// threads (16 registers each, as above): rows of up to 8192 columns are
// read once, with two blocks on an SM (by its registers).
// CHECK-LABEL: tile.kernel @layer_norm_resident_8k
tile.kernel @layer_norm_resident_8k(%X: memref<?x?xf32> {tile.multiple_of = 4},
                                    %W: memref<?xf32> {tile.multiple_of = 4},
                                    %B: memref<?xf32> {tile.multiple_of = 4},
                                    %Y: memref<?x?xf32> {tile.multiple_of = 4})
    grid [?] threads [512] attributes {reference = @layer_norm_reference,
                                       skip_llvm_passes = "vector-combine"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8192 = arith.constant 8192 : index
  %eps = arith.constant 1.0e-5 : f32
  %r0 = tile.block_id x
  %n = memref.dim %X, %c1 : memref<?x?xf32>
  %n_i64 = arith.index_cast %n : index to i64
  %nf = arith.uitofp %n_i64 : i64 to f32
  %chunks = arith.ceildivui %n, %c8192 : index
  // Thread t holds columns 2048 q + 4 t .. 2048 q + 4 t + 3 in registers
  // 4 q .. 4 q + 3.
  %x = tile.alloc_fragment {layout = #tile.layout<shape = [1, 8192], threads = 512, registers = 16, map = (d0, d1) -> (0, (d1 floordiv 4) * 2048 + d0 * 4 + d1 mod 4)>} : memref<1x8192xf32, #tile.fragment>
  %sq = tile.alloc_fragment : memref<1x8192xf32, #tile.fragment>
  %w = tile.alloc_fragment : memref<8192xf32, #tile.fragment>
  %b = tile.alloc_fragment : memref<8192xf32, #tile.fragment>
  %mean = tile.alloc_fragment : memref<1xf32, #tile.fragment>
  %rstd = tile.alloc_fragment : memref<1xf32, #tile.fragment>
  tile.clear %mean : memref<1xf32, #tile.fragment>
  tile.clear %rstd : memref<1xf32, #tile.fragment>

  // CHECK: tile.reduce add
  tile.serial %k = %c0 to %chunks step %c1 {
    %c0k = arith.muli %k, %c8192 : index
    tile.copy %X[%r0, %c0k] to %x : memref<?x?xf32> to memref<1x8192xf32, #tile.fragment>
    tile.parallel (%i, %j) in [1, 8192] {
      %v = memref.load %x[%i, %j] : memref<1x8192xf32, #tile.fragment>
      %v2 = arith.mulf %v, %v : f32
      memref.store %v2, %sq[%i, %j] : memref<1x8192xf32, #tile.fragment>
    }
    // Side by side, the two sums share one trip through shared memory.
    tile.reduce add %x into %mean dim 1 : memref<1x8192xf32, #tile.fragment> into memref<1xf32, #tile.fragment>
    tile.reduce add %sq into %rstd dim 1 : memref<1x8192xf32, #tile.fragment> into memref<1xf32, #tile.fragment>
  }
  // The sums become the mean and 1 / sqrt(var + eps).
  tile.parallel (%i) in [1] {
    %s = memref.load %mean[%i] : memref<1xf32, #tile.fragment>
    %s2 = memref.load %rstd[%i] : memref<1xf32, #tile.fragment>
    %mu = arith.divf %s, %nf : f32
    %ex2 = arith.divf %s2, %nf : f32
    %mu2 = arith.mulf %mu, %mu : f32
    %var = arith.subf %ex2, %mu2 : f32
    %ve = arith.addf %var, %eps : f32
    %r = math.rsqrt %ve : f32
    memref.store %mu, %mean[%i] : memref<1xf32, #tile.fragment>
    memref.store %r, %rstd[%i] : memref<1xf32, #tile.fragment>
  }
  %resident = arith.cmpi eq, %chunks, %c1 : index
  tile.serial %k = %c0 to %chunks step %c1 {
    %c0k = arith.muli %k, %c8192 : index
    // One chunk: %x still holds the row.
    scf.if %resident {
    } else {
      tile.copy %X[%r0, %c0k] to %x : memref<?x?xf32> to memref<1x8192xf32, #tile.fragment>
    }
    tile.copy %W[%c0k] to %w : memref<?xf32> to memref<8192xf32, #tile.fragment>
    tile.copy %B[%c0k] to %b : memref<?xf32> to memref<8192xf32, #tile.fragment>
    tile.parallel (%i, %j) in [1, 8192] {
      %v = memref.load %x[%i, %j] : memref<1x8192xf32, #tile.fragment>
      %mu = memref.load %mean[%i] : memref<1xf32, #tile.fragment>
      %r = memref.load %rstd[%i] : memref<1xf32, #tile.fragment>
      %wj = memref.load %w[%j] : memref<8192xf32, #tile.fragment>
      %bj = memref.load %b[%j] : memref<8192xf32, #tile.fragment>
      %d = arith.subf %v, %mu : f32
      %nrm = arith.mulf %d, %r : f32
      %y = math.fma %nrm, %wj, %bj : f32
      memref.store %y, %x[%i, %j] : memref<1x8192xf32, #tile.fragment>
    }
    tile.copy %x to %Y[%r0, %c0k] : memref<1x8192xf32, #tile.fragment> to memref<?x?xf32>
  }
} grid_size {
^bb0(%X: memref<?x?xf32>, %W: memref<?xf32>, %B: memref<?xf32>, %Y: memref<?x?xf32>):
  %c0 = arith.constant 0 : index
  %rows = memref.dim %X, %c0 : memref<?x?xf32>
  tile.yield %rows : index
}

// PTX-8K-LABEL: .entry layer_norm_resident_8k(
// PTX-8K-DAG: ld.global.v4.b32
// PTX-8K-DAG: bar.sync
// PTX-8K-DAG: st.global.v4.b32

// And rows of up to 16384 columns read once over 512 threads, in four
// fragments of 4096 columns: the row's 32 registers, a part's weight and
// bias (8 each) and the rest fit in 64, two blocks on an SM.
// CHECK-LABEL: tile.kernel @layer_norm_resident_16k
tile.kernel @layer_norm_resident_16k(%X: memref<?x?xf32> {tile.multiple_of = 4},
    %W: memref<?xf32> {tile.multiple_of = 4},
    %B: memref<?xf32> {tile.multiple_of = 4},
    %Y: memref<?x?xf32> {tile.multiple_of = 4})
    grid [?] threads [512] attributes {reference = @layer_norm_reference,
                                       skip_llvm_passes = "vector-combine",
                                       min_blocks_per_sm = 2} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16384 = arith.constant 16384 : index
  %eps = arith.constant 1.0e-5 : f32
  %r0 = tile.block_id x
  %n = memref.dim %X, %c1 : memref<?x?xf32>
  %n_i64 = arith.index_cast %n : index to i64
  %nf = arith.uitofp %n_i64 : i64 to f32
  %chunks = arith.ceildivui %n, %c16384 : index
  // The row as 4 fragments of 4096 columns (8 registers each;
  // in part p, thread t holds columns 4096 p + 2048 q + 4 t .. + 3),
  // so that a part's weight and bias fit beside the row: 64
  // registers a thread, two blocks on an SM.
  %x0 = tile.alloc_fragment {layout = #tile.layout<shape = [1, 4096], threads = 512, registers = 8, map = (d0, d1) -> (0, (d1 floordiv 4) * 2048 + d0 * 4 + d1 mod 4)>} : memref<1x4096xf32, #tile.fragment>
  %x1 = tile.alloc_fragment {layout = #tile.layout<shape = [1, 4096], threads = 512, registers = 8, map = (d0, d1) -> (0, (d1 floordiv 4) * 2048 + d0 * 4 + d1 mod 4)>} : memref<1x4096xf32, #tile.fragment>
  %x2 = tile.alloc_fragment {layout = #tile.layout<shape = [1, 4096], threads = 512, registers = 8, map = (d0, d1) -> (0, (d1 floordiv 4) * 2048 + d0 * 4 + d1 mod 4)>} : memref<1x4096xf32, #tile.fragment>
  %x3 = tile.alloc_fragment {layout = #tile.layout<shape = [1, 4096], threads = 512, registers = 8, map = (d0, d1) -> (0, (d1 floordiv 4) * 2048 + d0 * 4 + d1 mod 4)>} : memref<1x4096xf32, #tile.fragment>
  %sq = tile.alloc_fragment : memref<1x4096xf32, #tile.fragment>
  %sm = tile.alloc_fragment : memref<1x4096xf32, #tile.fragment>
  %w = tile.alloc_fragment : memref<4096xf32, #tile.fragment>
  %b = tile.alloc_fragment : memref<4096xf32, #tile.fragment>
  %mean = tile.alloc_fragment : memref<1xf32, #tile.fragment>
  %rstd = tile.alloc_fragment : memref<1xf32, #tile.fragment>
  tile.clear %mean : memref<1xf32, #tile.fragment>
  tile.clear %rstd : memref<1xf32, #tile.fragment>
  tile.serial %k = %c0 to %chunks step %c1 {
    %c0k = arith.muli %k, %c16384 : index
    tile.copy %X[%r0, %c0k] to %x0 : memref<?x?xf32> to memref<1x4096xf32, #tile.fragment>
    %c1k = affine.apply affine_map<(c) -> (c + 4096)>(%c0k)
    tile.copy %X[%r0, %c1k] to %x1 : memref<?x?xf32> to memref<1x4096xf32, #tile.fragment>
    %c2k = affine.apply affine_map<(c) -> (c + 8192)>(%c0k)
    tile.copy %X[%r0, %c2k] to %x2 : memref<?x?xf32> to memref<1x4096xf32, #tile.fragment>
    %c3k = affine.apply affine_map<(c) -> (c + 12288)>(%c0k)
    tile.copy %X[%r0, %c3k] to %x3 : memref<?x?xf32> to memref<1x4096xf32, #tile.fragment>
    // The parts summed elementwise first: one reduction per statistic.
    tile.parallel (%i, %j) in [1, 4096] {
      %v0 = memref.load %x0[%i, %j] : memref<1x4096xf32, #tile.fragment>
      %q0 = arith.mulf %v0, %v0 : f32
      %v1 = memref.load %x1[%i, %j] : memref<1x4096xf32, #tile.fragment>
      %q1 = arith.mulf %v1, %v1 : f32
      %v2 = memref.load %x2[%i, %j] : memref<1x4096xf32, #tile.fragment>
      %q2 = arith.mulf %v2, %v2 : f32
      %v3 = memref.load %x3[%i, %j] : memref<1x4096xf32, #tile.fragment>
      %q3 = arith.mulf %v3, %v3 : f32
      %s1 = arith.addf %v0, %v1 : f32
      %t1 = arith.addf %q0, %q1 : f32
      %s2 = arith.addf %s1, %v2 : f32
      %t2 = arith.addf %t1, %q2 : f32
      %s3 = arith.addf %s2, %v3 : f32
      %t3 = arith.addf %t2, %q3 : f32
      memref.store %s3, %sm[%i, %j] : memref<1x4096xf32, #tile.fragment>
      memref.store %t3, %sq[%i, %j] : memref<1x4096xf32, #tile.fragment>
    }
    tile.reduce add %sm into %mean dim 1 : memref<1x4096xf32, #tile.fragment> into memref<1xf32, #tile.fragment>
    tile.reduce add %sq into %rstd dim 1 : memref<1x4096xf32, #tile.fragment> into memref<1xf32, #tile.fragment>
  }
  tile.parallel (%i) in [1] {
    %s2 = memref.load %rstd[%i] : memref<1xf32, #tile.fragment>
    %ex2 = arith.divf %s2, %nf : f32
    %s = memref.load %mean[%i] : memref<1xf32, #tile.fragment>
    %mu = arith.divf %s, %nf : f32
    %mu2 = arith.mulf %mu, %mu : f32
    %var = arith.subf %ex2, %mu2 : f32
    %ve = arith.addf %var, %eps : f32
    memref.store %mu, %mean[%i] : memref<1xf32, #tile.fragment>
    %r = math.rsqrt %ve : f32
    memref.store %r, %rstd[%i] : memref<1xf32, #tile.fragment>
  }
  %resident = arith.cmpi eq, %chunks, %c1 : index
  // One chunk: the parts still hold the row. Each part is normalized
  // with its piece of the weight and bias and written out.
  tile.serial %k = %c0 to %chunks step %c1 {
    %c0k = arith.muli %k, %c16384 : index
    scf.if %resident {
    } else {
      tile.copy %X[%r0, %c0k] to %x0 : memref<?x?xf32> to memref<1x4096xf32, #tile.fragment>
    }
    tile.copy %W[%c0k] to %w : memref<?xf32> to memref<4096xf32, #tile.fragment>
    tile.copy %B[%c0k] to %b : memref<?xf32> to memref<4096xf32, #tile.fragment>
    tile.parallel (%i, %j) in [1, 4096] {
      %v = memref.load %x0[%i, %j] : memref<1x4096xf32, #tile.fragment>
      %r = memref.load %rstd[%i] : memref<1xf32, #tile.fragment>
      %wj = memref.load %w[%j] : memref<4096xf32, #tile.fragment>
      %mu = memref.load %mean[%i] : memref<1xf32, #tile.fragment>
      %bj = memref.load %b[%j] : memref<4096xf32, #tile.fragment>
      %d = arith.subf %v, %mu : f32
      %nrm = arith.mulf %d, %r : f32
      %y = math.fma %nrm, %wj, %bj : f32
      memref.store %y, %x0[%i, %j] : memref<1x4096xf32, #tile.fragment>
    }
    tile.copy %x0 to %Y[%r0, %c0k] : memref<1x4096xf32, #tile.fragment> to memref<?x?xf32>
    %c1k = affine.apply affine_map<(c) -> (c + 4096)>(%c0k)
    scf.if %resident {
    } else {
      tile.copy %X[%r0, %c1k] to %x1 : memref<?x?xf32> to memref<1x4096xf32, #tile.fragment>
    }
    tile.copy %W[%c1k] to %w : memref<?xf32> to memref<4096xf32, #tile.fragment>
    tile.copy %B[%c1k] to %b : memref<?xf32> to memref<4096xf32, #tile.fragment>
    tile.parallel (%i, %j) in [1, 4096] {
      %v = memref.load %x1[%i, %j] : memref<1x4096xf32, #tile.fragment>
      %r = memref.load %rstd[%i] : memref<1xf32, #tile.fragment>
      %wj = memref.load %w[%j] : memref<4096xf32, #tile.fragment>
      %mu = memref.load %mean[%i] : memref<1xf32, #tile.fragment>
      %bj = memref.load %b[%j] : memref<4096xf32, #tile.fragment>
      %d = arith.subf %v, %mu : f32
      %nrm = arith.mulf %d, %r : f32
      %y = math.fma %nrm, %wj, %bj : f32
      memref.store %y, %x1[%i, %j] : memref<1x4096xf32, #tile.fragment>
    }
    tile.copy %x1 to %Y[%r0, %c1k] : memref<1x4096xf32, #tile.fragment> to memref<?x?xf32>
    %c2k = affine.apply affine_map<(c) -> (c + 8192)>(%c0k)
    scf.if %resident {
    } else {
      tile.copy %X[%r0, %c2k] to %x2 : memref<?x?xf32> to memref<1x4096xf32, #tile.fragment>
    }
    tile.copy %W[%c2k] to %w : memref<?xf32> to memref<4096xf32, #tile.fragment>
    tile.copy %B[%c2k] to %b : memref<?xf32> to memref<4096xf32, #tile.fragment>
    tile.parallel (%i, %j) in [1, 4096] {
      %v = memref.load %x2[%i, %j] : memref<1x4096xf32, #tile.fragment>
      %r = memref.load %rstd[%i] : memref<1xf32, #tile.fragment>
      %wj = memref.load %w[%j] : memref<4096xf32, #tile.fragment>
      %mu = memref.load %mean[%i] : memref<1xf32, #tile.fragment>
      %bj = memref.load %b[%j] : memref<4096xf32, #tile.fragment>
      %d = arith.subf %v, %mu : f32
      %nrm = arith.mulf %d, %r : f32
      %y = math.fma %nrm, %wj, %bj : f32
      memref.store %y, %x2[%i, %j] : memref<1x4096xf32, #tile.fragment>
    }
    tile.copy %x2 to %Y[%r0, %c2k] : memref<1x4096xf32, #tile.fragment> to memref<?x?xf32>
    %c3k = affine.apply affine_map<(c) -> (c + 12288)>(%c0k)
    scf.if %resident {
    } else {
      tile.copy %X[%r0, %c3k] to %x3 : memref<?x?xf32> to memref<1x4096xf32, #tile.fragment>
    }
    tile.copy %W[%c3k] to %w : memref<?xf32> to memref<4096xf32, #tile.fragment>
    tile.copy %B[%c3k] to %b : memref<?xf32> to memref<4096xf32, #tile.fragment>
    tile.parallel (%i, %j) in [1, 4096] {
      %v = memref.load %x3[%i, %j] : memref<1x4096xf32, #tile.fragment>
      %r = memref.load %rstd[%i] : memref<1xf32, #tile.fragment>
      %wj = memref.load %w[%j] : memref<4096xf32, #tile.fragment>
      %mu = memref.load %mean[%i] : memref<1xf32, #tile.fragment>
      %bj = memref.load %b[%j] : memref<4096xf32, #tile.fragment>
      %d = arith.subf %v, %mu : f32
      %nrm = arith.mulf %d, %r : f32
      %y = math.fma %nrm, %wj, %bj : f32
      memref.store %y, %x3[%i, %j] : memref<1x4096xf32, #tile.fragment>
    }
    tile.copy %x3 to %Y[%r0, %c3k] : memref<1x4096xf32, #tile.fragment> to memref<?x?xf32>
  }
} grid_size {
^bb0(%X: memref<?x?xf32>, %W: memref<?xf32>, %B: memref<?xf32>, %Y: memref<?x?xf32>):
  %c0 = arith.constant 0 : index
  %rows = memref.dim %X, %c0 : memref<?x?xf32>
  tile.yield %rows : index
}

// PTX-16K-LABEL: .entry layer_norm_resident_16k(
// PTX-16K-DAG: ld.global.v4.b32
// PTX-16K-DAG: bar.sync
// PTX-16K-DAG: st.global.v4.b32

// And rows of up to 32768 columns read once over 512 threads, three eighths
// of a chunk in registers (three fragments of 4096 columns) and five eighths
// in shared memory (five tiles of 4096 columns, 80 KB), two blocks on an SM
// (three: 40 bytes of spill, yet faster than two without; four spilled 192
// bytes, 23% slower at 1024 x 32768 on the H200).
// CHECK-LABEL: tile.kernel @layer_norm_resident_32k
// skip_llvm_passes: LLVM passes and runs (`gvn#2`: the NVPTX backend's
// first GVN) that leave this kernel's PTX byte-identical, 9%
// of its compile (docs/Pipeline.md, "Per-kernel skip lists").
tile.kernel @layer_norm_resident_32k(%X: memref<?x?xf32> {tile.multiple_of = 4},
    %W: memref<?xf32> {tile.multiple_of = 4},
    %B: memref<?xf32> {tile.multiple_of = 4},
    %Y: memref<?x?xf32> {tile.multiple_of = 4})
    grid [?] threads [512] attributes {reference = @layer_norm_reference, min_blocks_per_sm = 2,
        skip_llvm_passes = "gvn#2,gvn#3,early-cse#1,early-cse#4,indvars#2,correlated-propagation#1,sccp,dse,licm#1,loop-unroll-full,adce,consthoist"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %cchunk = arith.constant 32768 : index
  %r0 = tile.block_id x
  %n = memref.dim %X, %c1 : memref<?x?xf32>
  %chunks = arith.ceildivui %n, %cchunk : index
  // Half of a chunk in registers (x0..x3), half in shared memory (s0..s3).
  %x0 = tile.alloc_fragment {layout = #tile.layout<shape = [1, 4096], threads = 512, registers = 8, map = (d0, d1) -> (0, (d1 floordiv 4) * 2048 + d0 * 4 + d1 mod 4)>} : memref<1x4096xf32, #tile.fragment>
  %x1 = tile.alloc_fragment {layout = #tile.layout<shape = [1, 4096], threads = 512, registers = 8, map = (d0, d1) -> (0, (d1 floordiv 4) * 2048 + d0 * 4 + d1 mod 4)>} : memref<1x4096xf32, #tile.fragment>
  %x2 = tile.alloc_fragment {layout = #tile.layout<shape = [1, 4096], threads = 512, registers = 8, map = (d0, d1) -> (0, (d1 floordiv 4) * 2048 + d0 * 4 + d1 mod 4)>} : memref<1x4096xf32, #tile.fragment>
  %s0 = tile.alloc_shared : memref<1x4096xf32, #gpu.address_space<workgroup>>
  %s1 = tile.alloc_shared : memref<1x4096xf32, #gpu.address_space<workgroup>>
  %s2 = tile.alloc_shared : memref<1x4096xf32, #gpu.address_space<workgroup>>
  %s3 = tile.alloc_shared : memref<1x4096xf32, #gpu.address_space<workgroup>>
  %s4 = tile.alloc_shared : memref<1x4096xf32, #gpu.address_space<workgroup>>
  %t = tile.alloc_fragment : memref<1x4096xf32, #tile.fragment>
  %eps = arith.constant 1.0e-5 : f32
  %n_i64 = arith.index_cast %n : index to i64
  %nf = arith.uitofp %n_i64 : i64 to f32
  %sq = tile.alloc_fragment : memref<1x4096xf32, #tile.fragment>
  %sm = tile.alloc_fragment : memref<1x4096xf32, #tile.fragment>
  %w = tile.alloc_fragment : memref<4096xf32, #tile.fragment>
  %b = tile.alloc_fragment : memref<4096xf32, #tile.fragment>
  %mean = tile.alloc_fragment : memref<1xf32, #tile.fragment>
  tile.clear %mean : memref<1xf32, #tile.fragment>
  %rstd = tile.alloc_fragment : memref<1xf32, #tile.fragment>
  tile.clear %rstd : memref<1xf32, #tile.fragment>
  tile.serial %k = %c0 to %chunks step %c1 {
    %c0k = arith.muli %k, %cchunk : index
    %o1 = affine.apply affine_map<(c) -> (c + 4096)>(%c0k)
    %o2 = affine.apply affine_map<(c) -> (c + 8192)>(%c0k)
    %o3 = affine.apply affine_map<(c) -> (c + 12288)>(%c0k)
    %o4 = affine.apply affine_map<(c) -> (c + 16384)>(%c0k)
    %o5 = affine.apply affine_map<(c) -> (c + 20480)>(%c0k)
    %o6 = affine.apply affine_map<(c) -> (c + 24576)>(%c0k)
    %o7 = affine.apply affine_map<(c) -> (c + 28672)>(%c0k)
    tile.copy %X[%r0, %c0k] to %x0 : memref<?x?xf32> to memref<1x4096xf32, #tile.fragment>
    tile.copy %X[%r0, %o1] to %x1 : memref<?x?xf32> to memref<1x4096xf32, #tile.fragment>
    tile.copy %X[%r0, %o2] to %x2 : memref<?x?xf32> to memref<1x4096xf32, #tile.fragment>
    tile.copy %X[%r0, %o3] to %s0 : memref<?x?xf32> to memref<1x4096xf32, #gpu.address_space<workgroup>>
    tile.copy %X[%r0, %o4] to %s1 : memref<?x?xf32> to memref<1x4096xf32, #gpu.address_space<workgroup>>
    tile.copy %X[%r0, %o5] to %s2 : memref<?x?xf32> to memref<1x4096xf32, #gpu.address_space<workgroup>>
    tile.copy %X[%r0, %o6] to %s3 : memref<?x?xf32> to memref<1x4096xf32, #gpu.address_space<workgroup>>
    tile.copy %X[%r0, %o7] to %s4 : memref<?x?xf32> to memref<1x4096xf32, #gpu.address_space<workgroup>>
    // The register parts' sums (and squares), elementwise.
    tile.parallel (%i, %j) in [1, 4096] {
      %v0 = memref.load %x0[%i, %j] : memref<1x4096xf32, #tile.fragment>
      %q0 = arith.mulf %v0, %v0 : f32
      %v1 = memref.load %x1[%i, %j] : memref<1x4096xf32, #tile.fragment>
      %q1 = arith.mulf %v1, %v1 : f32
      %v2 = memref.load %x2[%i, %j] : memref<1x4096xf32, #tile.fragment>
      %q2 = arith.mulf %v2, %v2 : f32
      %aq1 = arith.addf %q0, %q1 : f32
      %as1 = arith.addf %v0, %v1 : f32
      %aq2 = arith.addf %aq1, %q2 : f32
      %as2 = arith.addf %as1, %v2 : f32
      memref.store %aq2, %sq[%i, %j] : memref<1x4096xf32, #tile.fragment>
      memref.store %as2, %sm[%i, %j] : memref<1x4096xf32, #tile.fragment>
    }
    // The shared parts into the same sums (zeros past the row's end).
    tile.copy %s0 to %t : memref<1x4096xf32, #gpu.address_space<workgroup>> to memref<1x4096xf32, #tile.fragment>
    tile.parallel (%i, %j) in [1, 4096] {
      %v = memref.load %t[%i, %j] : memref<1x4096xf32, #tile.fragment>
      %v2 = arith.mulf %v, %v : f32
      %a = memref.load %sq[%i, %j] : memref<1x4096xf32, #tile.fragment>
      %s = arith.addf %a, %v2 : f32
      memref.store %s, %sq[%i, %j] : memref<1x4096xf32, #tile.fragment>
      %am = memref.load %sm[%i, %j] : memref<1x4096xf32, #tile.fragment>
      %sv = arith.addf %am, %v : f32
      memref.store %sv, %sm[%i, %j] : memref<1x4096xf32, #tile.fragment>
    }
    tile.copy %s1 to %t : memref<1x4096xf32, #gpu.address_space<workgroup>> to memref<1x4096xf32, #tile.fragment>
    tile.parallel (%i, %j) in [1, 4096] {
      %v = memref.load %t[%i, %j] : memref<1x4096xf32, #tile.fragment>
      %v2 = arith.mulf %v, %v : f32
      %a = memref.load %sq[%i, %j] : memref<1x4096xf32, #tile.fragment>
      %s = arith.addf %a, %v2 : f32
      memref.store %s, %sq[%i, %j] : memref<1x4096xf32, #tile.fragment>
      %am = memref.load %sm[%i, %j] : memref<1x4096xf32, #tile.fragment>
      %sv = arith.addf %am, %v : f32
      memref.store %sv, %sm[%i, %j] : memref<1x4096xf32, #tile.fragment>
    }
    tile.copy %s2 to %t : memref<1x4096xf32, #gpu.address_space<workgroup>> to memref<1x4096xf32, #tile.fragment>
    tile.parallel (%i, %j) in [1, 4096] {
      %v = memref.load %t[%i, %j] : memref<1x4096xf32, #tile.fragment>
      %v2 = arith.mulf %v, %v : f32
      %a = memref.load %sq[%i, %j] : memref<1x4096xf32, #tile.fragment>
      %s = arith.addf %a, %v2 : f32
      memref.store %s, %sq[%i, %j] : memref<1x4096xf32, #tile.fragment>
      %am = memref.load %sm[%i, %j] : memref<1x4096xf32, #tile.fragment>
      %sv = arith.addf %am, %v : f32
      memref.store %sv, %sm[%i, %j] : memref<1x4096xf32, #tile.fragment>
    }
    tile.copy %s3 to %t : memref<1x4096xf32, #gpu.address_space<workgroup>> to memref<1x4096xf32, #tile.fragment>
    tile.parallel (%i, %j) in [1, 4096] {
      %v = memref.load %t[%i, %j] : memref<1x4096xf32, #tile.fragment>
      %v2 = arith.mulf %v, %v : f32
      %a = memref.load %sq[%i, %j] : memref<1x4096xf32, #tile.fragment>
      %s = arith.addf %a, %v2 : f32
      memref.store %s, %sq[%i, %j] : memref<1x4096xf32, #tile.fragment>
      %am = memref.load %sm[%i, %j] : memref<1x4096xf32, #tile.fragment>
      %sv = arith.addf %am, %v : f32
      memref.store %sv, %sm[%i, %j] : memref<1x4096xf32, #tile.fragment>
    }
    tile.copy %s4 to %t : memref<1x4096xf32, #gpu.address_space<workgroup>> to memref<1x4096xf32, #tile.fragment>
    tile.parallel (%i, %j) in [1, 4096] {
      %v = memref.load %t[%i, %j] : memref<1x4096xf32, #tile.fragment>
      %v2 = arith.mulf %v, %v : f32
      %a = memref.load %sq[%i, %j] : memref<1x4096xf32, #tile.fragment>
      %s = arith.addf %a, %v2 : f32
      memref.store %s, %sq[%i, %j] : memref<1x4096xf32, #tile.fragment>
      %am = memref.load %sm[%i, %j] : memref<1x4096xf32, #tile.fragment>
      %sv = arith.addf %am, %v : f32
      memref.store %sv, %sm[%i, %j] : memref<1x4096xf32, #tile.fragment>
    }
    tile.reduce add %sm into %mean dim 1 : memref<1x4096xf32, #tile.fragment> into memref<1xf32, #tile.fragment>
    tile.reduce add %sq into %rstd dim 1 : memref<1x4096xf32, #tile.fragment> into memref<1xf32, #tile.fragment>
  }
  tile.parallel (%i) in [1] {
    %ss = memref.load %rstd[%i] : memref<1xf32, #tile.fragment>
    %ex2 = arith.divf %ss, %nf : f32
    %sx = memref.load %mean[%i] : memref<1xf32, #tile.fragment>
    %mu = arith.divf %sx, %nf : f32
    %mu2 = arith.mulf %mu, %mu : f32
    %var = arith.subf %ex2, %mu2 : f32
    %ve = arith.addf %var, %eps : f32
    memref.store %mu, %mean[%i] : memref<1xf32, #tile.fragment>
    %r = math.rsqrt %ve : f32
    memref.store %r, %rstd[%i] : memref<1xf32, #tile.fragment>
  }
  %resident = arith.cmpi eq, %chunks, %c1 : index
  // One chunk: the row is still in the parts (the shared ones go through
  // %t). Each part is normalized with its piece of the weight and bias
  // and written out; longer rows read each chunk again.
  tile.serial %k = %c0 to %chunks step %c1 {
    %c0k = arith.muli %k, %cchunk : index
    %o1 = affine.apply affine_map<(c) -> (c + 4096)>(%c0k)
    %o2 = affine.apply affine_map<(c) -> (c + 8192)>(%c0k)
    %o3 = affine.apply affine_map<(c) -> (c + 12288)>(%c0k)
    %o4 = affine.apply affine_map<(c) -> (c + 16384)>(%c0k)
    %o5 = affine.apply affine_map<(c) -> (c + 20480)>(%c0k)
    %o6 = affine.apply affine_map<(c) -> (c + 24576)>(%c0k)
    %o7 = affine.apply affine_map<(c) -> (c + 28672)>(%c0k)
    scf.if %resident {
    } else {
      tile.copy %X[%r0, %c0k] to %x0 : memref<?x?xf32> to memref<1x4096xf32, #tile.fragment>
    }
    tile.copy %W[%c0k] to %w : memref<?xf32> to memref<4096xf32, #tile.fragment>
    tile.copy %B[%c0k] to %b : memref<?xf32> to memref<4096xf32, #tile.fragment>
    tile.parallel (%i, %j) in [1, 4096] {
      %v = memref.load %x0[%i, %j] : memref<1x4096xf32, #tile.fragment>
      %r = memref.load %rstd[%i] : memref<1xf32, #tile.fragment>
      %wj = memref.load %w[%j] : memref<4096xf32, #tile.fragment>
      %mu = memref.load %mean[%i] : memref<1xf32, #tile.fragment>
      %bj = memref.load %b[%j] : memref<4096xf32, #tile.fragment>
      %d = arith.subf %v, %mu : f32
      %nrm = arith.mulf %d, %r : f32
      %y = math.fma %nrm, %wj, %bj : f32
      memref.store %y, %x0[%i, %j] : memref<1x4096xf32, #tile.fragment>
    }
    tile.copy %x0 to %Y[%r0, %c0k] : memref<1x4096xf32, #tile.fragment> to memref<?x?xf32>
    scf.if %resident {
    } else {
      tile.copy %X[%r0, %o1] to %x1 : memref<?x?xf32> to memref<1x4096xf32, #tile.fragment>
    }
    tile.copy %W[%o1] to %w : memref<?xf32> to memref<4096xf32, #tile.fragment>
    tile.copy %B[%o1] to %b : memref<?xf32> to memref<4096xf32, #tile.fragment>
    tile.parallel (%i, %j) in [1, 4096] {
      %v = memref.load %x1[%i, %j] : memref<1x4096xf32, #tile.fragment>
      %r = memref.load %rstd[%i] : memref<1xf32, #tile.fragment>
      %wj = memref.load %w[%j] : memref<4096xf32, #tile.fragment>
      %mu = memref.load %mean[%i] : memref<1xf32, #tile.fragment>
      %bj = memref.load %b[%j] : memref<4096xf32, #tile.fragment>
      %d = arith.subf %v, %mu : f32
      %nrm = arith.mulf %d, %r : f32
      %y = math.fma %nrm, %wj, %bj : f32
      memref.store %y, %x1[%i, %j] : memref<1x4096xf32, #tile.fragment>
    }
    tile.copy %x1 to %Y[%r0, %o1] : memref<1x4096xf32, #tile.fragment> to memref<?x?xf32>
    scf.if %resident {
    } else {
      tile.copy %X[%r0, %o2] to %x2 : memref<?x?xf32> to memref<1x4096xf32, #tile.fragment>
    }
    tile.copy %W[%o2] to %w : memref<?xf32> to memref<4096xf32, #tile.fragment>
    tile.copy %B[%o2] to %b : memref<?xf32> to memref<4096xf32, #tile.fragment>
    tile.parallel (%i, %j) in [1, 4096] {
      %v = memref.load %x2[%i, %j] : memref<1x4096xf32, #tile.fragment>
      %r = memref.load %rstd[%i] : memref<1xf32, #tile.fragment>
      %wj = memref.load %w[%j] : memref<4096xf32, #tile.fragment>
      %mu = memref.load %mean[%i] : memref<1xf32, #tile.fragment>
      %bj = memref.load %b[%j] : memref<4096xf32, #tile.fragment>
      %d = arith.subf %v, %mu : f32
      %nrm = arith.mulf %d, %r : f32
      %y = math.fma %nrm, %wj, %bj : f32
      memref.store %y, %x2[%i, %j] : memref<1x4096xf32, #tile.fragment>
    }
    tile.copy %x2 to %Y[%r0, %o2] : memref<1x4096xf32, #tile.fragment> to memref<?x?xf32>
    scf.if %resident {
      tile.copy %s0 to %t : memref<1x4096xf32, #gpu.address_space<workgroup>> to memref<1x4096xf32, #tile.fragment>
    } else {
      tile.copy %X[%r0, %o3] to %t : memref<?x?xf32> to memref<1x4096xf32, #tile.fragment>
    }
    tile.copy %W[%o3] to %w : memref<?xf32> to memref<4096xf32, #tile.fragment>
    tile.copy %B[%o3] to %b : memref<?xf32> to memref<4096xf32, #tile.fragment>
    tile.parallel (%i, %j) in [1, 4096] {
      %v = memref.load %t[%i, %j] : memref<1x4096xf32, #tile.fragment>
      %r = memref.load %rstd[%i] : memref<1xf32, #tile.fragment>
      %wj = memref.load %w[%j] : memref<4096xf32, #tile.fragment>
      %mu = memref.load %mean[%i] : memref<1xf32, #tile.fragment>
      %bj = memref.load %b[%j] : memref<4096xf32, #tile.fragment>
      %d = arith.subf %v, %mu : f32
      %nrm = arith.mulf %d, %r : f32
      %y = math.fma %nrm, %wj, %bj : f32
      memref.store %y, %t[%i, %j] : memref<1x4096xf32, #tile.fragment>
    }
    tile.copy %t to %Y[%r0, %o3] : memref<1x4096xf32, #tile.fragment> to memref<?x?xf32>
    scf.if %resident {
      tile.copy %s1 to %t : memref<1x4096xf32, #gpu.address_space<workgroup>> to memref<1x4096xf32, #tile.fragment>
    } else {
      tile.copy %X[%r0, %o4] to %t : memref<?x?xf32> to memref<1x4096xf32, #tile.fragment>
    }
    tile.copy %W[%o4] to %w : memref<?xf32> to memref<4096xf32, #tile.fragment>
    tile.copy %B[%o4] to %b : memref<?xf32> to memref<4096xf32, #tile.fragment>
    tile.parallel (%i, %j) in [1, 4096] {
      %v = memref.load %t[%i, %j] : memref<1x4096xf32, #tile.fragment>
      %r = memref.load %rstd[%i] : memref<1xf32, #tile.fragment>
      %wj = memref.load %w[%j] : memref<4096xf32, #tile.fragment>
      %mu = memref.load %mean[%i] : memref<1xf32, #tile.fragment>
      %bj = memref.load %b[%j] : memref<4096xf32, #tile.fragment>
      %d = arith.subf %v, %mu : f32
      %nrm = arith.mulf %d, %r : f32
      %y = math.fma %nrm, %wj, %bj : f32
      memref.store %y, %t[%i, %j] : memref<1x4096xf32, #tile.fragment>
    }
    tile.copy %t to %Y[%r0, %o4] : memref<1x4096xf32, #tile.fragment> to memref<?x?xf32>
    scf.if %resident {
      tile.copy %s2 to %t : memref<1x4096xf32, #gpu.address_space<workgroup>> to memref<1x4096xf32, #tile.fragment>
    } else {
      tile.copy %X[%r0, %o5] to %t : memref<?x?xf32> to memref<1x4096xf32, #tile.fragment>
    }
    tile.copy %W[%o5] to %w : memref<?xf32> to memref<4096xf32, #tile.fragment>
    tile.copy %B[%o5] to %b : memref<?xf32> to memref<4096xf32, #tile.fragment>
    tile.parallel (%i, %j) in [1, 4096] {
      %v = memref.load %t[%i, %j] : memref<1x4096xf32, #tile.fragment>
      %r = memref.load %rstd[%i] : memref<1xf32, #tile.fragment>
      %wj = memref.load %w[%j] : memref<4096xf32, #tile.fragment>
      %mu = memref.load %mean[%i] : memref<1xf32, #tile.fragment>
      %bj = memref.load %b[%j] : memref<4096xf32, #tile.fragment>
      %d = arith.subf %v, %mu : f32
      %nrm = arith.mulf %d, %r : f32
      %y = math.fma %nrm, %wj, %bj : f32
      memref.store %y, %t[%i, %j] : memref<1x4096xf32, #tile.fragment>
    }
    tile.copy %t to %Y[%r0, %o5] : memref<1x4096xf32, #tile.fragment> to memref<?x?xf32>
    scf.if %resident {
      tile.copy %s3 to %t : memref<1x4096xf32, #gpu.address_space<workgroup>> to memref<1x4096xf32, #tile.fragment>
    } else {
      tile.copy %X[%r0, %o6] to %t : memref<?x?xf32> to memref<1x4096xf32, #tile.fragment>
    }
    tile.copy %W[%o6] to %w : memref<?xf32> to memref<4096xf32, #tile.fragment>
    tile.copy %B[%o6] to %b : memref<?xf32> to memref<4096xf32, #tile.fragment>
    tile.parallel (%i, %j) in [1, 4096] {
      %v = memref.load %t[%i, %j] : memref<1x4096xf32, #tile.fragment>
      %r = memref.load %rstd[%i] : memref<1xf32, #tile.fragment>
      %wj = memref.load %w[%j] : memref<4096xf32, #tile.fragment>
      %mu = memref.load %mean[%i] : memref<1xf32, #tile.fragment>
      %bj = memref.load %b[%j] : memref<4096xf32, #tile.fragment>
      %d = arith.subf %v, %mu : f32
      %nrm = arith.mulf %d, %r : f32
      %y = math.fma %nrm, %wj, %bj : f32
      memref.store %y, %t[%i, %j] : memref<1x4096xf32, #tile.fragment>
    }
    tile.copy %t to %Y[%r0, %o6] : memref<1x4096xf32, #tile.fragment> to memref<?x?xf32>
    scf.if %resident {
      tile.copy %s4 to %t : memref<1x4096xf32, #gpu.address_space<workgroup>> to memref<1x4096xf32, #tile.fragment>
    } else {
      tile.copy %X[%r0, %o7] to %t : memref<?x?xf32> to memref<1x4096xf32, #tile.fragment>
    }
    tile.copy %W[%o7] to %w : memref<?xf32> to memref<4096xf32, #tile.fragment>
    tile.copy %B[%o7] to %b : memref<?xf32> to memref<4096xf32, #tile.fragment>
    tile.parallel (%i, %j) in [1, 4096] {
      %v = memref.load %t[%i, %j] : memref<1x4096xf32, #tile.fragment>
      %r = memref.load %rstd[%i] : memref<1xf32, #tile.fragment>
      %wj = memref.load %w[%j] : memref<4096xf32, #tile.fragment>
      %mu = memref.load %mean[%i] : memref<1xf32, #tile.fragment>
      %bj = memref.load %b[%j] : memref<4096xf32, #tile.fragment>
      %d = arith.subf %v, %mu : f32
      %nrm = arith.mulf %d, %r : f32
      %y = math.fma %nrm, %wj, %bj : f32
      memref.store %y, %t[%i, %j] : memref<1x4096xf32, #tile.fragment>
    }
    tile.copy %t to %Y[%r0, %o7] : memref<1x4096xf32, #tile.fragment> to memref<?x?xf32>
  }
} grid_size {
^bb0(%X: memref<?x?xf32>, %W: memref<?xf32>, %B: memref<?xf32>, %Y: memref<?x?xf32>):
  %c0 = arith.constant 0 : index
  %rows = memref.dim %X, %c0 : memref<?x?xf32>
  tile.yield %rows : index
}

// PTX-32K-LABEL: .entry layer_norm_resident_32k(
// PTX-32K-DAG: ld.global.v4.b32
// PTX-32K-DAG: bar.sync
// PTX-32K-DAG: st.global.v4.b32

// The reference is layer_norm.mlir's.
func.func private @layer_norm_reference(memref<?x?xf32>, memref<?xf32>, memref<?xf32>, memref<?x?xf32>)
    attributes {tile.defined_in = "layer_norm.mlir"}
