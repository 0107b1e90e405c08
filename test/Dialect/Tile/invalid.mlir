// RUN: tile-opt %s -split-input-file -verify-diagnostics

// Every verifier rule of the tile dialect, one case each.

//===----------------------------------------------------------------------===//
// tile.kernel
//===----------------------------------------------------------------------===//

// expected-error @+1 {{'tile.kernel' op a kernel has no results; write outputs to memref arguments}}
tile.kernel @results() -> f32 grid [1] threads [32] {
}

// -----

// expected-error @+1 {{'tile.kernel' op 'llvm_passes' names an LLVM pipeline ('lean', or opt's -passes syntax); leave it out for the default one}}
tile.kernel @empty_pipeline() grid [1] threads [32] attributes {llvm_passes = " "} {
}

// -----

// expected-error @+1 {{'tile.kernel' op 'skip_llvm_passes' names LLVM passes (comma-separated, e.g. "vector-combine"); leave it out to skip only the default ones}}
tile.kernel @empty_skip_list() grid [1] threads [32] attributes {skip_llvm_passes = ""} {
}

// -----

// Inherent attributes of the wrong kind are errors, not dropped.
// expected-error @+1 {{'llvm_passes' failed to satisfy constraint: string attribute}}
tile.kernel @pipeline_not_a_string() grid [1] threads [32] attributes {llvm_passes = 3} {
}

// -----

// expected-error @+1 {{'min_blocks_per_sm' failed to satisfy constraint}}
tile.kernel @blocks_not_an_integer() grid [1] threads [32] attributes {min_blocks_per_sm = "2"} {
}

// -----

// expected-error @+1 {{'tile.kernel' op argument #0 must be a memref in global memory (no memory space or #gpu.address_space<global>), got 'memref<16xf32, #gpu.address_space<workgroup>>'}}
tile.kernel @shared_argument(%a: memref<16xf32, #gpu.address_space<workgroup>>) grid [1] threads [32] {
}

// -----

// expected-error @+1 {{'tile.kernel' op argument #1 must have the identity layout (dense, row-major: the kernel ABI passes a base pointer and sizes), got 'memref<16x16xf32, strided<[32, 1]>>'}}
tile.kernel @strided_argument(%a: memref<16xf32>, %b: memref<16x16xf32, strided<[32, 1]>>) grid [1] threads [32] {
}

// -----

// expected-error @+1 {{custom op 'tile.kernel' attribute 'min_blocks_per_sm' failed to satisfy constraint: 64-bit signless integer attribute whose minimum value is 1 whose maximum value is 32}}
tile.kernel @no_blocks() grid [1] threads [32] attributes {min_blocks_per_sm = 0} {
}

// -----

// An SM holds at most 32 blocks.
// expected-error @+1 {{custom op 'tile.kernel' attribute 'min_blocks_per_sm' failed to satisfy constraint: 64-bit signless integer attribute whose minimum value is 1 whose maximum value is 32}}
tile.kernel @too_many_blocks() grid [1] threads [32] attributes {min_blocks_per_sm = 4294967296} {
}

// -----

// expected-error @+1 {{'tile.kernel' op argument #1 has type 'tensor<16xf32>'; kernel arguments must be memrefs or scalars (integer, index, float)}}
tile.kernel @tensor_argument(%a: memref<16xf32>, %t: tensor<16xf32>) grid [1] threads [32] {
}

// -----

// expected-error @+1 {{'tile.kernel' op grid must have 1 to 3 dimensions, got 4}}
tile.kernel @grid_rank() grid [1, 1, 1, 1] threads [32] {
}

// -----

// expected-error @+1 {{'tile.kernel' op grid extents must be positive or '?', got [4, 0]}}
tile.kernel @grid_zero() grid [4, 0] threads [32] {
}

// -----

// expected-error @+1 {{'tile.kernel' op thread block must have 1 to 3 dimensions, got 0}}
tile.kernel @threads_rank() grid [1] threads [] {
}

// -----

// expected-error @+1 {{'tile.kernel' op thread block extents must be positive, got [32, 0]}}
tile.kernel @threads_zero() grid [1] threads [32, 0] {
}

// -----

// expected-error @+1 {{'tile.kernel' op thread block extent along 'z' is 128, above the limit of 64}}
tile.kernel @threads_z() grid [1] threads [1, 1, 128] {
}

// -----

// expected-error @+1 {{'tile.kernel' op thread block [64, 32] has 2048 threads, more than the 1024 a block can have}}
tile.kernel @too_many_threads() grid [1] threads [64, 32] {
}

// -----

// expected-error @+1 {{'tile.kernel' op grid [?] has 1 '?' extent(s); add a 'grid_size' region that yields them}}
tile.kernel @missing_grid_size(%x: memref<?xf32>) grid [?] threads [128] {
}

// -----

// expected-error @+1 {{'tile.kernel' op has a 'grid_size' region but no '?' grid extent to compute}}
tile.kernel @useless_grid_size(%n: index) grid [4] threads [128] {
} grid_size {
^bb0(%n: index):
  tile.yield %n : index
}

// -----

// expected-error @+1 {{'tile.kernel' op 'grid_size' region must take the kernel's arguments, with the same types}}
tile.kernel @grid_size_arguments(%n: index) grid [?] threads [128] {
} grid_size {
^bb0(%n: i32):
  %c1 = arith.constant 1 : index
  tile.yield %c1 : index
}

// -----

tile.kernel @grid_size_yield(%n: index) grid [?, ?] threads [128] {
} grid_size {
^bb0(%n: index):
  // expected-error @+1 {{'tile.yield' op must yield 2 index value(s), one per '?' grid extent}}
  tile.yield %n : index
}

// -----

// expected-error @+1 {{'tile.kernel' op allocates 262144 bytes of shared memory, more than the 232448 a thread block can use on sm_90}}
tile.kernel @too_much_shared() grid [1] threads [128] {
  %a = tile.alloc_shared : memref<32768xf32, #gpu.address_space<workgroup>>
  %b = tile.alloc_shared : memref<32768xf32, #gpu.address_space<workgroup>>
}

// -----

// Local buffers count together, per thread: each of these is at the 64 KiB
// limit, both are over it (a 4 MiB one, from the fuzzer, compiled for minutes).
// expected-error @+1 {{'tile.kernel' op gives each thread 131072 bytes of local buffers ('tile.alloc_local'), more than the 65536 allowed (docs/TileDialect.md, "Limits"); a thread has 255 registers, so keep per-thread tiles small and put large ones in shared memory}}
tile.kernel @too_much_local() grid [1] threads [128] {
  %a = tile.alloc_local : memref<16384xf32>
  %b = tile.alloc_local : memref<64x256xf32>
}

// -----

//===----------------------------------------------------------------------===//
// Collective ops and thread-dependent control flow
//===----------------------------------------------------------------------===//

tile.kernel @copy_under_divergent_if(%A: memref<1024xf32>) grid [1] threads [128] {
  %c0 = arith.constant 0 : index
  %tx = tile.thread_id x
  %s = tile.alloc_shared : memref<128xf32, #gpu.address_space<workgroup>>
  %lead = arith.cmpi eq, %tx, %c0 : index
  // expected-note @+1 {{thread-dependent control flow: 'scf.if'}}
  scf.if %lead {
    // expected-error @+1 {{'tile.copy' op is collective (every thread of the block must reach it) but is nested in control flow that depends on the thread index}}
    tile.copy %A[%c0] to %s : memref<1024xf32> to memref<128xf32, #gpu.address_space<workgroup>>
  }
}

// -----

tile.kernel @barrier_in_divergent_loop() grid [1] threads [128] {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %tx = tile.thread_id x
  %ub = arith.addi %tx, %c1 : index
  // expected-note @+1 {{thread-dependent control flow: 'scf.for'}}
  scf.for %i = %c0 to %ub step %c1 {
    // expected-error @+1 {{'tile.barrier' op is collective (every thread of the block must reach it) but is nested in control flow that depends on the thread index}}
    tile.barrier
  }
}

// -----

// A value loaded from a per-thread buffer is per thread too.
tile.kernel @reduce_under_local_condition() grid [1] threads [32, 4] {
  %c0 = arith.constant 0 : index
  %l = tile.alloc_local : memref<1xi1>
  %flag = memref.load %l[%c0] : memref<1xi1>
  %f = arith.constant 1.0 : f32
  // expected-note @+1 {{thread-dependent control flow: 'scf.if'}}
  scf.if %flag {
    // expected-error @+1 {{'tile.thread_allreduce' op is collective (every thread of the block must reach it) but is nested in control flow that depends on the thread index}}
    %s = tile.thread_allreduce add %f across(x) : f32
  }
}

// -----

tile.kernel @serial_with_thread_bound() grid [1] threads [128] {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %tx = tile.thread_id x
  // expected-note @+1 {{thread-dependent control flow: 'tile.serial'}}
  tile.serial %k = %c0 to %tx step %c1 {
    // expected-error @+1 {{'tile.barrier' op is collective (every thread of the block must reach it) but is nested in control flow that depends on the thread index}}
    tile.barrier
  }
}

// -----

// A per-thread value carried by a loop does not make the loop divergent
// (the reduction inside is fine: only the bounds steer the loop), but the
// loop's result is per thread.
tile.kernel @carried_thread_value() grid [1] threads [128] {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %tx = tile.thread_id x
  %init = arith.index_cast %tx : index to i32
  %r = tile.serial %k = %c0 to %c8 step %c1 iter_args(%acc = %init) -> (i32) {
    %s = tile.thread_allreduce add %acc across(x) : i32
    %n = arith.addi %acc, %s : i32
    tile.yield %n : i32
  }
  %zero = arith.constant 0 : i32
  %positive = arith.cmpi sgt, %r, %zero : i32
  // expected-note @+1 {{thread-dependent control flow: 'scf.if'}}
  scf.if %positive {
    // expected-error @+1 {{'tile.barrier' op is collective (every thread of the block must reach it) but is nested in control flow that depends on the thread index}}
    tile.barrier
  }
}

// -----

// A value that becomes per thread only through the yield is per thread too
// (the analysis runs to a fixpoint).
tile.kernel @carried_value_becomes_thread_dependent() grid [1] threads [128] {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %tx = tile.thread_id x
  %r = tile.unroll %k = %c0 to %c8 step %c1 iter_args(%acc = %c0) -> (index) {
    %n = arith.addi %acc, %tx : index
    tile.yield %n : index
  }
  // expected-note @+1 {{thread-dependent control flow: 'tile.serial'}}
  tile.serial %k = %c0 to %r step %c1 {
    // expected-error @+1 {{'tile.barrier' op is collective (every thread of the block must reach it) but is nested in control flow that depends on the thread index}}
    tile.barrier
  }
}

// -----

tile.kernel @copy_in_parallel(%A: memref<1024xf32>) grid [1] threads [128] {
  %c0 = arith.constant 0 : index
  %s = tile.alloc_shared : memref<128xf32, #gpu.address_space<workgroup>>
  tile.parallel (%i) in [128] {
    // expected-error @+1 {{'tile.copy' op is collective and cannot be nested in 'tile.parallel', whose iterations are distributed over the block's threads}}
    tile.copy %A[%i] to %s : memref<1024xf32> to memref<128xf32, #gpu.address_space<workgroup>>
  }
}

// -----

//===----------------------------------------------------------------------===//
// Index ops
//===----------------------------------------------------------------------===//

tile.kernel @missing_thread_dim() grid [1] threads [2, 32] {
  // expected-error @+1 {{'tile.thread_id' op thread dimension 'z' does not exist: the kernel's thread block is 2-D (threads [2, 32])}}
  %tz = tile.thread_id z
}

// -----

tile.kernel @missing_block_dim() grid [16] threads [32] {
  // expected-error @+1 {{'tile.block_id' op grid dimension 'y' does not exist: the kernel's grid is 1-D (grid [16])}}
  %by = tile.block_id y
}

// -----

func.func @thread_id_outside_kernel() -> index {
  // expected-error @+1 {{'tile.thread_id' op must be nested in a 'tile.kernel'}}
  %tx = tile.thread_id x
  return %tx : index
}

// -----

tile.kernel @thread_id_in_grid_size(%n: index) grid [?] threads [128] {
} grid_size {
^bb0(%n: index):
  // expected-error @+1 {{'tile.thread_id' op cannot be used in the 'grid_size' region of a kernel, which is evaluated on the host before the launch}}
  %tx = tile.thread_id x
  tile.yield %tx : index
}

// -----

tile.kernel @bad_dim_keyword() grid [1] threads [32] {
  // expected-error @+1 {{expected a dimension 'x', 'y' or 'z', got 'w'}}
  %tw = tile.thread_id w
}

// -----

tile.kernel @yield_in_loop() grid [1] threads [32] {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.serial %k = %c0 to %c1 step %c1 {
    // expected-error @+1 {{'tile.yield' op yields no values in a 'tile.serial' region}}
    tile.yield %k : index
  }
}

// -----

//===----------------------------------------------------------------------===//
// Buffers
//===----------------------------------------------------------------------===//

tile.kernel @shared_in_loop() grid [1] threads [32] {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.serial %k = %c0 to %c1 step %c1 {
    // expected-error @+1 {{'tile.alloc_shared' op must stand at the top level of a 'tile.kernel' body: shared memory lives for the whole kernel}}
    %s = tile.alloc_shared : memref<32xf32, #gpu.address_space<workgroup>>
  }
}

// -----

func.func @shared_outside_kernel() {
  // expected-error @+1 {{'tile.alloc_shared' op must stand at the top level of a 'tile.kernel' body: shared memory lives for the whole kernel}}
  %s = tile.alloc_shared : memref<32xf32, #gpu.address_space<workgroup>>
  return
}

// -----

tile.kernel @shared_dynamic_shape() grid [1] threads [32] {
  // expected-error @+1 {{'tile.alloc_shared' op shared buffer must have a static shape, got 'memref<?xf32, #gpu.address_space<workgroup>>'}}
  %s = tile.alloc_shared : memref<?xf32, #gpu.address_space<workgroup>>
}

// -----

tile.kernel @shared_wrong_space() grid [1] threads [32] {
  // expected-error @+1 {{'tile.alloc_shared' op shared buffer must be in memory space #gpu.address_space<workgroup>, got 'memref<32xf32>'}}
  %s = tile.alloc_shared : memref<32xf32>
}

// -----

tile.kernel @shared_strided() grid [1] threads [32] {
  // expected-error @+1 {{'tile.alloc_shared' op shared buffer must have an identity layout, got 'memref<32xf32, strided<[2]>, #gpu.address_space<workgroup>>'}}
  %s = tile.alloc_shared : memref<32xf32, strided<[2]>, #gpu.address_space<workgroup>>
}

// -----

tile.kernel @local_dynamic_shape() grid [1] threads [32] {
  // expected-error @+1 {{'tile.alloc_local' op local buffer must have a static shape, got 'memref<?xf32>'}}
  %l = tile.alloc_local : memref<?xf32>
}

// -----

tile.kernel @local_shared_space() grid [1] threads [32] {
  // expected-error @+1 {{'tile.alloc_local' op local buffer must be in the default memory space or #gpu.address_space<private>, got 'memref<4xf32, #gpu.address_space<workgroup>>'}}
  %l = tile.alloc_local : memref<4xf32, #gpu.address_space<workgroup>>
}

// -----

func.func @local_outside_kernel() {
  // expected-error @+1 {{'tile.alloc_local' op must be nested in a 'tile.kernel'}}
  %l = tile.alloc_local : memref<4xf32>
  return
}

// -----

//===----------------------------------------------------------------------===//
// Loops
//===----------------------------------------------------------------------===//

tile.kernel @zero_step() grid [1] threads [32] {
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  // expected-error @+1 {{'tile.serial' op step must be positive, got 0}}
  tile.serial %k = %c0 to %c8 step %c0 {
  }
}

// -----

tile.kernel @vectorized_iter_args(%A: memref<8xf32>) grid [1] threads [32] {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %zero = arith.constant 0.0 : f32
  // expected-error @+1 {{'tile.vectorized' op does not carry values (iter_args): use 'tile.serial' or 'tile.unroll' for a loop-carried value, or a buffer}}
  %s = tile.vectorized %i = %c0 to %c8 step %c1 iter_args(%acc = %zero) -> (f32) {
    %v = memref.load %A[%i] : memref<8xf32>
    %t = arith.addf %acc, %v : f32
    tile.yield %t : f32
  }
}

// -----

tile.kernel @iter_args_buffer(%n: index) grid [1] threads [32] {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %l = tile.alloc_local : memref<4xf32>
  // expected-error @+1 {{'tile.serial' op carries a buffer ('memref<4xf32>') in iter_args: carry scalars and vectors; use the buffer itself across iterations}}
  %r = tile.serial %k = %c0 to %n step %c1 iter_args(%b = %l) -> (memref<4xf32>) {
    tile.yield %b : memref<4xf32>
  }
}

// -----

tile.kernel @iter_args_yield_type(%n: index) grid [1] threads [32] {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %r = tile.serial %k = %c0 to %n step %c1 iter_args(%acc = %zero) -> (f32) {
    %i = arith.index_cast %k : index to i32
    // expected-error @+1 {{'tile.yield' op yields (i32) but the enclosing 'tile.serial' carries (f32)}}
    tile.yield %i : i32
  }
}

// -----

tile.kernel @iter_args_yield_missing(%n: index) grid [1] threads [32] {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %r = tile.unroll %k = %c0 to %c1 step %c1 iter_args(%acc = %zero) -> (f32) {
    // expected-error @+1 {{'tile.yield' op yields () but the enclosing 'tile.unroll' carries (f32)}}
    tile.yield
  }
}

// -----

tile.kernel @iter_args_init_type(%n: index) grid [1] threads [32] {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  // expected-error @+1 {{'tile.serial' op iteration argument #0 has type 'f32', its initial value 'f32' and its result 'f16': all three must match}}
  %r = "tile.serial"(%c0, %n, %c1, %zero) ({
  ^bb0(%k: index, %acc: f32):
    tile.yield %acc : f32
  }) : (index, index, index, f32) -> f16
}

// -----

tile.kernel @unroll_dynamic(%n: index) grid [1] threads [32] {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // expected-error @+1 {{'tile.unroll' op needs a constant upper bound (an arith.constant) to be expanded at compile time}}
  tile.unroll %k = %c0 to %n step %c1 {
  }
}

// -----

tile.kernel @vectorized_dynamic(%n: index) grid [1] threads [32] {
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  // expected-error @+1 {{'tile.vectorized' op needs a constant lower bound (an arith.constant) to be expanded at compile time}}
  tile.vectorized %k = %n to %c8 step %c1 {
  }
}

// -----

// Limits (docs/TileDialect.md, "Limits"): each iteration is a copy of the body.
tile.kernel @unroll_too_many(%n: index) grid [1] threads [32] {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %big = arith.constant 2147483648 : index
  // expected-error @+1 {{'tile.unroll' op has 2147483648 iterations, more than the 4096 that are expanded at compile time (each iteration is a copy of the body); use 'tile.serial' for long loops}}
  tile.unroll %k = %c0 to %big step %c1 {
  }
}

// -----

// Bounds of opposite signs: the trip count is computed without overflow.
tile.kernel @vectorized_too_many(%n: index) grid [1] threads [32] {
  %min = arith.constant -9223372036854775808 : index
  %max = arith.constant 9223372036854775807 : index
  %c1 = arith.constant 1 : index
  // expected-error @+1 {{'tile.vectorized' op has 9223372036854775807 iterations, more than the 4096}}
  tile.vectorized %k = %min to %max step %c1 {
  }
}

// -----

tile.kernel @pipelined_too_many_stages(%n: index) grid [1] threads [32] {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // expected-error @+1 {{'tile.pipelined' op has 17 stages, more than the limit of 16}}
  tile.pipelined %k = %c0 to %n step %c1 stages 17 {
  }
}

// -----

// Upstream accepts it as undefined behaviour; in a kernel it is a mistake.
tile.kernel @dim_out_of_range(%x: memref<?xf32>) grid [1] threads [32] {
  %c1 = arith.constant 1 : index
  // expected-error @+1 {{'memref.dim' op asks for dimension 1 of a memref of rank 1}}
  %n = memref.dim %x, %c1 : memref<?xf32>
}

// -----

tile.kernel @pipelined_zero_stages(%n: index) grid [1] threads [32] {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // expected-error @+1 {{'tile.pipelined' op stages must be at least 1, got 0}}
  tile.pipelined %k = %c0 to %n step %c1 stages 0 {
  }
}

// -----

tile.kernel @pipelined_rolled_one_stage(%n: index) grid [1] threads [32] {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // expected-error @+1 {{'tile.pipelined' op 'rolled' needs at least 2 stages: with one there is nothing to roll}}
  tile.pipelined %k = %c0 to %n step %c1 stages 1 rolled {
  }
}

// -----

tile.kernel @parallel_layout_not_a_layout() grid [1] threads [32] {
  // expected-error @+2 {{'layout' failed to satisfy constraint}}
  tile.parallel (%i) in [64] {
  } {layout = 3}
}

// -----

tile.kernel @parallel_zero_extent() grid [1] threads [32] {
  // expected-error @+1 {{'tile.parallel' op extents must be positive, got [64, 0]}}
  tile.parallel (%i, %j) in [64, 0] {
  }
}

// -----

tile.kernel @parallel_arity() grid [1] threads [32] {
  // expected-error @+1 {{'tile.parallel' op has 2 induction variables but 1 extents}}
  tile.parallel (%i, %j) in [64] {
  }
}

// -----

//===----------------------------------------------------------------------===//
// tile.copy, tile.fill, tile.clear
//===----------------------------------------------------------------------===//

tile.kernel @copy_element_type(%A: memref<1024xf32>) grid [1] threads [32] {
  %c0 = arith.constant 0 : index
  %s = tile.alloc_shared : memref<32xf16, #gpu.address_space<workgroup>>
  // expected-error @+1 {{'tile.copy' op source element type 'f32' and target element type 'f16' differ; tile.copy converts only between float types, with a fragment on one side}}
  tile.copy %A[%c0] to %s : memref<1024xf32> to memref<32xf16, #gpu.address_space<workgroup>>
}

// -----

tile.kernel @copy_rank(%A: memref<32x32xf32>) grid [1] threads [32] {
  %c0 = arith.constant 0 : index
  %s = tile.alloc_shared : memref<32xf32, #gpu.address_space<workgroup>>
  // expected-error @+1 {{'tile.copy' op source (rank 2) and target (rank 1) must have the same rank}}
  tile.copy %A[%c0, %c0] to %s : memref<32x32xf32> to memref<32xf32, #gpu.address_space<workgroup>>
}

// -----

tile.kernel @copy_index_count(%A: memref<32x32xf32>) grid [1] threads [32] {
  %c0 = arith.constant 0 : index
  %s = tile.alloc_shared : memref<8x8xf32, #gpu.address_space<workgroup>>
  // expected-error @+1 {{'tile.copy' op source has 1 indices but its rank is 2}}
  tile.copy %A[%c0] to %s : memref<32x32xf32> to memref<8x8xf32, #gpu.address_space<workgroup>>
}

// -----

tile.kernel @copy_both_indexed(%A: memref<1024xf32>) grid [1] threads [32] {
  %c0 = arith.constant 0 : index
  %s = tile.alloc_shared : memref<64xf32, #gpu.address_space<workgroup>>
  // expected-error @+1 {{'tile.copy' op both operands are indexed; give the tile shape with 'shape [...]'}}
  tile.copy %A[%c0] to %s[%c0] : memref<1024xf32> to memref<64xf32, #gpu.address_space<workgroup>>
}

// -----

tile.kernel @copy_whole_mismatch(%A: memref<1024xf32>) grid [1] threads [32] {
  %c0 = arith.constant 0 : index
  %s = tile.alloc_shared : memref<64xf32, #gpu.address_space<workgroup>>
  // expected-error @+1 {{'tile.copy' op target 'memref<64xf32, #gpu.address_space<workgroup>>' is copied as a whole, so its shape must equal the tile shape [32]}}
  tile.copy %A[%c0] to %s shape [32] : memref<1024xf32> to memref<64xf32, #gpu.address_space<workgroup>>
}

// -----

tile.kernel @copy_dynamic_tile(%A: memref<1024xf32>, %B: memref<?xf32>) grid [1] threads [32] {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{'tile.copy' op tile shape must be static, got [?]; the operand without indices gives the tile shape}}
  tile.copy %A[%c0] to %B : memref<1024xf32> to memref<?xf32>
}

// -----

tile.kernel @copy_shape_rank(%A: memref<1024xf32>) grid [1] threads [32] {
  %c0 = arith.constant 0 : index
  %s = tile.alloc_shared : memref<64xf32, #gpu.address_space<workgroup>>
  // expected-error @+1 {{'tile.copy' op tile shape [8, 8] must have rank 1}}
  tile.copy %A[%c0] to %s[%c0] shape [8, 8] : memref<1024xf32> to memref<64xf32, #gpu.address_space<workgroup>>
}

// -----

tile.kernel @fill_type() grid [1] threads [32] {
  %s = tile.alloc_shared : memref<64xf32, #gpu.address_space<workgroup>>
  %v = arith.constant 0 : i32
  // expected-error @+1 {{'tile.fill' op failed to verify that value type matches the buffer's element type}}
  "tile.fill"(%s, %v) : (memref<64xf32, #gpu.address_space<workgroup>>, i32) -> ()
}

// -----

tile.kernel @clear_complex() grid [1] threads [32] {
  %l = tile.alloc_local : memref<4xcomplex<f32>>
  // expected-error @+1 {{'tile.clear' op cannot clear a buffer of 'complex<f32>' elements: there is no zero of that type}}
  tile.clear %l : memref<4xcomplex<f32>>
}

// -----

//===----------------------------------------------------------------------===//
// tile.atomic_add
//===----------------------------------------------------------------------===//

tile.kernel @atomic_indices(%C: memref<32x32xf32>) grid [1] threads [32] {
  %c0 = arith.constant 0 : index
  %v = arith.constant 1.0 : f32
  // expected-error @+1 {{'tile.atomic_add' op expects 2 indices for 'memref<32x32xf32>', got 1}}
  tile.atomic_add %C[%c0], %v : memref<32x32xf32>, f32
}

// -----

tile.kernel @atomic_local() grid [1] threads [32] {
  %c0 = arith.constant 0 : index
  %v = arith.constant 1.0 : f32
  %l = tile.alloc_local : memref<4xf32>
  // expected-error @+1 {{'tile.atomic_add' op works on global or shared memory; 'memref<4xf32>' is not (a thread-private buffer needs no atomic)}}
  tile.atomic_add %l[%c0], %v : memref<4xf32>, f32
}

// -----

tile.kernel @atomic_f64(%C: memref<32xf64>) grid [1] threads [32] {
  %c0 = arith.constant 0 : index
  %v = arith.constant 1.0 : f64
  // expected-error @+1 {{'tile.atomic_add' op unsupported element type 'f64'; atomic_add supports f32, f16, bf16 and i32}}
  tile.atomic_add %C[%c0], %v : memref<32xf64>, f64
}

// -----

tile.kernel @atomic_value_type(%C: memref<32xf16>) grid [1] threads [32] {
  %c0 = arith.constant 0 : index
  %v = arith.constant dense<1.0> : vector<4xf16>
  // expected-error @+1 {{'tile.atomic_add' op value type 'vector<4xf16>' must be the element type 'f16' (or 'vector<2xf16>' for a packed atomic)}}
  tile.atomic_add %C[%c0], %v : memref<32xf16>, vector<4xf16>
}

// -----

tile.kernel @atomic_old_type(%C: memref<32xf32>) grid [1] threads [32] {
  %c0 = arith.constant 0 : index
  %v = arith.constant 1.0 : f32
  // expected-error @+1 {{'tile.atomic_add' op returns the old value, of type 'f32', not 'f16'}}
  %old = tile.atomic_add %C[%c0], %v : memref<32xf32>, f32 -> f16
}

// -----

//===----------------------------------------------------------------------===//
// tile.thread_allreduce
//===----------------------------------------------------------------------===//

tile.kernel @reduce_twice() grid [1] threads [32, 4] {
  %v = arith.constant 1.0 : f32
  // expected-error @+1 {{'tile.thread_allreduce' op thread dimension 'y' is listed twice}}
  %s = tile.thread_allreduce add %v across(y, y) : f32
}

// -----

tile.kernel @reduce_missing_dim() grid [1] threads [2, 32] {
  %v = arith.constant 1.0 : f32
  // expected-error @+1 {{'tile.thread_allreduce' op thread dimension 'z' does not exist: the kernel's thread block is 2-D (threads [2, 32])}}
  %s = tile.thread_allreduce add %v across(z) : f32
}

// -----

tile.kernel @reduce_no_dims() grid [1] threads [32] {
  %v = arith.constant 1.0 : f32
  // expected-error @+1 {{'tile.thread_allreduce' op needs at least one thread dimension to reduce across}}
  %s = "tile.thread_allreduce"(%v) <{kind = #tile<reduce add>, dims = []}> : (f32) -> f32
}

// -----

tile.kernel @reduce_bitwise_float() grid [1] threads [32] {
  %v = arith.constant 1.0 : f32
  // expected-error @+1 {{'tile.thread_allreduce' op 'and' reduction needs an i32 value, got 'f32'}}
  %s = tile.thread_allreduce and %v across(x) : f32
}

// -----

tile.kernel @reduce_f64() grid [1] threads [32] {
  %v = arith.constant 1.0 : f64
  // expected-error @+1 {{'tile.thread_allreduce' op unsupported type 'f64'; thread_allreduce supports f16, bf16, f32 and i32}}
  %s = tile.thread_allreduce add %v across(x) : f64
}

// -----

tile.kernel @reduce_shared_buffer() grid [1] threads [32] {
  %s = tile.alloc_shared : memref<4xf32, #gpu.address_space<workgroup>>
  // expected-error @+1 {{'tile.thread_allreduce' op buffer operand must be a per-thread buffer (tile.alloc_local), got 'memref<4xf32, #gpu.address_space<workgroup>>'}}
  tile.thread_allreduce add %s across(x) : memref<4xf32, #gpu.address_space<workgroup>>
}

// -----

tile.kernel @reduce_huge_buffer() grid [1] threads [32] {
  %acc = tile.alloc_local : memref<16x32xf32>
  // expected-error @+1 {{'tile.thread_allreduce' op buffer operand has 512 elements; at most 256 are reduced (each element is combined with its own code)}}
  tile.thread_allreduce add %acc across(x) : memref<16x32xf32>
}

// -----

tile.kernel @reduce_buffer_f64() grid [1] threads [32] {
  %acc = tile.alloc_local : memref<4xf64>
  // expected-error @+1 {{'tile.thread_allreduce' op unsupported type 'f64'; thread_allreduce supports f16, bf16, f32 and i32}}
  tile.thread_allreduce add %acc across(x) : memref<4xf64>
}

// -----

tile.kernel @reduce_empty_buffer() grid [1] threads [32] {
  %acc = tile.alloc_local : memref<0xf32>
  // expected-error @+1 {{'tile.thread_allreduce' op buffer operand has no elements}}
  tile.thread_allreduce add %acc across(x) : memref<0xf32>
}

// -----

tile.kernel @reduce_dynamic_buffer(%n: index) grid [1] threads [32] {
  %acc = memref.alloca(%n) : memref<?xf32>
  // expected-error @+1 {{'tile.thread_allreduce' op buffer operand must have a static shape, got 'memref<?xf32>'}}
  tile.thread_allreduce add %acc across(x) : memref<?xf32>
}

// -----

tile.kernel @reduce_value_without_result() grid [1] threads [32] {
  %v = arith.constant 1.0 : f32
  // expected-error @+1 {{'tile.thread_allreduce' op result must have the type of the reduced value 'f32'}}
  "tile.thread_allreduce"(%v) <{kind = #tile<reduce add>, dims = [#tile<dim x>]}> : (f32) -> ()
}

// -----

tile.kernel @reduce_buffer_with_result() grid [1] threads [32] {
  %acc = tile.alloc_local : memref<4xf32>
  // expected-error @+1 {{'tile.thread_allreduce' op reduces a buffer in place and has no result}}
  %r = "tile.thread_allreduce"(%acc) <{kind = #tile<reduce add>, dims = [#tile<dim x>]}> : (memref<4xf32>) -> memref<4xf32>
}

// -----

tile.kernel @reduce_bad_kind() grid [1] threads [32] {
  %v = arith.constant 1.0 : f32
  // expected-error @+1 {{expected a reduction operator (add, mul, max, min, and, or, xor), got 'sum'}}
  %s = tile.thread_allreduce sum %v across(x) : f32
}

// -----

//===----------------------------------------------------------------------===//
// tile.warp_specialize
//===----------------------------------------------------------------------===//

tile.kernel @ws_zero_stages() grid [1] threads [256] {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // expected-error @+1 {{'tile.warp_specialize' op stages must be at least 1, got 0}}
  tile.warp_specialize %c0 to %c1 step %c1 stages 0
      producer(%k, %s) threads 128 {
  } consumer(%k, %s) threads 128 {
  }
}

// -----

tile.kernel @ws_partial_warp_group() grid [1] threads [224] {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // expected-error @+1 {{'tile.warp_specialize' op producer threads (96) must be a whole number of warp groups (a positive multiple of 128)}}
  tile.warp_specialize %c0 to %c1 step %c1 stages 2
      producer(%k, %s) threads 96 {
  } consumer(%k, %s) threads 128 {
  }
}

// -----

tile.kernel @ws_thread_total() grid [1] threads [384] {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // expected-error @+1 {{'tile.warp_specialize' op producer (128) and consumer (128) threads add up to 256, but the kernel's block has 384 threads}}
  tile.warp_specialize %c0 to %c1 step %c1 stages 2
      producer(%k, %s) threads 128 {
  } consumer(%k, %s) threads 128 {
  }
}

// -----

tile.kernel @ws_bad_regs() grid [1] threads [256] {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // expected-error @+1 {{'tile.warp_specialize' op consumer regs (244) must be a multiple of 8 in [24, 256] (setmaxnreg)}}
  tile.warp_specialize %c0 to %c1 step %c1 stages 2
      producer(%k, %s) threads 128 regs 24 {
  } consumer(%k, %s) threads 128 regs 244 {
  }
}

// -----

tile.kernel @ws_register_budget() grid [1] threads [384] {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // expected-error @+1 {{'tile.warp_specialize' op producer and consumer need 98304 registers, more than the 65536 of an SM}}
  tile.warp_specialize %c0 to %c1 step %c1 stages 2
      producer(%k, %s) threads 128 regs 256 {
  } consumer(%k, %s) threads 256 regs 256 {
  }
}

// -----

tile.kernel @ws_register_budget_blocks() grid [1] threads [384] attributes {min_blocks_per_sm = 2} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // expected-error @+1 {{'tile.warp_specialize' op producer and consumer need 39936 registers, more than the 65536 of an SM shared by 2 blocks (min_blocks_per_sm)}}
  tile.warp_specialize %c0 to %c1 step %c1 stages 2
      producer(%k, %s) threads 128 regs 40 {
  } consumer(%k, %s) threads 256 regs 136 {
  }
}

// -----

tile.kernel @ws_buffer_stages() grid [1] threads [256] {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %b = tile.alloc_shared : memref<3x128xf16, #gpu.address_space<workgroup>>
  // expected-error @+1 {{'tile.warp_specialize' op buffer #0 'memref<3x128xf16, #gpu.address_space<workgroup>>' must have one slice per stage: its leading dimension must be 2}}
  tile.warp_specialize %c0 to %c1 step %c1 stages 2
      buffers(%b : memref<3x128xf16, #gpu.address_space<workgroup>>)
      producer(%k, %s) threads 128 {
  } consumer(%k, %s) threads 128 {
  }
}

// -----

tile.kernel @ws_buffer_global(%g: memref<2x128xf16>) grid [1] threads [256] {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // expected-error @+1 {{'tile.warp_specialize' op buffer #0 must be in shared memory, got 'memref<2x128xf16>'}}
  tile.warp_specialize %c0 to %c1 step %c1 stages 2
      buffers(%g : memref<2x128xf16>)
      producer(%k, %s) threads 128 {
  } consumer(%k, %s) threads 128 {
  }
}

// -----

tile.kernel @ws_nested() grid [1] threads [256] {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.warp_specialize %c0 to %c1 step %c1 stages 1
      producer(%k, %s) threads 128 {
    // expected-error @+1 {{'tile.warp_specialize' op cannot be nested in another 'tile.warp_specialize'}}
    tile.warp_specialize %c0 to %c1 step %c1 stages 1
        producer(%k2, %s2) threads 128 {
    } consumer(%k2, %s2) threads 128 {
    }
  } consumer(%k, %s) threads 128 {
  }
}

// -----

tile.kernel @ws_region_arguments() grid [1] threads [256] {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // expected-error @+1 {{'tile.warp_specialize' op consumer region must take two index arguments: the iteration and the stage}}
  tile.warp_specialize %c0 to %c1 step %c1 stages 1
      producer(%k, %s) threads 128 {
  } consumer(%k) threads 128 {
  }
}

// -----

//===----------------------------------------------------------------------===//
// tile.print
//===----------------------------------------------------------------------===//

tile.kernel @print_placeholders() grid [1] threads [32] {
  %tx = tile.thread_id x
  // expected-error @+1 {{'tile.print' op format has 2 '{}' placeholder(s) but 1 value(s) are given}}
  tile.print "{} and {}" %tx : index
}

// -----

tile.kernel @print_wide(%x: i128) grid [1] threads [32] {
  // expected-error @+1 {{'tile.print' op can print signless integers of up to 64 bits, got 'i128'}}
  tile.print "{}" %x : i128
}

// -----

tile.kernel @print_unsigned(%x: ui32) grid [1] threads [32] {
  // expected-error @+1 {{'tile.print' op can print signless integers of up to 64 bits, got 'ui32'}}
  tile.print "{}" %x : ui32
}

// -----

//===----------------------------------------------------------------------===//
// Reference implementations
//===----------------------------------------------------------------------===//

// expected-error @+1 {{'tile.kernel' op reference @missing does not exist}}
tile.kernel @missing_reference(%a: memref<4xf32>) grid [1] threads [32] attributes {reference = @missing} {
}

// -----

func.func @ref(%a: memref<8xf32>) {
  return
}
// expected-error @+1 {{'tile.kernel' op reference @ref must take the kernel's argument types ('(memref<4xf32>) -> ()' vs '(memref<8xf32>) -> ()'); memrefs may differ in static versus dynamic sizes only}}
tile.kernel @reference_types(%a: memref<4xf32>) grid [1] threads [32] attributes {reference = @ref} {
}

// -----

func.func @ref(%a: memref<4xf32>) -> f32 {
  %f = arith.constant 0.0 : f32
  return %f : f32
}
// expected-error @+1 {{'tile.kernel' op reference @ref must return nothing and write its outputs to its memref arguments}}
tile.kernel @reference_results(%a: memref<4xf32>) grid [1] threads [32] attributes {reference = @ref} {
}

// -----

// expected-error @+1 {{'tile.kernel' op cannot be its own reference}}
tile.kernel @self(%a: memref<4xf32>) grid [1] threads [32] attributes {reference = @self} {
}

// -----

memref.global @ref : memref<4xf32>
// expected-error @+1 {{'tile.kernel' op reference @ref must be a 'func.func' or a 'tile.kernel', got 'memref.global'}}
tile.kernel @reference_kind(%a: memref<4xf32>) grid [1] threads [32] attributes {reference = @ref} {
}

// -----

// Regression: any read of a per-thread buffer is per thread, affine.load too.
tile.kernel @affine_load_local(%A: memref<128xf32>) grid [1] threads [128] {
  %tx = tile.thread_id x
  %z = arith.constant 0.0 : f32
  %l = tile.alloc_local : memref<1xf32>
  %v = memref.load %A[%tx] : memref<128xf32>
  affine.store %v, %l[0] : memref<1xf32>
  %w = affine.load %l[0] : memref<1xf32>
  %p = arith.cmpf ogt, %w, %z : f32
  // expected-note @+1 {{thread-dependent control flow: 'scf.if'}}
  scf.if %p {
    // expected-error @+1 {{'tile.barrier' op is collective (every thread of the block must reach it) but is nested in control flow that depends on the thread index}}
    tile.barrier
  }
}

// -----

// Regression: a warp-specialized pipeline whose bounds depend on the thread
// would deadlock (its roles would not all arrive on the stage barriers).
tile.kernel @ws_divergent_bounds() grid [1] threads [256] {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %tx = tile.thread_id x
  %ub = arith.remui %tx, %c16 : index
  %buf = tile.alloc_shared : memref<1x8xf32, #gpu.address_space<workgroup>>
  // expected-error @below {{'tile.warp_specialize' op bounds and step must be the same in every thread: each role's threads all arrive on the stage barriers in every iteration}}
  tile.warp_specialize %c0 to %ub step %c1 stages 1
      buffers(%buf : memref<1x8xf32, #gpu.address_space<workgroup>>)
      producer(%k, %s) threads 128 {
  } consumer(%k, %s) threads 128 {
  }
}

// -----

// Regression: the role attributes of a lowered warp_specialize cannot be
// put on arbitrary control flow (they exempt it from the divergence check).
tile.kernel @forged_role(%X: memref<64xf32>) grid [1] threads [64] {
  %c32 = arith.constant 32 : index
  %tx = tile.thread_id x
  %lo = arith.cmpi ult, %tx, %c32 : index
  // expected-error @below {{'scf.if' op 'tile.role_first' marks a role of a lowered 'tile.warp_specialize': its condition must select exactly the role's threads (index < threads for the first role, index >= first for the last; or the same in warps of a shuffled warp index)}}
  scf.if %lo {
    tile.barrier
  } {tile.role_first = 0 : i64, tile.role_threads = 16 : i64}
}

//===----------------------------------------------------------------------===//
// Fragments, swizzles, tile.gemm
//===----------------------------------------------------------------------===//

// -----

tile.kernel @fragment_space() grid [1] threads [32] {
  // expected-error @+1 {{'tile.alloc_fragment' op result must be in the '#tile.fragment' memory space, got 'memref<32xf32>'}}
  %f = tile.alloc_fragment : memref<32xf32>
}

// -----

tile.kernel @fragment_nested(%n: index) grid [1] threads [32] {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %n step %c1 {
    // expected-error @+1 {{'tile.alloc_fragment' op must stand at the top level of a 'tile.kernel' body}}
    %f = tile.alloc_fragment : memref<32xf32, #tile.fragment>
  }
}

// -----

tile.kernel @fragment_layout_threads() grid [1] threads [64] {
  // expected-error @+1 {{'tile.alloc_fragment' op layout spreads the fragment over 2 threads but the block has 64 (and no pipeline's consumer role has 2)}}
  %f = tile.alloc_fragment {layout = #tile.layout<shape = [4], threads = 2, registers = 2, map = (d0, d1) -> (d1 * 2 + d0)>} : memref<4xf32, #tile.fragment>
}

// -----

tile.kernel @layout_not_bijective() grid [1] threads [4] {
  // expected-error @+1 {{thread 1, register 0 maps to (0), an element another register holds too: a fragment layout of as many registers as elements must hold each element exactly once}}
  %f = tile.alloc_fragment {layout = #tile.layout<shape = [4], threads = 4, registers = 1, map = (d0, d1) -> (d0 floordiv 2)>} : memref<4xf32, #tile.fragment>
}

// -----

tile.kernel @replicated_layout_misses() grid [1] threads [4] {
  // expected-error @+1 {{a replicated fragment layout must hold every element, but element 2 (row-major) is held by no thread}}
  %f = tile.alloc_fragment {layout = #tile.layout<shape = [4], threads = 4, registers = 2, map = (d0, d1) -> (d0 floordiv 2)>} : memref<4xf32, #tile.fragment>
}

// -----

tile.kernel @layout_too_few_registers() grid [1] threads [2] {
  // expected-error @+1 {{2 threads x 1 registers cannot hold the 4 elements of the tile}}
  %f = tile.alloc_fragment {layout = #tile.layout<shape = [4], threads = 2, registers = 1, map = (d0, d1) -> (d0)>} : memref<4xf32, #tile.fragment>
}

// -----

tile.kernel @swizzle_value() grid [1] threads [32] {
  // expected-error @+1 {{'tile.alloc_shared' op swizzle must be 128 (bytes) or 0 (none), got 64}}
  %s = tile.alloc_shared {swizzle = 64} : memref<32x64xf16, #gpu.address_space<workgroup>>
}

// -----

tile.kernel @swizzle_shape() grid [1] threads [32] {
  // expected-error @+1 {{'tile.alloc_shared' op cannot swizzle 'memref<3x32xf16, #gpu.address_space<workgroup>>': its rows of 64 bytes (x 3) do not fill whole 128-byte lines}}
  %s = tile.alloc_shared {swizzle = 128} : memref<3x32xf16, #gpu.address_space<workgroup>>
}

// -----

tile.kernel @gemm_shapes() grid [1] threads [128] {
  %As = tile.alloc_shared : memref<64x32xf16, #gpu.address_space<workgroup>>
  %Bs = tile.alloc_shared : memref<16x64xf16, #gpu.address_space<workgroup>>
  %acc = tile.alloc_fragment : memref<64x64xf32, #tile.fragment>
  // expected-error @+1 {{'tile.gemm' op shapes do not multiply: A is 64x32, B is 16x64, C is 64x64; A must be MxK, B KxN and C MxN}}
  tile.gemm %As, %Bs, %acc : memref<64x32xf16, #gpu.address_space<workgroup>>, memref<16x64xf16, #gpu.address_space<workgroup>>, memref<64x64xf32, #tile.fragment>
}

// -----

tile.kernel @gemm_types() grid [1] threads [128] {
  %As = tile.alloc_shared : memref<64x32xbf16, #gpu.address_space<workgroup>>
  %Bs = tile.alloc_shared : memref<32x64xbf16, #gpu.address_space<workgroup>>
  %acc = tile.alloc_fragment : memref<64x64xf16, #tile.fragment>
  // expected-error @+1 {{'tile.gemm' op unsupported element types 'bf16' x 'bf16' -> 'f16': supported are f16 x f16 -> f32 or f16, bf16 x bf16 -> f32 and f32 x f32 -> f32 (tf32)}}
  tile.gemm %As, %Bs, %acc : memref<64x32xbf16, #gpu.address_space<workgroup>>, memref<32x64xbf16, #gpu.address_space<workgroup>>, memref<64x64xf16, #tile.fragment>
}

// -----

tile.kernel @gemm_global_operand(%A: memref<64x32xf16>) grid [1] threads [128] {
  %Bs = tile.alloc_shared : memref<32x64xf16, #gpu.address_space<workgroup>>
  %acc = tile.alloc_fragment : memref<64x64xf32, #tile.fragment>
  // expected-error @+1 {{'tile.gemm' op operand A must be in shared memory (#gpu.address_space<workgroup>) or a fragment, got 'memref<64x32xf16>'}}
  tile.gemm %A, %Bs, %acc : memref<64x32xf16>, memref<32x64xf16, #gpu.address_space<workgroup>>, memref<64x64xf32, #tile.fragment>
}

// -----

tile.kernel @gemm_fragment_b() grid [1] threads [128] {
  %As = tile.alloc_shared : memref<64x32xf16, #gpu.address_space<workgroup>>
  %B = tile.alloc_fragment : memref<32x64xf16, #tile.fragment>
  %acc = tile.alloc_fragment : memref<64x64xf32, #tile.fragment>
  // expected-error @+1 {{'tile.gemm' op operand B must be in shared memory (#gpu.address_space<workgroup>), got 'memref<32x64xf16, #tile.fragment>'}}
  tile.gemm %As, %B, %acc : memref<64x32xf16, #gpu.address_space<workgroup>>, memref<32x64xf16, #tile.fragment>, memref<64x64xf32, #tile.fragment>
}

// -----

tile.kernel @gemm_fragment_a_transposed() grid [1] threads [128] {
  %A = tile.alloc_fragment : memref<32x64xf16, #tile.fragment>
  %Bs = tile.alloc_shared : memref<32x64xf16, #gpu.address_space<workgroup>>
  %acc = tile.alloc_fragment : memref<64x64xf32, #tile.fragment>
  // expected-error @+1 {{'tile.gemm' op a fragment A operand is held as M x K: 'transpose_a' does not apply to it}}
  tile.gemm %A, %Bs, %acc {transpose_a} : memref<32x64xf16, #tile.fragment>, memref<32x64xf16, #gpu.address_space<workgroup>>, memref<64x64xf32, #tile.fragment>
}

// -----

tile.kernel @gemm_fragment_a_tf32() grid [1] threads [128] {
  %A = tile.alloc_fragment : memref<64x32xf32, #tile.fragment>
  %Bs = tile.alloc_shared : memref<32x64xf32, #gpu.address_space<workgroup>>
  %acc = tile.alloc_fragment : memref<64x64xf32, #tile.fragment>
  // expected-error @+1 {{'tile.gemm' op a fragment A operand must hold f16 or bf16 (the mma.sync m16n8k16 operand registers), got 'f32'}}
  tile.gemm %A, %Bs, %acc : memref<64x32xf32, #tile.fragment>, memref<32x64xf32, #gpu.address_space<workgroup>>, memref<64x64xf32, #tile.fragment>
}

// -----

tile.kernel @gemm_fragment_a_warps() grid [1] threads [128] {
  %A = tile.alloc_fragment : memref<64x32xf16, #tile.fragment>
  %Bs = tile.alloc_shared : memref<32x64xf16, #gpu.address_space<workgroup>>
  %acc = tile.alloc_fragment : memref<64x64xf32, #tile.fragment>
  // expected-error @+1 {{'tile.gemm' op a fragment A operand needs the warps to split M only (warps [W, 1]): each warp holds whole rows of A; got warps [2, 2]}}
  tile.gemm %A, %Bs, %acc {warps = array<i64: 2, 2>} : memref<64x32xf16, #tile.fragment>, memref<32x64xf16, #gpu.address_space<workgroup>>, memref<64x64xf32, #tile.fragment>
}

// -----

tile.kernel @gemm_accumulator_space() grid [1] threads [128] {
  %As = tile.alloc_shared : memref<64x32xf16, #gpu.address_space<workgroup>>
  %Bs = tile.alloc_shared : memref<32x64xf16, #gpu.address_space<workgroup>>
  %acc = tile.alloc_shared : memref<64x64xf32, #gpu.address_space<workgroup>>
  // expected-error @+1 {{'tile.gemm' op operand C (the accumulator) must be a 2-D fragment ('#tile.fragment' memory space)}}
  tile.gemm %As, %Bs, %acc : memref<64x32xf16, #gpu.address_space<workgroup>>, memref<32x64xf16, #gpu.address_space<workgroup>>, memref<64x64xf32, #gpu.address_space<workgroup>>
}

// -----

tile.kernel @gemm_warps_threads() grid [1] threads [128] {
  %As = tile.alloc_shared : memref<64x32xf16, #gpu.address_space<workgroup>>
  %Bs = tile.alloc_shared : memref<32x64xf16, #gpu.address_space<workgroup>>
  %acc = tile.alloc_fragment : memref<64x64xf32, #tile.fragment>
  // expected-error @+1 {{'tile.gemm' op warps [2, 4] hold 256 threads but the block has 128}}
  tile.gemm %As, %Bs, %acc {warps = array<i64: 2, 4>} : memref<64x32xf16, #gpu.address_space<workgroup>>, memref<32x64xf16, #gpu.address_space<workgroup>>, memref<64x64xf32, #tile.fragment>
}

// -----

tile.kernel @gemm_tile_too_small() grid [1] threads [128] {
  %As = tile.alloc_shared : memref<64x32xf16, #gpu.address_space<workgroup>>
  %Bs = tile.alloc_shared : memref<32x16xf16, #gpu.address_space<workgroup>>
  %acc = tile.alloc_fragment : memref<64x16xf32, #tile.fragment>
  // expected-error @+1 {{'tile.gemm' op warps [1, 4] split the 64x16 accumulator into tiles that are not whole 16x8 tensor-core tiles}}
  tile.gemm %As, %Bs, %acc {warps = array<i64: 1, 4>} : memref<64x32xf16, #gpu.address_space<workgroup>>, memref<32x16xf16, #gpu.address_space<workgroup>>, memref<64x16xf32, #tile.fragment>
}

// -----

tile.kernel @gemm_mma_k() grid [1] threads [32] {
  %As = tile.alloc_shared : memref<16x8xf16, #gpu.address_space<workgroup>>
  %Bs = tile.alloc_shared : memref<8x8xf16, #gpu.address_space<workgroup>>
  %acc = tile.alloc_fragment : memref<16x8xf32, #tile.fragment>
  // expected-error @+1 {{'tile.gemm' op mma_sync lowering needs K to be a multiple of 16, got 8}}
  tile.gemm %As, %Bs, %acc {lowering = #tile.gemm_lowering<mma_sync>} : memref<16x8xf16, #gpu.address_space<workgroup>>, memref<8x8xf16, #gpu.address_space<workgroup>>, memref<16x8xf32, #tile.fragment>
}

// -----

tile.kernel @copy_fragment_convert_int(%A: memref<32xi32>) grid [1] threads [32] {
  %f = tile.alloc_fragment : memref<32xf32, #tile.fragment>
  // expected-error @+1 {{'tile.copy' op source element type 'i32' and target element type 'f32' differ; tile.copy converts only between float types, with a fragment on one side}}
  tile.copy %A to %f : memref<32xi32> to memref<32xf32, #tile.fragment>
}

// -----

tile.kernel @fragment_zero_extent() grid [1] threads [32] {
  // expected-error @+1 {{'tile.alloc_fragment' op a fragment needs positive extents, got 'memref<0x16xf32, #tile.fragment>'}}
  %f = tile.alloc_fragment : memref<0x16xf32, #tile.fragment>
}

// -----

tile.kernel @fragment_too_large() grid [1] threads [32] {
  // expected-error @+1 {{'tile.alloc_fragment' op a fragment of 16384 elements gives each of the 32 threads 512 registers, more than 256: split the tile}}
  %f = tile.alloc_fragment : memref<128x128xf32, #tile.fragment>
}

// -----

tile.kernel @swizzle_empty() grid [1] threads [32] {
  // expected-error @+1 {{'tile.alloc_shared' op cannot swizzle 'memref<64x0xf16, #gpu.address_space<workgroup>>': a swizzled buffer is not empty}}
  %s = tile.alloc_shared {swizzle = 128} : memref<64x0xf16, #gpu.address_space<workgroup>>
}

// -----

tile.kernel @gemm_zero_k() grid [1] threads [32] {
  %As = tile.alloc_shared : memref<16x0xf16, #gpu.address_space<workgroup>>
  %Bs = tile.alloc_shared : memref<0x8xf16, #gpu.address_space<workgroup>>
  %acc = tile.alloc_fragment : memref<16x8xf32, #tile.fragment>
  // expected-error @+1 {{'tile.gemm' op M, N and K must be positive, got 16, 8 and 0}}
  tile.gemm %As, %Bs, %acc : memref<16x0xf16, #gpu.address_space<workgroup>>, memref<0x8xf16, #gpu.address_space<workgroup>>, memref<16x8xf32, #tile.fragment>
}

// -----

tile.kernel @parallel_layout_shape() grid [1] threads [2] {
  // expected-error @+1 {{'tile.parallel' op layout shape [4] differs from the iteration space [8]}}
  tile.parallel (%i) in [8] {
  } {layout = #tile.layout<shape = [4], threads = 2, registers = 2, map = (d0, d1) -> (d1 * 2 + d0)>}
}

// -----

tile.kernel @parallel_layout_threads() grid [1] threads [32] {
  // expected-error @+1 {{'tile.parallel' op layout spreads the iterations over 2 threads but the block has 32 (and no pipeline's consumer role has 2)}}
  tile.parallel (%i) in [4] {
  } {layout = #tile.layout<shape = [4], threads = 2, registers = 2, map = (d0, d1) -> (d1 * 2 + d0)>}
}

// -----

tile.kernel @copy_fragment_alloca(%A: memref<32xf16>) grid [1] threads [32] {
  %f = memref.alloca() : memref<32xf32, #tile.fragment>
  // expected-error @+1 {{'tile.copy' op a fragment operand must be a 'tile.alloc_fragment' (not a view or another allocation of the '#tile.fragment' space)}}
  tile.copy %A to %f : memref<32xf16> to memref<32xf32, #tile.fragment>
}

// -----

tile.kernel @layout_too_large() grid [1] threads [32] {
  // expected-error @+1 {{a fragment of more than 1048576 elements is too large for registers}}
  %f = tile.alloc_fragment {layout = #tile.layout<shape = [3, 6148914691236517206], threads = 1, registers = 2, map = (d0, d1) -> (d0, d1)>} : memref<3x2xf32, #tile.fragment>
}

// -----

// Threads x registers beyond what a block holds: rejected before the
// layout is enumerated.
tile.kernel @layout_too_many_pairs() grid [1] threads [32] {
  // expected-error @+1 {{a fragment layout of 1024 threads x 2048 registers is too large (at most 1048576 pairs)}}
  %f = tile.alloc_fragment {layout = #tile.layout<shape = [4], threads = 1024, registers = 2048, map = (d0, d1) -> (0)>} : memref<4xf32, #tile.fragment>
}

// -----

tile.kernel @for_each_owned_not_fragment() grid [1] threads [32] {
  %s = tile.alloc_shared : memref<32xf32, #gpu.address_space<workgroup>>
  // expected-error @+1 {{'tile.for_each_owned' op iterates over a fragment ('#tile.fragment' memory space), got 'memref<32xf32, #gpu.address_space<workgroup>>'}}
  tile.for_each_owned %s (%r, %i) : memref<32xf32, #gpu.address_space<workgroup>> {
  }
}

// -----

tile.kernel @for_each_owned_arguments() grid [1] threads [32] {
  %f = tile.alloc_fragment : memref<32x4xf32, #tile.fragment>
  // expected-error @+1 {{'tile.for_each_owned' op takes the register number and one coordinate per dimension of the fragment: 3 block arguments, got 2}}
  tile.for_each_owned %f (%r, %i) : memref<32x4xf32, #tile.fragment> {
  }
}

// -----

tile.kernel @convert_layout_not_fragments(%X: memref<32x4xf32>) grid [1] threads [32] {
  %f = tile.alloc_fragment : memref<32x4xf32, #tile.fragment>
  // expected-error @+1 {{'tile.copy' op 'convert_layout' converts between two fragments' layouts: both operands must be fragments}}
  tile.copy %X to %f {convert_layout} : memref<32x4xf32> to memref<32x4xf32, #tile.fragment>
}

// -----

tile.kernel @wgmma_partial_warp_group() grid [1] threads [64] {
  %As = tile.alloc_shared : memref<32x64xf16, #gpu.address_space<workgroup>>
  %Bs = tile.alloc_shared : memref<64x64xf16, #gpu.address_space<workgroup>>
  %acc = tile.alloc_fragment : memref<32x64xf32, #tile.fragment>
  // expected-error @+1 {{'tile.gemm' op wgmma lowering runs on whole warp groups (4 warps): the block has 2 warps}}
  tile.gemm %As, %Bs, %acc {lowering = #tile.gemm_lowering<wgmma>} : memref<32x64xf16, #gpu.address_space<workgroup>>, memref<64x64xf16, #gpu.address_space<workgroup>>, memref<32x64xf32, #tile.fragment>
}

// -----

tile.kernel @wgmma_rows() grid [1] threads [128] {
  %As = tile.alloc_shared : memref<128x64xf16, #gpu.address_space<workgroup>>
  %Bs = tile.alloc_shared : memref<64x64xf16, #gpu.address_space<workgroup>>
  %acc = tile.alloc_fragment : memref<128x64xf32, #tile.fragment>
  // expected-error @+1 {{'tile.gemm' op wgmma lowering gives each warp group 64 rows of C: M must be 16 x 4 warps = 64, got 128}}
  tile.gemm %As, %Bs, %acc {lowering = #tile.gemm_lowering<wgmma>} : memref<128x64xf16, #gpu.address_space<workgroup>>, memref<64x64xf16, #gpu.address_space<workgroup>>, memref<128x64xf32, #tile.fragment>
}

// -----

tile.kernel @wgmma_warp_split() grid [1] threads [128] {
  %As = tile.alloc_shared : memref<64x64xf16, #gpu.address_space<workgroup>>
  %Bs = tile.alloc_shared : memref<64x64xf16, #gpu.address_space<workgroup>>
  %acc = tile.alloc_fragment : memref<64x64xf32, #tile.fragment>
  // expected-error @+1 {{'tile.gemm' op wgmma lowering splits the warps along M only (warps [W, 1]); got warps [2, 2]}}
  tile.gemm %As, %Bs, %acc {warps = array<i64: 2, 2>, lowering = #tile.gemm_lowering<wgmma>} : memref<64x64xf16, #gpu.address_space<workgroup>>, memref<64x64xf16, #gpu.address_space<workgroup>>, memref<64x64xf32, #tile.fragment>
}

// -----

tile.kernel @wgmma_short_rows() grid [1] threads [128] {
  %As = tile.alloc_shared : memref<64x32xf16, #gpu.address_space<workgroup>>
  %Bs = tile.alloc_shared : memref<32x64xf16, #gpu.address_space<workgroup>>
  %acc = tile.alloc_fragment : memref<64x64xf32, #tile.fragment>
  // expected-error @+1 {{'tile.gemm' op wgmma lowering reads operand A in 128-byte swizzled lines: its rows of 64 bytes ('memref<64x32xf16, #gpu.address_space<workgroup>>') must be a multiple of 128 bytes}}
  tile.gemm %As, %Bs, %acc {lowering = #tile.gemm_lowering<wgmma>} : memref<64x32xf16, #gpu.address_space<workgroup>>, memref<32x64xf16, #gpu.address_space<workgroup>>, memref<64x64xf32, #tile.fragment>
}

// -----

tile.kernel @wgmma_tf32_mn_major() grid [1] threads [128] {
  %As = tile.alloc_shared : memref<32x64xf32, #gpu.address_space<workgroup>>
  %Bs = tile.alloc_shared : memref<32x64xf32, #gpu.address_space<workgroup>>
  %acc = tile.alloc_fragment : memref<64x64xf32, #tile.fragment>
  // expected-error @+1 {{'tile.gemm' op wgmma lowering reads tf32 operands K-major only: A must be stored M x K (no 'transpose_a')}}
  tile.gemm %As, %Bs, %acc {transpose_a, lowering = #tile.gemm_lowering<wgmma>} : memref<32x64xf32, #gpu.address_space<workgroup>>, memref<32x64xf32, #gpu.address_space<workgroup>>, memref<64x64xf32, #tile.fragment>
}

// -----

// tf32 with B stored K x N is computed as C^T = B^T A^T: the warp groups
// split N, so N must be 64 per warp group.
tile.kernel @wgmma_tf32_transposed_n() grid [1] threads [128] {
  %As = tile.alloc_shared : memref<64x32xf32, #gpu.address_space<workgroup>>
  %Bs = tile.alloc_shared : memref<32x128xf32, #gpu.address_space<workgroup>>
  %acc = tile.alloc_fragment : memref<64x128xf32, #tile.fragment>
  // expected-error @+1 {{'tile.gemm' op wgmma lowering gives each warp group 64 columns of C (tf32 with B stored K x N is computed as C^T = B^T A^T): N must be 16 x 4 warps = 64, got 128}}
  tile.gemm %As, %Bs, %acc {lowering = #tile.gemm_lowering<wgmma>} : memref<64x32xf32, #gpu.address_space<workgroup>>, memref<32x128xf32, #gpu.address_space<workgroup>>, memref<64x128xf32, #tile.fragment>
}

// -----

tile.kernel @wgmma_tf32_transposed_warps() grid [1] threads [128] {
  %As = tile.alloc_shared : memref<64x32xf32, #gpu.address_space<workgroup>>
  %Bs = tile.alloc_shared : memref<32x64xf32, #gpu.address_space<workgroup>>
  %acc = tile.alloc_fragment : memref<64x64xf32, #tile.fragment>
  // expected-error @+1 {{'tile.gemm' op wgmma lowering splits the warps along N only (warps [1, W]: tf32 with B stored K x N); got warps [4, 1]}}
  tile.gemm %As, %Bs, %acc {warps = array<i64: 4, 1>, lowering = #tile.gemm_lowering<wgmma>} : memref<64x32xf32, #gpu.address_space<workgroup>>, memref<32x64xf32, #gpu.address_space<workgroup>>, memref<64x64xf32, #tile.fragment>
}

// -----

tile.kernel @wgmma_f16_accumulator() grid [1] threads [128] {
  %As = tile.alloc_shared : memref<64x64xf16, #gpu.address_space<workgroup>>
  %Bs = tile.alloc_shared : memref<64x64xf16, #gpu.address_space<workgroup>>
  %acc = tile.alloc_fragment : memref<64x64xf16, #tile.fragment>
  // expected-error @+1 {{'tile.gemm' op wgmma lowering accumulates in f32, got 'f16' (f16 accumulation: lowering = #tile.gemm_lowering<mma_sync>)}}
  tile.gemm %As, %Bs, %acc {lowering = #tile.gemm_lowering<wgmma>} : memref<64x64xf16, #gpu.address_space<workgroup>>, memref<64x64xf16, #gpu.address_space<workgroup>>, memref<64x64xf16, #tile.fragment>
}

// -----

tile.kernel @tma_target_rank(%A: memref<64x64xf16>) grid [1] threads [32] {
  %c0 = arith.constant 0 : index
  %bars = nvgpu.mbarrier.create -> !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 1>
  %As = tile.alloc_shared : memref<1x32x64xf16, #gpu.address_space<workgroup>>
  // expected-error @+1 {{'tile.tma_load' op cannot copy with TMA: the tile's rank 3 is not between 1 and the tensor's 2}}
  tile.tma_load %A[%c0, %c0] to %As, %bars[%c0] : memref<64x64xf16> to memref<1x32x64xf16, #gpu.address_space<workgroup>>, !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 1>
}

// -----

tile.kernel @tma_round_tf32_f16(%A: memref<64x64xf16>) grid [1] threads [32] {
  %c0 = arith.constant 0 : index
  %bars = nvgpu.mbarrier.create -> !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 1>
  %As = tile.alloc_shared : memref<32x64xf16, #gpu.address_space<workgroup>>
  // expected-error @+1 {{'tile.tma_load' op rounds to tf32 only f32 elements, not 'f16'}}
  tile.tma_load %A[%c0, %c0] to %As, %bars[%c0] {round_tf32} : memref<64x64xf16> to memref<32x64xf16, #gpu.address_space<workgroup>>, !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 1>
}

// -----

tile.kernel @tma_source_not_argument(%A: memref<64x64xf16>) grid [1] threads [32] {
  %c0 = arith.constant 0 : index
  %bars = nvgpu.mbarrier.create -> !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 1>
  %view = memref.subview %A[0, 0] [32, 64] [1, 1] : memref<64x64xf16> to memref<32x64xf16, strided<[64, 1]>>
  %As = tile.alloc_shared : memref<32x64xf16, #gpu.address_space<workgroup>>
  // expected-error @+1 {{'tile.tma_load' op source must be a memref argument of the kernel: the launcher encodes its tensor map}}
  tile.tma_load %view[%c0, %c0] to %As, %bars[%c0] : memref<32x64xf16, strided<[64, 1]>> to memref<32x64xf16, #gpu.address_space<workgroup>>, !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 1>
}

// -----

tile.kernel @tma_target_not_shared(%A: memref<64x64xf16>, %B: memref<64x64xf16>) grid [1] threads [32] {
  %c0 = arith.constant 0 : index
  %bars = nvgpu.mbarrier.create -> !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 1>
  // expected-error @+1 {{'tile.tma_load' op target must be in shared (workgroup) memory}}
  tile.tma_load %A[%c0, %c0] to %B, %bars[%c0] : memref<64x64xf16> to memref<64x64xf16>, !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 1>
}

// -----

tile.kernel @tma_narrow_swizzle(%A: memref<64x64xf16>) grid [1] threads [32] {
  %c0 = arith.constant 0 : index
  %bars = nvgpu.mbarrier.create -> !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 1>
  %As = tile.alloc_shared : memref<64x32xf16, #gpu.address_space<workgroup>>
  // expected-error @+1 {{'tile.tma_load' op cannot copy with TMA: the 128-byte-swizzled tile has 64-byte rows; TMA writes rows of whole 128-byte panels}}
  tile.tma_load %A[%c0, %c0] to %As, %bars[%c0] {swizzle = 128} : memref<64x64xf16> to memref<64x32xf16, #gpu.address_space<workgroup>>, !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 1>
}

// -----

tile.kernel @tma_swizzle_span(%A: memref<64x64xf16>) grid [1] threads [32] {
  %c0 = arith.constant 0 : index
  %bars = nvgpu.mbarrier.create -> !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 1>
  %As = tile.alloc_shared : memref<64x64xf16, #gpu.address_space<workgroup>>
  // expected-error @+1 {{'tile.tma_load' op cannot copy with TMA: swizzle 64 is not one TMA writes here (0 or 128)}}
  tile.tma_load %A[%c0, %c0] to %As, %bars[%c0] {swizzle = 64} : memref<64x64xf16> to memref<64x64xf16, #gpu.address_space<workgroup>>, !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 1>
}

// -----

tile.kernel @tma_box_too_tall(%A: memref<1024x8xf32>) grid [1] threads [32] {
  %c0 = arith.constant 0 : index
  %bars = nvgpu.mbarrier.create -> !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 1>
  %As = tile.alloc_shared : memref<512x8xf32, #gpu.address_space<workgroup>>
  // expected-error @+1 {{'tile.tma_load' op cannot copy with TMA: the box has extent 512 in dimension 0, over TMA's limit of 256 elements}}
  tile.tma_load %A[%c0, %c0] to %As, %bars[%c0] : memref<1024x8xf32> to memref<512x8xf32, #gpu.address_space<workgroup>>, !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 1>
}

// -----

tile.kernel @tma_short_rows(%A: memref<64x64xf16>) grid [1] threads [32] {
  %c0 = arith.constant 0 : index
  %bars = nvgpu.mbarrier.create -> !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 1>
  %As = tile.alloc_shared : memref<64x4xf16, #gpu.address_space<workgroup>>
  // expected-error @+1 {{'tile.tma_load' op cannot copy with TMA: the tile's rows are 8 bytes; TMA boxes have rows of multiples of 16 bytes}}
  tile.tma_load %A[%c0, %c0] to %As, %bars[%c0] : memref<64x64xf16> to memref<64x4xf16, #gpu.address_space<workgroup>>, !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 1>
}

// -----

tile.kernel @tma_indices(%A: memref<64x64xf16>) grid [1] threads [32] {
  %c0 = arith.constant 0 : index
  %bars = nvgpu.mbarrier.create -> !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 1>
  %As = tile.alloc_shared : memref<64x64xf16, #gpu.address_space<workgroup>>
  // expected-error @+1 {{'tile.tma_load' op expected 2 indices, one per source dimension, got 1}}
  tile.tma_load %A[%c0] to %As, %bars[%c0] : memref<64x64xf16> to memref<64x64xf16, #gpu.address_space<workgroup>>, !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 1>
}

// -----

tile.kernel @tma_store_target_not_argument(%C: memref<64x64xf16>) grid [1] threads [32] {
  %c0 = arith.constant 0 : index
  %view = memref.subview %C[0, 0] [32, 64] [1, 1] : memref<64x64xf16> to memref<32x64xf16, strided<[64, 1]>>
  %Cs = tile.alloc_shared : memref<32x64xf16, #gpu.address_space<workgroup>>
  // expected-error @+1 {{'tile.tma_store' op target must be a memref argument of the kernel: the launcher encodes its tensor map}}
  tile.tma_store %Cs to %view[%c0, %c0] : memref<32x64xf16, #gpu.address_space<workgroup>> to memref<32x64xf16, strided<[64, 1]>>
}

// -----

tile.kernel @tma_store_source_not_shared(%C: memref<64x64xf16>, %D: memref<64x64xf16>) grid [1] threads [32] {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{'tile.tma_store' op source must be in shared (workgroup) memory}}
  tile.tma_store %D to %C[%c0, %c0] : memref<64x64xf16> to memref<64x64xf16>
}

// -----

tile.kernel @tma_store_indices(%C: memref<64x64xf16>) grid [1] threads [32] {
  %c0 = arith.constant 0 : index
  %Cs = tile.alloc_shared : memref<64x64xf16, #gpu.address_space<workgroup>>
  // expected-error @+1 {{'tile.tma_store' op expected 2 indices, one per target dimension, got 1}}
  tile.tma_store %Cs to %C[%c0] : memref<64x64xf16, #gpu.address_space<workgroup>> to memref<64x64xf16>
}

// -----

tile.kernel @tma_store_narrow_swizzle(%C: memref<64x64xf16>) grid [1] threads [32] {
  %c0 = arith.constant 0 : index
  %Cs = tile.alloc_shared : memref<64x32xf16, #gpu.address_space<workgroup>>
  // expected-error @+1 {{'tile.tma_store' op cannot copy with TMA: the 128-byte-swizzled tile has 64-byte rows; TMA writes rows of whole 128-byte panels}}
  tile.tma_store %Cs to %C[%c0, %c0] {swizzle = 128} : memref<64x32xf16, #gpu.address_space<workgroup>> to memref<64x64xf16>
}

// -----

tile.kernel @tma_store_element_type(%C: memref<64x64xf32>) grid [1] threads [32] {
  %c0 = arith.constant 0 : index
  %Cs = tile.alloc_shared : memref<64x64xf16, #gpu.address_space<workgroup>>
  // expected-error @+1 {{'tile.tma_store' op cannot copy with TMA: the tile's element type f16 differs from the tensor's f32}}
  tile.tma_store %Cs to %C[%c0, %c0] : memref<64x64xf16, #gpu.address_space<workgroup>> to memref<64x64xf32>
}

// -----

tile.kernel @tma_barriers(%A: memref<64x64xf16>) grid [1] threads [32] {
  %c0 = arith.constant 0 : index
  %As = tile.alloc_shared : memref<64x64xf16, #gpu.address_space<workgroup>>
  // expected-error @+1 {{operand #4 must be a group of mbarriers (!nvgpu.mbarrier.group), but got 'index'}}
  tile.tma_load %A[%c0, %c0] to %As, %c0[%c0] : memref<64x64xf16> to memref<64x64xf16, #gpu.address_space<workgroup>>, index
}

// -----

tile.kernel @reduce_dim(%X: memref<4x64xf32>) grid [1] threads [64] {
  %x = tile.alloc_fragment : memref<4x64xf32, #tile.fragment>
  %s = tile.alloc_fragment : memref<4xf32, #tile.fragment>
  // expected-error @+1 {{'tile.reduce' op reduces dimension 2, but the source 'memref<4x64xf32, #tile.fragment>' has 2 dimensions}}
  tile.reduce add %x into %s dim 2 : memref<4x64xf32, #tile.fragment> into memref<4xf32, #tile.fragment>
}

// -----

tile.kernel @reduce_shape(%X: memref<4x64xf32>) grid [1] threads [64] {
  %x = tile.alloc_fragment : memref<4x64xf32, #tile.fragment>
  %s = tile.alloc_fragment : memref<64xf32, #tile.fragment>
  // expected-error @+1 {{'tile.reduce' op target shape [64] is not the source's shape without dimension 1 ([4])}}
  tile.reduce add %x into %s dim 1 : memref<4x64xf32, #tile.fragment> into memref<64xf32, #tile.fragment>
}

// -----

tile.kernel @reduce_types(%X: memref<4x64xf32>) grid [1] threads [64] {
  %x = tile.alloc_fragment : memref<4x64xf32, #tile.fragment>
  %s = tile.alloc_fragment : memref<4xf16, #tile.fragment>
  // expected-error @+1 {{'tile.reduce' op source and target element types differ: 'f32' and 'f16'}}
  tile.reduce max %x into %s dim 1 : memref<4x64xf32, #tile.fragment> into memref<4xf16, #tile.fragment>
}

// -----

tile.kernel @reduce_shared(%X: memref<4x64xf32>) grid [1] threads [64] {
  %x = tile.alloc_shared : memref<4x64xf32, #gpu.address_space<workgroup>>
  %s = tile.alloc_fragment : memref<4xf32, #tile.fragment>
  // expected-error @+1 {{'tile.reduce' op reduces a fragment ('#tile.fragment' memory space); copy a shared or global tile into one first, got 'memref<4x64xf32, #gpu.address_space<workgroup>>'}}
  tile.reduce max %x into %s dim 1 : memref<4x64xf32, #gpu.address_space<workgroup>> into memref<4xf32, #tile.fragment>
}

// -----

tile.kernel @reduce_bitwise_float(%X: memref<4x64xf32>) grid [1] threads [64] {
  %x = tile.alloc_fragment : memref<4x64xf32, #tile.fragment>
  %s = tile.alloc_fragment : memref<4xf32, #tile.fragment>
  // expected-error @+1 {{'tile.reduce' op 'xor' reduction needs integers, got 'f32'}}
  tile.reduce xor %x into %s dim 1 : memref<4x64xf32, #tile.fragment> into memref<4xf32, #tile.fragment>
}

// -----

// A stage view marked 'tile.swizzle' is rewritten as a swizzled tile: it
// must be one (found by scripts/fuzz.py: a 1-D view crashed the rewrite).
tile.kernel @swizzled_view_rank_one() grid [1] threads [32] {
  %c0 = arith.constant 0 : index
  %raw = tile.alloc_shared : memref<384xi8, #gpu.address_space<workgroup>>
  // expected-error @+1 {{'memref.view' op is marked 'tile.swizzle' but its type cannot be swizzled: a swizzled buffer has a static shape of rank 2 or more (its last two dimensions are the tile)}}
  %w = memref.view %raw[%c0][] {tile.swizzle} : memref<384xi8, #gpu.address_space<workgroup>> to memref<32xf32, #gpu.address_space<workgroup>>
}

// -----

// expected-error @+1 {{'func.func' op 'tile.defined_in' names the file that defines a function: a non-empty string on a 'func.func' declaration (no body)}}
func.func @defined_in_on_a_definition() attributes {tile.defined_in = "reference.mlir"} {
  return
}

// -----

tile.kernel @ws_tile_not_alloc() grid [1] threads [256] {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %raw = tile.alloc_shared : memref<8192xi8, #gpu.address_space<workgroup>>
  %A = memref.view %raw[%c0][] : memref<8192xi8, #gpu.address_space<workgroup>> to memref<64x64xf16, #gpu.address_space<workgroup>>
  // expected-error @below {{'tile.warp_specialize' op tile #0 must be a 'tile.alloc_shared' (the op allocates its stages in its place)}}
  tile.warp_specialize %c0 to %c1 step %c1 stages 2
      tiles(%A : memref<64x64xf16, #gpu.address_space<workgroup>>)
      producer(%k, %s) threads 128 {
  } consumer(%k, %s) threads 128 {
  }
}

// -----

tile.kernel @ws_tile_outside(%Y: memref<64x64xf16>) grid [1] threads [256] {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %As = tile.alloc_shared : memref<64x64xf16, #gpu.address_space<workgroup>>
  // expected-error @below {{'tile.warp_specialize' op tile #0 is used outside the op: it names the iteration's stage of the pipeline, which only the op's regions can see}}
  tile.warp_specialize %c0 to %c1 step %c1 stages 2
      tiles(%As : memref<64x64xf16, #gpu.address_space<workgroup>>)
      producer(%k, %s) threads 128 {
  } consumer(%k, %s) threads 128 {
  }
  // expected-note @below {{used here}}
  tile.copy %As to %Y[%c0, %c0] : memref<64x64xf16, #gpu.address_space<workgroup>> to memref<64x64xf16>
}

// -----

tile.kernel @wgmma_wait_pending() grid [1] threads [128] {
  // expected-error @+1 {{'tile.wgmma_wait' op pending must be between 0 and 7 (wgmma.wait_group), got 8}}
  tile.wgmma_wait 8
}

// -----

// A negative count is named as written (the attribute's getter is
// unsigned: it read 18446744073709551615).
tile.kernel @wgmma_wait_negative() grid [1] threads [128] {
  // expected-error @+1 {{'tile.wgmma_wait' op pending must be between 0 and 7 (wgmma.wait_group), got -1}}
  tile.wgmma_wait -1
}

// -----

tile.kernel @wgmma_wait_not_fragment() grid [1] threads [128] {
  %s = tile.alloc_shared : memref<64xf32, #gpu.address_space<workgroup>>
  // expected-error @+1 {{'tile.wgmma_wait' op ties only fragments (the accumulators of the gemms it waits for), got 'memref<64xf32, #gpu.address_space<workgroup>>'}}
  tile.wgmma_wait 0, %s : memref<64xf32, #gpu.address_space<workgroup>>
}
