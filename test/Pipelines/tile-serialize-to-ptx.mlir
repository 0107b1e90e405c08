// RUN: tile-opt %s -split-input-file -verify-diagnostics --tile-serialize-to-ptx | FileCheck %s
// RUN: tile-opt %s -split-input-file -verify-diagnostics --tile-serialize-to-ptx --mlir-disable-threading | FileCheck %s
// RUN: not tile-opt %s -split-input-file --tile-serialize-to-ptx=toolkit=%t.missing 2>&1 | FileCheck %s --check-prefix=TOOLKIT

// An error of the target fails the pass (it used to go on without libdevice).
// TOOLKIT: error: {{.*}}does not exist
// TOOLKIT-NOT: gpu.binary

// Every gpu.module becomes a gpu.binary of the same name holding its PTX,
// in the modules' order, whether compiled in parallel or not.
// CHECK: gpu.binary @first_module [#gpu.object<#nvvm.target<chip = "sm_90a">, {{.*}}assembly = "{{.*}}.entry first(
// CHECK: gpu.binary @second_module [#gpu.object<#nvvm.target<chip = "sm_90a">, {{.*}}assembly = "{{.*}}.entry second(
// CHECK-NOT: gpu.module
// The offloading handler of a module stays with its binary.
// CHECK: gpu.binary @handled <#gpu.select_object<0 : i64>>
module attributes {gpu.container_module} {
  gpu.module @first_module [#nvvm.target<chip = "sm_90a">] {
    llvm.func @first(%arg0: !llvm.ptr) attributes {gpu.kernel, nvvm.kernel} {
      %c = llvm.mlir.constant(1.0 : f32) : f32
      llvm.store %c, %arg0 : f32, !llvm.ptr
      llvm.return
    }
  }
  gpu.module @second_module [#nvvm.target<chip = "sm_90a">] {
    llvm.func @second() attributes {gpu.kernel, nvvm.kernel} {
      llvm.return
    }
  }
  gpu.module @handled <#gpu.select_object<0>> [#nvvm.target<chip = "sm_90a">] {
  }
}

// -----

// A module without a target cannot be compiled.
module attributes {gpu.container_module} {
  // expected-error @below {{the gpu.module has no target attribute: run nvvm-attach-target first}}
  gpu.module @untargeted {
  }
}
