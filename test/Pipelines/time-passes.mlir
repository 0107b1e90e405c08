// LLVM's debugging options reach the serializer's IR pipeline (O3, new
// pass manager) as in opt: -time-passes times its passes beside the
// backend's, in one report (with -time-passes-per-run, each run of a pass
// on its own line); -print-before=PASS prints the IR before each run.
// RUN: tile-opt %s --tile-to-ptx='ptx-output=%t.ptx' -o /dev/null -time-passes 2>&1 | FileCheck %s
// RUN: tile-opt %s --tile-to-ptx='ptx-output=%t.ptx' -o /dev/null -time-passes -time-passes-per-run 2>&1 | FileCheck %s --check-prefix=EACH
// RUN: tile-opt %s --tile-to-ptx='ptx-output=%t.ptx' -o /dev/null -print-before=instcombine 2>&1 | FileCheck %s --check-prefix=PRINT
//
// Runs are counted so: the default skip list leaves four of O3's eight
// InstCombine runs (it skips the fourth to the seventh); with an empty list
// all eight run.
// RUN: tile-opt %s --tile-to-ptx='ptx-output=%t.ptx' -o /dev/null -time-passes -time-passes-per-run 2>&1 | grep -c ' InstCombinePass #' | FileCheck %s --check-prefix=DEFAULT-RUNS
// DEFAULT-RUNS: {{^}}4{{$}}
// RUN: tile-opt %s --tile-to-ptx='skip-llvm-passes= ptx-output=%t.ptx' -o /dev/null -time-passes -time-passes-per-run 2>&1 | grep -c ' InstCombinePass #' | FileCheck %s --check-prefix=ALL-RUNS
// ALL-RUNS: {{^}}8{{$}}
// PRINT: IR Dump Before InstCombinePass on scaled
// PRINT: define {{.*}}void @scaled(
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
