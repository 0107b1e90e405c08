// RUN: tile-opt %s --tile-math-to-intrinsics | FileCheck %s
// RUN: tile-opt %s --tile-math-to-intrinsics --convert-gpu-to-nvvm | FileCheck %s --check-prefix=NVVM

// math.fma becomes llvm.intr.fma on scalars and vectors; other math ops
// stay for the libdevice lowering of convert-gpu-to-nvvm.
// CHECK-LABEL: gpu.func @fma
// CHECK: llvm.intr.fma(%{{.*}}, %{{.*}}, %{{.*}}) : (f32, f32, f32) -> f32
// CHECK: llvm.intr.fma(%{{.*}}, %{{.*}}, %{{.*}}) : (vector<2xf16>, vector<2xf16>, vector<2xf16>) -> vector<2xf16>
// CHECK: llvm.intr.fma(%{{.*}}, %{{.*}}, %{{.*}}) : (f64, f64, f64) -> f64
// CHECK: math.absf
// NVVM-NOT: __nv_fma
// NVVM: llvm.call @__nv_fabsf
// NVVM-NOT: __nv_fma
gpu.module @m {
  gpu.func @fma(%a: f32, %v: vector<2xf16>, %d: f64, %out: memref<8xf32>,
                %hout: memref<8xf16>, %dout: memref<8xf64>) kernel {
    %c0 = arith.constant 0 : index
    %f = math.fma %a, %a, %a : f32
    %h = math.fma %v, %v, %v : vector<2xf16>
    %g = math.fma %d, %d, %d : f64
    %b = math.absf %f : f32
    memref.store %b, %out[%c0] : memref<8xf32>
    vector.store %h, %hout[%c0] : memref<8xf16>, vector<2xf16>
    memref.store %g, %dout[%c0] : memref<8xf64>
    gpu.return
  }
}
