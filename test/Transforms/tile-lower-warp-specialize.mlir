// RUN: tile-opt %s -split-input-file -verify-diagnostics --pass-pipeline='builtin.module(tile.kernel(tile-lower-warp-specialize))' | FileCheck %s
// RUN: tile-opt %s -split-input-file -verify-diagnostics --pass-pipeline='builtin.module(tile.kernel(tile-lower-warp-specialize,tile-lower-tile-ops))' | FileCheck %s --check-prefix=ROLES

// Two stages: full[s] = barrier s (twice the producer count: each producer
// thread arrives explicitly and once more when its cp.async copies land,
// .noinc), empty[s] = barrier 2 + s (consumer count), initialized by
// thread 0 before a block barrier. The consumer's threads come first (what
// they hold after the op sits where it would without specialization), the
// producer's after them. The consumer waits for full, the producer for
// empty with the inverted phase; each arrives on the other's barrier;
// setmaxnreg in each role, with the register count at entry recorded on
// the kernel. The kernel ends with the op: the roles keep their counts
// (no setmaxnreg at their ends, no handoff barrier), as in CUTLASS.
// CHECK-LABEL: tile.kernel @pipeline
// CHECK-SAME: tile.max_registers = 168 : i32
// CHECK: %[[BARS:.+]] = nvgpu.mbarrier.create -> <memorySpace = #gpu.address_space<workgroup>, num_barriers = 4>
// CHECK: scf.if
// CHECK:   nvgpu.mbarrier.init %[[BARS]][%c0{{.*}}], %c256
// CHECK:   nvgpu.mbarrier.init %[[BARS]][%c2{{.*}}], %c256
// CHECK: tile.barrier
// The roles compare a warp index made warp-uniform by a shuffle. The
// producer's code comes first.
// CHECK: %[[P8:.+]] = arith.constant 8 : index
// CHECK: arith.cmpi uge, %{{.*}}, %[[P8]]
// CHECK: scf.if
// CHECK:   nvvm.setmaxregister decrease 40
// CHECK:   scf.for
// CHECK:     %[[S:.+]] = arith.remui
// CHECK:     %[[NOT:.+]] = arith.xori
// CHECK:     %[[EMPTY:.+]] = arith.addi %[[S]], %c2{{.*}}
// CHECK:     nvgpu.mbarrier.try_wait.parity %[[BARS]][%[[EMPTY]]], %[[NOT]]
// CHECK:     tile.copy {{.*}} {tile.async}
// CHECK:     %[[ADDR:.+]] = nvgpu.mbarrier.get %[[BARS]][%[[S]]]
// CHECK:     %[[PTR:.+]] = llvm.inttoptr %[[ADDR]] : i32 to !llvm.ptr<3>
// CHECK:     nvvm.cp.async.mbarrier.arrive %[[PTR]] {noinc = true}
// CHECK:     nvgpu.mbarrier.arrive %[[BARS]][%[[S]]]
// CHECK:   }
// CHECK-NEXT: } {tile.role_first = 256 : i64, tile.role_threads = 128 : i64}
// CHECK: %[[C8:.+]] = arith.constant 8 : index
// CHECK: arith.cmpi ult, %{{.*}}, %[[C8]]
// CHECK: scf.if
// CHECK:   nvvm.setmaxregister increase 232
// CHECK:   scf.for
// CHECK:     %[[CS:.+]] = arith.remui
// CHECK:     nvgpu.mbarrier.try_wait.parity %[[BARS]][%[[CS]]]
// CHECK:     tile.copy
// CHECK:     %[[CEMPTY:.+]] = arith.addi %[[CS]], %c2{{.*}}
// CHECK:     nvgpu.mbarrier.arrive %[[BARS]][%[[CEMPTY]]]
// CHECK:   }
// CHECK-NEXT: } {tile.role_first = 0 : i64, tile.role_threads = 256 : i64}
// Both roles are done with the mbarriers before what follows.
// CHECK-NEXT: tile.barrier
// CHECK-NOT: nvvm.setmaxregister
// Collective ops in a role are spread over that role's threads only: the
// 64 chunks of 4 elements of each copy go to the role's first 64 threads,
// numbered from the role's first thread.
// ROLES-LABEL: tile.kernel @pipeline
// ROLES: nvgpu.mbarrier.try_wait.parity
// ROLES: %[[P:.+]] = tile.thread_id x
// ROLES-NEXT: %[[FIRST:.+]] = arith.constant 256 : index
// ROLES-NEXT: %[[C:.+]] = arith.subi %[[P]], %[[FIRST]]
// ROLES-NEXT: %[[C64B:.+]] = arith.constant 64 : index
// ROLES-NEXT: arith.cmpi ult, %[[C]], %[[C64B]]
// ROLES: } {tile.role_first = 256 : i64, tile.role_threads = 128 : i64}
// ROLES: nvgpu.mbarrier.try_wait.parity
// ROLES: %[[T:.+]] = tile.thread_id x
// ROLES-NEXT: %[[C64:.+]] = arith.constant 64 : index
// ROLES-NEXT: arith.cmpi ult, %[[T]], %[[C64]]
// ROLES: } {tile.role_first = 0 : i64, tile.role_threads = 256 : i64}
tile.kernel @pipeline(%X: memref<16x256xf32>, %Y: memref<16x256xf32>) grid [1] threads [384] {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %c128 = arith.constant 128 : index
  %c256 = arith.constant 256 : index
  %tx = tile.thread_id x
  %buf = tile.alloc_shared : memref<2x256xf32, #gpu.address_space<workgroup>>
  tile.warp_specialize %c0 to %c16 step %c1 stages 2
      buffers(%buf : memref<2x256xf32, #gpu.address_space<workgroup>>)
      producer(%k, %s) threads 128 regs 40 {
    tile.copy %X[%k, %c0] to %buf[%s, %c0] shape [1, 256] : memref<16x256xf32> to memref<2x256xf32, #gpu.address_space<workgroup>>
  } consumer(%k, %s) threads 256 regs 232 {
    tile.copy %buf[%s, %c0] to %Y[%k, %c0] shape [1, 256] : memref<2x256xf32, #gpu.address_space<workgroup>> to memref<16x256xf32>
  }
}

// -----

// Code after the op runs in both roles' threads: each role ends by setting
// the register count back to the one at entry. Barrier 4 hands the
// registers over: the consumers arrive after their closing setmaxnreg.dec,
// and the producer waits for them before its .inc (setmaxnreg.inc takes
// what the pool holds and retries until it can: it sleeps in the wait
// instead, and cannot take what the consumers' .inc waits for).
// CHECK-LABEL: tile.kernel @pipeline_then_more
// CHECK: %[[BARS:.+]] = nvgpu.mbarrier.create -> <memorySpace = #gpu.address_space<workgroup>, num_barriers = 5>
// CHECK:   nvgpu.mbarrier.init %[[BARS]][%c4{{.*}}], %c256
// CHECK:   nvvm.setmaxregister decrease 40
// CHECK:   scf.for
// CHECK: nvgpu.mbarrier.try_wait.parity %[[BARS]][%c4{{.*}}], %false
// CHECK-NEXT: nvvm.setmaxregister increase 168
// CHECK-NEXT: } {tile.role_first = 256 : i64, tile.role_threads = 128 : i64}
// CHECK:   nvvm.setmaxregister increase 232
// CHECK-NOT: nvgpu.mbarrier.arrive %[[BARS]][%c4
// CHECK:   scf.for
// CHECK: nvvm.setmaxregister decrease 168
// CHECK-NEXT: %[[HANDOFF:.+]] = arith.constant 4 : index
// CHECK-NEXT: nvgpu.mbarrier.arrive %[[BARS]][%[[HANDOFF]]]
// CHECK-NEXT: } {tile.role_first = 0 : i64, tile.role_threads = 256 : i64}
// CHECK-NEXT: tile.barrier
// CHECK-NEXT: memref.store
tile.kernel @pipeline_then_more(%X: memref<16x256xf32>, %Y: memref<16x256xf32>, %Z: memref<384xf32>) grid [1] threads [384] {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %one = arith.constant 1.0 : f32
  %tx = tile.thread_id x
  %buf = tile.alloc_shared : memref<2x256xf32, #gpu.address_space<workgroup>>
  tile.warp_specialize %c0 to %c16 step %c1 stages 2
      buffers(%buf : memref<2x256xf32, #gpu.address_space<workgroup>>)
      producer(%k, %s) threads 128 regs 40 {
    tile.copy %X[%k, %c0] to %buf[%s, %c0] shape [1, 256] : memref<16x256xf32> to memref<2x256xf32, #gpu.address_space<workgroup>>
  } consumer(%k, %s) threads 256 regs 232 {
    tile.copy %buf[%s, %c0] to %Y[%k, %c0] shape [1, 256] : memref<2x256xf32, #gpu.address_space<workgroup>> to memref<16x256xf32>
  }
  memref.store %one, %Z[%tx] : memref<384xf32>
}

// -----

tile.kernel @barrier_in_role() grid [1] threads [256] {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %buf = tile.alloc_shared : memref<1x8xf32, #gpu.address_space<workgroup>>
  tile.warp_specialize %c0 to %c1 step %c1 stages 1
      buffers(%buf : memref<1x8xf32, #gpu.address_space<workgroup>>)
      producer(%k, %s) threads 128 {
    // expected-error @below {{'tile.barrier' in the producer of a 'tile.warp_specialize': only the producer's threads would reach it, and it waits for the whole block}}
    tile.barrier
  } consumer(%k, %s) threads 128 {
  }
}

// -----

tile.kernel @other_shared(%Y: memref<8xf32>) grid [1] threads [256] {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %f = arith.constant 1.0 : f32
  %buf = tile.alloc_shared : memref<1x8xf32, #gpu.address_space<workgroup>>
  %other = tile.alloc_shared : memref<8xf32, #gpu.address_space<workgroup>>
  tile.warp_specialize %c0 to %c1 step %c1 stages 1
      buffers(%buf : memref<1x8xf32, #gpu.address_space<workgroup>>)
      producer(%k, %s) threads 128 {
    // expected-error @below {{'memref.store' in the producer of a 'tile.warp_specialize' writes shared memory that is not one of its buffers or tiles (directly): no barrier can order it with the other role's accesses (outside the pipeline, the roles may only read shared memory)}}
    memref.store %f, %other[%c0] : memref<8xf32, #gpu.address_space<workgroup>>
  } consumer(%k, %s) threads 128 {
  }
}

// -----

// Shared memory outside the pipeline may be read in a role (a tile loaded
// before the op, as attention's Q): nobody writes it inside the op.
// CHECK-LABEL: tile.kernel @consumer_reads_other_shared
// CHECK: scf.for
// CHECK:   memref.load %{{.*}} : memref<8xf32, #gpu.address_space<workgroup>>
tile.kernel @consumer_reads_other_shared(%out: memref<8xf32>) grid [1] threads [256] {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %other = tile.alloc_shared : memref<8xf32, #gpu.address_space<workgroup>>
  %buf = tile.alloc_shared : memref<1x8xf32, #gpu.address_space<workgroup>>
  tile.warp_specialize %c0 to %c1 step %c1 stages 1
      buffers(%buf : memref<1x8xf32, #gpu.address_space<workgroup>>)
      producer(%k, %s) threads 128 {
  } consumer(%k, %s) threads 128 {
    %v = memref.load %other[%c0] : memref<8xf32, #gpu.address_space<workgroup>>
    memref.store %v, %out[%c0] : memref<8xf32>
  }
}

// -----

tile.kernel @consumer_writes() grid [1] threads [256] {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %f = arith.constant 1.0 : f32
  %buf = tile.alloc_shared : memref<1x8xf32, #gpu.address_space<workgroup>>
  tile.warp_specialize %c0 to %c1 step %c1 stages 1
      buffers(%buf : memref<1x8xf32, #gpu.address_space<workgroup>>)
      producer(%k, %s) threads 128 {
  } consumer(%k, %s) threads 128 {
    // expected-error @below {{'memref.store' in the consumer writes a pipeline buffer: the producer may only write the buffers, the consumer only read them}}
    memref.store %f, %buf[%s, %c0] : memref<1x8xf32, #gpu.address_space<workgroup>>
  }
}

// -----

tile.kernel @wrong_stage(%Y: memref<8xf32>) grid [1] threads [256] {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %buf = tile.alloc_shared : memref<2x8xf32, #gpu.address_space<workgroup>>
  tile.warp_specialize %c0 to %c2 step %c1 stages 2
      buffers(%buf : memref<2x8xf32, #gpu.address_space<workgroup>>)
      producer(%k, %s) threads 128 {
  } consumer(%k, %s) threads 128 {
    // expected-error @below {{'memref.load' in the consumer must access the slice of its stage: the leading index of a pipeline buffer must be the region's stage argument (and a copy's extent along it 1); another stage may be in use by the other role}}
    %v = memref.load %buf[%c0, %c0] : memref<2x8xf32, #gpu.address_space<workgroup>>
    memref.store %v, %Y[%c0] : memref<8xf32>
  }
}

// -----

tile.kernel @producer_regs_too_high() grid [1] threads [256] {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %buf = tile.alloc_shared : memref<1x8xf32, #gpu.address_space<workgroup>>
  // expected-error @below {{producer regs (200) exceed the register count at kernel entry (160, from the block size and the consumer's regs): setmaxnreg.dec cannot raise it}}
  tile.warp_specialize %c0 to %c1 step %c1 stages 1
      buffers(%buf : memref<1x8xf32, #gpu.address_space<workgroup>>)
      producer(%k, %s) threads 128 regs 200 {
  } consumer(%k, %s) threads 128 regs 160 {
  }
}

// -----

tile.kernel @gpu_barrier_in_role() grid [1] threads [256] {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %buf = tile.alloc_shared : memref<1x8xf32, #gpu.address_space<workgroup>>
  tile.warp_specialize %c0 to %c1 step %c1 stages 1
      buffers(%buf : memref<1x8xf32, #gpu.address_space<workgroup>>)
      producer(%k, %s) threads 128 {
  } consumer(%k, %s) threads 128 {
    // expected-error @below {{'gpu.barrier' in the consumer of a 'tile.warp_specialize': only the consumer's threads would reach it, and it waits for the whole block}}
    gpu.barrier
  }
}

// -----

// A named barrier with a count synchronizes some of a role's warps (the
// consumer's two warp groups here): allowed, on an id the lowering leaves
// free.
// CHECK-LABEL: tile.kernel @named_barrier_in_role
// CHECK: nvvm.barrier id = %{{.*}} number_of_threads = %{{.*}}
// CHECK: nvvm.barrier.arrive id = %{{.*}} number_of_threads = %{{.*}}
tile.kernel @named_barrier_in_role() grid [1] threads [384] {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %buf = tile.alloc_shared : memref<1x8xf32, #gpu.address_space<workgroup>>
  tile.warp_specialize %c0 to %c1 step %c1 stages 1
      buffers(%buf : memref<1x8xf32, #gpu.address_space<workgroup>>)
      producer(%k, %s) threads 128 {
  } consumer(%k, %s) threads 256 {
    %id = arith.constant 7 : i32
    %count = arith.constant 256 : i32
    nvvm.barrier id = %id number_of_threads = %count
    nvvm.barrier.arrive id = %id number_of_threads = %count
  }
}

// -----

tile.kernel @arrive_on_block_barrier() grid [1] threads [256] {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %buf = tile.alloc_shared : memref<1x8xf32, #gpu.address_space<workgroup>>
  tile.warp_specialize %c0 to %c1 step %c1 stages 1
      buffers(%buf : memref<1x8xf32, #gpu.address_space<workgroup>>)
      producer(%k, %s) threads 128 {
    %count = arith.constant 128 : i32
    // expected-error @below {{'nvvm.barrier.arrive' in the producer of a 'tile.warp_specialize' uses a named barrier that the lowering uses itself: barrier 0 is the whole block's (bar.sync 0); take another id (up to 15)}}
    nvvm.barrier.arrive number_of_threads = %count
  } consumer(%k, %s) threads 128 {
  }
}

// -----

tile.kernel @epilogue_barrier_in_role() grid [1] threads [256] {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %buf = tile.alloc_shared : memref<1x8xf32, #gpu.address_space<workgroup>>
  tile.warp_specialize %c0 to %c1 step %c1 stages 1
      buffers(%buf : memref<1x8xf32, #gpu.address_space<workgroup>>)
      producer(%k, %s) threads 128 {
  } consumer(%k, %s) threads 128 {
    %id = arith.constant 1 : i32
    %count = arith.constant 128 : i32
    // expected-error @below {{'nvvm.barrier' in the consumer of a 'tile.warp_specialize' uses a named barrier that the lowering uses itself: barrier 1 is the TMA-store epilogue's; take another id (up to 15)}}
    nvvm.barrier id = %id number_of_threads = %count
  }
}

// -----

tile.kernel @block_wide_nvvm_barrier() grid [1] threads [256] {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %buf = tile.alloc_shared : memref<1x8xf32, #gpu.address_space<workgroup>>
  tile.warp_specialize %c0 to %c1 step %c1 stages 1
      buffers(%buf : memref<1x8xf32, #gpu.address_space<workgroup>>)
      producer(%k, %s) threads 128 {
  } consumer(%k, %s) threads 128 {
    %id = arith.constant 9 : i32
    // expected-error @below {{'nvvm.barrier' in the consumer of a 'tile.warp_specialize': only the consumer's threads would reach it, and it waits for the whole block}}
    nvvm.barrier id = %id
  }
}

// -----

tile.kernel @vector_across_stages(%Y: memref<2x8xf32>) grid [1] threads [256] {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %buf = tile.alloc_shared : memref<2x8xf32, #gpu.address_space<workgroup>>
  tile.warp_specialize %c0 to %c2 step %c1 stages 2
      buffers(%buf : memref<2x8xf32, #gpu.address_space<workgroup>>)
      producer(%k, %s) threads 128 {
  } consumer(%k, %s) threads 128 {
    // expected-error @below {{'vector.load' in the consumer must access the slice of its stage}}
    %v = vector.load %buf[%s, %c0] : memref<2x8xf32, #gpu.address_space<workgroup>>, vector<2x8xf32>
  }
}

// -----

// Two blocks per SM: each block's pool is half the register file, so the
// count at entry is 65536 / (2 x 384), in 8s: 80 (40 x 128 + 96 x 256 =
// 29696 fit in 80 x 384 = 30720).
// CHECK-LABEL: tile.kernel @two_blocks_per_sm
// CHECK-SAME: tile.max_registers = 80 : i32
// CHECK: nvvm.setmaxregister decrease 40
// CHECK: nvvm.setmaxregister increase 96
tile.kernel @two_blocks_per_sm(%X: memref<8xf32>) grid [1] threads [384]
    attributes {min_blocks_per_sm = 2} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %buf = tile.alloc_shared : memref<1x8xf32, #gpu.address_space<workgroup>>
  tile.warp_specialize %c0 to %c1 step %c1 stages 1
      buffers(%buf : memref<1x8xf32, #gpu.address_space<workgroup>>)
      producer(%k, %s) threads 128 regs 40 {
  } consumer(%k, %s) threads 256 regs 96 {
  }
}

// -----

tile.kernel @two_blocks_register_pool(%X: memref<8xf32>) grid [1] threads [384]
    attributes {min_blocks_per_sm = 2} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %buf = tile.alloc_shared : memref<1x8xf32, #gpu.address_space<workgroup>>
  // expected-error @below {{the roles' registers (128 x 40 + 256 x 104 = 31744) exceed the block's 30720 (384 threads x 80 at entry, 2 blocks per SM): setmaxnreg.inc would wait forever}}
  tile.warp_specialize %c0 to %c1 step %c1 stages 1
      buffers(%buf : memref<1x8xf32, #gpu.address_space<workgroup>>)
      producer(%k, %s) threads 128 regs 40 {
  } consumer(%k, %s) threads 256 regs 104 {
  }
}

// -----

tile.kernel @register_pool(%X: memref<8xf32>) grid [1] threads [384] {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %buf = tile.alloc_shared : memref<1x8xf32, #gpu.address_space<workgroup>>
  // expected-error @below {{the roles' registers (128 x 168 + 256 x 232 = 80896) exceed the block's 64512 (384 threads x 168 at entry): setmaxnreg.inc would wait forever}}
  tile.warp_specialize %c0 to %c1 step %c1 stages 1
      buffers(%buf : memref<1x8xf32, #gpu.address_space<workgroup>>)
      producer(%k, %s) threads 128 {
  } consumer(%k, %s) threads 256 regs 232 {
  }
}

// -----

tile.kernel @different_regs() grid [1] threads [256] {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %buf = tile.alloc_shared : memref<1x8xf32, #gpu.address_space<workgroup>>
  // expected-note @below {{this one gives other regs}}
  tile.warp_specialize %c0 to %c1 step %c1 stages 1
      buffers(%buf : memref<1x8xf32, #gpu.address_space<workgroup>>)
      producer(%k, %s) threads 128 regs 40 {
  } consumer(%k, %s) threads 128 regs 200 {
  }
  // expected-error @below {{every 'tile.warp_specialize' of a kernel must give the same regs (the kernel's register count at entry is chosen for them)}}
  tile.warp_specialize %c0 to %c1 step %c1 stages 1
      buffers(%buf : memref<1x8xf32, #gpu.address_space<workgroup>>)
      producer(%k, %s) threads 128 regs 80 {
  } consumer(%k, %s) threads 128 regs 160 {
  }
}

// -----

// Regression: only copies from global memory become cp.async; a producer
// store of a value from a thread-private buffer (default memory space, like
// global) stays a plain store, and the stage completes on the plain arrive.
// CHECK-LABEL: tile.kernel @local_source
// CHECK: memref.store
// CHECK-NOT: tile.async
// CHECK-NOT: nvvm.cp.async.mbarrier.arrive
// CHECK: nvgpu.mbarrier.arrive
tile.kernel @local_source() grid [1] threads [256] {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %loc = tile.alloc_local : memref<4xf32>
  tile.clear %loc : memref<4xf32>
  %buf = tile.alloc_shared : memref<1x512xf32, #gpu.address_space<workgroup>>
  tile.warp_specialize %c0 to %c1 step %c1 stages 1
      buffers(%buf : memref<1x512xf32, #gpu.address_space<workgroup>>)
      producer(%k, %s) threads 128 {
    %tx = tile.thread_id x
    %base = arith.muli %tx, %c4 : index
    tile.vectorized %e = %c0 to %c4 step %c1 {
      %v = memref.load %loc[%e] : memref<4xf32>
      %i = arith.addi %base, %e : index
      memref.store %v, %buf[%s, %i] : memref<1x512xf32, #gpu.address_space<workgroup>>
    }
  } consumer(%k, %s) threads 128 {
  }
}

// -----

// Tiles without TMA (another chip, or the CPU target): one allocation of
// the stages, each iteration's a view; the whole producer role copies with
// cp.async, which arrives on full[s] as each thread's copies land (count:
// twice the producer's threads).
// CHECK-LABEL: tile.kernel @tiles
// CHECK: %[[RAW:.+]] = tile.alloc_shared {alignment = 16 : i64} : memref<8192xi8, #gpu.address_space<workgroup>>
// CHECK: nvgpu.mbarrier.init %{{.*}}[%{{.*}}], %c256
// CHECK-NOT: tile.tma_load
// CHECK: %[[V:.+]] = memref.view %[[RAW]][%{{.*}}][] : memref<8192xi8, #gpu.address_space<workgroup>> to memref<4x256xf32, #gpu.address_space<workgroup>>
// CHECK: tile.copy %{{.*}} to %[[V]] {tile.async}
// CHECK: nvvm.cp.async.mbarrier.arrive
// CHECK: nvgpu.mbarrier.arrive
// CHECK: } {tile.role_first = 128 : i64, tile.role_threads = 128 : i64}
// CHECK: %[[CV:.+]] = memref.view %[[RAW]]
// CHECK: tile.copy %[[CV]] to
// CHECK: } {tile.role_first = 0 : i64, tile.role_threads = 128 : i64}
tile.kernel @tiles(%X: memref<64x256xf32>, %Y: memref<64x256xf32>) grid [1] threads [256] {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c16 = arith.constant 16 : index
  %t = tile.alloc_shared : memref<4x256xf32, #gpu.address_space<workgroup>>
  tile.warp_specialize %c0 to %c16 step %c1 stages 2
      tiles(%t : memref<4x256xf32, #gpu.address_space<workgroup>>)
      producer(%k, %s) threads 128 {
    %r = arith.muli %k, %c4 : index
    tile.copy %X[%r, %c0] to %t : memref<64x256xf32> to memref<4x256xf32, #gpu.address_space<workgroup>>
  } consumer(%k, %s) threads 128 {
    %r = arith.muli %k, %c4 : index
    tile.copy %t to %Y[%r, %c0] : memref<4x256xf32, #gpu.address_space<workgroup>> to memref<64x256xf32>
  }
}
