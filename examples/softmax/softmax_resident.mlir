// RUN: tile-opt %s | tile-opt | FileCheck %s
// RUN: rm -f %t.*.ptx
// RUN: tile-opt %s --tile-to-ptx='ptx-output=%t.ptx' -o /dev/null
// RUN: FileCheck %s --check-prefix=PTX-RESIDENT < %t.softmax_resident.ptx
// RUN: FileCheck %s --check-prefix=PTX-8K < %t.softmax_resident_8k.ptx
// RUN: FileCheck %s --check-prefix=PTX-16K < %t.softmax_resident_16k.ptx
// RUN: FileCheck %s --check-prefix=PTX-32K < %t.softmax_resident_32k.ptx
// RUN: %if ptxas %{ %ptxas-each %t %}
// GPU-SUITE: --kernel softmax_resident --shape X=1000x3000 --shape Y=1000x3000 --check
// GPU-SUITE: --kernel softmax_resident --shape X=300x9000 --shape Y=300x9000 --check
// GPU-SUITE: --kernel softmax_resident --shape X=8192x3000 --shape Y=8192x3000 --check --bench
// CPU-SUITE: --kernel softmax_resident --shape X=5x3000 --shape Y=5x3000 --check --race-check
// CPU-SUITE: --kernel softmax_resident --shape X=3x9000 --shape Y=3x9000 --check --race-check
// GPU-SUITE: --kernel softmax_resident_8k --shape X=300x20000 --shape Y=300x20000 --check
// GPU-SUITE: --kernel softmax_resident_8k --shape X=4096x8192 --shape Y=4096x8192 --check --bench
// GPU-SUITE: --kernel softmax_resident_16k --shape X=300x40000 --shape Y=300x40000 --check
// GPU-SUITE: --kernel softmax_resident_16k --shape X=2048x16384 --shape Y=2048x16384 --check --bench
// GPU-SUITE: --kernel softmax_resident_32k --shape X=300x70000 --shape Y=300x70000 --check
// GPU-SUITE: --kernel softmax_resident_32k --shape X=1024x32768 --shape Y=1024x32768 --check --bench
// CPU-SUITE: --kernel softmax_resident_8k --shape X=3x8000 --shape Y=3x8000 --check --race-check
// CPU-SUITE: --kernel softmax_resident_16k --shape X=2x20000 --shape Y=2x20000 --check --race-check
// CPU-SUITE: --kernel softmax_resident_32k --shape X=2x40000 --shape Y=2x40000 --check --race-check

// skip_llvm_passes = "vector-combine": without LLVM's load scalarization
// these kernels compile in 9-19% fewer instructions to PTX that runs as
// fast (docs/Pipeline.md, "Not skipped, measured").
//
// Rows kept in registers: one row per block of 256 threads, streamed in
// chunks of 4096 columns (16 per thread, 16-byte loads). When the row fits
// in one chunk (up to 4096 columns: the 3000 of a short row) the second
// pass scales the registers pass 1 left, so the row is read once, as a
// copy reads it; longer rows read each chunk again, as @softmax does.
// CHECK-LABEL: tile.kernel @softmax_resident
tile.kernel @softmax_resident(%X: memref<?x?xf32> {tile.multiple_of = 4},
                              %Y: memref<?x?xf32> {tile.multiple_of = 4})
    grid [?] threads [256] attributes {reference = @softmax_reference,
                                       skip_llvm_passes = "vector-combine"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4096 = arith.constant 4096 : index
  %one = arith.constant 1.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %r0 = tile.block_id x
  %n = memref.dim %X, %c1 : memref<?x?xf32>
  %chunks = arith.ceildivui %n, %c4096 : index
  // Thread t holds columns 1024 q + 4 t .. 1024 q + 4 t + 3 in registers
  // 4 q .. 4 q + 3.
  %x = tile.alloc_fragment {layout = #tile.layout<shape = [1, 4096], threads = 256, registers = 16, map = (d0, d1) -> (0, (d1 floordiv 4) * 1024 + d0 * 4 + d1 mod 4)>} : memref<1x4096xf32, #tile.fragment>
  %cmax = tile.alloc_fragment : memref<1xf32, #tile.fragment>
  %m = tile.alloc_fragment : memref<1xf32, #tile.fragment>
  %l = tile.alloc_fragment : memref<1xf32, #tile.fragment>
  tile.fill %m, %ninf : memref<1xf32, #tile.fragment>
  tile.clear %l : memref<1xf32, #tile.fragment>

  tile.serial %k = %c0 to %chunks step %c1 {
    %c0k = arith.muli %k, %c4096 : index
    tile.copy %X[%r0, %c0k] to %x : memref<?x?xf32> to memref<1x4096xf32, #tile.fragment>
    tile.parallel (%i, %j) in [1, 4096] {
      %v = memref.load %x[%i, %j] : memref<1x4096xf32, #tile.fragment>
      %col = arith.addi %c0k, %j : index
      %inside = arith.cmpi ult, %col, %n : index
      %masked = arith.select %inside, %v, %ninf : f32
      memref.store %masked, %x[%i, %j] : memref<1x4096xf32, #tile.fragment>
    }
    tile.reduce max %x into %cmax dim 1 clear : memref<1x4096xf32, #tile.fragment> into memref<1xf32, #tile.fragment>
    tile.parallel (%i) in [1] {
      %mi = memref.load %m[%i] : memref<1xf32, #tile.fragment>
      %ci = memref.load %cmax[%i] : memref<1xf32, #tile.fragment>
      %li = memref.load %l[%i] : memref<1xf32, #tile.fragment>
      %mnew = arith.maximumf %mi, %ci : f32
      %delta = arith.subf %mi, %mnew : f32
      %alpha = math.exp %delta : f32
      %lscaled = arith.mulf %li, %alpha : f32
      memref.store %lscaled, %l[%i] : memref<1xf32, #tile.fragment>
      memref.store %mnew, %m[%i] : memref<1xf32, #tile.fragment>
    }
    tile.parallel (%i, %j) in [1, 4096] {
      %v = memref.load %x[%i, %j] : memref<1x4096xf32, #tile.fragment>
      %mi = memref.load %m[%i] : memref<1xf32, #tile.fragment>
      %d = arith.subf %v, %mi : f32
      %e = math.exp %d : f32
      memref.store %e, %x[%i, %j] : memref<1x4096xf32, #tile.fragment>
    }
    tile.reduce add %x into %l dim 1 : memref<1x4096xf32, #tile.fragment> into memref<1xf32, #tile.fragment>
  }

  tile.parallel (%i) in [1] {
    %li = memref.load %l[%i] : memref<1xf32, #tile.fragment>
    %r = arith.divf %one, %li : f32
    memref.store %r, %l[%i] : memref<1xf32, #tile.fragment>
  }
  %resident = arith.cmpi eq, %chunks, %c1 : index
  scf.if %resident {
    // One chunk: %x holds exp(x - m) with the row's final maximum.
    tile.parallel (%i, %j) in [1, 4096] {
      %e = memref.load %x[%i, %j] : memref<1x4096xf32, #tile.fragment>
      %ri = memref.load %l[%i] : memref<1xf32, #tile.fragment>
      %y = arith.mulf %e, %ri : f32
      memref.store %y, %x[%i, %j] : memref<1x4096xf32, #tile.fragment>
    }
    tile.copy %x to %Y[%r0, %c0] : memref<1x4096xf32, #tile.fragment> to memref<?x?xf32>
  } else {
    tile.serial %k = %c0 to %chunks step %c1 {
      %c0k = arith.muli %k, %c4096 : index
      tile.copy %X[%r0, %c0k] to %x : memref<?x?xf32> to memref<1x4096xf32, #tile.fragment>
      tile.parallel (%i, %j) in [1, 4096] {
        %v = memref.load %x[%i, %j] : memref<1x4096xf32, #tile.fragment>
        %mi = memref.load %m[%i] : memref<1xf32, #tile.fragment>
        %ri = memref.load %l[%i] : memref<1xf32, #tile.fragment>
        %d = arith.subf %v, %mi : f32
        %e = math.exp %d : f32
        %y = arith.mulf %e, %ri : f32
        memref.store %y, %x[%i, %j] : memref<1x4096xf32, #tile.fragment>
      }
      tile.copy %x to %Y[%r0, %c0k] : memref<1x4096xf32, #tile.fragment> to memref<?x?xf32>
    }
  }
} grid_size {
^bb0(%X: memref<?x?xf32>, %Y: memref<?x?xf32>):
  %c0 = arith.constant 0 : index
  %rows = memref.dim %X, %c0 : memref<?x?xf32>
  tile.yield %rows : index
}

// PTX-RESIDENT-LABEL: .entry softmax_resident(
// PTX-RESIDENT-DAG: ld.global.v4.b32
// PTX-RESIDENT-DAG: bar.sync
// PTX-RESIDENT-DAG: st.global.v4.b32

// The same kernel for longer rows, one chunk of 8192 columns over 512
// threads (16 registers each, as above): rows of up to 8192 columns are
// read once, with two or three blocks on an SM (by their registers).
// CHECK-LABEL: tile.kernel @softmax_resident_8k
tile.kernel @softmax_resident_8k(%X: memref<?x?xf32> {tile.multiple_of = 4},
                                 %Y: memref<?x?xf32> {tile.multiple_of = 4})
    grid [?] threads [512] attributes {reference = @softmax_reference,
                                       skip_llvm_passes = "vector-combine"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8192 = arith.constant 8192 : index
  %one = arith.constant 1.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %r0 = tile.block_id x
  %n = memref.dim %X, %c1 : memref<?x?xf32>
  %chunks = arith.ceildivui %n, %c8192 : index
  // Thread t holds columns 2048 q + 4 t .. 2048 q + 4 t + 3 in registers
  // 4 q .. 4 q + 3.
  %x = tile.alloc_fragment {layout = #tile.layout<shape = [1, 8192], threads = 512, registers = 16, map = (d0, d1) -> (0, (d1 floordiv 4) * 2048 + d0 * 4 + d1 mod 4)>} : memref<1x8192xf32, #tile.fragment>
  %cmax = tile.alloc_fragment : memref<1xf32, #tile.fragment>
  %m = tile.alloc_fragment : memref<1xf32, #tile.fragment>
  %l = tile.alloc_fragment : memref<1xf32, #tile.fragment>
  tile.fill %m, %ninf : memref<1xf32, #tile.fragment>
  tile.clear %l : memref<1xf32, #tile.fragment>

  tile.serial %k = %c0 to %chunks step %c1 {
    %c0k = arith.muli %k, %c8192 : index
    tile.copy %X[%r0, %c0k] to %x : memref<?x?xf32> to memref<1x8192xf32, #tile.fragment>
    tile.parallel (%i, %j) in [1, 8192] {
      %v = memref.load %x[%i, %j] : memref<1x8192xf32, #tile.fragment>
      %col = arith.addi %c0k, %j : index
      %inside = arith.cmpi ult, %col, %n : index
      %masked = arith.select %inside, %v, %ninf : f32
      memref.store %masked, %x[%i, %j] : memref<1x8192xf32, #tile.fragment>
    }
    tile.reduce max %x into %cmax dim 1 clear : memref<1x8192xf32, #tile.fragment> into memref<1xf32, #tile.fragment>
    tile.parallel (%i) in [1] {
      %mi = memref.load %m[%i] : memref<1xf32, #tile.fragment>
      %ci = memref.load %cmax[%i] : memref<1xf32, #tile.fragment>
      %li = memref.load %l[%i] : memref<1xf32, #tile.fragment>
      %mnew = arith.maximumf %mi, %ci : f32
      %delta = arith.subf %mi, %mnew : f32
      %alpha = math.exp %delta : f32
      %lscaled = arith.mulf %li, %alpha : f32
      memref.store %lscaled, %l[%i] : memref<1xf32, #tile.fragment>
      memref.store %mnew, %m[%i] : memref<1xf32, #tile.fragment>
    }
    tile.parallel (%i, %j) in [1, 8192] {
      %v = memref.load %x[%i, %j] : memref<1x8192xf32, #tile.fragment>
      %mi = memref.load %m[%i] : memref<1xf32, #tile.fragment>
      %d = arith.subf %v, %mi : f32
      %e = math.exp %d : f32
      memref.store %e, %x[%i, %j] : memref<1x8192xf32, #tile.fragment>
    }
    tile.reduce add %x into %l dim 1 : memref<1x8192xf32, #tile.fragment> into memref<1xf32, #tile.fragment>
  }

  tile.parallel (%i) in [1] {
    %li = memref.load %l[%i] : memref<1xf32, #tile.fragment>
    %r = arith.divf %one, %li : f32
    memref.store %r, %l[%i] : memref<1xf32, #tile.fragment>
  }
  %resident = arith.cmpi eq, %chunks, %c1 : index
  scf.if %resident {
    // One chunk: %x holds exp(x - m) with the row's final maximum.
    tile.parallel (%i, %j) in [1, 8192] {
      %e = memref.load %x[%i, %j] : memref<1x8192xf32, #tile.fragment>
      %ri = memref.load %l[%i] : memref<1xf32, #tile.fragment>
      %y = arith.mulf %e, %ri : f32
      memref.store %y, %x[%i, %j] : memref<1x8192xf32, #tile.fragment>
    }
    tile.copy %x to %Y[%r0, %c0] : memref<1x8192xf32, #tile.fragment> to memref<?x?xf32>
  } else {
    tile.serial %k = %c0 to %chunks step %c1 {
      %c0k = arith.muli %k, %c8192 : index
      tile.copy %X[%r0, %c0k] to %x : memref<?x?xf32> to memref<1x8192xf32, #tile.fragment>
      tile.parallel (%i, %j) in [1, 8192] {
        %v = memref.load %x[%i, %j] : memref<1x8192xf32, #tile.fragment>
        %mi = memref.load %m[%i] : memref<1xf32, #tile.fragment>
        %ri = memref.load %l[%i] : memref<1xf32, #tile.fragment>
        %d = arith.subf %v, %mi : f32
        %e = math.exp %d : f32
        %y = arith.mulf %e, %ri : f32
        memref.store %y, %x[%i, %j] : memref<1x8192xf32, #tile.fragment>
      }
      tile.copy %x to %Y[%r0, %c0k] : memref<1x8192xf32, #tile.fragment> to memref<?x?xf32>
    }
  }
} grid_size {
^bb0(%X: memref<?x?xf32>, %Y: memref<?x?xf32>):
  %c0 = arith.constant 0 : index
  %rows = memref.dim %X, %c0 : memref<?x?xf32>
  tile.yield %rows : index
}

// PTX-8K-LABEL: .entry softmax_resident_8k(
// PTX-8K-DAG: ld.global.v4.b32
// PTX-8K-DAG: bar.sync
// PTX-8K-DAG: st.global.v4.b32

// And one chunk of 16384 columns over 512 threads (32 registers each):
// rows of up to 16384 columns read once, with two blocks on an SM (63
// registers; the _32k kernel's one block cannot overlap a row's reductions
// and stores with another row's loads).
// CHECK-LABEL: tile.kernel @softmax_resident_16k
tile.kernel @softmax_resident_16k(%X: memref<?x?xf32> {tile.multiple_of = 4},
                                  %Y: memref<?x?xf32> {tile.multiple_of = 4})
    grid [?] threads [512] attributes {reference = @softmax_reference,
                                       skip_llvm_passes = "vector-combine"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16384 = arith.constant 16384 : index
  %one = arith.constant 1.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %r0 = tile.block_id x
  %n = memref.dim %X, %c1 : memref<?x?xf32>
  %chunks = arith.ceildivui %n, %c16384 : index
  // Thread t holds columns 2048 q + 4 t .. 2048 q + 4 t + 3 in registers
  // 4 q .. 4 q + 3.
  %x = tile.alloc_fragment {layout = #tile.layout<shape = [1, 16384], threads = 512, registers = 32, map = (d0, d1) -> (0, (d1 floordiv 4) * 2048 + d0 * 4 + d1 mod 4)>} : memref<1x16384xf32, #tile.fragment>
  %cmax = tile.alloc_fragment : memref<1xf32, #tile.fragment>
  %m = tile.alloc_fragment : memref<1xf32, #tile.fragment>
  %l = tile.alloc_fragment : memref<1xf32, #tile.fragment>
  tile.fill %m, %ninf : memref<1xf32, #tile.fragment>
  tile.clear %l : memref<1xf32, #tile.fragment>

  tile.serial %k = %c0 to %chunks step %c1 {
    %c0k = arith.muli %k, %c16384 : index
    tile.copy %X[%r0, %c0k] to %x : memref<?x?xf32> to memref<1x16384xf32, #tile.fragment>
    tile.parallel (%i, %j) in [1, 16384] {
      %v = memref.load %x[%i, %j] : memref<1x16384xf32, #tile.fragment>
      %col = arith.addi %c0k, %j : index
      %inside = arith.cmpi ult, %col, %n : index
      %masked = arith.select %inside, %v, %ninf : f32
      memref.store %masked, %x[%i, %j] : memref<1x16384xf32, #tile.fragment>
    }
    tile.reduce max %x into %cmax dim 1 clear : memref<1x16384xf32, #tile.fragment> into memref<1xf32, #tile.fragment>
    tile.parallel (%i) in [1] {
      %mi = memref.load %m[%i] : memref<1xf32, #tile.fragment>
      %ci = memref.load %cmax[%i] : memref<1xf32, #tile.fragment>
      %li = memref.load %l[%i] : memref<1xf32, #tile.fragment>
      %mnew = arith.maximumf %mi, %ci : f32
      %delta = arith.subf %mi, %mnew : f32
      %alpha = math.exp %delta : f32
      %lscaled = arith.mulf %li, %alpha : f32
      memref.store %lscaled, %l[%i] : memref<1xf32, #tile.fragment>
      memref.store %mnew, %m[%i] : memref<1xf32, #tile.fragment>
    }
    tile.parallel (%i, %j) in [1, 16384] {
      %v = memref.load %x[%i, %j] : memref<1x16384xf32, #tile.fragment>
      %mi = memref.load %m[%i] : memref<1xf32, #tile.fragment>
      %d = arith.subf %v, %mi : f32
      %e = math.exp %d : f32
      memref.store %e, %x[%i, %j] : memref<1x16384xf32, #tile.fragment>
    }
    tile.reduce add %x into %l dim 1 : memref<1x16384xf32, #tile.fragment> into memref<1xf32, #tile.fragment>
  }

  tile.parallel (%i) in [1] {
    %li = memref.load %l[%i] : memref<1xf32, #tile.fragment>
    %r = arith.divf %one, %li : f32
    memref.store %r, %l[%i] : memref<1xf32, #tile.fragment>
  }
  %resident = arith.cmpi eq, %chunks, %c1 : index
  scf.if %resident {
    // One chunk: %x holds exp(x - m) with the row's final maximum.
    tile.parallel (%i, %j) in [1, 16384] {
      %e = memref.load %x[%i, %j] : memref<1x16384xf32, #tile.fragment>
      %ri = memref.load %l[%i] : memref<1xf32, #tile.fragment>
      %y = arith.mulf %e, %ri : f32
      memref.store %y, %x[%i, %j] : memref<1x16384xf32, #tile.fragment>
    }
    tile.copy %x to %Y[%r0, %c0] : memref<1x16384xf32, #tile.fragment> to memref<?x?xf32>
  } else {
    tile.serial %k = %c0 to %chunks step %c1 {
      %c0k = arith.muli %k, %c16384 : index
      tile.copy %X[%r0, %c0k] to %x : memref<?x?xf32> to memref<1x16384xf32, #tile.fragment>
      tile.parallel (%i, %j) in [1, 16384] {
        %v = memref.load %x[%i, %j] : memref<1x16384xf32, #tile.fragment>
        %mi = memref.load %m[%i] : memref<1xf32, #tile.fragment>
        %ri = memref.load %l[%i] : memref<1xf32, #tile.fragment>
        %d = arith.subf %v, %mi : f32
        %e = math.exp %d : f32
        %y = arith.mulf %e, %ri : f32
        memref.store %y, %x[%i, %j] : memref<1x16384xf32, #tile.fragment>
      }
      tile.copy %x to %Y[%r0, %c0k] : memref<1x16384xf32, #tile.fragment> to memref<?x?xf32>
    }
  }
} grid_size {
^bb0(%X: memref<?x?xf32>, %Y: memref<?x?xf32>):
  %c0 = arith.constant 0 : index
  %rows = memref.dim %X, %c0 : memref<?x?xf32>
  tile.yield %rows : index
}

// PTX-16K-LABEL: .entry softmax_resident_16k(
// PTX-16K-DAG: ld.global.v4.b32
// PTX-16K-DAG: bar.sync
// PTX-16K-DAG: st.global.v4.b32

// And one chunk of 32768 columns over 512 threads, half of it in registers
// (four fragments of 4096 columns, 8 registers each) and half in shared
// memory (four tiles of 4096 columns, 64 KB), so that two blocks share an
// SM: rows of up to 32768 columns read once. The maxima and sums of the
// eight parts are combined elementwise into %acc first, so that each is one
// tile.reduce; a shared part is worked on through the fragment %t.
// CHECK-LABEL: tile.kernel @softmax_resident_32k
// skip_llvm_passes: LLVM passes and runs (`gvn#2`: the NVPTX backend's
// first GVN) that leave this kernel's PTX byte-identical beside vector-combine (above), 7%
// of its compile (docs/Pipeline.md, "Per-kernel skip lists").
tile.kernel @softmax_resident_32k(%X: memref<?x?xf32> {tile.multiple_of = 4},
    %Y: memref<?x?xf32> {tile.multiple_of = 4})
    grid [?] threads [512] attributes {reference = @softmax_reference,
        skip_llvm_passes = "vector-combine,gvn#2,early-cse#1,early-cse#3,early-cse#4,indvars#2,correlated-propagation#1,sccp,dse,licm#2,loop-unroll,adce,consthoist",
        min_blocks_per_sm = 2} {
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
  %x3 = tile.alloc_fragment {layout = #tile.layout<shape = [1, 4096], threads = 512, registers = 8, map = (d0, d1) -> (0, (d1 floordiv 4) * 2048 + d0 * 4 + d1 mod 4)>} : memref<1x4096xf32, #tile.fragment>
  %s0 = tile.alloc_shared : memref<1x4096xf32, #gpu.address_space<workgroup>>
  %s1 = tile.alloc_shared : memref<1x4096xf32, #gpu.address_space<workgroup>>
  %s2 = tile.alloc_shared : memref<1x4096xf32, #gpu.address_space<workgroup>>
  %s3 = tile.alloc_shared : memref<1x4096xf32, #gpu.address_space<workgroup>>
  %t = tile.alloc_fragment : memref<1x4096xf32, #tile.fragment>
  %one = arith.constant 1.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %acc = tile.alloc_fragment : memref<1x4096xf32, #tile.fragment>
  %cmax = tile.alloc_fragment : memref<1xf32, #tile.fragment>
  %m = tile.alloc_fragment : memref<1xf32, #tile.fragment>
  %l = tile.alloc_fragment : memref<1xf32, #tile.fragment>
  tile.fill %m, %ninf : memref<1xf32, #tile.fragment>
  tile.clear %l : memref<1xf32, #tile.fragment>
  tile.serial %k = %c0 to %chunks step %c1 {
    %c0k = arith.muli %k, %cchunk : index
    %o1 = affine.apply affine_map<(c) -> (c + 4096)>(%c0k)
    %o2 = affine.apply affine_map<(c) -> (c + 8192)>(%c0k)
    %o3 = affine.apply affine_map<(c) -> (c + 12288)>(%c0k)
    %o4 = affine.apply affine_map<(c) -> (c + 16384)>(%c0k)
    %o5 = affine.apply affine_map<(c) -> (c + 20480)>(%c0k)
    %o6 = affine.apply affine_map<(c) -> (c + 24576)>(%c0k)
    %o7 = affine.apply affine_map<(c) -> (c + 28672)>(%c0k)
    %cend = affine.apply affine_map<(c) -> (c + 32768)>(%c0k)
    %full = arith.cmpi ule, %cend, %n : index
    tile.copy %X[%r0, %c0k] to %x0 : memref<?x?xf32> to memref<1x4096xf32, #tile.fragment>
    tile.copy %X[%r0, %o1] to %x1 : memref<?x?xf32> to memref<1x4096xf32, #tile.fragment>
    tile.copy %X[%r0, %o2] to %x2 : memref<?x?xf32> to memref<1x4096xf32, #tile.fragment>
    tile.copy %X[%r0, %o3] to %x3 : memref<?x?xf32> to memref<1x4096xf32, #tile.fragment>
    tile.copy %X[%r0, %o4] to %s0 : memref<?x?xf32> to memref<1x4096xf32, #gpu.address_space<workgroup>>
    tile.copy %X[%r0, %o5] to %s1 : memref<?x?xf32> to memref<1x4096xf32, #gpu.address_space<workgroup>>
    tile.copy %X[%r0, %o6] to %s2 : memref<?x?xf32> to memref<1x4096xf32, #gpu.address_space<workgroup>>
    tile.copy %X[%r0, %o7] to %s3 : memref<?x?xf32> to memref<1x4096xf32, #gpu.address_space<workgroup>>
    // Columns past the row's end become -inf; the maxima of the
    // register parts, elementwise, into %acc.
    tile.parallel (%i, %j) in [1, 4096] {
      %v0 = memref.load %x0[%i, %j] : memref<1x4096xf32, #tile.fragment>
      %col0 = arith.addi %c0k, %j : index
      %in0 = arith.cmpi ult, %col0, %n : index
      %mv0 = arith.select %in0, %v0, %ninf : f32
      memref.store %mv0, %x0[%i, %j] : memref<1x4096xf32, #tile.fragment>
      %v1 = memref.load %x1[%i, %j] : memref<1x4096xf32, #tile.fragment>
      %col1 = arith.addi %o1, %j : index
      %in1 = arith.cmpi ult, %col1, %n : index
      %mv1 = arith.select %in1, %v1, %ninf : f32
      memref.store %mv1, %x1[%i, %j] : memref<1x4096xf32, #tile.fragment>
      %v2 = memref.load %x2[%i, %j] : memref<1x4096xf32, #tile.fragment>
      %col2 = arith.addi %o2, %j : index
      %in2 = arith.cmpi ult, %col2, %n : index
      %mv2 = arith.select %in2, %v2, %ninf : f32
      memref.store %mv2, %x2[%i, %j] : memref<1x4096xf32, #tile.fragment>
      %v3 = memref.load %x3[%i, %j] : memref<1x4096xf32, #tile.fragment>
      %col3 = arith.addi %o3, %j : index
      %in3 = arith.cmpi ult, %col3, %n : index
      %mv3 = arith.select %in3, %v3, %ninf : f32
      memref.store %mv3, %x3[%i, %j] : memref<1x4096xf32, #tile.fragment>
      %a1 = arith.maximumf %mv0, %mv1 : f32
      %a2 = arith.maximumf %a1, %mv2 : f32
      %a3 = arith.maximumf %a2, %mv3 : f32
      memref.store %a3, %acc[%i, %j] : memref<1x4096xf32, #tile.fragment>
    }
    // The shared parts into the same maxima. Only a chunk that reaches
    // past the row's end masks them, in place (the later passes read them
    // again); a full one just reads them (1.5% faster at 1024 x 32768).
    tile.copy %s0 to %t : memref<1x4096xf32, #gpu.address_space<workgroup>> to memref<1x4096xf32, #tile.fragment>
    scf.if %full {
      tile.parallel (%i, %j) in [1, 4096] {
        %v = memref.load %t[%i, %j] : memref<1x4096xf32, #tile.fragment>
        %a = memref.load %acc[%i, %j] : memref<1x4096xf32, #tile.fragment>
        %mx = arith.maximumf %a, %v : f32
        memref.store %mx, %acc[%i, %j] : memref<1x4096xf32, #tile.fragment>
      }
    } else {
      tile.parallel (%i, %j) in [1, 4096] {
        %v = memref.load %t[%i, %j] : memref<1x4096xf32, #tile.fragment>
        %col = arith.addi %o4, %j : index
        %in = arith.cmpi ult, %col, %n : index
        %mv = arith.select %in, %v, %ninf : f32
        memref.store %mv, %t[%i, %j] : memref<1x4096xf32, #tile.fragment>
        %a = memref.load %acc[%i, %j] : memref<1x4096xf32, #tile.fragment>
        %mx = arith.maximumf %a, %mv : f32
        memref.store %mx, %acc[%i, %j] : memref<1x4096xf32, #tile.fragment>
      }
      tile.copy %t to %s0 : memref<1x4096xf32, #tile.fragment> to memref<1x4096xf32, #gpu.address_space<workgroup>>
    }
    tile.copy %s1 to %t : memref<1x4096xf32, #gpu.address_space<workgroup>> to memref<1x4096xf32, #tile.fragment>
    scf.if %full {
      tile.parallel (%i, %j) in [1, 4096] {
        %v = memref.load %t[%i, %j] : memref<1x4096xf32, #tile.fragment>
        %a = memref.load %acc[%i, %j] : memref<1x4096xf32, #tile.fragment>
        %mx = arith.maximumf %a, %v : f32
        memref.store %mx, %acc[%i, %j] : memref<1x4096xf32, #tile.fragment>
      }
    } else {
      tile.parallel (%i, %j) in [1, 4096] {
        %v = memref.load %t[%i, %j] : memref<1x4096xf32, #tile.fragment>
        %col = arith.addi %o5, %j : index
        %in = arith.cmpi ult, %col, %n : index
        %mv = arith.select %in, %v, %ninf : f32
        memref.store %mv, %t[%i, %j] : memref<1x4096xf32, #tile.fragment>
        %a = memref.load %acc[%i, %j] : memref<1x4096xf32, #tile.fragment>
        %mx = arith.maximumf %a, %mv : f32
        memref.store %mx, %acc[%i, %j] : memref<1x4096xf32, #tile.fragment>
      }
      tile.copy %t to %s1 : memref<1x4096xf32, #tile.fragment> to memref<1x4096xf32, #gpu.address_space<workgroup>>
    }
    tile.copy %s2 to %t : memref<1x4096xf32, #gpu.address_space<workgroup>> to memref<1x4096xf32, #tile.fragment>
    scf.if %full {
      tile.parallel (%i, %j) in [1, 4096] {
        %v = memref.load %t[%i, %j] : memref<1x4096xf32, #tile.fragment>
        %a = memref.load %acc[%i, %j] : memref<1x4096xf32, #tile.fragment>
        %mx = arith.maximumf %a, %v : f32
        memref.store %mx, %acc[%i, %j] : memref<1x4096xf32, #tile.fragment>
      }
    } else {
      tile.parallel (%i, %j) in [1, 4096] {
        %v = memref.load %t[%i, %j] : memref<1x4096xf32, #tile.fragment>
        %col = arith.addi %o6, %j : index
        %in = arith.cmpi ult, %col, %n : index
        %mv = arith.select %in, %v, %ninf : f32
        memref.store %mv, %t[%i, %j] : memref<1x4096xf32, #tile.fragment>
        %a = memref.load %acc[%i, %j] : memref<1x4096xf32, #tile.fragment>
        %mx = arith.maximumf %a, %mv : f32
        memref.store %mx, %acc[%i, %j] : memref<1x4096xf32, #tile.fragment>
      }
      tile.copy %t to %s2 : memref<1x4096xf32, #tile.fragment> to memref<1x4096xf32, #gpu.address_space<workgroup>>
    }
    tile.copy %s3 to %t : memref<1x4096xf32, #gpu.address_space<workgroup>> to memref<1x4096xf32, #tile.fragment>
    scf.if %full {
      tile.parallel (%i, %j) in [1, 4096] {
        %v = memref.load %t[%i, %j] : memref<1x4096xf32, #tile.fragment>
        %a = memref.load %acc[%i, %j] : memref<1x4096xf32, #tile.fragment>
        %mx = arith.maximumf %a, %v : f32
        memref.store %mx, %acc[%i, %j] : memref<1x4096xf32, #tile.fragment>
      }
    } else {
      tile.parallel (%i, %j) in [1, 4096] {
        %v = memref.load %t[%i, %j] : memref<1x4096xf32, #tile.fragment>
        %col = arith.addi %o7, %j : index
        %in = arith.cmpi ult, %col, %n : index
        %mv = arith.select %in, %v, %ninf : f32
        memref.store %mv, %t[%i, %j] : memref<1x4096xf32, #tile.fragment>
        %a = memref.load %acc[%i, %j] : memref<1x4096xf32, #tile.fragment>
        %mx = arith.maximumf %a, %mv : f32
        memref.store %mx, %acc[%i, %j] : memref<1x4096xf32, #tile.fragment>
      }
      tile.copy %t to %s3 : memref<1x4096xf32, #tile.fragment> to memref<1x4096xf32, #gpu.address_space<workgroup>>
    }
    tile.reduce max %acc into %cmax dim 1 clear : memref<1x4096xf32, #tile.fragment> into memref<1xf32, #tile.fragment>
    tile.parallel (%i) in [1] {
      %mi = memref.load %m[%i] : memref<1xf32, #tile.fragment>
      %ci = memref.load %cmax[%i] : memref<1xf32, #tile.fragment>
      %li = memref.load %l[%i] : memref<1xf32, #tile.fragment>
      %mnew = arith.maximumf %mi, %ci : f32
      %delta = arith.subf %mi, %mnew : f32
      %alpha = math.exp %delta : f32
      %lscaled = arith.mulf %li, %alpha : f32
      memref.store %lscaled, %l[%i] : memref<1xf32, #tile.fragment>
      memref.store %mnew, %m[%i] : memref<1xf32, #tile.fragment>
    }
    // exp(x - m) in place, summed elementwise into %acc.
    tile.parallel (%i, %j) in [1, 4096] {
      %mi = memref.load %m[%i] : memref<1xf32, #tile.fragment>
      %v0 = memref.load %x0[%i, %j] : memref<1x4096xf32, #tile.fragment>
      %d0 = arith.subf %v0, %mi : f32
      %e0 = math.exp %d0 : f32
      memref.store %e0, %x0[%i, %j] : memref<1x4096xf32, #tile.fragment>
      %v1 = memref.load %x1[%i, %j] : memref<1x4096xf32, #tile.fragment>
      %d1 = arith.subf %v1, %mi : f32
      %e1 = math.exp %d1 : f32
      memref.store %e1, %x1[%i, %j] : memref<1x4096xf32, #tile.fragment>
      %v2 = memref.load %x2[%i, %j] : memref<1x4096xf32, #tile.fragment>
      %d2 = arith.subf %v2, %mi : f32
      %e2 = math.exp %d2 : f32
      memref.store %e2, %x2[%i, %j] : memref<1x4096xf32, #tile.fragment>
      %v3 = memref.load %x3[%i, %j] : memref<1x4096xf32, #tile.fragment>
      %d3 = arith.subf %v3, %mi : f32
      %e3 = math.exp %d3 : f32
      memref.store %e3, %x3[%i, %j] : memref<1x4096xf32, #tile.fragment>
      %a1 = arith.addf %e0, %e1 : f32
      %a2 = arith.addf %a1, %e2 : f32
      %a3 = arith.addf %a2, %e3 : f32
      memref.store %a3, %acc[%i, %j] : memref<1x4096xf32, #tile.fragment>
    }
    tile.copy %s0 to %t : memref<1x4096xf32, #gpu.address_space<workgroup>> to memref<1x4096xf32, #tile.fragment>
    tile.parallel (%i, %j) in [1, 4096] {
      %v = memref.load %t[%i, %j] : memref<1x4096xf32, #tile.fragment>
      %mi = memref.load %m[%i] : memref<1xf32, #tile.fragment>
      %d = arith.subf %v, %mi : f32
      %e = math.exp %d : f32
      memref.store %e, %t[%i, %j] : memref<1x4096xf32, #tile.fragment>
      %a = memref.load %acc[%i, %j] : memref<1x4096xf32, #tile.fragment>
      %s = arith.addf %a, %e : f32
      memref.store %s, %acc[%i, %j] : memref<1x4096xf32, #tile.fragment>
    }
    tile.copy %t to %s0 : memref<1x4096xf32, #tile.fragment> to memref<1x4096xf32, #gpu.address_space<workgroup>>
    tile.copy %s1 to %t : memref<1x4096xf32, #gpu.address_space<workgroup>> to memref<1x4096xf32, #tile.fragment>
    tile.parallel (%i, %j) in [1, 4096] {
      %v = memref.load %t[%i, %j] : memref<1x4096xf32, #tile.fragment>
      %mi = memref.load %m[%i] : memref<1xf32, #tile.fragment>
      %d = arith.subf %v, %mi : f32
      %e = math.exp %d : f32
      memref.store %e, %t[%i, %j] : memref<1x4096xf32, #tile.fragment>
      %a = memref.load %acc[%i, %j] : memref<1x4096xf32, #tile.fragment>
      %s = arith.addf %a, %e : f32
      memref.store %s, %acc[%i, %j] : memref<1x4096xf32, #tile.fragment>
    }
    tile.copy %t to %s1 : memref<1x4096xf32, #tile.fragment> to memref<1x4096xf32, #gpu.address_space<workgroup>>
    tile.copy %s2 to %t : memref<1x4096xf32, #gpu.address_space<workgroup>> to memref<1x4096xf32, #tile.fragment>
    tile.parallel (%i, %j) in [1, 4096] {
      %v = memref.load %t[%i, %j] : memref<1x4096xf32, #tile.fragment>
      %mi = memref.load %m[%i] : memref<1xf32, #tile.fragment>
      %d = arith.subf %v, %mi : f32
      %e = math.exp %d : f32
      memref.store %e, %t[%i, %j] : memref<1x4096xf32, #tile.fragment>
      %a = memref.load %acc[%i, %j] : memref<1x4096xf32, #tile.fragment>
      %s = arith.addf %a, %e : f32
      memref.store %s, %acc[%i, %j] : memref<1x4096xf32, #tile.fragment>
    }
    tile.copy %t to %s2 : memref<1x4096xf32, #tile.fragment> to memref<1x4096xf32, #gpu.address_space<workgroup>>
    tile.copy %s3 to %t : memref<1x4096xf32, #gpu.address_space<workgroup>> to memref<1x4096xf32, #tile.fragment>
    tile.parallel (%i, %j) in [1, 4096] {
      %v = memref.load %t[%i, %j] : memref<1x4096xf32, #tile.fragment>
      %mi = memref.load %m[%i] : memref<1xf32, #tile.fragment>
      %d = arith.subf %v, %mi : f32
      %e = math.exp %d : f32
      memref.store %e, %t[%i, %j] : memref<1x4096xf32, #tile.fragment>
      %a = memref.load %acc[%i, %j] : memref<1x4096xf32, #tile.fragment>
      %s = arith.addf %a, %e : f32
      memref.store %s, %acc[%i, %j] : memref<1x4096xf32, #tile.fragment>
    }
    tile.copy %t to %s3 : memref<1x4096xf32, #tile.fragment> to memref<1x4096xf32, #gpu.address_space<workgroup>>
    tile.reduce add %acc into %l dim 1 : memref<1x4096xf32, #tile.fragment> into memref<1xf32, #tile.fragment>
  }
  tile.parallel (%i) in [1] {
    %li = memref.load %l[%i] : memref<1xf32, #tile.fragment>
    %r = arith.divf %one, %li : f32
    memref.store %r, %l[%i] : memref<1xf32, #tile.fragment>
  }
  %resident = arith.cmpi eq, %chunks, %c1 : index
  scf.if %resident {
    // One chunk: the parts hold exp(x - m) with the row's final maximum.
    %o1 = affine.apply affine_map<(c) -> (c + 4096)>(%c0)
    %o2 = affine.apply affine_map<(c) -> (c + 8192)>(%c0)
    %o3 = affine.apply affine_map<(c) -> (c + 12288)>(%c0)
    %o4 = affine.apply affine_map<(c) -> (c + 16384)>(%c0)
    %o5 = affine.apply affine_map<(c) -> (c + 20480)>(%c0)
    %o6 = affine.apply affine_map<(c) -> (c + 24576)>(%c0)
    %o7 = affine.apply affine_map<(c) -> (c + 28672)>(%c0)
    tile.parallel (%i, %j) in [1, 4096] {
      %e = memref.load %x0[%i, %j] : memref<1x4096xf32, #tile.fragment>
      %ri = memref.load %l[%i] : memref<1xf32, #tile.fragment>
      %y = arith.mulf %e, %ri : f32
      memref.store %y, %x0[%i, %j] : memref<1x4096xf32, #tile.fragment>
    }
    tile.copy %x0 to %Y[%r0, %c0] : memref<1x4096xf32, #tile.fragment> to memref<?x?xf32>
    tile.parallel (%i, %j) in [1, 4096] {
      %e = memref.load %x1[%i, %j] : memref<1x4096xf32, #tile.fragment>
      %ri = memref.load %l[%i] : memref<1xf32, #tile.fragment>
      %y = arith.mulf %e, %ri : f32
      memref.store %y, %x1[%i, %j] : memref<1x4096xf32, #tile.fragment>
    }
    tile.copy %x1 to %Y[%r0, %o1] : memref<1x4096xf32, #tile.fragment> to memref<?x?xf32>
    tile.parallel (%i, %j) in [1, 4096] {
      %e = memref.load %x2[%i, %j] : memref<1x4096xf32, #tile.fragment>
      %ri = memref.load %l[%i] : memref<1xf32, #tile.fragment>
      %y = arith.mulf %e, %ri : f32
      memref.store %y, %x2[%i, %j] : memref<1x4096xf32, #tile.fragment>
    }
    tile.copy %x2 to %Y[%r0, %o2] : memref<1x4096xf32, #tile.fragment> to memref<?x?xf32>
    tile.parallel (%i, %j) in [1, 4096] {
      %e = memref.load %x3[%i, %j] : memref<1x4096xf32, #tile.fragment>
      %ri = memref.load %l[%i] : memref<1xf32, #tile.fragment>
      %y = arith.mulf %e, %ri : f32
      memref.store %y, %x3[%i, %j] : memref<1x4096xf32, #tile.fragment>
    }
    tile.copy %x3 to %Y[%r0, %o3] : memref<1x4096xf32, #tile.fragment> to memref<?x?xf32>
    tile.copy %s0 to %t : memref<1x4096xf32, #gpu.address_space<workgroup>> to memref<1x4096xf32, #tile.fragment>
    tile.parallel (%i, %j) in [1, 4096] {
      %e = memref.load %t[%i, %j] : memref<1x4096xf32, #tile.fragment>
      %ri = memref.load %l[%i] : memref<1xf32, #tile.fragment>
      %y = arith.mulf %e, %ri : f32
      memref.store %y, %t[%i, %j] : memref<1x4096xf32, #tile.fragment>
    }
    tile.copy %t to %Y[%r0, %o4] : memref<1x4096xf32, #tile.fragment> to memref<?x?xf32>
    tile.copy %s1 to %t : memref<1x4096xf32, #gpu.address_space<workgroup>> to memref<1x4096xf32, #tile.fragment>
    tile.parallel (%i, %j) in [1, 4096] {
      %e = memref.load %t[%i, %j] : memref<1x4096xf32, #tile.fragment>
      %ri = memref.load %l[%i] : memref<1xf32, #tile.fragment>
      %y = arith.mulf %e, %ri : f32
      memref.store %y, %t[%i, %j] : memref<1x4096xf32, #tile.fragment>
    }
    tile.copy %t to %Y[%r0, %o5] : memref<1x4096xf32, #tile.fragment> to memref<?x?xf32>
    tile.copy %s2 to %t : memref<1x4096xf32, #gpu.address_space<workgroup>> to memref<1x4096xf32, #tile.fragment>
    tile.parallel (%i, %j) in [1, 4096] {
      %e = memref.load %t[%i, %j] : memref<1x4096xf32, #tile.fragment>
      %ri = memref.load %l[%i] : memref<1xf32, #tile.fragment>
      %y = arith.mulf %e, %ri : f32
      memref.store %y, %t[%i, %j] : memref<1x4096xf32, #tile.fragment>
    }
    tile.copy %t to %Y[%r0, %o6] : memref<1x4096xf32, #tile.fragment> to memref<?x?xf32>
    tile.copy %s3 to %t : memref<1x4096xf32, #gpu.address_space<workgroup>> to memref<1x4096xf32, #tile.fragment>
    tile.parallel (%i, %j) in [1, 4096] {
      %e = memref.load %t[%i, %j] : memref<1x4096xf32, #tile.fragment>
      %ri = memref.load %l[%i] : memref<1xf32, #tile.fragment>
      %y = arith.mulf %e, %ri : f32
      memref.store %y, %t[%i, %j] : memref<1x4096xf32, #tile.fragment>
    }
    tile.copy %t to %Y[%r0, %o7] : memref<1x4096xf32, #tile.fragment> to memref<?x?xf32>
  } else {
    // Rows longer than a chunk, the last pass: each part read again from
    // global memory (the registers hold the last chunk only), in a loop of
    // two iterations of four parts rather than eight parts written out (a
    // cold path: a third of the kernel's code unrolled, none of a
    // 32768-column row's time). Eight iterations of one part spilled (20
    // bytes at the 64 registers of two blocks an SM).
    tile.serial %k = %c0 to %chunks step %c1 {
      %c0k = arith.muli %k, %cchunk : index
      %c2 = arith.constant 2 : index
      tile.serial %q = %c0 to %c2 step %c1 {
        %o0 = affine.apply affine_map<(c, q) -> (c + q * 16384)>(%c0k, %q)
        tile.copy %X[%r0, %o0] to %t : memref<?x?xf32> to memref<1x4096xf32, #tile.fragment>
        tile.parallel (%i, %j) in [1, 4096] {
          %v = memref.load %t[%i, %j] : memref<1x4096xf32, #tile.fragment>
          %mi = memref.load %m[%i] : memref<1xf32, #tile.fragment>
          %ri = memref.load %l[%i] : memref<1xf32, #tile.fragment>
          %d = arith.subf %v, %mi : f32
          %e = math.exp %d : f32
          %y = arith.mulf %e, %ri : f32
          memref.store %y, %t[%i, %j] : memref<1x4096xf32, #tile.fragment>
        }
        tile.copy %t to %Y[%r0, %o0] : memref<1x4096xf32, #tile.fragment> to memref<?x?xf32>
        %o1 = affine.apply affine_map<(c, q) -> (c + q * 16384 + 4096)>(%c0k, %q)
        tile.copy %X[%r0, %o1] to %t : memref<?x?xf32> to memref<1x4096xf32, #tile.fragment>
        tile.parallel (%i, %j) in [1, 4096] {
          %v = memref.load %t[%i, %j] : memref<1x4096xf32, #tile.fragment>
          %mi = memref.load %m[%i] : memref<1xf32, #tile.fragment>
          %ri = memref.load %l[%i] : memref<1xf32, #tile.fragment>
          %d = arith.subf %v, %mi : f32
          %e = math.exp %d : f32
          %y = arith.mulf %e, %ri : f32
          memref.store %y, %t[%i, %j] : memref<1x4096xf32, #tile.fragment>
        }
        tile.copy %t to %Y[%r0, %o1] : memref<1x4096xf32, #tile.fragment> to memref<?x?xf32>
        %o2 = affine.apply affine_map<(c, q) -> (c + q * 16384 + 8192)>(%c0k, %q)
        tile.copy %X[%r0, %o2] to %t : memref<?x?xf32> to memref<1x4096xf32, #tile.fragment>
        tile.parallel (%i, %j) in [1, 4096] {
          %v = memref.load %t[%i, %j] : memref<1x4096xf32, #tile.fragment>
          %mi = memref.load %m[%i] : memref<1xf32, #tile.fragment>
          %ri = memref.load %l[%i] : memref<1xf32, #tile.fragment>
          %d = arith.subf %v, %mi : f32
          %e = math.exp %d : f32
          %y = arith.mulf %e, %ri : f32
          memref.store %y, %t[%i, %j] : memref<1x4096xf32, #tile.fragment>
        }
        tile.copy %t to %Y[%r0, %o2] : memref<1x4096xf32, #tile.fragment> to memref<?x?xf32>
        %o3 = affine.apply affine_map<(c, q) -> (c + q * 16384 + 12288)>(%c0k, %q)
        tile.copy %X[%r0, %o3] to %t : memref<?x?xf32> to memref<1x4096xf32, #tile.fragment>
        tile.parallel (%i, %j) in [1, 4096] {
          %v = memref.load %t[%i, %j] : memref<1x4096xf32, #tile.fragment>
          %mi = memref.load %m[%i] : memref<1xf32, #tile.fragment>
          %ri = memref.load %l[%i] : memref<1xf32, #tile.fragment>
          %d = arith.subf %v, %mi : f32
          %e = math.exp %d : f32
          %y = arith.mulf %e, %ri : f32
          memref.store %y, %t[%i, %j] : memref<1x4096xf32, #tile.fragment>
        }
        tile.copy %t to %Y[%r0, %o3] : memref<1x4096xf32, #tile.fragment> to memref<?x?xf32>
      }
    }
  }
} grid_size {
^bb0(%X: memref<?x?xf32>, %Y: memref<?x?xf32>):
  %c0 = arith.constant 0 : index
  %rows = memref.dim %X, %c0 : memref<?x?xf32>
  tile.yield %rows : index
}

// PTX-32K-LABEL: .entry softmax_resident_32k(
// PTX-32K-DAG: ld.global.v4.b32
// PTX-32K-DAG: bar.sync
// PTX-32K-DAG: st.global.v4.b32

// The reference is softmax.mlir's.
func.func private @softmax_reference(memref<?x?xf32>, memref<?x?xf32>)
    attributes {tile.defined_in = "softmax.mlir"}
