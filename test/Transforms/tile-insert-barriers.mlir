// RUN: tile-opt %s -split-input-file --pass-pipeline='builtin.module(tile.kernel(tile-insert-barriers))' -verify-diagnostics | FileCheck %s

// The seed's shared-memory GEMM: load the K tiles of A and B cooperatively,
// compute from them, and let the next iteration overwrite them. Exactly two
// barriers per iteration: before the compute (its reads follow the copies'
// writes) and before the copies (they overwrite what the previous
// iteration's compute reads).
// CHECK-LABEL: tile.kernel @gemm_tiles
// CHECK: tile.serial
// CHECK-NEXT: affine.apply
// CHECK-NEXT: tile.barrier
// CHECK-NEXT: tile.copy
// CHECK-NEXT: tile.copy
// CHECK-NEXT: tile.barrier
// CHECK-NEXT: tile.serial
// CHECK-NOT: tile.barrier
// CHECK: }
// CHECK-NOT: tile.barrier
// CHECK: memref.store %{{.*}} : memref<1024x512xf32>
tile.kernel @gemm_tiles(%A: memref<1024x2048xf32>, %B: memref<2048x512xf32>,
                        %C: memref<1024x512xf32>) grid [16, 32] threads [32, 32] {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %bx = tile.block_id x
  %by = tile.block_id y
  %tx = tile.thread_id x
  %ty = tile.thread_id y
  %m = affine.apply affine_map<(by, ty) -> (by * 32 + ty)>(%by, %ty)
  %n = affine.apply affine_map<(bx, tx) -> (bx * 32 + tx)>(%bx, %tx)
  %m0 = arith.muli %by, %c32 : index
  %n0 = arith.muli %bx, %c32 : index
  %As = tile.alloc_shared : memref<32x32xf32, #gpu.address_space<workgroup>>
  %Bs = tile.alloc_shared : memref<32x32xf32, #gpu.address_space<workgroup>>
  %acc = tile.alloc_local : memref<1xf32>
  tile.clear %acc : memref<1xf32>
  tile.serial %kt = %c0 to %c64 step %c1 {
    %k0 = affine.apply affine_map<(kt) -> (kt * 32)>(%kt)
    tile.copy %A[%m0, %k0] to %As : memref<1024x2048xf32> to memref<32x32xf32, #gpu.address_space<workgroup>>
    tile.copy %B[%k0, %n0] to %Bs : memref<2048x512xf32> to memref<32x32xf32, #gpu.address_space<workgroup>>
    tile.serial %k = %c0 to %c32 step %c1 {
      %a = memref.load %As[%ty, %k] : memref<32x32xf32, #gpu.address_space<workgroup>>
      %b = memref.load %Bs[%k, %tx] : memref<32x32xf32, #gpu.address_space<workgroup>>
      %p = arith.mulf %a, %b : f32
      %s = memref.load %acc[%c0] : memref<1xf32>
      %t = arith.addf %s, %p : f32
      memref.store %t, %acc[%c0] : memref<1xf32>
    }
  }
  %r = memref.load %acc[%c0] : memref<1xf32>
  memref.store %r, %C[%m, %n] : memref<1024x512xf32>
}

// -----

// Read-after-write: a copy fills the tile, a parallel loop reads it with a
// different thread mapping.
// CHECK-LABEL: tile.kernel @read_after_write
// CHECK: tile.copy
// CHECK-NEXT: tile.barrier
// CHECK-NEXT: tile.parallel
// CHECK-NOT: tile.barrier
tile.kernel @read_after_write(%A: memref<64x64xf32>) grid [1] threads [128] {
  %s = tile.alloc_shared : memref<64x64xf32, #gpu.address_space<workgroup>>
  tile.copy %A to %s : memref<64x64xf32> to memref<64x64xf32, #gpu.address_space<workgroup>>
  tile.parallel (%i, %j) in [64, 64] {
    %v = memref.load %s[%j, %i] : memref<64x64xf32, #gpu.address_space<workgroup>>
    memref.store %v, %A[%i, %j] : memref<64x64xf32>
  }
}

// -----

// Write-after-read: each thread reads a neighbour's element, then all
// overwrite the buffer.
// CHECK-LABEL: tile.kernel @write_after_read
// CHECK: memref.load
// CHECK-NEXT: tile.barrier
// CHECK-NEXT: tile.fill
tile.kernel @write_after_read(%out: memref<128xf32>) grid [1] threads [128] {
  %c1 = arith.constant 1 : index
  %f = arith.constant 0.0 : f32
  %tx = tile.thread_id x
  %s = tile.alloc_shared : memref<129xf32, #gpu.address_space<workgroup>>
  %next = arith.addi %tx, %c1 : index
  %v = memref.load %s[%next] : memref<129xf32, #gpu.address_space<workgroup>>
  tile.fill %s, %f : memref<129xf32, #gpu.address_space<workgroup>>
  memref.store %v, %out[%tx] : memref<128xf32>
}

// -----

// Write-after-write: a fill, then a copy into the same buffer.
// CHECK-LABEL: tile.kernel @write_after_write
// CHECK: tile.fill
// CHECK-NEXT: tile.barrier
// CHECK-NEXT: tile.copy
tile.kernel @write_after_write(%A: memref<256xf32>) grid [1] threads [64] {
  %f = arith.constant 0.0 : f32
  %s = tile.alloc_shared : memref<256xf32, #gpu.address_space<workgroup>>
  tile.fill %s, %f : memref<256xf32, #gpu.address_space<workgroup>>
  tile.copy %A to %s : memref<256xf32> to memref<256xf32, #gpu.address_space<workgroup>>
}

// -----

// A hazard carried around the loop only: inside an iteration the explicit
// barrier orders the fill before the reads, but the next iteration's fill
// overwrites what this iteration's reads use. One barrier, at the top.
// CHECK-LABEL: tile.kernel @loop_carried
// CHECK: tile.serial
// CHECK-NEXT: tile.barrier
// CHECK-NEXT: tile.fill
// CHECK-NEXT: tile.barrier
// CHECK-NEXT: memref.load
// CHECK-NOT: tile.barrier
// CHECK: }
tile.kernel @loop_carried(%out: memref<64xf32>) grid [1] threads [64] {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %f = arith.constant 1.0 : f32
  %tx = tile.thread_id x
  %s = tile.alloc_shared : memref<64xf32, #gpu.address_space<workgroup>>
  tile.serial %k = %c0 to %c8 step %c1 {
    tile.fill %s, %f : memref<64xf32, #gpu.address_space<workgroup>>
    tile.barrier
    %v = memref.load %s[%c0] : memref<64xf32, #gpu.address_space<workgroup>>
    memref.store %v, %out[%tx] : memref<64xf32>
  }
}

// -----

// A loop-carried hazard through a loop-variant index: thread t writes
// s[t + k] and reads it back (its own element: no barrier inside the
// iteration), but in the next iteration thread t - 1 writes s[t + k].
// CHECK-LABEL: tile.kernel @loop_variant_index
// CHECK: scf.for
// CHECK-NEXT: arith.addi
// CHECK-NEXT: tile.barrier
// CHECK-NEXT: memref.store
// CHECK-NEXT: memref.load
// CHECK-NOT: tile.barrier
tile.kernel @loop_variant_index(%out: memref<64xf32>) grid [1] threads [64] {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %f = arith.constant 1.0 : f32
  %tx = tile.thread_id x
  %s = tile.alloc_shared : memref<72xf32, #gpu.address_space<workgroup>>
  scf.for %k = %c0 to %c8 step %c1 {
    %i = arith.addi %tx, %k : index
    memref.store %f, %s[%i] : memref<72xf32, #gpu.address_space<workgroup>>
    %v = memref.load %s[%i] : memref<72xf32, #gpu.address_space<workgroup>>
    memref.store %v, %out[%tx] : memref<64xf32>
  }
}

// -----

// Per-thread elements need no barrier: the same index, injective in the
// thread (2-D block, row-major and transposed linearizations), in and
// across iterations.
// CHECK-LABEL: tile.kernel @thread_private
// CHECK-NOT: tile.barrier
tile.kernel @thread_private(%out: memref<128xf32>) grid [1] threads [32, 4] {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %f = arith.constant 1.0 : f32
  %tx = tile.thread_id x
  %ty = tile.thread_id y
  %s = tile.alloc_shared : memref<4x32xf32, #gpu.address_space<workgroup>>
  %t = tile.alloc_shared : memref<128xf32, #gpu.address_space<workgroup>>
  %lin = affine.apply affine_map<(x, y) -> (x * 4 + y)>(%tx, %ty)
  tile.serial %k = %c0 to %c8 step %c1 {
    memref.store %f, %s[%ty, %tx] : memref<4x32xf32, #gpu.address_space<workgroup>>
    %v = memref.load %s[%ty, %tx] : memref<4x32xf32, #gpu.address_space<workgroup>>
    memref.store %v, %t[%lin] : memref<128xf32, #gpu.address_space<workgroup>>
    %w = memref.load %t[%lin] : memref<128xf32, #gpu.address_space<workgroup>>
    memref.store %w, %out[%lin] : memref<128xf32>
  }
}

// -----

// Two parallel loops with the same iteration space and indices: iteration
// (i, j) runs on the same thread in both.
// CHECK-LABEL: tile.kernel @same_parallel_mapping
// CHECK-NOT: tile.barrier
tile.kernel @same_parallel_mapping(%out: memref<128xf32>) grid [1] threads [32, 4] {
  %f = arith.constant 1.0 : f32
  %s = tile.alloc_shared : memref<4x32xf32, #gpu.address_space<workgroup>>
  tile.parallel (%i, %j) in [4, 32] {
    memref.store %f, %s[%i, %j] : memref<4x32xf32, #gpu.address_space<workgroup>>
  }
  tile.parallel (%i, %j) in [4, 32] {
    %v = memref.load %s[%i, %j] : memref<4x32xf32, #gpu.address_space<workgroup>>
    memref.store %v, %out[%j] : memref<128xf32>
  }
}

// -----

// Reads after reads need nothing; different buffers need nothing.
// CHECK-LABEL: tile.kernel @no_hazard
// CHECK-NOT: tile.barrier
tile.kernel @no_hazard(%A: memref<64xf32>, %out: memref<64xf32>) grid [1] threads [64] {
  %c0 = arith.constant 0 : index
  %tx = tile.thread_id x
  %s = tile.alloc_shared : memref<64xf32, #gpu.address_space<workgroup>>
  %t = tile.alloc_shared : memref<64xf32, #gpu.address_space<workgroup>>
  tile.copy %A to %s : memref<64xf32> to memref<64xf32, #gpu.address_space<workgroup>>
  %v = memref.load %t[%c0] : memref<64xf32, #gpu.address_space<workgroup>>
  %w = memref.load %t[%tx] : memref<64xf32, #gpu.address_space<workgroup>>
  memref.store %w, %out[%tx] : memref<64xf32>
}

// -----

// Split-K with atomics (TileLang's GEMV tutorial): thread (tn, 0) zeroes
// Cs[tn], every thread adds into it, thread reads it back. A barrier after
// the zeroing (hoisted out of the thread-dependent branch: it goes before
// the atomics) and one before the read; none between the atomics.
// CHECK-LABEL: tile.kernel @split_k_atomics
// CHECK: scf.if
// CHECK:   memref.store
// CHECK: }
// CHECK-NEXT: tile.barrier
// CHECK-NEXT: tile.atomic_add
// CHECK-NEXT: tile.barrier
// CHECK-NEXT: memref.load
tile.kernel @split_k_atomics(%C: memref<64xf32>) grid [1] threads [64, 4] {
  %c0 = arith.constant 0 : index
  %f0 = arith.constant 0.0 : f32
  %part = arith.constant 1.0 : f32
  %tn = tile.thread_id x
  %tk = tile.thread_id y
  %Cs = tile.alloc_shared : memref<64xf32, #gpu.address_space<workgroup>>
  %first = arith.cmpi eq, %tk, %c0 : index
  scf.if %first {
    memref.store %f0, %Cs[%tn] : memref<64xf32, #gpu.address_space<workgroup>>
  }
  tile.atomic_add %Cs[%tn], %part : memref<64xf32, #gpu.address_space<workgroup>>, f32
  %sum = memref.load %Cs[%tn] : memref<64xf32, #gpu.address_space<workgroup>>
  memref.store %sum, %C[%tn] : memref<64xf32>
}

// -----

// A hazard before thread-dependent control flow: the barrier goes before the
// branch, never inside it.
// CHECK-LABEL: tile.kernel @hoisted
// CHECK: tile.copy
// CHECK-NEXT: arith.cmpi
// CHECK-NEXT: tile.barrier
// CHECK-NEXT: scf.if
// CHECK-NOT: tile.barrier
tile.kernel @hoisted(%A: memref<64xf32>, %out: memref<1xf32>) grid [1] threads [64] {
  %c0 = arith.constant 0 : index
  %c5 = arith.constant 5 : index
  %tx = tile.thread_id x
  %s = tile.alloc_shared : memref<64xf32, #gpu.address_space<workgroup>>
  tile.copy %A to %s : memref<64xf32> to memref<64xf32, #gpu.address_space<workgroup>>
  %lead = arith.cmpi eq, %tx, %c0 : index
  scf.if %lead {
    %v = memref.load %s[%c5] : memref<64xf32, #gpu.address_space<workgroup>>
    memref.store %v, %out[%c0] : memref<1xf32>
  }
}

// -----

// A hazard between two accesses inside thread-dependent control flow cannot
// get a barrier: it is an error.
tile.kernel @race_in_branch(%out: memref<64xf32>) grid [1] threads [64] {
  %c31 = arith.constant 31 : index
  %c32 = arith.constant 32 : index
  %f = arith.constant 1.0 : f32
  %tx = tile.thread_id x
  %s = tile.alloc_shared : memref<64xf32, #gpu.address_space<workgroup>>
  %low = arith.cmpi ult, %tx, %c32 : index
  // expected-note @+1 {{thread-dependent control flow: 'scf.if'}}
  scf.if %low {
    // expected-note @+1 {{the other access}}
    memref.store %f, %s[%tx] : memref<64xf32, #gpu.address_space<workgroup>>
    %mirror = arith.subi %c31, %tx : index
    // expected-error @+1 {{shared-memory race: 'memref.load' reading may touch an element that 'memref.store' writing touches from another thread, and no barrier can separate them inside control flow that depends on the thread index; move the accesses out of it or make its condition uniform}}
    %v = memref.load %s[%mirror] : memref<64xf32, #gpu.address_space<workgroup>>
    memref.store %v, %out[%tx] : memref<64xf32>
  }
}

// -----

// Regression: buffers that arrive through loop arguments may be any
// allocation. Ping-pong between two buffers: each iteration reads the
// neighbour's element of what the previous one wrote.
// CHECK-LABEL: tile.kernel @ping_pong
// CHECK: scf.for
// CHECK: tile.barrier
// CHECK-NEXT: memref.load
tile.kernel @ping_pong(%out: memref<128xf32>) grid [1] threads [128] {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %tx = tile.thread_id x
  %a = tile.alloc_shared : memref<129xf32, #gpu.address_space<workgroup>>
  %b = tile.alloc_shared : memref<129xf32, #gpu.address_space<workgroup>>
  %r:2 = scf.for %k = %c0 to %c4 step %c1 iter_args(%cur = %a, %nxt = %b) -> (memref<129xf32, #gpu.address_space<workgroup>>, memref<129xf32, #gpu.address_space<workgroup>>) {
    %i1 = arith.addi %tx, %c1 : index
    %v = memref.load %cur[%i1] : memref<129xf32, #gpu.address_space<workgroup>>
    memref.store %v, %nxt[%tx] : memref<129xf32, #gpu.address_space<workgroup>>
    scf.yield %nxt, %cur : memref<129xf32, #gpu.address_space<workgroup>>, memref<129xf32, #gpu.address_space<workgroup>>
  }
  %v = memref.load %a[%tx] : memref<129xf32, #gpu.address_space<workgroup>>
  memref.store %v, %out[%tx] : memref<128xf32>
}

// -----

// Regression: a selected buffer may be either.
// CHECK-LABEL: tile.kernel @selected_buffer
// CHECK: memref.store
// CHECK: tile.barrier
// CHECK-NEXT: memref.load
tile.kernel @selected_buffer(%out: memref<128xf32>, %flag: i1) grid [1] threads [128] {
  %c1 = arith.constant 1 : index
  %f = arith.constant 1.0 : f32
  %tx = tile.thread_id x
  %a = tile.alloc_shared : memref<129xf32, #gpu.address_space<workgroup>>
  %b = tile.alloc_shared : memref<129xf32, #gpu.address_space<workgroup>>
  %s = arith.select %flag, %a, %b : memref<129xf32, #gpu.address_space<workgroup>>
  memref.store %f, %s[%tx] : memref<129xf32, #gpu.address_space<workgroup>>
  %i1 = arith.addi %tx, %c1 : index
  %v = memref.load %a[%i1] : memref<129xf32, #gpu.address_space<workgroup>>
  memref.store %v, %out[%tx] : memref<128xf32>
}

// -----

// Regression: the iterations of one tile.parallel are independent within a
// run, not between two runs in a loop.
// CHECK-LABEL: tile.kernel @parallel_in_loop
// CHECK: tile.serial
// CHECK: tile.barrier
// CHECK-NEXT: tile.parallel
tile.kernel @parallel_in_loop(%out: memref<128xf32>) grid [1] threads [128] {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %s = tile.alloc_shared : memref<256xf32, #gpu.address_space<workgroup>>
  tile.serial %k = %c0 to %c4 step %c1 {
    %src = affine.apply affine_map<(k) -> ((k mod 2) * 128)>(%k)
    %dst = affine.apply affine_map<(k) -> (((k + 1) mod 2) * 128)>(%k)
    tile.parallel (%i) in [128] {
      %j = affine.apply affine_map<(i)[s] -> ((i + 1) mod 128 + s)>(%i)[%src]
      %o = arith.addi %i, %dst : index
      %v = memref.load %s[%j] : memref<256xf32, #gpu.address_space<workgroup>>
      memref.store %v, %s[%o] : memref<256xf32, #gpu.address_space<workgroup>>
    }
  }
}

// -----

// Regression: one op against itself in the next iteration. A copy that
// reads the row the previous iteration wrote, and a store whose elements
// move to other threads from one iteration to the next.
// CHECK-LABEL: tile.kernel @same_op_next_iteration
// CHECK: tile.serial
// CHECK: tile.barrier
// CHECK-NEXT: tile.copy
// CHECK: tile.serial
// CHECK: tile.barrier
// CHECK-NEXT: memref.store
tile.kernel @same_op_next_iteration(%out: memref<128xf32>) grid [1] threads [64] {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %f = arith.constant 1.0 : f32
  %tx = tile.thread_id x
  %s = tile.alloc_shared : memref<8x64xf32, #gpu.address_space<workgroup>>
  %t = tile.alloc_shared : memref<256xf32, #gpu.address_space<workgroup>>
  tile.serial %k = %c0 to %c8 step %c1 {
    %k1 = arith.addi %k, %c1 : index
    tile.copy %s[%k, %c0] to %s[%k1, %c1] shape [1, 63] : memref<8x64xf32, #gpu.address_space<workgroup>> to memref<8x64xf32, #gpu.address_space<workgroup>>
  }
  tile.serial %k = %c0 to %c4 step %c1 {
    %i = arith.addi %k, %tx : index
    memref.store %f, %t[%i] : memref<256xf32, #gpu.address_space<workgroup>>
  }
}

// -----

// Regression: a vector load covers its neighbours' elements.
// CHECK-LABEL: tile.kernel @vector_load_neighbours
// CHECK: memref.store
// CHECK-NEXT: tile.barrier
// CHECK-NEXT: vector.load
tile.kernel @vector_load_neighbours(%out: memref<128xf32>) grid [1] threads [128] {
  %f = arith.constant 1.0 : f32
  %tx = tile.thread_id x
  %s = tile.alloc_shared : memref<132xf32, #gpu.address_space<workgroup>>
  memref.store %f, %s[%tx] : memref<132xf32, #gpu.address_space<workgroup>>
  %v = vector.load %s[%tx] : memref<132xf32, #gpu.address_space<workgroup>>, vector<4xf32>
  %e = vector.reduction <add>, %v : vector<4xf32> into f32
  memref.store %e, %out[%tx] : memref<128xf32>
}

// -----

// Regression: a named barrier for part of the block orders nothing for the
// rest of it.
// CHECK-LABEL: tile.kernel @named_barrier
// CHECK: nvvm.barrier
// CHECK-NEXT: arith.addi
// CHECK-NEXT: tile.barrier
// CHECK-NEXT: memref.load
tile.kernel @named_barrier(%out: memref<128xf32>) grid [1] threads [128] {
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : i32
  %id = arith.constant 1 : i32
  %f = arith.constant 1.0 : f32
  %tx = tile.thread_id x
  %s = tile.alloc_shared : memref<129xf32, #gpu.address_space<workgroup>>
  memref.store %f, %s[%tx] : memref<129xf32, #gpu.address_space<workgroup>>
  nvvm.barrier id = %id number_of_threads = %c64
  %i1 = arith.addi %tx, %c1 : index
  %v = memref.load %s[%i1] : memref<129xf32, #gpu.address_space<workgroup>>
  memref.store %v, %out[%tx] : memref<128xf32>
}

// -----

// Regression: a hazard carried around a loop inside thread-dependent control
// flow is an error too.
tile.kernel @race_in_divergent_loop(%out: memref<128xf32>) grid [1] threads [128] {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c16 = arith.constant 16 : index
  %tx = tile.thread_id x
  %s = tile.alloc_shared : memref<256xf32, #gpu.address_space<workgroup>>
  %p = arith.cmpi ult, %tx, %c16 : index
  // expected-note @+1 {{thread-dependent control flow: 'scf.if'}}
  scf.if %p {
    scf.for %k = %c0 to %c4 step %c1 {
      %i = arith.addi %k, %tx : index
      // expected-note @+1 {{the other access}}
      %v = memref.load %s[%i] : memref<256xf32, #gpu.address_space<workgroup>>
      %w = arith.addf %v, %v : f32
      // expected-error @+1 {{shared-memory race: 'memref.store' writing may touch an element that 'memref.load' reading touches from another thread}}
      memref.store %w, %s[%i] : memref<256xf32, #gpu.address_space<workgroup>>
    }
  }
}

// -----

// Regression (found by the CPU target's race check: removing the barrier
// raised no race): every thread stores A_shared[tk], the same element for
// all, in iteration tk. Iterations touch different elements, so the loop
// needs no barrier inside; the one before it orders the previous round's
// reads (write-after-read across the outer loop).
// CHECK-LABEL: tile.kernel @stage_uniform_index
// CHECK: tile.serial
// CHECK-NEXT: tile.barrier {tile.inserted_by = "tile-insert-barriers"}
// CHECK-NEXT: tile.serial
// CHECK-NOT: tile.barrier
// CHECK: memref.store
// CHECK: }
// CHECK-NEXT: tile.barrier
// CHECK-NEXT: tile.serial
tile.kernel @stage_uniform_index(%A: memref<1024xf32>, %out: memref<128xf32>)
    grid [1] threads [128] {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c128 = arith.constant 128 : index
  %tx = tile.thread_id x
  %s = tile.alloc_shared : memref<128xf32, #gpu.address_space<workgroup>>
  %acc = tile.alloc_local : memref<1xf32>
  tile.serial %bk = %c0 to %c8 step %c1 {
    tile.serial %tk = %c0 to %c128 step %c1 {
      %k = affine.apply affine_map<(bk, tk) -> (bk * 128 + tk)>(%bk, %tk)
      %a = memref.load %A[%k] : memref<1024xf32>
      memref.store %a, %s[%tk] : memref<128xf32, #gpu.address_space<workgroup>>
    }
    tile.serial %tk = %c0 to %c128 step %c1 {
      %a = memref.load %s[%tk] : memref<128xf32, #gpu.address_space<workgroup>>
      %v = memref.load %acc[%c0] : memref<1xf32>
      %w = arith.addf %v, %a : f32
      memref.store %w, %acc[%c0] : memref<1xf32>
    }
  }
  %r = memref.load %acc[%c0] : memref<1xf32>
  memref.store %r, %out[%tx] : memref<128xf32>
}

// -----

// Regression (found by the CPU target's race check: removing the barrier
// raised no race): a prologue fills the tile, the loop reads it and refills
// it for the next iteration. The barrier the body needs before its reads
// (for the refill of the previous iteration) also orders the prologue, so
// none goes before the loop.
// CHECK-LABEL: tile.kernel @prologue_then_loop
// CHECK: memref.store
// CHECK-NOT: tile.barrier
// CHECK: tile.serial
// CHECK-NEXT: memref.load %{{.+}} : memref<1024xf32>
// CHECK-NEXT: arith.subi
// CHECK-NEXT: tile.barrier
// CHECK-NEXT: memref.load %{{.+}} : memref<128xf32, #gpu.address_space<workgroup>>
// CHECK: tile.barrier
// CHECK-NEXT: memref.store
tile.kernel @prologue_then_loop(%A: memref<1024xf32>, %out: memref<128xf32>)
    grid [1] threads [128] {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %tx = tile.thread_id x
  %s = tile.alloc_shared : memref<128xf32, #gpu.address_space<workgroup>>
  %acc = tile.alloc_local : memref<1xf32>
  %first = memref.load %A[%tx] : memref<1024xf32>
  memref.store %first, %s[%tx] : memref<128xf32, #gpu.address_space<workgroup>>
  tile.serial %k = %c0 to %c8 step %c1 {
    %next = memref.load %A[%k] : memref<1024xf32>
    %r = arith.subi %c8, %k : index
    %v = memref.load %s[%r] : memref<128xf32, #gpu.address_space<workgroup>>
    %a = memref.load %acc[%c0] : memref<1xf32>
    %w = arith.addf %a, %v : f32
    memref.store %w, %acc[%c0] : memref<1xf32>
    memref.store %next, %s[%tx] : memref<128xf32, #gpu.address_space<workgroup>>
  }
  %result = memref.load %acc[%c0] : memref<1xf32>
  memref.store %result, %out[%tx] : memref<128xf32>
}

// -----

// Regression (found by the race check, in the TVM conv2d): the same for
// nested loops. The inner loop's first iteration runs its barrier before it
// touches the tile, so the outer iteration needs no barrier before it.
// CHECK-LABEL: tile.kernel @nested_refill
// CHECK: tile.serial
// CHECK-NEXT: tile.serial
// CHECK-NEXT: tile.barrier
// CHECK-NEXT: memref.store
// CHECK-NEXT: arith.subi
// CHECK-NEXT: tile.barrier
// CHECK-NEXT: memref.load
// CHECK-NEXT: memref.store
// CHECK-NEXT: }
// CHECK-NEXT: }
tile.kernel @nested_refill(%A: memref<128xf32>, %out: memref<128xf32>)
    grid [1] threads [128] {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c127 = arith.constant 127 : index
  %tx = tile.thread_id x
  %s = tile.alloc_shared : memref<128xf32, #gpu.address_space<workgroup>>
  %acc = tile.alloc_local : memref<1xf32>
  %v0 = memref.load %A[%tx] : memref<128xf32>
  tile.serial %i = %c0 to %c3 step %c1 {
    tile.serial %j = %c0 to %c3 step %c1 {
      memref.store %v0, %s[%tx] : memref<128xf32, #gpu.address_space<workgroup>>
      %r = arith.subi %c127, %tx : index
      %v = memref.load %s[%r] : memref<128xf32, #gpu.address_space<workgroup>>
      memref.store %v, %acc[%c0] : memref<1xf32>
    }
  }
  %result = memref.load %acc[%c0] : memref<1xf32>
  memref.store %result, %out[%tx] : memref<128xf32>
}

// -----

// Regression (found in review of the CPU target): a store through a
// generic-space cast of a shared buffer is a shared store.
// CHECK-LABEL: tile.kernel @store_through_cast
// CHECK: memref.store %{{.+}}, %{{.+}}[%c0] : memref<1xf32>
// CHECK: tile.barrier
// CHECK: memref.load %{{.+}}[%c0] : memref<1xf32, #gpu.address_space<workgroup>>
tile.kernel @store_through_cast(%y: memref<2xf32>) grid [1] threads [2] {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %one = arith.constant 1.0 : f32
  %s = tile.alloc_shared : memref<1xf32, #gpu.address_space<workgroup>>
  %g = memref.memory_space_cast %s : memref<1xf32, #gpu.address_space<workgroup>> to memref<1xf32>
  %tx = tile.thread_id x
  %is0 = arith.cmpi eq, %tx, %c0 : index
  scf.if %is0 {
    memref.store %one, %g[%c0] : memref<1xf32>
  }
  %is1 = arith.cmpi eq, %tx, %c1 : index
  scf.if %is1 {
    %v = memref.load %s[%c0] : memref<1xf32, #gpu.address_space<workgroup>>
    memref.store %v, %y[%c0] : memref<2xf32>
  }
}

// -----

// Stages of a rolled pipeline (memref.view at ((it + c) mod S) * bytes, see
// tile-software-pipeline): writing stage (it + 1) mod 3 and then reading
// stage it mod 3 touch different bytes, no barrier; reading stage
// (it + 4) mod 3, the stage written, needs one; so does the next
// iteration's write of the stages this one read.
// CHECK-LABEL: tile.kernel @stage_views
// CHECK: tile.serial
// CHECK: tile.barrier
// CHECK-NEXT: tile.copy
// CHECK-NOT: tile.barrier
// CHECK: memref.load %view_0[%tx]
// CHECK-NOT: tile.barrier
// CHECK: memref.view
// CHECK-NEXT: tile.barrier
// CHECK-NEXT: memref.load %view_1
// CHECK-NOT: tile.barrier
// CHECK: }
tile.kernel @stage_views(%X: memref<4096xf32>, %Y: memref<32xf32>) grid [1] threads [32] {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %c16 = arith.constant 16 : index
  %c128 = arith.constant 128 : index
  %tx = tile.thread_id x
  %raw = tile.alloc_shared : memref<384xi8, #gpu.address_space<workgroup>>
  tile.serial %it = %c0 to %c16 step %c1 {
    %ahead = arith.addi %it, %c1 : index
    %next = arith.remui %ahead, %c3 : index
    %wshift = arith.muli %next, %c128 : index
    %w = memref.view %raw[%wshift][] : memref<384xi8, #gpu.address_space<workgroup>> to memref<32xf32, #gpu.address_space<workgroup>>
    %off = arith.muli %it, %c16 : index
    tile.copy %X[%off] to %w : memref<4096xf32> to memref<32xf32, #gpu.address_space<workgroup>>
    %cur = arith.remui %it, %c3 : index
    %rshift = arith.muli %cur, %c128 : index
    %r = memref.view %raw[%rshift][] : memref<384xi8, #gpu.address_space<workgroup>> to memref<32xf32, #gpu.address_space<workgroup>>
    %i = arith.subi %c16, %tx : index
    %v = memref.load %r[%tx] : memref<32xf32, #gpu.address_space<workgroup>>
    %wrap = arith.addi %it, %c4 : index
    %same = arith.remui %wrap, %c3 : index
    %sshift = arith.muli %same, %c128 : index
    %s = memref.view %raw[%sshift][] : memref<384xi8, #gpu.address_space<workgroup>> to memref<32xf32, #gpu.address_space<workgroup>>
    %u = memref.load %s[%i] : memref<32xf32, #gpu.address_space<workgroup>>
    %sum = arith.addf %v, %u : f32
    memref.store %sum, %Y[%tx] : memref<32xf32>
  }
}

// -----

// Accesses under `scf.if (thread_id z == c)` come from threads with that z
// only: z no longer tells threads apart, and x, y separate the rest. The
// stores and the read-modify-write of group 1 touch only each thread's own
// elements (no barrier within or between its branches); group 0's read of
// them needs a barrier.
// CHECK-LABEL: tile.kernel @pinned_thread_groups
// CHECK: scf.if
// CHECK-NOT: tile.barrier
// CHECK: scf.if
// CHECK-NOT: tile.barrier
// CHECK: arith.cmpi eq, %c0
// CHECK-NEXT: tile.barrier
// CHECK-NEXT: scf.if
// CHECK-NOT: tile.barrier
tile.kernel @pinned_thread_groups(%out: memref<64xf32>) grid [1] threads [8, 8, 2] {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %one = arith.constant 1.0 : f32
  %tx = tile.thread_id x
  %ty = tile.thread_id y
  %tz = tile.thread_id z
  %t = affine.apply affine_map<(x, y) -> (y * 8 + x)>(%tx, %ty)
  %red = tile.alloc_shared : memref<4x64xf32, #gpu.address_space<workgroup>>
  %is1 = arith.cmpi eq, %tz, %c1 : index
  scf.if %is1 {
    tile.unroll %v = %c0 to %c4 step %c1 {
      memref.store %one, %red[%v, %t] : memref<4x64xf32, #gpu.address_space<workgroup>>
    }
  }
  scf.if %is1 {
    tile.unroll %v = %c0 to %c4 step %c1 {
      %x = memref.load %red[%v, %t] : memref<4x64xf32, #gpu.address_space<workgroup>>
      %y = arith.addf %x, %one : f32
      memref.store %y, %red[%v, %t] : memref<4x64xf32, #gpu.address_space<workgroup>>
    }
  }
  %is0 = arith.cmpi eq, %c0, %tz : index
  scf.if %is0 {
    %x = memref.load %red[%c0, %t] : memref<4x64xf32, #gpu.address_space<workgroup>>
    memref.store %x, %out[%t] : memref<64xf32>
  }
}

// -----

// The same with an index that does not separate the threads of the group
// (x is missing): two threads of group 1 write one element, which no
// barrier inside the branch could order.
tile.kernel @pinned_not_injective(%out: memref<64xf32>) grid [1] threads [8, 8, 2] {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %one = arith.constant 1.0 : f32
  %ty = tile.thread_id y
  %tz = tile.thread_id z
  %red = tile.alloc_shared : memref<4x64xf32, #gpu.address_space<workgroup>>
  %is1 = arith.cmpi eq, %tz, %c1 : index
  // expected-note @below {{thread-dependent control flow: 'scf.if'}}
  scf.if %is1 {
    tile.unroll %v = %c0 to %c4 step %c1 {
      // expected-note @below {{the other access}}
      %x = memref.load %red[%v, %ty] : memref<4x64xf32, #gpu.address_space<workgroup>>
      %y = arith.addf %x, %one : f32
      // expected-error @below {{shared-memory race: 'memref.store' writing may touch an element that 'memref.load' reading touches from another thread}}
      memref.store %y, %red[%v, %ty] : memref<4x64xf32, #gpu.address_space<workgroup>>
    }
  }
}

// -----

// A tile.parallel over a fragment runs iteration (i, j) on the element's
// owner (its layout), not where a plain tile.parallel of the same extents
// runs it: the same indices do not mean the same thread, so the shared
// tile written by one and read by the other needs a barrier.
// CHECK-LABEL: tile.kernel @fragment_parallel_then_parallel
// CHECK: tile.parallel
// CHECK: } {layout =
// CHECK-NEXT: tile.barrier
// CHECK-NEXT: tile.parallel
tile.kernel @fragment_parallel_then_parallel(%C: memref<16x8xf32>) grid [1] threads [32] {
  %Cs = tile.alloc_shared : memref<16x8xf32, #gpu.address_space<workgroup>>
  %acc = tile.alloc_fragment {layout = #tile.layout<shape = [16, 8], threads = 32, registers = 4, map = (d0, d1) -> ((d0 mod 32) floordiv 4 + ((d1 mod 4) floordiv 2) * 8, (d0 mod 4) * 2 + d1 mod 2)>} : memref<16x8xf32, #tile.fragment>
  tile.clear %acc : memref<16x8xf32, #tile.fragment>
  tile.parallel (%i, %j) in [16, 8] {
    %v = memref.load %acc[%i, %j] : memref<16x8xf32, #tile.fragment>
    memref.store %v, %Cs[%i, %j] : memref<16x8xf32, #gpu.address_space<workgroup>>
  } {layout = #tile.layout<shape = [16, 8], threads = 32, registers = 4, map = (d0, d1) -> ((d0 mod 32) floordiv 4 + ((d1 mod 4) floordiv 2) * 8, (d0 mod 4) * 2 + d1 mod 2)>}
  tile.parallel (%i, %j) in [16, 8] {
    %v = memref.load %Cs[%i, %j] : memref<16x8xf32, #gpu.address_space<workgroup>>
    memref.store %v, %C[%i, %j] : memref<16x8xf32>
  }
}

// -----

// A tile chosen at run time is read as either tile: the copy into one and
// the gemm that reads the choice are ordered by a barrier.
// CHECK-LABEL: tile.kernel @selected_tile_gemm
// CHECK: tile.copy %{{.+}} to %[[A1:[^ ]+]]
// CHECK-NEXT: tile.barrier
// CHECK-NEXT: tile.gemm
tile.kernel @selected_tile_gemm(%A: memref<64x64xf16>, %flag: i1) grid [1] threads [128] {
  %A0 = tile.alloc_shared : memref<64x64xf16, #gpu.address_space<workgroup>>
  %A1 = tile.alloc_shared : memref<64x64xf16, #gpu.address_space<workgroup>>
  %Bs = tile.alloc_shared : memref<64x64xf16, #gpu.address_space<workgroup>>
  %acc = tile.alloc_fragment : memref<64x64xf32, #tile.fragment>
  %As = arith.select %flag, %A1, %A0 : memref<64x64xf16, #gpu.address_space<workgroup>>
  tile.copy %A to %A1 : memref<64x64xf16> to memref<64x64xf16, #gpu.address_space<workgroup>>
  tile.gemm %As, %Bs, %acc {clear} : memref<64x64xf16, #gpu.address_space<workgroup>>, memref<64x64xf16, #gpu.address_space<workgroup>>, memref<64x64xf32, #tile.fragment>
}

// -----

// A tile.warp_specialize opens and closes with barriers of the whole block
// (its lowering's): the tile written before it, read by its consumer and
// after it, and the consumer's tile written again after it, need no
// barrier of their own.
// CHECK-LABEL: tile.kernel @around_warp_specialize
// CHECK: tile.copy %Q to
// CHECK-NEXT: tile.copy %bias to
// CHECK-NEXT: tile.warp_specialize
// CHECK-NOT: tile.barrier
// CHECK: tile.parallel
// CHECK-NOT: tile.barrier
// CHECK: tile.copy %Q
// CHECK-NEXT: }
tile.kernel @around_warp_specialize(%Q: memref<64x64xf16>, %K: memref<?x64xf16>, %bias: memref<64xf32>,
                                    %S: memref<64x64xf32>)
    grid [1] threads [256] {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %seq = memref.dim %K, %c0 : memref<?x64xf16>
  %n = arith.ceildivui %seq, %c64 : index
  %Qs = tile.alloc_shared : memref<64x64xf16, #gpu.address_space<workgroup>>
  %Ks = tile.alloc_shared : memref<64x64xf16, #gpu.address_space<workgroup>>
  %bs = tile.alloc_shared : memref<64xf32, #gpu.address_space<workgroup>>
  %acc = tile.alloc_fragment : memref<64x64xf32, #tile.fragment>
  tile.copy %Q to %Qs : memref<64x64xf16> to memref<64x64xf16, #gpu.address_space<workgroup>>
  tile.copy %bias to %bs : memref<64xf32> to memref<64xf32, #gpu.address_space<workgroup>>
  tile.warp_specialize %c0 to %n step %c1 stages 2
      tiles(%Ks : memref<64x64xf16, #gpu.address_space<workgroup>>)
      producer(%j, %s) threads 128 {
    %n0 = arith.muli %j, %c64 : index
    tile.copy %K[%n0, %c0] to %Ks : memref<?x64xf16> to memref<64x64xf16, #gpu.address_space<workgroup>>
  } consumer(%j, %s) threads 128 {
    tile.gemm %Qs, %Ks, %acc {transpose_b} : memref<64x64xf16, #gpu.address_space<workgroup>>, memref<64x64xf16, #gpu.address_space<workgroup>>, memref<64x64xf32, #tile.fragment>
  }
  tile.parallel (%i, %j) in [64, 64] {
    %v = memref.load %acc[%i, %j] : memref<64x64xf32, #tile.fragment>
    %b = memref.load %bs[%j] : memref<64xf32, #gpu.address_space<workgroup>>
    %sum = arith.addf %v, %b : f32
    memref.store %sum, %S[%i, %j] : memref<64x64xf32>
  }
  tile.copy %Q to %Qs : memref<64x64xf16> to memref<64x64xf16, #gpu.address_space<workgroup>>
}
