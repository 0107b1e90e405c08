// -time-passes times the LLVM IR passes of the serializer's pipeline (O3,
// new pass manager) as well as the backend's, in one report; with
// -time-passes-per-run each run of a pass has its own line.
// RUN: tile-opt %s --tile-to-ptx='ptx-output=%t.ptx' -o /dev/null -time-passes 2>&1 | FileCheck %s
// RUN: tile-opt %s --tile-to-ptx='ptx-output=%t.ptx' -o /dev/null -time-passes -time-passes-per-run 2>&1 | FileCheck %s --check-prefix=EACH
// CHECK: Pass execution timing report
// CHECK-DAG: InstCombinePass
// CHECK-DAG: SROAPass
// CHECK-DAG: NVPTX DAG->DAG Pattern Instruction Selection
// EACH: Pass execution timing report
// EACH-DAG: InstCombinePass #2
// EACH-DAG: NVPTX DAG->DAG Pattern Instruction Selection

tile.kernel @scaled(%x: memref<?xf32>, %alpha: f32) grid [1] threads [64] {
  tile.parallel (%i) in [64] {
    %v = memref.load %x[%i] : memref<?xf32>
    %s = arith.mulf %v, %alpha : f32
    memref.store %s, %x[%i] : memref<?xf32>
  }
}
