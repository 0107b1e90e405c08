// skip-llvm-passes names LLVM passes that do not run; the default list
// (tile::kDefaultSkippedLLVMPasses) holds those that cost compile time and
// give nothing on tile kernels.
//
// The backend's (legacy) passes: the NVPTX backend's straight-line strength
// reduction is skipped by default, so x[t * s], x[(t + 1) * s], ... keep
// their own multiplies (ptxas reduces them; the pass cost most of the
// compile time of unrolled tensor-core kernels). With an empty list it runs
// and the later addresses are built by adding s * 4 to the previous one.
// RUN: tile-opt %s --tile-to-ptx='ptx-output=%t.default.ptx' -o /dev/null
// RUN: FileCheck %s --check-prefix=OFF < %t.default.strided.ptx
// RUN: tile-opt %s --tile-to-ptx='skip-llvm-passes= ptx-output=%t.all.ptx' -o /dev/null
// RUN: FileCheck %s --check-prefix=ON < %t.all.strided.ptx
//
// The IR pipeline's (new pass manager) passes, named as opt names them: the
// loop of @summed is unrolled by default, not when the unrollers are
// skipped.
// RUN: FileCheck %s --check-prefix=UNROLLED < %t.default.summed.ptx
// RUN: tile-opt %s --tile-to-ptx='skip-llvm-passes=loop-unroll-full,loop-unroll ptx-output=%t.rolled.ptx' -o /dev/null
// RUN: FileCheck %s --check-prefix=ROLLED < %t.rolled.summed.ptx
// RUN: FileCheck %s --check-prefix=ON < %t.rolled.strided.ptx
//
// `default` stands for the default list: passes added to it.
// RUN: tile-opt %s --tile-to-ptx='skip-llvm-passes=default,loop-unroll-full,loop-unroll ptx-output=%t.added.ptx' -o /dev/null
// RUN: FileCheck %s --check-prefix=ROLLED < %t.added.summed.ptx
// RUN: FileCheck %s --check-prefix=OFF < %t.added.strided.ptx
//
// `pass#n` skips the n-th run of an IR pass (counted per function): O3
// runs each unroller once, so their first runs are all of them; a second
// run that never comes skips nothing.
// RUN: tile-opt %s --tile-to-ptx='skip-llvm-passes=default,loop-unroll-full#1,loop-unroll#1 ptx-output=%t.first.ptx' -o /dev/null
// RUN: FileCheck %s --check-prefix=ROLLED < %t.first.summed.ptx
// RUN: tile-opt %s --tile-to-ptx='skip-llvm-passes=default,loop-unroll-full#2,loop-unroll#2 ptx-output=%t.second.ptx' -o /dev/null
// RUN: FileCheck %s --check-prefix=UNROLLED < %t.second.summed.ptx
// RUN: not tile-opt %s --tile-to-ptx='skip-llvm-passes=instcombine#0' -o /dev/null 2>&1 | FileCheck %s --check-prefix=RUN0
// RUN0: error: skip-llvm-passes: 'instcombine#0' is not a run of an LLVM pass
// RUN: not tile-opt %s --tile-to-ptx='skip-llvm-passes=instcombine#x' -o /dev/null 2>&1 | FileCheck %s --check-prefix=RUNX
// RUNX: error: skip-llvm-passes: 'instcombine#x' is not a run of an LLVM pass
// RUN: not tile-opt %s --tile-to-ptx='skip-llvm-passes=gvm#2' -o /dev/null 2>&1 | FileCheck %s --check-prefix=RUN-UNKNOWN
// RUN-UNKNOWN: error: skip-llvm-passes: 'gvm#2' is not a run of an LLVM pass
//
// Runs of a function pass count on through the backend's: O3's GVN is
// gvn#1, the NVPTX backend's two are gvn#2 and gvn#3. LLVM's opt-bisect
// log lists the runs the gate lets through (`on f` from the IR pipeline,
// `on function (f)` from the backend).
// RUN: tile-opt %s --tile-to-ptx='ptx-output=%t.ptx' -o /dev/null --mlir-disable-threading -opt-bisect-limit=1000000 2>&1 | FileCheck %s --check-prefix=GVN-ALL
// GVN-ALL: running pass ({{[0-9]+}}) gvn on summed
// GVN-ALL-COUNT-2: running pass ({{[0-9]+}}) gvn on function (summed)
// GVN-ALL-NOT: gvn on {{.*}}summed
// RUN: tile-opt %s --tile-to-ptx='skip-llvm-passes=default,gvn#2 ptx-output=%t.ptx' -o /dev/null --mlir-disable-threading -opt-bisect-limit=1000000 2>&1 | FileCheck %s --check-prefix=GVN-2
// GVN-2: running pass ({{[0-9]+}}) gvn on summed
// GVN-2-COUNT-1: running pass ({{[0-9]+}}) gvn on function (summed)
// GVN-2-NOT: gvn on {{.*}}summed
// RUN: tile-opt %s --tile-to-ptx='skip-llvm-passes=default,gvn#1,gvn#3 ptx-output=%t.ptx' -o /dev/null --mlir-disable-threading -opt-bisect-limit=1000000 2>&1 | FileCheck %s --check-prefix=GVN-1-3
// GVN-1-3-NOT: gvn on summed
// GVN-1-3: running pass ({{[0-9]+}}) gvn on function (summed)
// GVN-1-3-NOT: gvn on {{.*}}summed
// The count is per function, even for a kernel named `loop` (what LLVM's
// loop passes call their unit): its gvn#2 is the backend's first GVN, the
// one after speculative-execution, not the one after
// partially-inline-libcalls.
// RUN: tile-opt %s --tile-to-ptx='skip-llvm-passes=default,gvn#2 ptx-output=%t.ptx' -o /dev/null --mlir-disable-threading -opt-bisect-limit=1000000 2>&1 | FileCheck %s --check-prefix=GVN-LOOP
// GVN-LOOP: running pass ({{[0-9]+}}) gvn on loop
// GVN-LOOP: speculative-execution on function (loop)
// GVN-LOOP-NEXT: early-cse on function (loop)
// GVN-LOOP: partially-inline-libcalls on function (loop)
// GVN-LOOP-NEXT: gvn on function (loop)
//
// A name LLVM does not know is an error, not silently ignored.
// RUN: not tile-opt %s --tile-to-ptx='skip-llvm-passes=slsr,slp-vectoriser' -o /dev/null 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// UNKNOWN: error: skip-llvm-passes: 'slp-vectoriser' is not an LLVM pass

// OFF-LABEL: .entry strided(
// OFF-COUNT-3: mul.lo.s64
// OFF-NOT: mul.lo.s64
// OFF: ld.global.b32
// ON-LABEL: .entry strided(
// ON: mul.lo.s64
// ON-NOT: mul.lo.s64
// ON: shl.b64 [[STRIDE:%rd[0-9]+]], %rd{{[0-9]+}}, 2;
// ON: add.s64 [[NEXT:%rd[0-9]+]], %rd{{[0-9]+}}, [[STRIDE]];
// ON-NEXT: ld.global.b32 %r{{[0-9]+}}, [[[NEXT]]];
tile.kernel @strided(%x: memref<?xf32>, %y: memref<?xf32>, %s: index) grid [1] threads [32] {
  %t = tile.thread_id x
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %i1 = arith.addi %t, %c1 : index
  %i2 = arith.addi %t, %c2 : index
  %i3 = arith.addi %t, %c3 : index
  %o0 = arith.muli %t, %s : index
  %o1 = arith.muli %i1, %s : index
  %o2 = arith.muli %i2, %s : index
  %o3 = arith.muli %i3, %s : index
  %a = memref.load %x[%o0] : memref<?xf32>
  %b = memref.load %x[%o1] : memref<?xf32>
  %c = memref.load %x[%o2] : memref<?xf32>
  %d = memref.load %x[%o3] : memref<?xf32>
  %ab = arith.addf %a, %b : f32
  %cd = arith.addf %c, %d : f32
  %r = arith.addf %ab, %cd : f32
  memref.store %r, %y[%t] : memref<?xf32>
}

// UNROLLED-LABEL: .entry summed(
// UNROLLED-NOT: bra
// UNROLLED-COUNT-4: ld.global.b32
// UNROLLED-NOT: bra
// UNROLLED: ret;
// ROLLED-LABEL: .entry summed(
// ROLLED: ld.global.b32
// ROLLED-NOT: ld.global.b32
// ROLLED: bra
tile.kernel @summed(%x: memref<?xf32>, %y: memref<?xf32>) grid [1] threads [32] {
  %t = tile.thread_id x
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c32 = arith.constant 32 : index
  %zero = arith.constant 0.0 : f32
  %sum = scf.for %i = %c0 to %c4 step %c1 iter_args(%acc = %zero) -> (f32) {
    %o = arith.muli %i, %c32 : index
    %j = arith.addi %o, %t : index
    %v = memref.load %x[%j] : memref<?xf32>
    %n = arith.addf %acc, %v : f32
    scf.yield %n : f32
  }
  memref.store %sum, %y[%t] : memref<?xf32>
}

tile.kernel @loop(%x: memref<?xf32>) grid [1] threads [32] {
  %t = tile.thread_id x
  %v = memref.load %x[%t] : memref<?xf32>
  %w = arith.addf %v, %v : f32
  memref.store %w, %x[%t] : memref<?xf32>
}
