// Named barriers (bar.sync / bar.arrive with an id and a count, as a
// pingpong consumer's turns use them) run on the CPU target: warps 0 and 1
// take turns through barriers 2 and 3 and each writes its lane's value
// once its turn came. A count that the arrivals never reach is reported as
// a deadlock naming the barrier's site.
// RUN: tile-run %s --kernel turns --target=cpu --race-check | FileCheck %s --check-prefix=TURNS
// TURNS: race check: 0 races, 0 out-of-bounds, 0 deadlocks
// Arrivals that no bar.sync waits for, and a phase whose arrivals disagree
// on the count, are reported too.
// RUN: not tile-run %s --kernel leftover --target=cpu 2>&1 | FileCheck %s --check-prefix=LEFTOVER
// LEFTOVER: @leftover: block (0, 0, 0) ended with named barrier 4 at 32 of 64 arrivals (the last at {{.*}}cpu-named-barrier.mlir:[[@LINE+58]]:5: nvvm.barrier.arrive): arrivals that no bar.sync waited for
// RUN: not tile-run %s --kernel mismatch --target=cpu 2>&1 | FileCheck %s --check-prefix=MISMATCH
// MISMATCH: @mismatch: bar.sync at {{.*}}cpu-named-barrier.mlir:[[@LINE+72]]:5: nvvm.barrier: barrier 6 with 96 threads, but the phase under way, begun at {{.*}}cpu-named-barrier.mlir:[[@LINE+70]]:5: nvvm.barrier, counts 64
// RUN: not tile-run %s --kernel stuck --target=cpu 2>&1 | FileCheck %s --check-prefix=STUCK
// STUCK: 0 out-of-bounds, 1 deadlocks
// STUCK: @stuck: deadlock in block (0, 0, 0): 64 threads wait: thread (0, 0, 0) at {{.*}}cpu-named-barrier.mlir:[[@LINE+40]]:3: nvvm.barrier (named barrier)
tile.kernel @turns(%y: memref<64xf32>) grid [1] threads [64] {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c32 = arith.constant 32 : index
  %two = arith.constant 2 : i32
  %three = arith.constant 3 : i32
  %count = arith.constant 64 : i32
  %tx = tile.thread_id x
  %warp = arith.divui %tx, %c32 : index
  %first = arith.cmpi eq, %warp, %c0 : index
  %v = arith.index_cast %tx : index to i32
  %f = arith.sitofp %v : i32 to f32
  scf.if %first {
    scf.for %i = %c0 to %c4 step %c1 {
      nvvm.barrier id = %two number_of_threads = %count
      memref.store %f, %y[%tx] : memref<64xf32>
      nvvm.barrier.arrive id = %three number_of_threads = %count
    }
  } else {
    nvvm.barrier.arrive id = %two number_of_threads = %count
    scf.for %i = %c0 to %c4 step %c1 {
      nvvm.barrier id = %three number_of_threads = %count
      memref.store %f, %y[%tx] : memref<64xf32>
      // Warp 0's last turn was the opening arrival: none is left over.
      %next = arith.addi %i, %c1 : index
      %more = arith.cmpi ult, %next, %c4 : index
      scf.if %more {
        nvvm.barrier.arrive id = %two number_of_threads = %count
      }
    }
  }
}

tile.kernel @stuck(%y: memref<64xf32>) grid [1] threads [64] {
  %id = arith.constant 5 : i32
  %count = arith.constant 128 : i32
  %one = arith.constant 1.0 : f32
  %tx = tile.thread_id x
  nvvm.barrier id = %id number_of_threads = %count
  memref.store %one, %y[%tx] : memref<64xf32>
}

tile.kernel @leftover(%y: memref<64xf32>) grid [1] threads [64] {
  %c0 = arith.constant 0 : index
  %c32 = arith.constant 32 : index
  %id = arith.constant 4 : i32
  %count = arith.constant 64 : i32
  %one = arith.constant 1.0 : f32
  %tx = tile.thread_id x
  %first = arith.cmpi ult, %tx, %c32 : index
  scf.if %first {
    nvvm.barrier.arrive id = %id number_of_threads = %count
  }
  memref.store %one, %y[%tx] : memref<64xf32>
}

tile.kernel @mismatch(%y: memref<64xf32>) grid [1] threads [64] {
  %c32 = arith.constant 32 : index
  %id = arith.constant 6 : i32
  %count = arith.constant 64 : i32
  %more = arith.constant 96 : i32
  %one = arith.constant 1.0 : f32
  %tx = tile.thread_id x
  %first = arith.cmpi ult, %tx, %c32 : index
  scf.if %first {
    nvvm.barrier id = %id number_of_threads = %count
  } else {
    nvvm.barrier id = %id number_of_threads = %more
  }
  memref.store %one, %y[%tx] : memref<64xf32>
}
