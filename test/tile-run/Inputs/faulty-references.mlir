// Mistakes in user code that tile-run runs on the CPU: each is a report
// naming the function, the op and its location, never a crash of tile-run
// (test/tile-run/guarded-run.test). One correct kernel, five references.
tile.kernel @scale(%x: memref<64xf32>, %s: i32) grid [1] threads [64]
    attributes {reference = @dim_of_missing_dimension} {
  %tx = tile.thread_id x
  %v = memref.load %x[%tx] : memref<64xf32>
  %w = arith.addf %v, %v : f32
  memref.store %w, %x[%tx] : memref<64xf32>
}

func.func @dim_of_missing_dimension(%x: memref<64xf32>, %s: i32) {
  %c1 = arith.constant 1 : index
  %n = memref.dim %x, %c1 : memref<64xf32>
  %c0 = arith.constant 0 : index
  %v = memref.load %x[%n] : memref<64xf32>
  memref.store %v, %x[%c0] : memref<64xf32>
  return
}

func.func @load_out_of_bounds(%x: memref<64xf32>, %s: i32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c65 = arith.constant 65 : index
  scf.for %i = %c0 to %c65 step %c1 {
    %v = memref.load %x[%i] : memref<64xf32>
    %w = arith.addf %v, %v : f32
    memref.store %w, %x[%c0] : memref<64xf32>
  }
  return
}

// --arg s=0: an integer division by zero, a fault (SIGFPE) on the CPU.
func.func @divide_by_argument(%x: memref<64xf32>, %s: i32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = arith.constant 64 : index
  %c64 = arith.constant 64 : i32
  %q = arith.divsi %c64, %s : i32
  %f = arith.sitofp %q : i32 to f32
  scf.for %i = %c0 to %n step %c1 {
    memref.store %f, %x[%i] : memref<64xf32>
  }
  return
}

// A loop whose step is zero would never end (found by the fuzzer: tile-run
// waited forever).
func.func @loop_step_zero(%x: memref<64xf32>, %s: i32) {
  %c0 = arith.constant 0 : index
  %n = arith.constant 64 : index
  %f = arith.constant 1.0 : f32
  scf.for %i = %c0 to %n step %c0 {
    memref.store %f, %x[%i] : memref<64xf32>
  }
  return
}

// The same fault in a kernel run on the CPU target.
tile.kernel @divide_in_kernel(%x: memref<64xf32>, %s: i32) grid [1] threads [64]
    attributes {reference = @divide_by_argument} {
  %c64 = arith.constant 64 : i32
  %tx = tile.thread_id x
  %q = arith.divsi %c64, %s : i32
  %f = arith.sitofp %q : i32 to f32
  memref.store %f, %x[%tx] : memref<64xf32>
}
