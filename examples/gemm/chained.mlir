// RUN: tile-opt %s | tile-opt | FileCheck %s
// RUN: tile-opt %s --tile-to-ptx='ptx-output=%t.ptx' -o /dev/null
// RUN: FileCheck %s --check-prefix=PTX < %t.ptx
// RUN: %if ptxas %{ %ptxas-each %t %}
// GPU-SUITE: --shape A=1000x64 --shape E=1000x64 --check
// GPU-SUITE: --shape A=65536x64 --shape E=65536x64 --check --bench --flops 1073741824
// CPU-SUITE: --shape A=200x64 --shape E=200x64 --check

// Two products in a row, the first one's result kept in registers:
// E = (A B) D, with A B rounded to f16 in between, as attention's
// O = P V takes P = softmax(Q K^T) (examples/attention builds on this).
// Each block takes 64 rows of A: S = A B lands in a fragment, `tile.copy`
// rounds it into the f16 fragment P, and P is the A operand of the second
// `tile.gemm`, read straight from registers: the accumulator layout of
// S holds exactly mma.sync's A-operand registers when the warps split M
// only, which layout inference arranges for both products (4 warps of 16
// rows). No shared-memory round trip, no thread index.

// CHECK-LABEL: tile.kernel @gemm_chain
tile.kernel @gemm_chain(%A: memref<?x64xf16>, %B: memref<64x64xf16>,
                        %D: memref<64x64xf16>, %E: memref<?x64xf16>)
    grid [?] threads [128] attributes {reference = @gemm_chain_reference} {
  %c0 = arith.constant 0 : index
  %bx = tile.block_id x
  %m0 = affine.apply affine_map<(b) -> (b * 64)>(%bx)
  %As = tile.alloc_shared : memref<64x64xf16, #gpu.address_space<workgroup>>
  %Bs = tile.alloc_shared : memref<64x64xf16, #gpu.address_space<workgroup>>
  %Ds = tile.alloc_shared : memref<64x64xf16, #gpu.address_space<workgroup>>
  tile.copy %A[%m0, %c0] to %As : memref<?x64xf16> to memref<64x64xf16, #gpu.address_space<workgroup>>
  tile.copy %B[%c0, %c0] to %Bs : memref<64x64xf16> to memref<64x64xf16, #gpu.address_space<workgroup>>
  tile.copy %D[%c0, %c0] to %Ds : memref<64x64xf16> to memref<64x64xf16, #gpu.address_space<workgroup>>
  %S = tile.alloc_fragment : memref<64x64xf32, #tile.fragment>
  tile.gemm %As, %Bs, %S {clear} : memref<64x64xf16, #gpu.address_space<workgroup>>, memref<64x64xf16, #gpu.address_space<workgroup>>, memref<64x64xf32, #tile.fragment>
  %P = tile.alloc_fragment : memref<64x64xf16, #tile.fragment>
  tile.copy %S to %P : memref<64x64xf32, #tile.fragment> to memref<64x64xf16, #tile.fragment>
  %O = tile.alloc_fragment : memref<64x64xf32, #tile.fragment>
  // CHECK: tile.gemm %{{.*}} : memref<64x64xf16, #tile.fragment>, memref<64x64xf16, #gpu.address_space<workgroup>>, memref<64x64xf32, #tile.fragment>
  tile.gemm %P, %Ds, %O {clear} : memref<64x64xf16, #tile.fragment>, memref<64x64xf16, #gpu.address_space<workgroup>>, memref<64x64xf32, #tile.fragment>
  tile.copy %O to %E[%m0, %c0] : memref<64x64xf32, #tile.fragment> to memref<?x64xf16>
} grid_size {
^bb0(%A: memref<?x64xf16>, %B: memref<64x64xf16>, %D: memref<64x64xf16>, %E: memref<?x64xf16>):
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %M = memref.dim %E, %c0 : memref<?x64xf16>
  %g = arith.ceildivui %M, %c64 : index
  tile.yield %g : index
}

// ldmatrix.x4 per warp: A B takes 4 k-steps of 1 for A and 4 for B (20),
// P D only 4 for D per k-step (16): none for P, read from registers.
// PTX-LABEL: .entry gemm_chain(
// PTX-COUNT-36: ldmatrix.sync.aligned.m8n8.x4
// PTX-NOT: ldmatrix
// PTX: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32

// E = f16(f16(A B) D), f32 accumulation in both products.
func.func @gemm_chain_reference(%A: memref<?x64xf16>, %B: memref<64x64xf16>,
                                %D: memref<64x64xf16>, %E: memref<?x64xf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %zero = arith.constant 0.0 : f32
  %M = memref.dim %E, %c0 : memref<?x64xf16>
  %row = memref.alloca() : memref<64xf16>
  scf.for %m = %c0 to %M step %c1 {
    scf.for %n = %c0 to %c64 step %c1 {
      %sum = scf.for %k = %c0 to %c64 step %c1 iter_args(%acc = %zero) -> (f32) {
        %a = memref.load %A[%m, %k] : memref<?x64xf16>
        %b = memref.load %B[%k, %n] : memref<64x64xf16>
        %af = arith.extf %a : f16 to f32
        %bf = arith.extf %b : f16 to f32
        %next = math.fma %af, %bf, %acc : f32
        scf.yield %next : f32
      }
      %s = arith.truncf %sum : f32 to f16
      memref.store %s, %row[%n] : memref<64xf16>
    }
    scf.for %j = %c0 to %c64 step %c1 {
      %sum = scf.for %n = %c0 to %c64 step %c1 iter_args(%acc = %zero) -> (f32) {
        %p = memref.load %row[%n] : memref<64xf16>
        %d = memref.load %D[%n, %j] : memref<64x64xf16>
        %pf = arith.extf %p : f16 to f32
        %df = arith.extf %d : f16 to f32
        %next = math.fma %pf, %df, %acc : f32
        scf.yield %next : f32
      }
      %e = arith.truncf %sum : f32 to f16
      memref.store %e, %E[%m, %j] : memref<?x64xf16>
    }
  }
  return
}
