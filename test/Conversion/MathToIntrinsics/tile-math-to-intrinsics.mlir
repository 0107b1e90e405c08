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

// arith.maximumf / minimumf (NaN-propagating) become llvm.intr.maximum /
// minimum, max.NaN / min.NaN in PTX (test/Pipelines/max-nan.mlir); the
// arith-expand run after would have made a compare, a NaN test and two
// selects of each.
// CHECK-LABEL: gpu.func @min_max
// CHECK: llvm.intr.maximum(%{{.*}}, %{{.*}}) : (f32, f32) -> f32
// CHECK: llvm.intr.minimum(%{{.*}}, %{{.*}}) : (vector<2xf16>, vector<2xf16>) -> vector<2xf16>
// CHECK-NOT: arith.maximumf
gpu.module @m2 {
  gpu.func @min_max(%a: f32, %b: f32, %v: vector<2xf16>, %out: memref<8xf32>,
                    %hout: memref<8xf16>) kernel {
    %c0 = arith.constant 0 : index
    %m = arith.maximumf %a, %b : f32
    %n = arith.minimumf %v, %v : vector<2xf16>
    memref.store %m, %out[%c0] : memref<8xf32>
    vector.store %n, %hout[%c0] : memref<8xf16>, vector<2xf16>
    gpu.return
  }
}

// f32 math.exp2 with fastmath<afn> becomes ex2.approx.ftz.f32 (one
// MUFU.EX2; results below 2^-126 are zero); without afn, or on f16, it
// stays for libdevice (ex2.approx.f32, subnormal results kept).
// CHECK-LABEL: gpu.func @exp2
// CHECK: llvm.call_intrinsic "llvm.nvvm.ex2.approx.ftz.f32"(%{{.*}}) : (f32) -> f32
// CHECK: math.exp2 %{{.*}} : f32
// CHECK: math.exp2 %{{.*}} fastmath<afn> : f16
// NVVM-LABEL: llvm.func @exp2
// NVVM: llvm.call_intrinsic "llvm.nvvm.ex2.approx.ftz.f32"
// NVVM: llvm.call @__nv_exp2f
gpu.module @m3 {
  gpu.func @exp2(%a: f32, %h: f16, %out: memref<8xf32>, %hout: memref<8xf16>) kernel {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %e = math.exp2 %a fastmath<afn> : f32
    %p = math.exp2 %a : f32
    %g = math.exp2 %h fastmath<afn> : f16
    memref.store %e, %out[%c0] : memref<8xf32>
    memref.store %p, %out[%c1] : memref<8xf32>
    memref.store %g, %hout[%c0] : memref<8xf16>
    gpu.return
  }
}

// f32 math.log2 with fastmath<afn> becomes lg2.approx.ftz.f32 (one
// MUFU.LG2; inputs below 2^-126 give -inf), so that attention's log-sum-exp
// needs no libdevice; without afn, or on f16, it stays for libdevice.
// CHECK-LABEL: gpu.func @log2
// CHECK: llvm.call_intrinsic "llvm.nvvm.lg2.approx.ftz.f"(%{{.*}}) : (f32) -> f32
// CHECK: math.log2 %{{.*}} : f32
// CHECK: math.log2 %{{.*}} fastmath<afn> : f16
// NVVM-LABEL: llvm.func @log2
// NVVM: llvm.call_intrinsic "llvm.nvvm.lg2.approx.ftz.f"
// NVVM: llvm.call @__nv_log2f
gpu.module @m4 {
  gpu.func @log2(%a: f32, %h: f16, %out: memref<8xf32>, %hout: memref<8xf16>) kernel {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %l = math.log2 %a fastmath<afn> : f32
    %p = math.log2 %a : f32
    %g = math.log2 %h fastmath<afn> : f16
    memref.store %l, %out[%c0] : memref<8xf32>
    memref.store %p, %out[%c1] : memref<8xf32>
    memref.store %g, %hout[%c0] : memref<8xf16>
    gpu.return
  }
}
