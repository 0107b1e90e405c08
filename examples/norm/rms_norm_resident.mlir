// RUN: tile-opt %s | tile-opt | FileCheck %s
// RUN: rm -f %t.*.ptx
// RUN: tile-opt %s --tile-to-ptx='ptx-output=%t.ptx' -o /dev/null
// RUN: FileCheck %s --check-prefix=PTX < %t.rms_norm_resident.ptx
// RUN: FileCheck %s --check-prefix=PTX-8K < %t.rms_norm_resident_8k.ptx
// RUN: FileCheck %s --check-prefix=PTX-16K < %t.rms_norm_resident_16k.ptx
// RUN: FileCheck %s --check-prefix=PTX-32K < %t.rms_norm_resident_32k.ptx
// RUN: %if ptxas %{ %ptxas-each %t %}
// GPU-SUITE: --kernel rms_norm_resident --shape X=1000x3000 --shape W=3000 --shape Y=1000x3000 --check
// GPU-SUITE: --kernel rms_norm_resident --shape X=300x9000 --shape W=9000 --shape Y=300x9000 --check
// GPU-SUITE: --kernel rms_norm_resident --shape X=8192x3000 --shape W=3000 --shape Y=8192x3000 --check --bench
// CPU-SUITE: --kernel rms_norm_resident --shape X=5x3000 --shape W=3000 --shape Y=5x3000 --check --race-check
// CPU-SUITE: --kernel rms_norm_resident --shape X=3x9000 --shape W=9000 --shape Y=3x9000 --check
// GPU-SUITE: --kernel rms_norm_resident_8k --shape X=300x20000 --shape W=20000 --shape Y=300x20000 --check
// GPU-SUITE: --kernel rms_norm_resident_8k --shape X=4096x8192 --shape W=8192 --shape Y=4096x8192 --check --bench
// GPU-SUITE: --kernel rms_norm_resident_16k --shape X=300x40000 --shape W=40000 --shape Y=300x40000 --check
// GPU-SUITE: --kernel rms_norm_resident_16k --shape X=2048x16384 --shape W=16384 --shape Y=2048x16384 --check --bench
// GPU-SUITE: --kernel rms_norm_resident_32k --shape X=300x70000 --shape W=70000 --shape Y=300x70000 --check
// GPU-SUITE: --kernel rms_norm_resident_32k --shape X=1024x32768 --shape W=32768 --shape Y=1024x32768 --check --bench
// CPU-SUITE: --kernel rms_norm_resident_8k --shape X=3x8000 --shape W=8000 --shape Y=3x8000 --check --race-check
// CPU-SUITE: --kernel rms_norm_resident_16k --shape X=2x20000 --shape W=20000 --shape Y=2x20000 --check --race-check
// CPU-SUITE: --kernel rms_norm_resident_32k --shape X=2x40000 --shape W=40000 --shape Y=2x40000 --check --race-check

// skip_llvm_passes = "vector-combine": without LLVM's load scalarization
// these kernels compile in 9-19% fewer instructions to PTX that runs as
// fast (docs/Pipeline.md, "Not skipped, measured").
//
// RMS norm with rows kept in registers (rms_norm.mlir's computation), as
// layer_norm_resident.mlir: one row per block of 256 threads, chunks of
// 4096 columns; a row of one chunk is read once.
// CHECK-LABEL: tile.kernel @rms_norm_resident
tile.kernel @rms_norm_resident(%X: memref<?x?xf32> {tile.multiple_of = 4},
                               %W: memref<?xf32> {tile.multiple_of = 4},
                               %Y: memref<?x?xf32> {tile.multiple_of = 4})
    grid [?] threads [256] attributes {reference = @rms_norm_reference,
                                       skip_llvm_passes = "vector-combine"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4096 = arith.constant 4096 : index
  %eps = arith.constant 1.0e-6 : f32
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
  %scale = tile.alloc_fragment : memref<1xf32, #tile.fragment>
  tile.clear %scale : memref<1xf32, #tile.fragment>

  // CHECK: tile.reduce add
  tile.serial %k = %c0 to %chunks step %c1 {
    %c0k = arith.muli %k, %c4096 : index
    tile.copy %X[%r0, %c0k] to %x : memref<?x?xf32> to memref<1x4096xf32, #tile.fragment>
    tile.parallel (%i, %j) in [1, 4096] {
      %v = memref.load %x[%i, %j] : memref<1x4096xf32, #tile.fragment>
      %v2 = arith.mulf %v, %v : f32
      memref.store %v2, %sq[%i, %j] : memref<1x4096xf32, #tile.fragment>
    }
    tile.reduce add %sq into %scale dim 1 : memref<1x4096xf32, #tile.fragment> into memref<1xf32, #tile.fragment>
  }
  // The sum of squares becomes 1 / sqrt(mean + eps).
  tile.parallel (%i) in [1] {
    %s = memref.load %scale[%i] : memref<1xf32, #tile.fragment>
    %ms = arith.divf %s, %nf : f32
    %me = arith.addf %ms, %eps : f32
    %r = math.rsqrt %me : f32
    memref.store %r, %scale[%i] : memref<1xf32, #tile.fragment>
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
    tile.parallel (%i, %j) in [1, 4096] {
      %v = memref.load %x[%i, %j] : memref<1x4096xf32, #tile.fragment>
      %r = memref.load %scale[%i] : memref<1xf32, #tile.fragment>
      %wj = memref.load %w[%j] : memref<4096xf32, #tile.fragment>
      %nrm = arith.mulf %v, %r : f32
      %y = arith.mulf %nrm, %wj : f32
      memref.store %y, %x[%i, %j] : memref<1x4096xf32, #tile.fragment>
    }
    tile.copy %x to %Y[%r0, %c0k] : memref<1x4096xf32, #tile.fragment> to memref<?x?xf32>
  }
} grid_size {
^bb0(%X: memref<?x?xf32>, %W: memref<?xf32>, %Y: memref<?x?xf32>):
  %c0 = arith.constant 0 : index
  %rows = memref.dim %X, %c0 : memref<?x?xf32>
  tile.yield %rows : index
}

// PTX-LABEL: .entry rms_norm_resident(
// PTX-DAG: ld.global.v4.b32
// PTX-DAG: bar.sync
// PTX-DAG: st.global.v4.b32

// The same kernel for longer rows, one chunk of 8192 columns over 512
// threads (16 registers each, as above): rows of up to 8192 columns are
// read once, with two or three blocks on an SM (by their registers).
// CHECK-LABEL: tile.kernel @rms_norm_resident_8k
tile.kernel @rms_norm_resident_8k(%X: memref<?x?xf32> {tile.multiple_of = 4},
                                  %W: memref<?xf32> {tile.multiple_of = 4},
                                  %Y: memref<?x?xf32> {tile.multiple_of = 4})
    grid [?] threads [512] attributes {reference = @rms_norm_reference,
                                       skip_llvm_passes = "vector-combine"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8192 = arith.constant 8192 : index
  %eps = arith.constant 1.0e-6 : f32
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
  %scale = tile.alloc_fragment : memref<1xf32, #tile.fragment>
  tile.clear %scale : memref<1xf32, #tile.fragment>

  // CHECK: tile.reduce add
  tile.serial %k = %c0 to %chunks step %c1 {
    %c0k = arith.muli %k, %c8192 : index
    tile.copy %X[%r0, %c0k] to %x : memref<?x?xf32> to memref<1x8192xf32, #tile.fragment>
    tile.parallel (%i, %j) in [1, 8192] {
      %v = memref.load %x[%i, %j] : memref<1x8192xf32, #tile.fragment>
      %v2 = arith.mulf %v, %v : f32
      memref.store %v2, %sq[%i, %j] : memref<1x8192xf32, #tile.fragment>
    }
    tile.reduce add %sq into %scale dim 1 : memref<1x8192xf32, #tile.fragment> into memref<1xf32, #tile.fragment>
  }
  // The sum of squares becomes 1 / sqrt(mean + eps).
  tile.parallel (%i) in [1] {
    %s = memref.load %scale[%i] : memref<1xf32, #tile.fragment>
    %ms = arith.divf %s, %nf : f32
    %me = arith.addf %ms, %eps : f32
    %r = math.rsqrt %me : f32
    memref.store %r, %scale[%i] : memref<1xf32, #tile.fragment>
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
    tile.parallel (%i, %j) in [1, 8192] {
      %v = memref.load %x[%i, %j] : memref<1x8192xf32, #tile.fragment>
      %r = memref.load %scale[%i] : memref<1xf32, #tile.fragment>
      %wj = memref.load %w[%j] : memref<8192xf32, #tile.fragment>
      %nrm = arith.mulf %v, %r : f32
      %y = arith.mulf %nrm, %wj : f32
      memref.store %y, %x[%i, %j] : memref<1x8192xf32, #tile.fragment>
    }
    tile.copy %x to %Y[%r0, %c0k] : memref<1x8192xf32, #tile.fragment> to memref<?x?xf32>
  }
} grid_size {
^bb0(%X: memref<?x?xf32>, %W: memref<?xf32>, %Y: memref<?x?xf32>):
  %c0 = arith.constant 0 : index
  %rows = memref.dim %X, %c0 : memref<?x?xf32>
  tile.yield %rows : index
}

// PTX-8K-LABEL: .entry rms_norm_resident_8k(
// PTX-8K-DAG: ld.global.v4.b32
// PTX-8K-DAG: bar.sync
// PTX-8K-DAG: st.global.v4.b32

// And rows of up to 16384 columns read once over 512 threads, in two
// fragments of 8192 columns (the _32k kernel's one block on an SM cannot
// overlap a row's reduction and stores with another row's loads).
// CHECK-LABEL: tile.kernel @rms_norm_resident_16k
tile.kernel @rms_norm_resident_16k(%X: memref<?x?xf32> {tile.multiple_of = 4},
    %W: memref<?xf32> {tile.multiple_of = 4},
    %Y: memref<?x?xf32> {tile.multiple_of = 4})
    grid [?] threads [512] attributes {reference = @rms_norm_reference,
                                       skip_llvm_passes = "vector-combine",
                                       min_blocks_per_sm = 2} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16384 = arith.constant 16384 : index
  %eps = arith.constant 1.0e-6 : f32
  %r0 = tile.block_id x
  %n = memref.dim %X, %c1 : memref<?x?xf32>
  %n_i64 = arith.index_cast %n : index to i64
  %nf = arith.uitofp %n_i64 : i64 to f32
  %chunks = arith.ceildivui %n, %c16384 : index
  // The row as 2 fragments of 8192 columns (16 registers each;
  // in part p, thread t holds columns 8192 p + 2048 q + 4 t .. + 3),
  // so that a part's weight fits beside the row: 64
  // registers a thread, two blocks on an SM.
  %x0 = tile.alloc_fragment {layout = #tile.layout<shape = [1, 8192], threads = 512, registers = 16, map = (d0, d1) -> (0, (d1 floordiv 4) * 2048 + d0 * 4 + d1 mod 4)>} : memref<1x8192xf32, #tile.fragment>
  %x1 = tile.alloc_fragment {layout = #tile.layout<shape = [1, 8192], threads = 512, registers = 16, map = (d0, d1) -> (0, (d1 floordiv 4) * 2048 + d0 * 4 + d1 mod 4)>} : memref<1x8192xf32, #tile.fragment>
  %sq = tile.alloc_fragment : memref<1x8192xf32, #tile.fragment>
  %w = tile.alloc_fragment : memref<8192xf32, #tile.fragment>
  %rstd = tile.alloc_fragment : memref<1xf32, #tile.fragment>
  tile.clear %rstd : memref<1xf32, #tile.fragment>
  tile.serial %k = %c0 to %chunks step %c1 {
    %c0k = arith.muli %k, %c16384 : index
    tile.copy %X[%r0, %c0k] to %x0 : memref<?x?xf32> to memref<1x8192xf32, #tile.fragment>
    %c1k = affine.apply affine_map<(c) -> (c + 8192)>(%c0k)
    tile.copy %X[%r0, %c1k] to %x1 : memref<?x?xf32> to memref<1x8192xf32, #tile.fragment>
    // The parts summed elementwise first: one reduction per statistic.
    tile.parallel (%i, %j) in [1, 8192] {
      %v0 = memref.load %x0[%i, %j] : memref<1x8192xf32, #tile.fragment>
      %q0 = arith.mulf %v0, %v0 : f32
      %v1 = memref.load %x1[%i, %j] : memref<1x8192xf32, #tile.fragment>
      %q1 = arith.mulf %v1, %v1 : f32
      %t1 = arith.addf %q0, %q1 : f32
      memref.store %t1, %sq[%i, %j] : memref<1x8192xf32, #tile.fragment>
    }
    tile.reduce add %sq into %rstd dim 1 : memref<1x8192xf32, #tile.fragment> into memref<1xf32, #tile.fragment>
  }
  tile.parallel (%i) in [1] {
    %s2 = memref.load %rstd[%i] : memref<1xf32, #tile.fragment>
    %ex2 = arith.divf %s2, %nf : f32
    %ve = arith.addf %ex2, %eps : f32
    %r = math.rsqrt %ve : f32
    memref.store %r, %rstd[%i] : memref<1xf32, #tile.fragment>
  }
  %resident = arith.cmpi eq, %chunks, %c1 : index
  // One chunk: the parts still hold the row. Each part is normalized
  // with its piece of the weight and written out.
  tile.serial %k = %c0 to %chunks step %c1 {
    %c0k = arith.muli %k, %c16384 : index
    scf.if %resident {
    } else {
      tile.copy %X[%r0, %c0k] to %x0 : memref<?x?xf32> to memref<1x8192xf32, #tile.fragment>
    }
    tile.copy %W[%c0k] to %w : memref<?xf32> to memref<8192xf32, #tile.fragment>
    tile.parallel (%i, %j) in [1, 8192] {
      %v = memref.load %x0[%i, %j] : memref<1x8192xf32, #tile.fragment>
      %r = memref.load %rstd[%i] : memref<1xf32, #tile.fragment>
      %wj = memref.load %w[%j] : memref<8192xf32, #tile.fragment>
      %nrm = arith.mulf %v, %r : f32
      %y = arith.mulf %nrm, %wj : f32
      memref.store %y, %x0[%i, %j] : memref<1x8192xf32, #tile.fragment>
    }
    tile.copy %x0 to %Y[%r0, %c0k] : memref<1x8192xf32, #tile.fragment> to memref<?x?xf32>
    %c1k = affine.apply affine_map<(c) -> (c + 8192)>(%c0k)
    scf.if %resident {
    } else {
      tile.copy %X[%r0, %c1k] to %x1 : memref<?x?xf32> to memref<1x8192xf32, #tile.fragment>
    }
    tile.copy %W[%c1k] to %w : memref<?xf32> to memref<8192xf32, #tile.fragment>
    tile.parallel (%i, %j) in [1, 8192] {
      %v = memref.load %x1[%i, %j] : memref<1x8192xf32, #tile.fragment>
      %r = memref.load %rstd[%i] : memref<1xf32, #tile.fragment>
      %wj = memref.load %w[%j] : memref<8192xf32, #tile.fragment>
      %nrm = arith.mulf %v, %r : f32
      %y = arith.mulf %nrm, %wj : f32
      memref.store %y, %x1[%i, %j] : memref<1x8192xf32, #tile.fragment>
    }
    tile.copy %x1 to %Y[%r0, %c1k] : memref<1x8192xf32, #tile.fragment> to memref<?x?xf32>
  }
} grid_size {
^bb0(%X: memref<?x?xf32>, %W: memref<?xf32>, %Y: memref<?x?xf32>):
  %c0 = arith.constant 0 : index
  %rows = memref.dim %X, %c0 : memref<?x?xf32>
  tile.yield %rows : index
}

// PTX-16K-LABEL: .entry rms_norm_resident_16k(
// PTX-16K-DAG: ld.global.v4.b32
// PTX-16K-DAG: bar.sync
// PTX-16K-DAG: st.global.v4.b32

// And one chunk of 32768 columns over 1024 threads (32 registers each):
// rows of up to 32768 columns read once, one block on an SM.
// CHECK-LABEL: tile.kernel @rms_norm_resident_32k
tile.kernel @rms_norm_resident_32k(%X: memref<?x?xf32> {tile.multiple_of = 4},
                                   %W: memref<?xf32> {tile.multiple_of = 4},
                                   %Y: memref<?x?xf32> {tile.multiple_of = 4})
    grid [?] threads [1024] attributes {reference = @rms_norm_reference,
                                        skip_llvm_passes = "vector-combine"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32768 = arith.constant 32768 : index
  %eps = arith.constant 1.0e-6 : f32
  %r0 = tile.block_id x
  %n = memref.dim %X, %c1 : memref<?x?xf32>
  %n_i64 = arith.index_cast %n : index to i64
  %nf = arith.uitofp %n_i64 : i64 to f32
  %chunks = arith.ceildivui %n, %c32768 : index
  // Thread t holds columns 4096 q + 4 t .. 4096 q + 4 t + 3 in registers
  // 4 q .. 4 q + 3.
  %x = tile.alloc_fragment {layout = #tile.layout<shape = [1, 32768], threads = 1024, registers = 32, map = (d0, d1) -> (0, (d1 floordiv 4) * 4096 + d0 * 4 + d1 mod 4)>} : memref<1x32768xf32, #tile.fragment>
  %sq = tile.alloc_fragment : memref<1x32768xf32, #tile.fragment>
  %w = tile.alloc_fragment : memref<32768xf32, #tile.fragment>
  %scale = tile.alloc_fragment : memref<1xf32, #tile.fragment>
  tile.clear %scale : memref<1xf32, #tile.fragment>

  // CHECK: tile.reduce add
  tile.serial %k = %c0 to %chunks step %c1 {
    %c0k = arith.muli %k, %c32768 : index
    tile.copy %X[%r0, %c0k] to %x : memref<?x?xf32> to memref<1x32768xf32, #tile.fragment>
    tile.parallel (%i, %j) in [1, 32768] {
      %v = memref.load %x[%i, %j] : memref<1x32768xf32, #tile.fragment>
      %v2 = arith.mulf %v, %v : f32
      memref.store %v2, %sq[%i, %j] : memref<1x32768xf32, #tile.fragment>
    }
    tile.reduce add %sq into %scale dim 1 : memref<1x32768xf32, #tile.fragment> into memref<1xf32, #tile.fragment>
  }
  // The sum of squares becomes 1 / sqrt(mean + eps).
  tile.parallel (%i) in [1] {
    %s = memref.load %scale[%i] : memref<1xf32, #tile.fragment>
    %ms = arith.divf %s, %nf : f32
    %me = arith.addf %ms, %eps : f32
    %r = math.rsqrt %me : f32
    memref.store %r, %scale[%i] : memref<1xf32, #tile.fragment>
  }
  %resident = arith.cmpi eq, %chunks, %c1 : index
  tile.serial %k = %c0 to %chunks step %c1 {
    %c0k = arith.muli %k, %c32768 : index
    // One chunk: %x still holds the row.
    scf.if %resident {
    } else {
      tile.copy %X[%r0, %c0k] to %x : memref<?x?xf32> to memref<1x32768xf32, #tile.fragment>
    }
    tile.copy %W[%c0k] to %w : memref<?xf32> to memref<32768xf32, #tile.fragment>
    tile.parallel (%i, %j) in [1, 32768] {
      %v = memref.load %x[%i, %j] : memref<1x32768xf32, #tile.fragment>
      %r = memref.load %scale[%i] : memref<1xf32, #tile.fragment>
      %wj = memref.load %w[%j] : memref<32768xf32, #tile.fragment>
      %nrm = arith.mulf %v, %r : f32
      %y = arith.mulf %nrm, %wj : f32
      memref.store %y, %x[%i, %j] : memref<1x32768xf32, #tile.fragment>
    }
    tile.copy %x to %Y[%r0, %c0k] : memref<1x32768xf32, #tile.fragment> to memref<?x?xf32>
  }
} grid_size {
^bb0(%X: memref<?x?xf32>, %W: memref<?xf32>, %Y: memref<?x?xf32>):
  %c0 = arith.constant 0 : index
  %rows = memref.dim %X, %c0 : memref<?x?xf32>
  tile.yield %rows : index
}

// PTX-32K-LABEL: .entry rms_norm_resident_32k(
// PTX-32K-DAG: ld.global.v4.b32
// PTX-32K-DAG: bar.sync
// PTX-32K-DAG: st.global.v4.b32

// The reference is rms_norm.mlir's.
func.func private @rms_norm_reference(memref<?x?xf32>, memref<?xf32>, memref<?x?xf32>)
    attributes {tile.defined_in = "rms_norm.mlir"}
