// RUN: tile-opt %s | tile-opt | FileCheck %s
// RUN: tile-opt %s --tile-to-ptx='ptx-output=-' -o /dev/null | FileCheck %s --check-prefix=PTX
// RUN: tile-opt %s --tile-to-ptx='ptx-output=%t.ptx' -o /dev/null
// RUN: %if ptxas %{ %ptxas-each %t %}
// GPU-SUITE: --kernel gemv_pipelined_1024 --check --check-repeat 100 --bench
// GPU-SUITE: --kernel gemv_pipelined_16384 --check --check-repeat 100 --bench
// GPU-SUITE: --kernel gemv_serial_16384 --check --bench

// GEMV (f16 inputs, f32 accumulation) with the K tiles of A and B staged in
// shared memory by a software-pipelined loop: 4 rows per block, threads
// [32, 4] (x along K, y the row), K tiles of 256 (N = K = 1024) or 1024
// (16384) elements copied with 16-byte cp.async several tiles ahead, read
// back 16 bytes at a time, and the 32 partial sums of a row combined by
// warp shuffles. gemv_serial_16384 is the same kernel with one stage: the
// copies synchronous, two barriers per tile.

// CHECK-LABEL: tile.kernel @gemv_pipelined_1024
tile.kernel @gemv_pipelined_1024(%A: memref<1024xf16>, %B: memref<1024x1024xf16>,
    %C: memref<1024xf16>)
    grid [256] threads [32, 4] attributes {reference = @gemv_reference} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c_slices = arith.constant 1 : index
  %c_lanes = arith.constant 8 : index
  %c_tiles = arith.constant 4 : index
  %bn = tile.block_id x
  %tk = tile.thread_id x
  %tn = tile.thread_id y
  %n0 = affine.apply affine_map<(bn) -> (bn * 4)>(%bn)
  %As = tile.alloc_shared : memref<256xf16, #gpu.address_space<workgroup>>
  %Bs = tile.alloc_shared : memref<4x256xf16, #gpu.address_space<workgroup>>
  %a = tile.alloc_local : memref<8xf16>
  %b = tile.alloc_local : memref<8xf16>
  %init_sum = arith.constant 0.0 : f32
  %part = tile.pipelined %it = %c0 to %c_tiles step %c1 stages 3 iter_args(%running = %init_sum) -> (f32) {
    %k0 = affine.apply affine_map<(it) -> (it * 256)>(%it)
    tile.copy %A[%k0] to %As : memref<1024xf16> to memref<256xf16, #gpu.address_space<workgroup>>
    tile.copy %B[%n0, %k0] to %Bs : memref<1024x1024xf16> to memref<4x256xf16, #gpu.address_space<workgroup>>
    tile.unroll %u = %c0 to %c_slices step %c1 {
      %s0 = affine.apply affine_map<(u, tk) -> (u * 256 + tk * 8)>(%u, %tk)
      %l0 = arith.muli %u, %c8 : index
      tile.vectorized %e = %c0 to %c8 step %c1 {
        %s = arith.addi %s0, %e : index
        %l = arith.addi %l0, %e : index
        %av = memref.load %As[%s] : memref<256xf16, #gpu.address_space<workgroup>>
        memref.store %av, %a[%l] : memref<8xf16>
        %bv = memref.load %Bs[%tn, %s] : memref<4x256xf16, #gpu.address_space<workgroup>>
        memref.store %bv, %b[%l] : memref<8xf16>
      }
    }
    %running_next = tile.unroll %l = %c0 to %c_lanes step %c1 iter_args(%s = %running) -> (f32) {
      %av = memref.load %a[%l] : memref<8xf16>
      %bv = memref.load %b[%l] : memref<8xf16>
      %af = arith.extf %av : f16 to f32
      %bf = arith.extf %bv : f16 to f32
      %t = math.fma %af, %bf, %s : f32
      tile.yield %t : f32
    }
    tile.yield %running_next : f32
  }
  %sum = tile.thread_allreduce add %part across(x) : f32
  %lead = arith.cmpi eq, %tk, %c0 : index
  scf.if %lead {
    %n = arith.addi %n0, %tn : index
    %r = arith.truncf %sum : f32 to f16
    memref.store %r, %C[%n] : memref<1024xf16>
  }
}

// CHECK-LABEL: tile.kernel @gemv_pipelined_16384
tile.kernel @gemv_pipelined_16384(%A: memref<16384xf16>, %B: memref<16384x16384xf16>,
    %C: memref<16384xf16>)
    grid [4096] threads [32, 4] attributes {reference = @gemv_reference} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c_slices = arith.constant 4 : index
  %c_lanes = arith.constant 32 : index
  %c_tiles = arith.constant 16 : index
  %bn = tile.block_id x
  %tk = tile.thread_id x
  %tn = tile.thread_id y
  %n0 = affine.apply affine_map<(bn) -> (bn * 4)>(%bn)
  %As = tile.alloc_shared : memref<1024xf16, #gpu.address_space<workgroup>>
  %Bs = tile.alloc_shared : memref<4x1024xf16, #gpu.address_space<workgroup>>
  %a = tile.alloc_local : memref<32xf16>
  %b = tile.alloc_local : memref<32xf16>
  %init_sum = arith.constant 0.0 : f32
  %part = tile.pipelined %it = %c0 to %c_tiles step %c1 stages 4 iter_args(%running = %init_sum) -> (f32) {
    %k0 = affine.apply affine_map<(it) -> (it * 1024)>(%it)
    tile.copy %A[%k0] to %As : memref<16384xf16> to memref<1024xf16, #gpu.address_space<workgroup>>
    tile.copy %B[%n0, %k0] to %Bs : memref<16384x16384xf16> to memref<4x1024xf16, #gpu.address_space<workgroup>>
    tile.unroll %u = %c0 to %c_slices step %c1 {
      %s0 = affine.apply affine_map<(u, tk) -> (u * 256 + tk * 8)>(%u, %tk)
      %l0 = arith.muli %u, %c8 : index
      tile.vectorized %e = %c0 to %c8 step %c1 {
        %s = arith.addi %s0, %e : index
        %l = arith.addi %l0, %e : index
        %av = memref.load %As[%s] : memref<1024xf16, #gpu.address_space<workgroup>>
        memref.store %av, %a[%l] : memref<32xf16>
        %bv = memref.load %Bs[%tn, %s] : memref<4x1024xf16, #gpu.address_space<workgroup>>
        memref.store %bv, %b[%l] : memref<32xf16>
      }
    }
    %running_next = tile.unroll %l = %c0 to %c_lanes step %c1 iter_args(%s = %running) -> (f32) {
      %av = memref.load %a[%l] : memref<32xf16>
      %bv = memref.load %b[%l] : memref<32xf16>
      %af = arith.extf %av : f16 to f32
      %bf = arith.extf %bv : f16 to f32
      %t = math.fma %af, %bf, %s : f32
      tile.yield %t : f32
    }
    tile.yield %running_next : f32
  }
  %sum = tile.thread_allreduce add %part across(x) : f32
  %lead = arith.cmpi eq, %tk, %c0 : index
  scf.if %lead {
    %n = arith.addi %n0, %tn : index
    %r = arith.truncf %sum : f32 to f16
    memref.store %r, %C[%n] : memref<16384xf16>
  }
}

// CHECK-LABEL: tile.kernel @gemv_serial_16384
tile.kernel @gemv_serial_16384(%A: memref<16384xf16>, %B: memref<16384x16384xf16>,
    %C: memref<16384xf16>)
    grid [4096] threads [32, 4] attributes {reference = @gemv_reference} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c_slices = arith.constant 4 : index
  %c_lanes = arith.constant 32 : index
  %c_tiles = arith.constant 16 : index
  %bn = tile.block_id x
  %tk = tile.thread_id x
  %tn = tile.thread_id y
  %n0 = affine.apply affine_map<(bn) -> (bn * 4)>(%bn)
  %As = tile.alloc_shared : memref<1024xf16, #gpu.address_space<workgroup>>
  %Bs = tile.alloc_shared : memref<4x1024xf16, #gpu.address_space<workgroup>>
  %a = tile.alloc_local : memref<32xf16>
  %b = tile.alloc_local : memref<32xf16>
  %init_sum = arith.constant 0.0 : f32
  %part = tile.pipelined %it = %c0 to %c_tiles step %c1 stages 1 iter_args(%running = %init_sum) -> (f32) {
    %k0 = affine.apply affine_map<(it) -> (it * 1024)>(%it)
    tile.copy %A[%k0] to %As : memref<16384xf16> to memref<1024xf16, #gpu.address_space<workgroup>>
    tile.copy %B[%n0, %k0] to %Bs : memref<16384x16384xf16> to memref<4x1024xf16, #gpu.address_space<workgroup>>
    tile.unroll %u = %c0 to %c_slices step %c1 {
      %s0 = affine.apply affine_map<(u, tk) -> (u * 256 + tk * 8)>(%u, %tk)
      %l0 = arith.muli %u, %c8 : index
      tile.vectorized %e = %c0 to %c8 step %c1 {
        %s = arith.addi %s0, %e : index
        %l = arith.addi %l0, %e : index
        %av = memref.load %As[%s] : memref<1024xf16, #gpu.address_space<workgroup>>
        memref.store %av, %a[%l] : memref<32xf16>
        %bv = memref.load %Bs[%tn, %s] : memref<4x1024xf16, #gpu.address_space<workgroup>>
        memref.store %bv, %b[%l] : memref<32xf16>
      }
    }
    %running_next = tile.unroll %l = %c0 to %c_lanes step %c1 iter_args(%s = %running) -> (f32) {
      %av = memref.load %a[%l] : memref<32xf16>
      %bv = memref.load %b[%l] : memref<32xf16>
      %af = arith.extf %av : f16 to f32
      %bf = arith.extf %bv : f16 to f32
      %t = math.fma %af, %bf, %s : f32
      tile.yield %t : f32
    }
    tile.yield %running_next : f32
  }
  %sum = tile.thread_allreduce add %part across(x) : f32
  %lead = arith.cmpi eq, %tk, %c0 : index
  scf.if %lead {
    %n = arith.addi %n0, %tn : index
    %r = arith.truncf %sum : f32 to f16
    memref.store %r, %C[%n] : memref<16384xf16>
  }
}

// PTX-LABEL: .entry gemv_pipelined_1024(
// PTX: cp.async.cg.shared.global [{{.*}}], [{{.*}}], 16;
// PTX: cp.async.wait_group 1;
// PTX-LABEL: .entry gemv_pipelined_16384(
// PTX: cp.async.cg.shared.global [{{.*}}], [{{.*}}], 16;
// PTX: cp.async.wait_group 2;
// PTX-LABEL: .entry gemv_serial_16384(
// PTX-NOT: cp.async

// The reference, written once for the GEMV examples, is in reference.mlir.
func.func private @gemv_reference(memref<?xf16>, memref<?x?xf16>, memref<?xf16>)
    attributes {tile.defined_in = "reference.mlir"}
