// The LLVM IR pipeline of tile-serialize-to-ptx: the O level's default
// (O3), `lean`, or any pipeline in opt's syntax.
// RUN: tile-opt %s --tile-serialize-to-ptx | FileCheck %s --check-prefix=O3
// RUN: tile-opt %s --tile-serialize-to-ptx=llvm-passes=lean | FileCheck %s --check-prefix=LEAN
// RUN: tile-opt %s '--tile-serialize-to-ptx=llvm-passes=function(verify)' | FileCheck %s --check-prefix=NONE
// RUN: not tile-opt %s --tile-serialize-to-ptx=llvm-passes=no-such-pass 2>&1 | FileCheck %s --check-prefix=BAD

// The helper is inlined by O3 and by the lean pipeline; a pipeline without
// the inliner leaves the call (the NVPTX backend does not inline).
// O3-NOT: call
// O3: .entry sum(
// O3-NOT: call
// O3: add.rn.f32
// LEAN-NOT: call
// LEAN: .entry sum(
// LEAN-NOT: call
// LEAN: add.rn.f32
// NONE: func_retval0) double_it(
// NONE: .entry sum(
// NONE: call.uni (retval0), double_it
// BAD: error: invalid LLVM pass pipeline 'no-such-pass': unknown pass name 'no-such-pass'
// BAD-NOT: gpu.binary
module attributes {gpu.container_module} {
  gpu.module @sum_module [#nvvm.target<chip = "sm_90a">] {
    llvm.func internal @double_it(%x: f32) -> f32 {
      %y = llvm.fadd %x, %x : f32
      llvm.return %y : f32
    }
    llvm.func @sum(%arg0: !llvm.ptr, %arg1: f32) attributes {gpu.kernel, nvvm.kernel} {
      %w = llvm.call @double_it(%arg1) : (f32) -> f32
      llvm.store %w, %arg0 : f32, !llvm.ptr
      llvm.return
    }
  }
}
