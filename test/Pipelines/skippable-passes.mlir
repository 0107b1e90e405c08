// scripts/skippable-passes.py keeps the candidate passes whose skipping
// leaves a kernel's PTX byte-identical, trying them in order from the
// kernel's own list: @summed's loop is unrolled eight times by the partial
// unroller, not by the full one, which can go; without both unrollers it
// stays one load a trip; constant hoisting finds nothing to hoist.
// RUN: python3 %tile_src_root/scripts/skippable-passes.py %s summed --tile-opt tile-opt --candidates loop-unroll-full,loop-unroll,consthoist | FileCheck %s
// CHECK: {{^}}slp-vectorizer,loop-unroll-full,consthoist{{$}}
// RUN: not python3 %tile_src_root/scripts/skippable-passes.py %s nope --tile-opt tile-opt 2>&1 | FileCheck %s --check-prefix=MISSING
// MISSING: error: no kernel @nope in

tile.kernel @summed(%x: memref<64xf32>, %out: memref<1xf32>)
    grid [1] threads [1] attributes {skip_llvm_passes = "slp-vectorizer"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %zero = arith.constant 0.0 : f32
  %sum = scf.for %i = %c0 to %c64 step %c1 iter_args(%acc = %zero) -> (f32) {
    %v = memref.load %x[%i] : memref<64xf32>
    %s = arith.addf %acc, %v : f32
    scf.yield %s : f32
  }
  memref.store %sum, %out[%c0] : memref<1xf32>
}
