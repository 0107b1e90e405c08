// RUN: tile-opt %s --tile-llvm-array-allocas | FileCheck %s

// A buffer of 128 f32 becomes one [128 x f32]; its GEPs index the elements
// through the opaque pointer as before. A single element, a dynamic count
// and an array type are left alone.

// CHECK-LABEL: llvm.func @static_count
// CHECK: %[[ONE:.*]] = llvm.mlir.constant(1 : i64) : i64
// CHECK: %[[BUFFER:.*]] = llvm.alloca %[[ONE]] x !llvm.array<128 x f32> {alignment = 16 : i64} : (i64) -> !llvm.ptr
// CHECK: llvm.getelementptr %[[BUFFER]][5] : (!llvm.ptr) -> !llvm.ptr, f32
llvm.func @static_count(%value: f32) {
  %count = llvm.mlir.constant(128 : i64) : i64
  %buffer = llvm.alloca %count x f32 {alignment = 16 : i64} : (i64) -> !llvm.ptr
  %element = llvm.getelementptr %buffer[5] : (!llvm.ptr) -> !llvm.ptr, f32
  llvm.store %value, %element : f32, !llvm.ptr
  llvm.return
}

// CHECK-LABEL: llvm.func @left_alone
// CHECK: llvm.alloca %{{.*}} x f32 : (i64) -> !llvm.ptr
// CHECK: llvm.alloca %{{.*}} x f32 : (i64) -> !llvm.ptr
// CHECK: llvm.alloca %{{.*}} x !llvm.array<4 x i32> : (i64) -> !llvm.ptr
llvm.func @left_alone(%n: i64) {
  %one = llvm.mlir.constant(1 : i64) : i64
  %single = llvm.alloca %one x f32 : (i64) -> !llvm.ptr
  %dynamic = llvm.alloca %n x f32 : (i64) -> !llvm.ptr
  %array = llvm.alloca %one x !llvm.array<4 x i32> : (i64) -> !llvm.ptr
  llvm.return
}
