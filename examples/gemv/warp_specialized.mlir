// RUN: tile-opt %s | tile-opt | FileCheck %s
// RUN: tile-opt %s --tile-to-ptx='ptx-output=-' -o /dev/null | FileCheck %s --check-prefix=PTX
// RUN: tile-opt %s --tile-to-ptx='ptx-output=%t.ptx' -o /dev/null
// RUN: %if ptxas %{ %ptxas -arch=sm_90a -v %t.ptx -o %t.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS %}
// GPU-SUITE: --check --check-repeat 100 --bench

// The TileLang GEMV tutorial's warp-specialized kernel (N = K = 1024, f16
// inputs, f32 accumulation, BLOCK_N = BLOCK_K = 128): the first 128 threads
// of a 256-thread block consume, one output row each; the other 128
// produce, loading the K tiles of A and B into shared memory. Unlike the tutorial's
// single buffer, two stages: the producer fills one while the consumer
// reads the other, with 16-byte cp.async copies whose completion arrives
// on the stage's "full" mbarrier. The lowering gives each stage a "full"
// and an "empty" mbarrier with phase tracking, and setmaxnreg moves
// registers from the producer (40: 24 spills) to the consumer (240).
//
// The B tile's rows are padded to 136 elements: a consumer thread reads its
// own row 16 bytes at a time, and with 272-byte rows the 8 threads of a
// quarter warp hit distinct banks.

// CHECK-LABEL: tile.kernel @gemv_warp_specialized
tile.kernel @gemv_warp_specialized(%A: memref<1024xf16>, %B: memref<1024x1024xf16>,
                                   %C: memref<1024xf16>)
    grid [8] threads [256] attributes {reference = @gemv_reference} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c16 = arith.constant 16 : index
  %c128 = arith.constant 128 : index
  %bn = tile.block_id x
  %tx = tile.thread_id x
  %n0 = arith.muli %bn, %c128 : index
  %As = tile.alloc_shared : memref<2x128xf16, #gpu.address_space<workgroup>>
  %Bs = tile.alloc_shared : memref<2x128x136xf16, #gpu.address_space<workgroup>>
  %acc = tile.alloc_local : memref<1xf32>
  %a = tile.alloc_local : memref<8xf16>
  %b = tile.alloc_local : memref<8xf16>
  tile.clear %acc : memref<1xf32>
  // CHECK: tile.warp_specialize
  tile.warp_specialize %c0 to %c8 step %c1 stages 2
      buffers(%As, %Bs : memref<2x128xf16, #gpu.address_space<workgroup>>,
                         memref<2x128x136xf16, #gpu.address_space<workgroup>>)
      producer(%bk, %s) threads 128 regs 40 {
    %k0 = arith.muli %bk, %c128 : index
    // 16 pieces of 16 bytes per row of B, spread over the producer threads.
    tile.parallel (%r, %p) in [128, 16] {
      %col = arith.muli %p, %c8 : index
      %row = arith.addi %n0, %r : index
      %k = arith.addi %k0, %col : index
      tile.vectorized %e = %c0 to %c8 step %c1 {
        %ke = arith.addi %k, %e : index
        %ce = arith.addi %col, %e : index
        %v = memref.load %B[%row, %ke] : memref<1024x1024xf16>
        memref.store %v, %Bs[%s, %r, %ce] : memref<2x128x136xf16, #gpu.address_space<workgroup>>
      }
    }
    tile.parallel (%p) in [16] {
      %col = arith.muli %p, %c8 : index
      %k = arith.addi %k0, %col : index
      tile.vectorized %e = %c0 to %c8 step %c1 {
        %ke = arith.addi %k, %e : index
        %ce = arith.addi %col, %e : index
        %v = memref.load %A[%ke] : memref<1024xf16>
        memref.store %v, %As[%s, %ce] : memref<2x128xf16, #gpu.address_space<workgroup>>
      }
    }
  } consumer(%bk, %s) threads 128 regs 240 {
    // The consumer's threads are the block's first.
    %t = tile.thread_id x
    tile.serial %p = %c0 to %c16 step %c1 {
      %col = arith.muli %p, %c8 : index
      tile.vectorized %e = %c0 to %c8 step %c1 {
        %ce = arith.addi %col, %e : index
        %av = memref.load %As[%s, %ce] : memref<2x128xf16, #gpu.address_space<workgroup>>
        memref.store %av, %a[%e] : memref<8xf16>
        %bv = memref.load %Bs[%s, %t, %ce] : memref<2x128x136xf16, #gpu.address_space<workgroup>>
        memref.store %bv, %b[%e] : memref<8xf16>
      }
      tile.unroll %e = %c0 to %c8 step %c1 {
        %av = memref.load %a[%e] : memref<8xf16>
        %bv = memref.load %b[%e] : memref<8xf16>
        %af = arith.extf %av : f16 to f32
        %bf = arith.extf %bv : f16 to f32
        %sum = memref.load %acc[%c0] : memref<1xf32>
        %next = math.fma %af, %bf, %sum : f32
        memref.store %next, %acc[%c0] : memref<1xf32>
      }
    }
  }
  // The consumers hold the results.
  %consumer = arith.cmpi ult, %tx, %c128 : index
  scf.if %consumer {
    %n = arith.addi %n0, %tx : index
    %sum = memref.load %acc[%c0] : memref<1xf32>
    %res = arith.truncf %sum : f32 to f16
    memref.store %res, %C[%n] : memref<1024xf16>
  }
}

// The lowered kernel: the register count at entry, mbarriers initialized by
// thread 0, each role waiting and arriving on them, setmaxnreg in each role.
// The stage buffers (70 KB) are dynamic shared memory: an extern symbol, so
// that it starts after the static mbarriers. (As a demoted one-byte static
// variable, which convert-gpu-to-nvvm's internal global became, ptxas put it
// before them and the stage buffers overlapped the mbarriers.)
// PTX: .extern .shared .align 16 .b8 __dynamic_shmem__0[];
// PTX-LABEL: .entry gemv_warp_specialized(
// PTX: .maxnreg 240
// PTX: mbarrier.init.shared.b64
// PTX: bar.sync 0;
// PTX-DAG: setmaxnreg.dec.sync.aligned.u32 40;
// PTX-DAG: setmaxnreg.inc.sync.aligned.u32 240;
// PTX-DAG: mbarrier.try_wait.parity.shared.b64
// PTX-DAG: cp.async.cg.shared.global [{{.*}}], [{{.*}}], 16;
// PTX-DAG: cp.async.mbarrier.arrive.noinc.shared.b64
// PTX-DAG: mbarrier.arrive.shared.b64
// ptxas honours setmaxnreg (it reports "'setmaxnreg' ignored" when the
// register count at entry is unknown).
// PTXAS-NOT: setmaxnreg{{.*}} ignored
// PTXAS: Compiling entry function 'gemv_warp_specialized'
// PTXAS-NOT: setmaxnreg{{.*}} ignored

// The reference, written once for the GEMV examples, is in reference.mlir.
func.func private @gemv_reference(memref<?xf16>, memref<?x?xf16>, memref<?xf16>)
    attributes {tile.defined_in = "reference.mlir"}
