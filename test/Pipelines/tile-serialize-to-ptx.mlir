// RUN: tile-opt %s -split-input-file -verify-diagnostics --tile-serialize-to-ptx | FileCheck %s
// RUN: tile-opt %s -split-input-file -verify-diagnostics --tile-serialize-to-ptx --mlir-disable-threading | FileCheck %s

// Every gpu.module becomes a gpu.binary of the same name holding its PTX,
// in the modules' order, whether compiled in parallel or not.
// CHECK: gpu.binary @first_module [#gpu.object<#nvvm.target<chip = "sm_90a">, {{.*}}assembly = "{{.*}}.entry first(
// CHECK: gpu.binary @second_module [#gpu.object<#nvvm.target<chip = "sm_90a">, {{.*}}assembly = "{{.*}}.entry second(
// CHECK-NOT: gpu.module
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
}

// -----

// A module without a target cannot be compiled.
module attributes {gpu.container_module} {
  // expected-error @below {{the gpu.module has no target attribute: run nvvm-attach-target first}}
  gpu.module @untargeted {
  }
}
