// RUN: tile-opt %s | tile-opt | FileCheck %s
// RUN: rm -f %t.*.ptx
// RUN: tile-opt %s --tile-to-ptx='ptx-output=%t.ptx' -o /dev/null
// RUN: FileCheck %s --check-prefix=PTX < %t.attention_f16_d128.ptx
// RUN: FileCheck %s --check-prefix=PTX-MATH < %t.attention_f16_d128.ptx
// RUN: %if ptxas %{ %ptxas-each %t %}
// GPU-SUITE: --kernel attention_f16_d64 --shape Q=2x3x300x64 --shape K=2x3x300x64 --shape V=2x3x300x64 --shape O=2x3x300x64 --shape LSE=2x3x300 --check
// GPU-SUITE: --kernel attention_f16_d128 --shape Q=1x2x200x128 --shape K=1x2x333x128 --shape V=1x2x333x128 --shape O=1x2x200x128 --shape LSE=1x2x200 --check --check-repeat 5
// GPU-SUITE: --kernel attention_bf16_d64 --shape Q=2x3x300x64 --shape K=2x3x300x64 --shape V=2x3x300x64 --shape O=2x3x300x64 --shape LSE=2x3x300 --check
// GPU-SUITE: --kernel attention_bf16_d128 --shape Q=2x3x300x128 --shape K=2x3x300x128 --shape V=2x3x300x128 --shape O=2x3x300x128 --shape LSE=2x3x300 --check
// GPU-SUITE: --kernel attention_f16_d64_causal --shape Q=2x3x300x64 --shape K=2x3x300x64 --shape V=2x3x300x64 --shape O=2x3x300x64 --shape LSE=2x3x300 --check
// GPU-SUITE: --kernel attention_f16_d128_causal --shape Q=2x3x300x128 --shape K=2x3x300x128 --shape V=2x3x300x128 --shape O=2x3x300x128 --shape LSE=2x3x300 --check
// GPU-SUITE: --kernel attention_bf16_d64_causal --shape Q=2x3x300x64 --shape K=2x3x300x64 --shape V=2x3x300x64 --shape O=2x3x300x64 --shape LSE=2x3x300 --check
// GPU-SUITE: --kernel attention_bf16_d128_causal --shape Q=2x3x300x128 --shape K=2x3x300x128 --shape V=2x3x300x128 --shape O=2x3x300x128 --shape LSE=2x3x300 --check
// One key block: the peeled first and last iterations only (no loop between).
// GPU-SUITE: --kernel attention_f16_d64_causal --shape Q=1x2x90x64 --shape K=1x2x90x64 --shape V=1x2x90x64 --shape O=1x2x90x64 --shape LSE=1x2x90 --check
// GPU-SUITE: --kernel attention_bf16_d128 --shape Q=1x2x50x128 --shape K=1x2x77x128 --shape V=1x2x77x128 --shape O=1x2x50x128 --shape LSE=1x2x50 --check
// GPU-SUITE: --kernel attention_f16_d64 --shape Q=4x32x4096x64 --shape K=4x32x4096x64 --shape V=4x32x4096x64 --shape O=4x32x4096x64 --shape LSE=4x32x4096 --bench --flops 549755813888
// GPU-SUITE: --kernel attention_f16_d128 --shape Q=4x32x4096x128 --shape K=4x32x4096x128 --shape V=4x32x4096x128 --shape O=4x32x4096x128 --shape LSE=4x32x4096 --bench --flops 1099511627776
// GPU-SUITE: --kernel attention_f16_d128_causal --shape Q=4x32x4096x128 --shape K=4x32x4096x128 --shape V=4x32x4096x128 --shape O=4x32x4096x128 --shape LSE=4x32x4096 --bench --flops 549755813888
// CPU-SUITE: --kernel attention_f16_d64 --shape Q=1x2x70x64 --shape K=1x2x100x64 --shape V=1x2x100x64 --shape O=1x2x70x64 --shape LSE=1x2x70 --check
// CPU-SUITE: --kernel attention_bf16_d128 --shape Q=1x2x70x128 --shape K=1x2x70x128 --shape V=1x2x70x128 --shape O=1x2x70x128 --shape LSE=1x2x70 --check
// CPU-SUITE: --kernel attention_f16_d128_causal --shape Q=1x2x150x128 --shape K=1x2x150x128 --shape V=1x2x150x128 --shape O=1x2x150x128 --shape LSE=1x2x150 --check
// CPU-SUITE: --kernel attention_bf16_d64_causal --shape Q=2x1x70x64 --shape K=2x1x70x64 --shape V=2x1x70x64 --shape O=2x1x70x64 --shape LSE=2x1x70 --check

// FlashAttention forward at tile level: O = softmax(Q K^T / sqrt(D)) V and
// the log-sum-exp of each row (for a backward pass), over tensors laid out
// [batch, heads, seq, D], batch, heads and sequence lengths given at launch
// (K and V may be longer or shorter than Q). f16 and bf16, D = 64 and 128,
// causal or not: eight kernels, written out by gen_attention.py from one
// template (edit that and run it again).
//
// Each block takes 128 query rows of one head (grid: row tiles x heads x
// batch). A `tile.warp_specialize` streams the head's keys and values
// through shared memory in blocks of 128, two stages deep: its producer
// (the third warp group) copies them with TMA (the head's subview of each
// [batch, heads, seq, D] argument becomes a 4-D box of one head; a block
// outside the sequence reads zeros), and Q's tile, copied before the op
// and read only by the consumer, ahead of them (the lowering moves that
// copy into the producer, on an mbarrier of its own), its consumer (two warp groups, 64
// rows each, 240 registers; three and 160 in the D = 64 kernels without a
// mask, whose tiles have 192 rows) computes on them, the two meeting only on the
// stages' mbarriers. Both products run on Hopper's wgmma (sm_90a). The
// body is rotated, as FlashAttention-3's: iteration j computes S of key
// block j and O of block j - 1 (its stage holds K_j and V_(j-1); one
// iteration more: the first has no O to add, the last no S; the steps
// are guarded accordingly and tile-peel-guarded-gemms peels those two
// iterations, so that no gemm stays in a branch):
//   rescale            tile.parallel over O: O *= alpha (of block j - 1),
//                      in an scf.if j > 0
//   S = Q K^T          tile.gemm, transpose_b (K is stored seq x D), Q
//                      and K read through shared-memory descriptors, in
//                      an scf.if j < blocks
//   O += P V           tile.gemm with P (block j - 1) as the A operand,
//                      read from registers (its layout is the
//                      accumulator's, which holds wgmma's register A
//                      fragment as it is), in an scf.if j > 0; its MMAs
//                      run during the rest
//   (mask to row sum in an scf.if j < blocks)
//   mask               tile.parallel over S, in an scf.if taken only by the
//                      blocks that need it: keys past the end (and, causal,
//                      after the query) become -inf
//   row max            tile.reduce max into %mb
//   rescale            tile.parallel over the rows: new running max m,
//                      alpha = exp2((m_old - m) c), l *= alpha, with
//                      c = log2(e) / sqrt(D)
//   P = exp2(S c - m c) tile.parallel over S (one FMA, one ex2 per element),
//                      then tile.reduce add into l, tile.copy S to an f16
//                      fragment P (once P V's MMAs are done)
// then O / l (one reciprocal per row) and LSE = ln 2 (m c + log2 l) go
// out. The consumer is
// `pingpong`: its two warp groups take turns issuing their two gemms, so
// that one group's MMAs run while the other computes its softmax. Layout
// inference picks every register layout: the accumulators' mma layout
// with the 8 warps splitting the rows (P feeds a gemm), the row
// statistics its reduced form; no thread index appears. Causal blocks
// skip the key blocks above the diagonal. docs/Attention.md walks through
// it op by op.
//
// Exponentials are base 2, the scale c folded into them: math.exp2 with
// fastmath<afn> lowers to ex2.approx.ftz.f32, one MUFU.EX2 (results below
// 2^-126 become 0; docs/Attention.md gives its error); the log-sum-exp's
// math.log2 with afn to lg2.approx.ftz.f32, so no libdevice is linked.
// H100, 2026-11-28, B4 H32 S4096 f16 D = 128: 552 TFLOP/s, causal 511
// (503 / 462 in the order S, softmax, P V without turns, in the same call;
// docs/Attention.md has 1k to 16k, f16 and bf16). H200, 2026-11-28, with
// Q loaded by the producer: 549, causal 467-469; at 1k 423 (410 before);
// the last iteration without its softmax: 1k 445-446 (427 before), causal
// 282-283 (264-265), D = 64 303 (289-290), causal 190 (171); dividing
// once per row: 1k 491 (442-443), causal 322-323 (281), D = 64 322-323
// (302), causal 206-207 (189); 4k 561-566 (548-551); the first and last
// iterations peeled (their empty gemms gone): 1k 514 (493), causal 343
// (322), D = 64 335 (322), causal 219 (206); 4k 586 (577), causal 570
// (547), D = 64 causal 393 (374).

tile.kernel @attention_f16_d64(%Q: memref<?x?x?x64xf16>, %K: memref<?x?x?x64xf16>, %V: memref<?x?x?x64xf16>,
                     %O: memref<?x?x?x64xf16>, %LSE: memref<?x?x?xf32>)
    grid [?, ?, ?] threads [512] attributes {reference = @attention_f16_reference,
        skip_llvm_passes = "gvn#2,gvn#3,ipsccp,sccp,constraint-elimination,dse,adce,consthoist,early-cse#1,early-cse#4,indvars#2,correlated-propagation#1,licm#1,loop-unroll-full,loop-unroll"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %cn = arith.constant 128 : index
  %ninf = arith.constant 0xFF800000 : f32
  // c = log2(e) / sqrt(64): exp(s / sqrt(D)) = exp2(s c), one ex2.approx.
  %scale = arith.constant 0.18033688011112042 : f32
  %ln2 = arith.constant 0.6931471805599453 : f32
  %tile = tile.block_id x
  %h = tile.block_id y
  %b = tile.block_id z
  %m0 = affine.apply affine_map<(i) -> (i * 192)>(%tile)
  %seq = memref.dim %Q, %c2 : memref<?x?x?x64xf16>
  %seqkv = memref.dim %K, %c2 : memref<?x?x?x64xf16>
  %seqv = memref.dim %V, %c2 : memref<?x?x?x64xf16>
  // One head's matrices: views whose rows are the sequence.
  %Qh = memref.subview %Q[%b, %h, 0, 0] [1, 1, %seq, 64] [1, 1, 1, 1] : memref<?x?x?x64xf16> to memref<?x64xf16, strided<[64, 1], offset: ?>>
  %Kh = memref.subview %K[%b, %h, 0, 0] [1, 1, %seqkv, 64] [1, 1, 1, 1] : memref<?x?x?x64xf16> to memref<?x64xf16, strided<[64, 1], offset: ?>>
  %Vh = memref.subview %V[%b, %h, 0, 0] [1, 1, %seqv, 64] [1, 1, 1, 1] : memref<?x?x?x64xf16> to memref<?x64xf16, strided<[64, 1], offset: ?>>
  %Oh = memref.subview %O[%b, %h, 0, 0] [1, 1, %seq, 64] [1, 1, 1, 1] : memref<?x?x?x64xf16> to memref<?x64xf16, strided<[64, 1], offset: ?>>
  %Lh = memref.subview %LSE[%b, %h, 0] [1, 1, %seq] [1, 1, 1] : memref<?x?x?xf32> to memref<?xf32, strided<[1], offset: ?>>

  %Qs = tile.alloc_shared : memref<192x64xf16, #gpu.address_space<workgroup>>
  %Ks = tile.alloc_shared : memref<128x64xf16, #gpu.address_space<workgroup>>
  %Vs = tile.alloc_shared : memref<128x64xf16, #gpu.address_space<workgroup>>
  %S = tile.alloc_fragment : memref<192x128xf32, #tile.fragment>
  %P = tile.alloc_fragment : memref<192x128xf16, #tile.fragment>
  %acc = tile.alloc_fragment : memref<192x64xf32, #tile.fragment>
  // Per row: the running maximum, the running sum, the block's maximum
  // (then the factor that rescales what came before), -max scale.
  %m = tile.alloc_fragment : memref<192xf32, #tile.fragment>
  %l = tile.alloc_fragment : memref<192xf32, #tile.fragment>
  %mb = tile.alloc_fragment : memref<192xf32, #tile.fragment>
  %ms = tile.alloc_fragment : memref<192xf32, #tile.fragment>

  tile.copy %Qh[%m0, %c0] to %Qs : memref<?x64xf16, strided<[64, 1], offset: ?>> to memref<192x64xf16, #gpu.address_space<workgroup>>
  tile.fill %m, %ninf : memref<192xf32, #tile.fragment>
  tile.clear %l : memref<192xf32, #tile.fragment>
  tile.clear %acc : memref<192x64xf32, #tile.fragment>
  %blocks = arith.ceildivui %seqkv, %cn : index
  // One iteration more: iteration j computes S of block j and O of
  // block j - 1 (at least one block, so that the loop provably runs
  // twice and tile-peel-guarded-gemms peels its first iteration,
  // which has no P V, and its last, which has no S).
  %keyblocks = affine.max affine_map<()[s0] -> (s0, 1)>()[%blocks]
  %iterations = arith.addi %keyblocks, %c1 : index
  tile.warp_specialize %c0 to %iterations step %c1 stages 2
      tiles(%Ks, %Vs : memref<128x64xf16, #gpu.address_space<workgroup>>, memref<128x64xf16, #gpu.address_space<workgroup>>)
      producer(%j, %st) threads 128 regs 24 {
    %n0 = affine.apply affine_map<(j) -> (j * 128)>(%j)
    tile.copy %Kh[%n0, %c0] to %Ks : memref<?x64xf16, strided<[64, 1], offset: ?>> to memref<128x64xf16, #gpu.address_space<workgroup>>
    %v0 = affine.apply affine_map<(j) -> (j * 128 - 128)>(%j)
    tile.copy %Vh[%v0, %c0] to %Vs : memref<?x64xf16, strided<[64, 1], offset: ?>> to memref<128x64xf16, #gpu.address_space<workgroup>>
  } consumer(%j, %st) threads 384 regs 160 pingpong {
    %n0 = affine.apply affine_map<(j) -> (j * 128)>(%j)
    // Block j - 1's P V from the second iteration on, block j's S up
    // to the last block.
    %has_product = arith.cmpi ugt, %j, %c0 : index
    %has_scores = arith.cmpi ult, %j, %keyblocks : index
    // O = O alpha, before this iteration's gemms.
    scf.if %has_product {
      tile.parallel (%i, %d) in [192, 64] {
        %alpha = memref.load %mb[%i] : memref<192xf32, #tile.fragment>
        %o = memref.load %acc[%i, %d] : memref<192x64xf32, #tile.fragment>
        %scaled = arith.mulf %o, %alpha : f32
        memref.store %scaled, %acc[%i, %d] : memref<192x64xf32, #tile.fragment>
      }
    }
    scf.if %has_scores {
      // S = Q K^T, in raw units: the scale is applied inside exp2 below.
      tile.gemm %Qs, %Ks, %S {clear, transpose_b, lowering = #tile.gemm_lowering<wgmma>} : memref<192x64xf16, #gpu.address_space<workgroup>>, memref<128x64xf16, #gpu.address_space<workgroup>>, memref<192x128xf32, #tile.fragment>
    }
    // O += P V of the previous block, P read from registers: its MMAs
    // run during the softmax of this block's S below.
    scf.if %has_product {
      tile.gemm %P, %Vs, %acc {lowering = #tile.gemm_lowering<wgmma>} : memref<192x128xf16, #tile.fragment>, memref<128x64xf16, #gpu.address_space<workgroup>>, memref<192x64xf32, #tile.fragment>
    }
    // The mask and the softmax of S, with P V's MMAs in flight.
    scf.if %has_scores {
      // Keys past the end (and, causal, after the query) become -inf, in
      // the blocks that have any.
      %nend = affine.apply affine_map<(n) -> (n + 128)>(%n0)
      %partial = arith.cmpi ugt, %nend, %seqkv : index
      scf.if %partial {
        tile.parallel (%i, %c) in [192, 128] {
          %s = memref.load %S[%i, %c] : memref<192x128xf32, #tile.fragment>
          %col = arith.addi %n0, %c : index
          %inside = arith.cmpi ult, %col, %seqkv : index
          %masked = arith.select %inside, %s, %ninf : f32
          memref.store %masked, %S[%i, %c] : memref<192x128xf32, #tile.fragment>
        }
      }
      tile.reduce max %S into %mb dim 1 clear : memref<192x128xf32, #tile.fragment> into memref<192xf32, #tile.fragment>
      // The new running maximum; alpha = exp2((old - new) scale) rescales
      // the sum and the output so far; -new scale is kept for the FMA below.
      tile.parallel (%i) in [192] {
        %mi = memref.load %m[%i] : memref<192xf32, #tile.fragment>
        %bi = memref.load %mb[%i] : memref<192xf32, #tile.fragment>
        %li = memref.load %l[%i] : memref<192xf32, #tile.fragment>
        %mnew = arith.maximumf %mi, %bi : f32
        %delta = arith.subf %mi, %mnew : f32
        %deltas = arith.mulf %delta, %scale : f32
        %alpha = math.exp2 %deltas fastmath<afn> : f32
        %mscaled = arith.mulf %mnew, %scale : f32
        %mneg = arith.negf %mscaled : f32
        memref.store %mneg, %ms[%i] : memref<192xf32, #tile.fragment>
        %lscaled = arith.mulf %li, %alpha : f32
        memref.store %lscaled, %l[%i] : memref<192xf32, #tile.fragment>
        memref.store %mnew, %m[%i] : memref<192xf32, #tile.fragment>
        memref.store %alpha, %mb[%i] : memref<192xf32, #tile.fragment>
      }
      // P = exp2(S scale - m scale): one FMA and one ex2 per element; summed
      // into l and rounded for the second product.
      tile.parallel (%i, %c) in [192, 128] {
        %s = memref.load %S[%i, %c] : memref<192x128xf32, #tile.fragment>
        %mneg = memref.load %ms[%i] : memref<192xf32, #tile.fragment>
        %d = math.fma %s, %scale, %mneg : f32
        %p = math.exp2 %d fastmath<afn> : f32
        memref.store %p, %S[%i, %c] : memref<192x128xf32, #tile.fragment>
      }
      tile.reduce add %S into %l dim 1 : memref<192x128xf32, #tile.fragment> into memref<192xf32, #tile.fragment>
    }
    tile.copy %S to %P : memref<192x128xf32, #tile.fragment> to memref<192x128xf16, #tile.fragment>
  }

  // O = acc / l, as acc (1 / l): one division per row, not per
  // element (%mb is free after the loop); LSE = ln 2 (m scale + log2 l),
  // the natural-log log-sum-exp.
  tile.parallel (%i) in [192] {
    %li = memref.load %l[%i] : memref<192xf32, #tile.fragment>
    %one_l = arith.constant 1.0 : f32
    %rl = arith.divf %one_l, %li : f32
    memref.store %rl, %mb[%i] : memref<192xf32, #tile.fragment>
  }
  tile.parallel (%i, %d) in [192, 64] {
    %o = memref.load %acc[%i, %d] : memref<192x64xf32, #tile.fragment>
    %rl = memref.load %mb[%i] : memref<192xf32, #tile.fragment>
    %r = arith.mulf %o, %rl : f32
    memref.store %r, %acc[%i, %d] : memref<192x64xf32, #tile.fragment>
  }
  tile.copy %acc to %Oh[%m0, %c0] : memref<192x64xf32, #tile.fragment> to memref<?x64xf16, strided<[64, 1], offset: ?>>
  tile.parallel (%i) in [192] {
    %mi = memref.load %m[%i] : memref<192xf32, #tile.fragment>
    %li = memref.load %l[%i] : memref<192xf32, #tile.fragment>
    %lg = math.log2 %li fastmath<afn> : f32
    %mis = arith.mulf %mi, %scale : f32
    %sum = arith.addf %mis, %lg : f32
    %lse = arith.mulf %sum, %ln2 : f32
    memref.store %lse, %l[%i] : memref<192xf32, #tile.fragment>
  }
  tile.copy %l to %Lh[%m0] : memref<192xf32, #tile.fragment> to memref<?xf32, strided<[1], offset: ?>>
} grid_size {
^bb0(%Q: memref<?x?x?x64xf16>, %K: memref<?x?x?x64xf16>, %V: memref<?x?x?x64xf16>, %O: memref<?x?x?x64xf16>, %LSE: memref<?x?x?xf32>):
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %cm = arith.constant 192 : index
  %batch = memref.dim %Q, %c0 : memref<?x?x?x64xf16>
  %heads = memref.dim %Q, %c1 : memref<?x?x?x64xf16>
  %seq = memref.dim %Q, %c2 : memref<?x?x?x64xf16>
  %tiles = arith.ceildivui %seq, %cm : index
  tile.yield %tiles, %heads, %batch : index, index, index
}

// CHECK-LABEL: tile.kernel @attention_f16_d128
// CHECK: tile.reduce max
// CHECK: tile.gemm
tile.kernel @attention_f16_d128(%Q: memref<?x?x?x128xf16>, %K: memref<?x?x?x128xf16>, %V: memref<?x?x?x128xf16>,
                      %O: memref<?x?x?x128xf16>, %LSE: memref<?x?x?xf32>)
    grid [?, ?, ?] threads [384] attributes {reference = @attention_f16_reference,
        skip_llvm_passes = "gvn#2,gvn#3,ipsccp,sccp,constraint-elimination,dse,adce,consthoist,early-cse#1,early-cse#4,indvars#2,correlated-propagation#1,licm#1,loop-unroll-full,loop-unroll"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %cn = arith.constant 128 : index
  %ninf = arith.constant 0xFF800000 : f32
  // c = log2(e) / sqrt(128): exp(s / sqrt(D)) = exp2(s c), one ex2.approx.
  %scale = arith.constant 0.12751743082459868 : f32
  %ln2 = arith.constant 0.6931471805599453 : f32
  %tile = tile.block_id x
  %h = tile.block_id y
  %b = tile.block_id z
  %m0 = affine.apply affine_map<(i) -> (i * 128)>(%tile)
  %seq = memref.dim %Q, %c2 : memref<?x?x?x128xf16>
  %seqkv = memref.dim %K, %c2 : memref<?x?x?x128xf16>
  %seqv = memref.dim %V, %c2 : memref<?x?x?x128xf16>
  // One head's matrices: views whose rows are the sequence.
  %Qh = memref.subview %Q[%b, %h, 0, 0] [1, 1, %seq, 128] [1, 1, 1, 1] : memref<?x?x?x128xf16> to memref<?x128xf16, strided<[128, 1], offset: ?>>
  %Kh = memref.subview %K[%b, %h, 0, 0] [1, 1, %seqkv, 128] [1, 1, 1, 1] : memref<?x?x?x128xf16> to memref<?x128xf16, strided<[128, 1], offset: ?>>
  %Vh = memref.subview %V[%b, %h, 0, 0] [1, 1, %seqv, 128] [1, 1, 1, 1] : memref<?x?x?x128xf16> to memref<?x128xf16, strided<[128, 1], offset: ?>>
  %Oh = memref.subview %O[%b, %h, 0, 0] [1, 1, %seq, 128] [1, 1, 1, 1] : memref<?x?x?x128xf16> to memref<?x128xf16, strided<[128, 1], offset: ?>>
  %Lh = memref.subview %LSE[%b, %h, 0] [1, 1, %seq] [1, 1, 1] : memref<?x?x?xf32> to memref<?xf32, strided<[1], offset: ?>>

  %Qs = tile.alloc_shared : memref<128x128xf16, #gpu.address_space<workgroup>>
  %Ks = tile.alloc_shared : memref<128x128xf16, #gpu.address_space<workgroup>>
  %Vs = tile.alloc_shared : memref<128x128xf16, #gpu.address_space<workgroup>>
  %S = tile.alloc_fragment : memref<128x128xf32, #tile.fragment>
  %P = tile.alloc_fragment : memref<128x128xf16, #tile.fragment>
  %acc = tile.alloc_fragment : memref<128x128xf32, #tile.fragment>
  // Per row: the running maximum, the running sum, the block's maximum
  // (then the factor that rescales what came before), -max scale.
  %m = tile.alloc_fragment : memref<128xf32, #tile.fragment>
  %l = tile.alloc_fragment : memref<128xf32, #tile.fragment>
  %mb = tile.alloc_fragment : memref<128xf32, #tile.fragment>
  %ms = tile.alloc_fragment : memref<128xf32, #tile.fragment>

  tile.copy %Qh[%m0, %c0] to %Qs : memref<?x128xf16, strided<[128, 1], offset: ?>> to memref<128x128xf16, #gpu.address_space<workgroup>>
  tile.fill %m, %ninf : memref<128xf32, #tile.fragment>
  tile.clear %l : memref<128xf32, #tile.fragment>
  tile.clear %acc : memref<128x128xf32, #tile.fragment>
  %blocks = arith.ceildivui %seqkv, %cn : index
  // One iteration more: iteration j computes S of block j and O of
  // block j - 1 (at least one block, so that the loop provably runs
  // twice and tile-peel-guarded-gemms peels its first iteration,
  // which has no P V, and its last, which has no S).
  %keyblocks = affine.max affine_map<()[s0] -> (s0, 1)>()[%blocks]
  %iterations = arith.addi %keyblocks, %c1 : index
  tile.warp_specialize %c0 to %iterations step %c1 stages 2
      tiles(%Ks, %Vs : memref<128x128xf16, #gpu.address_space<workgroup>>, memref<128x128xf16, #gpu.address_space<workgroup>>)
      producer(%j, %st) threads 128 regs 24 {
    %n0 = affine.apply affine_map<(j) -> (j * 128)>(%j)
    tile.copy %Kh[%n0, %c0] to %Ks : memref<?x128xf16, strided<[128, 1], offset: ?>> to memref<128x128xf16, #gpu.address_space<workgroup>>
    %v0 = affine.apply affine_map<(j) -> (j * 128 - 128)>(%j)
    tile.copy %Vh[%v0, %c0] to %Vs : memref<?x128xf16, strided<[128, 1], offset: ?>> to memref<128x128xf16, #gpu.address_space<workgroup>>
  } consumer(%j, %st) threads 256 regs 240 pingpong {
    %n0 = affine.apply affine_map<(j) -> (j * 128)>(%j)
    // Block j - 1's P V from the second iteration on, block j's S up
    // to the last block.
    %has_product = arith.cmpi ugt, %j, %c0 : index
    %has_scores = arith.cmpi ult, %j, %keyblocks : index
    // O = O alpha, before this iteration's gemms.
    scf.if %has_product {
      tile.parallel (%i, %d) in [128, 128] {
        %alpha = memref.load %mb[%i] : memref<128xf32, #tile.fragment>
        %o = memref.load %acc[%i, %d] : memref<128x128xf32, #tile.fragment>
        %scaled = arith.mulf %o, %alpha : f32
        memref.store %scaled, %acc[%i, %d] : memref<128x128xf32, #tile.fragment>
      }
    }
    scf.if %has_scores {
      // S = Q K^T, in raw units: the scale is applied inside exp2 below.
      tile.gemm %Qs, %Ks, %S {clear, transpose_b, lowering = #tile.gemm_lowering<wgmma>} : memref<128x128xf16, #gpu.address_space<workgroup>>, memref<128x128xf16, #gpu.address_space<workgroup>>, memref<128x128xf32, #tile.fragment>
    }
    // O += P V of the previous block, P read from registers: its MMAs
    // run during the softmax of this block's S below.
    scf.if %has_product {
      tile.gemm %P, %Vs, %acc {lowering = #tile.gemm_lowering<wgmma>} : memref<128x128xf16, #tile.fragment>, memref<128x128xf16, #gpu.address_space<workgroup>>, memref<128x128xf32, #tile.fragment>
    }
    // The mask and the softmax of S, with P V's MMAs in flight.
    scf.if %has_scores {
      // Keys past the end (and, causal, after the query) become -inf, in
      // the blocks that have any.
      %nend = affine.apply affine_map<(n) -> (n + 128)>(%n0)
      %partial = arith.cmpi ugt, %nend, %seqkv : index
      scf.if %partial {
        tile.parallel (%i, %c) in [128, 128] {
          %s = memref.load %S[%i, %c] : memref<128x128xf32, #tile.fragment>
          %col = arith.addi %n0, %c : index
          %inside = arith.cmpi ult, %col, %seqkv : index
          %masked = arith.select %inside, %s, %ninf : f32
          memref.store %masked, %S[%i, %c] : memref<128x128xf32, #tile.fragment>
        }
      }
      tile.reduce max %S into %mb dim 1 clear : memref<128x128xf32, #tile.fragment> into memref<128xf32, #tile.fragment>
      // The new running maximum; alpha = exp2((old - new) scale) rescales
      // the sum and the output so far; -new scale is kept for the FMA below.
      tile.parallel (%i) in [128] {
        %mi = memref.load %m[%i] : memref<128xf32, #tile.fragment>
        %bi = memref.load %mb[%i] : memref<128xf32, #tile.fragment>
        %li = memref.load %l[%i] : memref<128xf32, #tile.fragment>
        %mnew = arith.maximumf %mi, %bi : f32
        %delta = arith.subf %mi, %mnew : f32
        %deltas = arith.mulf %delta, %scale : f32
        %alpha = math.exp2 %deltas fastmath<afn> : f32
        %mscaled = arith.mulf %mnew, %scale : f32
        %mneg = arith.negf %mscaled : f32
        memref.store %mneg, %ms[%i] : memref<128xf32, #tile.fragment>
        %lscaled = arith.mulf %li, %alpha : f32
        memref.store %lscaled, %l[%i] : memref<128xf32, #tile.fragment>
        memref.store %mnew, %m[%i] : memref<128xf32, #tile.fragment>
        memref.store %alpha, %mb[%i] : memref<128xf32, #tile.fragment>
      }
      // P = exp2(S scale - m scale): one FMA and one ex2 per element; summed
      // into l and rounded for the second product.
      tile.parallel (%i, %c) in [128, 128] {
        %s = memref.load %S[%i, %c] : memref<128x128xf32, #tile.fragment>
        %mneg = memref.load %ms[%i] : memref<128xf32, #tile.fragment>
        %d = math.fma %s, %scale, %mneg : f32
        %p = math.exp2 %d fastmath<afn> : f32
        memref.store %p, %S[%i, %c] : memref<128x128xf32, #tile.fragment>
      }
      tile.reduce add %S into %l dim 1 : memref<128x128xf32, #tile.fragment> into memref<128xf32, #tile.fragment>
    }
    tile.copy %S to %P : memref<128x128xf32, #tile.fragment> to memref<128x128xf16, #tile.fragment>
  }

  // O = acc / l, as acc (1 / l): one division per row, not per
  // element (%mb is free after the loop); LSE = ln 2 (m scale + log2 l),
  // the natural-log log-sum-exp.
  tile.parallel (%i) in [128] {
    %li = memref.load %l[%i] : memref<128xf32, #tile.fragment>
    %one_l = arith.constant 1.0 : f32
    %rl = arith.divf %one_l, %li : f32
    memref.store %rl, %mb[%i] : memref<128xf32, #tile.fragment>
  }
  tile.parallel (%i, %d) in [128, 128] {
    %o = memref.load %acc[%i, %d] : memref<128x128xf32, #tile.fragment>
    %rl = memref.load %mb[%i] : memref<128xf32, #tile.fragment>
    %r = arith.mulf %o, %rl : f32
    memref.store %r, %acc[%i, %d] : memref<128x128xf32, #tile.fragment>
  }
  tile.copy %acc to %Oh[%m0, %c0] : memref<128x128xf32, #tile.fragment> to memref<?x128xf16, strided<[128, 1], offset: ?>>
  tile.parallel (%i) in [128] {
    %mi = memref.load %m[%i] : memref<128xf32, #tile.fragment>
    %li = memref.load %l[%i] : memref<128xf32, #tile.fragment>
    %lg = math.log2 %li fastmath<afn> : f32
    %mis = arith.mulf %mi, %scale : f32
    %sum = arith.addf %mis, %lg : f32
    %lse = arith.mulf %sum, %ln2 : f32
    memref.store %lse, %l[%i] : memref<128xf32, #tile.fragment>
  }
  tile.copy %l to %Lh[%m0] : memref<128xf32, #tile.fragment> to memref<?xf32, strided<[1], offset: ?>>
} grid_size {
^bb0(%Q: memref<?x?x?x128xf16>, %K: memref<?x?x?x128xf16>, %V: memref<?x?x?x128xf16>, %O: memref<?x?x?x128xf16>, %LSE: memref<?x?x?xf32>):
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %cm = arith.constant 128 : index
  %batch = memref.dim %Q, %c0 : memref<?x?x?x128xf16>
  %heads = memref.dim %Q, %c1 : memref<?x?x?x128xf16>
  %seq = memref.dim %Q, %c2 : memref<?x?x?x128xf16>
  %tiles = arith.ceildivui %seq, %cm : index
  tile.yield %tiles, %heads, %batch : index, index, index
}

tile.kernel @attention_bf16_d64(%Q: memref<?x?x?x64xbf16>, %K: memref<?x?x?x64xbf16>, %V: memref<?x?x?x64xbf16>,
                      %O: memref<?x?x?x64xbf16>, %LSE: memref<?x?x?xf32>)
    grid [?, ?, ?] threads [512] attributes {reference = @attention_bf16_reference,
        skip_llvm_passes = "gvn#2,gvn#3,ipsccp,sccp,constraint-elimination,dse,adce,consthoist,early-cse#1,early-cse#4,indvars#2,correlated-propagation#1,licm#1,loop-unroll-full,loop-unroll"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %cn = arith.constant 128 : index
  %ninf = arith.constant 0xFF800000 : f32
  // c = log2(e) / sqrt(64): exp(s / sqrt(D)) = exp2(s c), one ex2.approx.
  %scale = arith.constant 0.18033688011112042 : f32
  %ln2 = arith.constant 0.6931471805599453 : f32
  %tile = tile.block_id x
  %h = tile.block_id y
  %b = tile.block_id z
  %m0 = affine.apply affine_map<(i) -> (i * 192)>(%tile)
  %seq = memref.dim %Q, %c2 : memref<?x?x?x64xbf16>
  %seqkv = memref.dim %K, %c2 : memref<?x?x?x64xbf16>
  %seqv = memref.dim %V, %c2 : memref<?x?x?x64xbf16>
  // One head's matrices: views whose rows are the sequence.
  %Qh = memref.subview %Q[%b, %h, 0, 0] [1, 1, %seq, 64] [1, 1, 1, 1] : memref<?x?x?x64xbf16> to memref<?x64xbf16, strided<[64, 1], offset: ?>>
  %Kh = memref.subview %K[%b, %h, 0, 0] [1, 1, %seqkv, 64] [1, 1, 1, 1] : memref<?x?x?x64xbf16> to memref<?x64xbf16, strided<[64, 1], offset: ?>>
  %Vh = memref.subview %V[%b, %h, 0, 0] [1, 1, %seqv, 64] [1, 1, 1, 1] : memref<?x?x?x64xbf16> to memref<?x64xbf16, strided<[64, 1], offset: ?>>
  %Oh = memref.subview %O[%b, %h, 0, 0] [1, 1, %seq, 64] [1, 1, 1, 1] : memref<?x?x?x64xbf16> to memref<?x64xbf16, strided<[64, 1], offset: ?>>
  %Lh = memref.subview %LSE[%b, %h, 0] [1, 1, %seq] [1, 1, 1] : memref<?x?x?xf32> to memref<?xf32, strided<[1], offset: ?>>

  %Qs = tile.alloc_shared : memref<192x64xbf16, #gpu.address_space<workgroup>>
  %Ks = tile.alloc_shared : memref<128x64xbf16, #gpu.address_space<workgroup>>
  %Vs = tile.alloc_shared : memref<128x64xbf16, #gpu.address_space<workgroup>>
  %S = tile.alloc_fragment : memref<192x128xf32, #tile.fragment>
  %P = tile.alloc_fragment : memref<192x128xbf16, #tile.fragment>
  %acc = tile.alloc_fragment : memref<192x64xf32, #tile.fragment>
  // Per row: the running maximum, the running sum, the block's maximum
  // (then the factor that rescales what came before), -max scale.
  %m = tile.alloc_fragment : memref<192xf32, #tile.fragment>
  %l = tile.alloc_fragment : memref<192xf32, #tile.fragment>
  %mb = tile.alloc_fragment : memref<192xf32, #tile.fragment>
  %ms = tile.alloc_fragment : memref<192xf32, #tile.fragment>

  tile.copy %Qh[%m0, %c0] to %Qs : memref<?x64xbf16, strided<[64, 1], offset: ?>> to memref<192x64xbf16, #gpu.address_space<workgroup>>
  tile.fill %m, %ninf : memref<192xf32, #tile.fragment>
  tile.clear %l : memref<192xf32, #tile.fragment>
  tile.clear %acc : memref<192x64xf32, #tile.fragment>
  %blocks = arith.ceildivui %seqkv, %cn : index
  // One iteration more: iteration j computes S of block j and O of
  // block j - 1 (at least one block, so that the loop provably runs
  // twice and tile-peel-guarded-gemms peels its first iteration,
  // which has no P V, and its last, which has no S).
  %keyblocks = affine.max affine_map<()[s0] -> (s0, 1)>()[%blocks]
  %iterations = arith.addi %keyblocks, %c1 : index
  tile.warp_specialize %c0 to %iterations step %c1 stages 2
      tiles(%Ks, %Vs : memref<128x64xbf16, #gpu.address_space<workgroup>>, memref<128x64xbf16, #gpu.address_space<workgroup>>)
      producer(%j, %st) threads 128 regs 24 {
    %n0 = affine.apply affine_map<(j) -> (j * 128)>(%j)
    tile.copy %Kh[%n0, %c0] to %Ks : memref<?x64xbf16, strided<[64, 1], offset: ?>> to memref<128x64xbf16, #gpu.address_space<workgroup>>
    %v0 = affine.apply affine_map<(j) -> (j * 128 - 128)>(%j)
    tile.copy %Vh[%v0, %c0] to %Vs : memref<?x64xbf16, strided<[64, 1], offset: ?>> to memref<128x64xbf16, #gpu.address_space<workgroup>>
  } consumer(%j, %st) threads 384 regs 160 pingpong {
    %n0 = affine.apply affine_map<(j) -> (j * 128)>(%j)
    // Block j - 1's P V from the second iteration on, block j's S up
    // to the last block.
    %has_product = arith.cmpi ugt, %j, %c0 : index
    %has_scores = arith.cmpi ult, %j, %keyblocks : index
    // O = O alpha, before this iteration's gemms.
    scf.if %has_product {
      tile.parallel (%i, %d) in [192, 64] {
        %alpha = memref.load %mb[%i] : memref<192xf32, #tile.fragment>
        %o = memref.load %acc[%i, %d] : memref<192x64xf32, #tile.fragment>
        %scaled = arith.mulf %o, %alpha : f32
        memref.store %scaled, %acc[%i, %d] : memref<192x64xf32, #tile.fragment>
      }
    }
    scf.if %has_scores {
      // S = Q K^T, in raw units: the scale is applied inside exp2 below.
      tile.gemm %Qs, %Ks, %S {clear, transpose_b, lowering = #tile.gemm_lowering<wgmma>} : memref<192x64xbf16, #gpu.address_space<workgroup>>, memref<128x64xbf16, #gpu.address_space<workgroup>>, memref<192x128xf32, #tile.fragment>
    }
    // O += P V of the previous block, P read from registers: its MMAs
    // run during the softmax of this block's S below.
    scf.if %has_product {
      tile.gemm %P, %Vs, %acc {lowering = #tile.gemm_lowering<wgmma>} : memref<192x128xbf16, #tile.fragment>, memref<128x64xbf16, #gpu.address_space<workgroup>>, memref<192x64xf32, #tile.fragment>
    }
    // The mask and the softmax of S, with P V's MMAs in flight.
    scf.if %has_scores {
      // Keys past the end (and, causal, after the query) become -inf, in
      // the blocks that have any.
      %nend = affine.apply affine_map<(n) -> (n + 128)>(%n0)
      %partial = arith.cmpi ugt, %nend, %seqkv : index
      scf.if %partial {
        tile.parallel (%i, %c) in [192, 128] {
          %s = memref.load %S[%i, %c] : memref<192x128xf32, #tile.fragment>
          %col = arith.addi %n0, %c : index
          %inside = arith.cmpi ult, %col, %seqkv : index
          %masked = arith.select %inside, %s, %ninf : f32
          memref.store %masked, %S[%i, %c] : memref<192x128xf32, #tile.fragment>
        }
      }
      tile.reduce max %S into %mb dim 1 clear : memref<192x128xf32, #tile.fragment> into memref<192xf32, #tile.fragment>
      // The new running maximum; alpha = exp2((old - new) scale) rescales
      // the sum and the output so far; -new scale is kept for the FMA below.
      tile.parallel (%i) in [192] {
        %mi = memref.load %m[%i] : memref<192xf32, #tile.fragment>
        %bi = memref.load %mb[%i] : memref<192xf32, #tile.fragment>
        %li = memref.load %l[%i] : memref<192xf32, #tile.fragment>
        %mnew = arith.maximumf %mi, %bi : f32
        %delta = arith.subf %mi, %mnew : f32
        %deltas = arith.mulf %delta, %scale : f32
        %alpha = math.exp2 %deltas fastmath<afn> : f32
        %mscaled = arith.mulf %mnew, %scale : f32
        %mneg = arith.negf %mscaled : f32
        memref.store %mneg, %ms[%i] : memref<192xf32, #tile.fragment>
        %lscaled = arith.mulf %li, %alpha : f32
        memref.store %lscaled, %l[%i] : memref<192xf32, #tile.fragment>
        memref.store %mnew, %m[%i] : memref<192xf32, #tile.fragment>
        memref.store %alpha, %mb[%i] : memref<192xf32, #tile.fragment>
      }
      // P = exp2(S scale - m scale): one FMA and one ex2 per element; summed
      // into l and rounded for the second product.
      tile.parallel (%i, %c) in [192, 128] {
        %s = memref.load %S[%i, %c] : memref<192x128xf32, #tile.fragment>
        %mneg = memref.load %ms[%i] : memref<192xf32, #tile.fragment>
        %d = math.fma %s, %scale, %mneg : f32
        %p = math.exp2 %d fastmath<afn> : f32
        memref.store %p, %S[%i, %c] : memref<192x128xf32, #tile.fragment>
      }
      tile.reduce add %S into %l dim 1 : memref<192x128xf32, #tile.fragment> into memref<192xf32, #tile.fragment>
    }
    tile.copy %S to %P : memref<192x128xf32, #tile.fragment> to memref<192x128xbf16, #tile.fragment>
  }

  // O = acc / l, as acc (1 / l): one division per row, not per
  // element (%mb is free after the loop); LSE = ln 2 (m scale + log2 l),
  // the natural-log log-sum-exp.
  tile.parallel (%i) in [192] {
    %li = memref.load %l[%i] : memref<192xf32, #tile.fragment>
    %one_l = arith.constant 1.0 : f32
    %rl = arith.divf %one_l, %li : f32
    memref.store %rl, %mb[%i] : memref<192xf32, #tile.fragment>
  }
  tile.parallel (%i, %d) in [192, 64] {
    %o = memref.load %acc[%i, %d] : memref<192x64xf32, #tile.fragment>
    %rl = memref.load %mb[%i] : memref<192xf32, #tile.fragment>
    %r = arith.mulf %o, %rl : f32
    memref.store %r, %acc[%i, %d] : memref<192x64xf32, #tile.fragment>
  }
  tile.copy %acc to %Oh[%m0, %c0] : memref<192x64xf32, #tile.fragment> to memref<?x64xbf16, strided<[64, 1], offset: ?>>
  tile.parallel (%i) in [192] {
    %mi = memref.load %m[%i] : memref<192xf32, #tile.fragment>
    %li = memref.load %l[%i] : memref<192xf32, #tile.fragment>
    %lg = math.log2 %li fastmath<afn> : f32
    %mis = arith.mulf %mi, %scale : f32
    %sum = arith.addf %mis, %lg : f32
    %lse = arith.mulf %sum, %ln2 : f32
    memref.store %lse, %l[%i] : memref<192xf32, #tile.fragment>
  }
  tile.copy %l to %Lh[%m0] : memref<192xf32, #tile.fragment> to memref<?xf32, strided<[1], offset: ?>>
} grid_size {
^bb0(%Q: memref<?x?x?x64xbf16>, %K: memref<?x?x?x64xbf16>, %V: memref<?x?x?x64xbf16>, %O: memref<?x?x?x64xbf16>, %LSE: memref<?x?x?xf32>):
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %cm = arith.constant 192 : index
  %batch = memref.dim %Q, %c0 : memref<?x?x?x64xbf16>
  %heads = memref.dim %Q, %c1 : memref<?x?x?x64xbf16>
  %seq = memref.dim %Q, %c2 : memref<?x?x?x64xbf16>
  %tiles = arith.ceildivui %seq, %cm : index
  tile.yield %tiles, %heads, %batch : index, index, index
}

tile.kernel @attention_bf16_d128(%Q: memref<?x?x?x128xbf16>, %K: memref<?x?x?x128xbf16>, %V: memref<?x?x?x128xbf16>,
                       %O: memref<?x?x?x128xbf16>, %LSE: memref<?x?x?xf32>)
    grid [?, ?, ?] threads [384] attributes {reference = @attention_bf16_reference,
        skip_llvm_passes = "gvn#2,gvn#3,ipsccp,sccp,constraint-elimination,dse,adce,consthoist,early-cse#1,early-cse#4,indvars#2,correlated-propagation#1,licm#1,loop-unroll-full,loop-unroll"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %cn = arith.constant 128 : index
  %ninf = arith.constant 0xFF800000 : f32
  // c = log2(e) / sqrt(128): exp(s / sqrt(D)) = exp2(s c), one ex2.approx.
  %scale = arith.constant 0.12751743082459868 : f32
  %ln2 = arith.constant 0.6931471805599453 : f32
  %tile = tile.block_id x
  %h = tile.block_id y
  %b = tile.block_id z
  %m0 = affine.apply affine_map<(i) -> (i * 128)>(%tile)
  %seq = memref.dim %Q, %c2 : memref<?x?x?x128xbf16>
  %seqkv = memref.dim %K, %c2 : memref<?x?x?x128xbf16>
  %seqv = memref.dim %V, %c2 : memref<?x?x?x128xbf16>
  // One head's matrices: views whose rows are the sequence.
  %Qh = memref.subview %Q[%b, %h, 0, 0] [1, 1, %seq, 128] [1, 1, 1, 1] : memref<?x?x?x128xbf16> to memref<?x128xbf16, strided<[128, 1], offset: ?>>
  %Kh = memref.subview %K[%b, %h, 0, 0] [1, 1, %seqkv, 128] [1, 1, 1, 1] : memref<?x?x?x128xbf16> to memref<?x128xbf16, strided<[128, 1], offset: ?>>
  %Vh = memref.subview %V[%b, %h, 0, 0] [1, 1, %seqv, 128] [1, 1, 1, 1] : memref<?x?x?x128xbf16> to memref<?x128xbf16, strided<[128, 1], offset: ?>>
  %Oh = memref.subview %O[%b, %h, 0, 0] [1, 1, %seq, 128] [1, 1, 1, 1] : memref<?x?x?x128xbf16> to memref<?x128xbf16, strided<[128, 1], offset: ?>>
  %Lh = memref.subview %LSE[%b, %h, 0] [1, 1, %seq] [1, 1, 1] : memref<?x?x?xf32> to memref<?xf32, strided<[1], offset: ?>>

  %Qs = tile.alloc_shared : memref<128x128xbf16, #gpu.address_space<workgroup>>
  %Ks = tile.alloc_shared : memref<128x128xbf16, #gpu.address_space<workgroup>>
  %Vs = tile.alloc_shared : memref<128x128xbf16, #gpu.address_space<workgroup>>
  %S = tile.alloc_fragment : memref<128x128xf32, #tile.fragment>
  %P = tile.alloc_fragment : memref<128x128xbf16, #tile.fragment>
  %acc = tile.alloc_fragment : memref<128x128xf32, #tile.fragment>
  // Per row: the running maximum, the running sum, the block's maximum
  // (then the factor that rescales what came before), -max scale.
  %m = tile.alloc_fragment : memref<128xf32, #tile.fragment>
  %l = tile.alloc_fragment : memref<128xf32, #tile.fragment>
  %mb = tile.alloc_fragment : memref<128xf32, #tile.fragment>
  %ms = tile.alloc_fragment : memref<128xf32, #tile.fragment>

  tile.copy %Qh[%m0, %c0] to %Qs : memref<?x128xbf16, strided<[128, 1], offset: ?>> to memref<128x128xbf16, #gpu.address_space<workgroup>>
  tile.fill %m, %ninf : memref<128xf32, #tile.fragment>
  tile.clear %l : memref<128xf32, #tile.fragment>
  tile.clear %acc : memref<128x128xf32, #tile.fragment>
  %blocks = arith.ceildivui %seqkv, %cn : index
  // One iteration more: iteration j computes S of block j and O of
  // block j - 1 (at least one block, so that the loop provably runs
  // twice and tile-peel-guarded-gemms peels its first iteration,
  // which has no P V, and its last, which has no S).
  %keyblocks = affine.max affine_map<()[s0] -> (s0, 1)>()[%blocks]
  %iterations = arith.addi %keyblocks, %c1 : index
  tile.warp_specialize %c0 to %iterations step %c1 stages 2
      tiles(%Ks, %Vs : memref<128x128xbf16, #gpu.address_space<workgroup>>, memref<128x128xbf16, #gpu.address_space<workgroup>>)
      producer(%j, %st) threads 128 regs 24 {
    %n0 = affine.apply affine_map<(j) -> (j * 128)>(%j)
    tile.copy %Kh[%n0, %c0] to %Ks : memref<?x128xbf16, strided<[128, 1], offset: ?>> to memref<128x128xbf16, #gpu.address_space<workgroup>>
    %v0 = affine.apply affine_map<(j) -> (j * 128 - 128)>(%j)
    tile.copy %Vh[%v0, %c0] to %Vs : memref<?x128xbf16, strided<[128, 1], offset: ?>> to memref<128x128xbf16, #gpu.address_space<workgroup>>
  } consumer(%j, %st) threads 256 regs 240 pingpong {
    %n0 = affine.apply affine_map<(j) -> (j * 128)>(%j)
    // Block j - 1's P V from the second iteration on, block j's S up
    // to the last block.
    %has_product = arith.cmpi ugt, %j, %c0 : index
    %has_scores = arith.cmpi ult, %j, %keyblocks : index
    // O = O alpha, before this iteration's gemms.
    scf.if %has_product {
      tile.parallel (%i, %d) in [128, 128] {
        %alpha = memref.load %mb[%i] : memref<128xf32, #tile.fragment>
        %o = memref.load %acc[%i, %d] : memref<128x128xf32, #tile.fragment>
        %scaled = arith.mulf %o, %alpha : f32
        memref.store %scaled, %acc[%i, %d] : memref<128x128xf32, #tile.fragment>
      }
    }
    scf.if %has_scores {
      // S = Q K^T, in raw units: the scale is applied inside exp2 below.
      tile.gemm %Qs, %Ks, %S {clear, transpose_b, lowering = #tile.gemm_lowering<wgmma>} : memref<128x128xbf16, #gpu.address_space<workgroup>>, memref<128x128xbf16, #gpu.address_space<workgroup>>, memref<128x128xf32, #tile.fragment>
    }
    // O += P V of the previous block, P read from registers: its MMAs
    // run during the softmax of this block's S below.
    scf.if %has_product {
      tile.gemm %P, %Vs, %acc {lowering = #tile.gemm_lowering<wgmma>} : memref<128x128xbf16, #tile.fragment>, memref<128x128xbf16, #gpu.address_space<workgroup>>, memref<128x128xf32, #tile.fragment>
    }
    // The mask and the softmax of S, with P V's MMAs in flight.
    scf.if %has_scores {
      // Keys past the end (and, causal, after the query) become -inf, in
      // the blocks that have any.
      %nend = affine.apply affine_map<(n) -> (n + 128)>(%n0)
      %partial = arith.cmpi ugt, %nend, %seqkv : index
      scf.if %partial {
        tile.parallel (%i, %c) in [128, 128] {
          %s = memref.load %S[%i, %c] : memref<128x128xf32, #tile.fragment>
          %col = arith.addi %n0, %c : index
          %inside = arith.cmpi ult, %col, %seqkv : index
          %masked = arith.select %inside, %s, %ninf : f32
          memref.store %masked, %S[%i, %c] : memref<128x128xf32, #tile.fragment>
        }
      }
      tile.reduce max %S into %mb dim 1 clear : memref<128x128xf32, #tile.fragment> into memref<128xf32, #tile.fragment>
      // The new running maximum; alpha = exp2((old - new) scale) rescales
      // the sum and the output so far; -new scale is kept for the FMA below.
      tile.parallel (%i) in [128] {
        %mi = memref.load %m[%i] : memref<128xf32, #tile.fragment>
        %bi = memref.load %mb[%i] : memref<128xf32, #tile.fragment>
        %li = memref.load %l[%i] : memref<128xf32, #tile.fragment>
        %mnew = arith.maximumf %mi, %bi : f32
        %delta = arith.subf %mi, %mnew : f32
        %deltas = arith.mulf %delta, %scale : f32
        %alpha = math.exp2 %deltas fastmath<afn> : f32
        %mscaled = arith.mulf %mnew, %scale : f32
        %mneg = arith.negf %mscaled : f32
        memref.store %mneg, %ms[%i] : memref<128xf32, #tile.fragment>
        %lscaled = arith.mulf %li, %alpha : f32
        memref.store %lscaled, %l[%i] : memref<128xf32, #tile.fragment>
        memref.store %mnew, %m[%i] : memref<128xf32, #tile.fragment>
        memref.store %alpha, %mb[%i] : memref<128xf32, #tile.fragment>
      }
      // P = exp2(S scale - m scale): one FMA and one ex2 per element; summed
      // into l and rounded for the second product.
      tile.parallel (%i, %c) in [128, 128] {
        %s = memref.load %S[%i, %c] : memref<128x128xf32, #tile.fragment>
        %mneg = memref.load %ms[%i] : memref<128xf32, #tile.fragment>
        %d = math.fma %s, %scale, %mneg : f32
        %p = math.exp2 %d fastmath<afn> : f32
        memref.store %p, %S[%i, %c] : memref<128x128xf32, #tile.fragment>
      }
      tile.reduce add %S into %l dim 1 : memref<128x128xf32, #tile.fragment> into memref<128xf32, #tile.fragment>
    }
    tile.copy %S to %P : memref<128x128xf32, #tile.fragment> to memref<128x128xbf16, #tile.fragment>
  }

  // O = acc / l, as acc (1 / l): one division per row, not per
  // element (%mb is free after the loop); LSE = ln 2 (m scale + log2 l),
  // the natural-log log-sum-exp.
  tile.parallel (%i) in [128] {
    %li = memref.load %l[%i] : memref<128xf32, #tile.fragment>
    %one_l = arith.constant 1.0 : f32
    %rl = arith.divf %one_l, %li : f32
    memref.store %rl, %mb[%i] : memref<128xf32, #tile.fragment>
  }
  tile.parallel (%i, %d) in [128, 128] {
    %o = memref.load %acc[%i, %d] : memref<128x128xf32, #tile.fragment>
    %rl = memref.load %mb[%i] : memref<128xf32, #tile.fragment>
    %r = arith.mulf %o, %rl : f32
    memref.store %r, %acc[%i, %d] : memref<128x128xf32, #tile.fragment>
  }
  tile.copy %acc to %Oh[%m0, %c0] : memref<128x128xf32, #tile.fragment> to memref<?x128xbf16, strided<[128, 1], offset: ?>>
  tile.parallel (%i) in [128] {
    %mi = memref.load %m[%i] : memref<128xf32, #tile.fragment>
    %li = memref.load %l[%i] : memref<128xf32, #tile.fragment>
    %lg = math.log2 %li fastmath<afn> : f32
    %mis = arith.mulf %mi, %scale : f32
    %sum = arith.addf %mis, %lg : f32
    %lse = arith.mulf %sum, %ln2 : f32
    memref.store %lse, %l[%i] : memref<128xf32, #tile.fragment>
  }
  tile.copy %l to %Lh[%m0] : memref<128xf32, #tile.fragment> to memref<?xf32, strided<[1], offset: ?>>
} grid_size {
^bb0(%Q: memref<?x?x?x128xbf16>, %K: memref<?x?x?x128xbf16>, %V: memref<?x?x?x128xbf16>, %O: memref<?x?x?x128xbf16>, %LSE: memref<?x?x?xf32>):
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %cm = arith.constant 128 : index
  %batch = memref.dim %Q, %c0 : memref<?x?x?x128xbf16>
  %heads = memref.dim %Q, %c1 : memref<?x?x?x128xbf16>
  %seq = memref.dim %Q, %c2 : memref<?x?x?x128xbf16>
  %tiles = arith.ceildivui %seq, %cm : index
  tile.yield %tiles, %heads, %batch : index, index, index
}

tile.kernel @attention_f16_d64_causal(%Q: memref<?x?x?x64xf16>, %K: memref<?x?x?x64xf16>, %V: memref<?x?x?x64xf16>,
                            %O: memref<?x?x?x64xf16>, %LSE: memref<?x?x?xf32>)
    grid [?, ?, ?] threads [384] attributes {reference = @attention_f16_causal_reference,
        skip_llvm_passes = "gvn#2,gvn#3,ipsccp,sccp,constraint-elimination,dse,adce,consthoist,early-cse#1,early-cse#4,indvars#2,correlated-propagation#1,licm#1,loop-unroll-full,loop-unroll"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %cn = arith.constant 128 : index
  %ninf = arith.constant 0xFF800000 : f32
  // c = log2(e) / sqrt(64): exp(s / sqrt(D)) = exp2(s c), one ex2.approx.
  %scale = arith.constant 0.18033688011112042 : f32
  %ln2 = arith.constant 0.6931471805599453 : f32
  %tile = tile.block_id x
  %h = tile.block_id y
  %b = tile.block_id z
  %m0 = affine.apply affine_map<(i) -> (i * 128)>(%tile)
  %seq = memref.dim %Q, %c2 : memref<?x?x?x64xf16>
  %seqkv = memref.dim %K, %c2 : memref<?x?x?x64xf16>
  %seqv = memref.dim %V, %c2 : memref<?x?x?x64xf16>
  // One head's matrices: views whose rows are the sequence.
  %Qh = memref.subview %Q[%b, %h, 0, 0] [1, 1, %seq, 64] [1, 1, 1, 1] : memref<?x?x?x64xf16> to memref<?x64xf16, strided<[64, 1], offset: ?>>
  %Kh = memref.subview %K[%b, %h, 0, 0] [1, 1, %seqkv, 64] [1, 1, 1, 1] : memref<?x?x?x64xf16> to memref<?x64xf16, strided<[64, 1], offset: ?>>
  %Vh = memref.subview %V[%b, %h, 0, 0] [1, 1, %seqv, 64] [1, 1, 1, 1] : memref<?x?x?x64xf16> to memref<?x64xf16, strided<[64, 1], offset: ?>>
  %Oh = memref.subview %O[%b, %h, 0, 0] [1, 1, %seq, 64] [1, 1, 1, 1] : memref<?x?x?x64xf16> to memref<?x64xf16, strided<[64, 1], offset: ?>>
  %Lh = memref.subview %LSE[%b, %h, 0] [1, 1, %seq] [1, 1, 1] : memref<?x?x?xf32> to memref<?xf32, strided<[1], offset: ?>>

  %Qs = tile.alloc_shared : memref<128x64xf16, #gpu.address_space<workgroup>>
  %Ks = tile.alloc_shared : memref<128x64xf16, #gpu.address_space<workgroup>>
  %Vs = tile.alloc_shared : memref<128x64xf16, #gpu.address_space<workgroup>>
  %S = tile.alloc_fragment : memref<128x128xf32, #tile.fragment>
  %P = tile.alloc_fragment : memref<128x128xf16, #tile.fragment>
  %acc = tile.alloc_fragment : memref<128x64xf32, #tile.fragment>
  // Per row: the running maximum, the running sum, the block's maximum
  // (then the factor that rescales what came before), -max scale.
  %m = tile.alloc_fragment : memref<128xf32, #tile.fragment>
  %l = tile.alloc_fragment : memref<128xf32, #tile.fragment>
  %mb = tile.alloc_fragment : memref<128xf32, #tile.fragment>
  %ms = tile.alloc_fragment : memref<128xf32, #tile.fragment>

  tile.copy %Qh[%m0, %c0] to %Qs : memref<?x64xf16, strided<[64, 1], offset: ?>> to memref<128x64xf16, #gpu.address_space<workgroup>>
  tile.fill %m, %ninf : memref<128xf32, #tile.fragment>
  tile.clear %l : memref<128xf32, #tile.fragment>
  tile.clear %acc : memref<128x64xf32, #tile.fragment>
  %blocks = arith.ceildivui %seqkv, %cn : index
  // Causal: key blocks past the tile's last row are all masked; skip them.
  %rowsend = affine.apply affine_map<(m) -> (m + 128)>(%m0)
  %diag = arith.ceildivui %rowsend, %cn : index
  %kvend = arith.minui %blocks, %diag : index
  // One iteration more: iteration j computes S of block j and O of
  // block j - 1 (at least one block, so that the loop provably runs
  // twice and tile-peel-guarded-gemms peels its first iteration,
  // which has no P V, and its last, which has no S).
  %keyblocks = affine.max affine_map<()[s0] -> (s0, 1)>()[%kvend]
  %iterations = arith.addi %keyblocks, %c1 : index
  tile.warp_specialize %c0 to %iterations step %c1 stages 2
      tiles(%Ks, %Vs : memref<128x64xf16, #gpu.address_space<workgroup>>, memref<128x64xf16, #gpu.address_space<workgroup>>)
      producer(%j, %st) threads 128 regs 24 {
    %n0 = affine.apply affine_map<(j) -> (j * 128)>(%j)
    tile.copy %Kh[%n0, %c0] to %Ks : memref<?x64xf16, strided<[64, 1], offset: ?>> to memref<128x64xf16, #gpu.address_space<workgroup>>
    %v0 = affine.apply affine_map<(j) -> (j * 128 - 128)>(%j)
    tile.copy %Vh[%v0, %c0] to %Vs : memref<?x64xf16, strided<[64, 1], offset: ?>> to memref<128x64xf16, #gpu.address_space<workgroup>>
  } consumer(%j, %st) threads 256 regs 240 pingpong {
    %n0 = affine.apply affine_map<(j) -> (j * 128)>(%j)
    // Block j - 1's P V from the second iteration on, block j's S up
    // to the last block.
    %has_product = arith.cmpi ugt, %j, %c0 : index
    %has_scores = arith.cmpi ult, %j, %keyblocks : index
    // O = O alpha, before this iteration's gemms.
    scf.if %has_product {
      tile.parallel (%i, %d) in [128, 64] {
        %alpha = memref.load %mb[%i] : memref<128xf32, #tile.fragment>
        %o = memref.load %acc[%i, %d] : memref<128x64xf32, #tile.fragment>
        %scaled = arith.mulf %o, %alpha : f32
        memref.store %scaled, %acc[%i, %d] : memref<128x64xf32, #tile.fragment>
      }
    }
    scf.if %has_scores {
      // S = Q K^T, in raw units: the scale is applied inside exp2 below.
      tile.gemm %Qs, %Ks, %S {clear, transpose_b, lowering = #tile.gemm_lowering<wgmma>} : memref<128x64xf16, #gpu.address_space<workgroup>>, memref<128x64xf16, #gpu.address_space<workgroup>>, memref<128x128xf32, #tile.fragment>
    }
    // O += P V of the previous block, P read from registers: its MMAs
    // run during the softmax of this block's S below.
    scf.if %has_product {
      tile.gemm %P, %Vs, %acc {lowering = #tile.gemm_lowering<wgmma>} : memref<128x128xf16, #tile.fragment>, memref<128x64xf16, #gpu.address_space<workgroup>>, memref<128x64xf32, #tile.fragment>
    }
    // The mask and the softmax of S, with P V's MMAs in flight.
    scf.if %has_scores {
      // Keys past the end (and, causal, after the query) become -inf, in
      // the blocks that have any.
      %nend = affine.apply affine_map<(n) -> (n + 128)>(%n0)
      %partial = arith.cmpi ugt, %nend, %seqkv : index
      %rowfirst = affine.apply affine_map<(m) -> (m + 1)>(%m0)
      %diagonal = arith.cmpi ugt, %nend, %rowfirst : index
      %needmask = arith.ori %partial, %diagonal : i1
      scf.if %needmask {
        tile.parallel (%i, %c) in [128, 128] {
          %s = memref.load %S[%i, %c] : memref<128x128xf32, #tile.fragment>
          %col = arith.addi %n0, %c : index
          %inside = arith.cmpi ult, %col, %seqkv : index
          %qrow = arith.addi %m0, %i : index
          %past = arith.cmpi ule, %col, %qrow : index
          %keep = arith.andi %inside, %past : i1
          %masked = arith.select %keep, %s, %ninf : f32
          memref.store %masked, %S[%i, %c] : memref<128x128xf32, #tile.fragment>
        }
      }
      tile.reduce max %S into %mb dim 1 clear : memref<128x128xf32, #tile.fragment> into memref<128xf32, #tile.fragment>
      // The new running maximum; alpha = exp2((old - new) scale) rescales
      // the sum and the output so far; -new scale is kept for the FMA below.
      tile.parallel (%i) in [128] {
        %mi = memref.load %m[%i] : memref<128xf32, #tile.fragment>
        %bi = memref.load %mb[%i] : memref<128xf32, #tile.fragment>
        %li = memref.load %l[%i] : memref<128xf32, #tile.fragment>
        %mnew = arith.maximumf %mi, %bi : f32
        %delta = arith.subf %mi, %mnew : f32
        %deltas = arith.mulf %delta, %scale : f32
        %alpha = math.exp2 %deltas fastmath<afn> : f32
        %mscaled = arith.mulf %mnew, %scale : f32
        %mneg = arith.negf %mscaled : f32
        memref.store %mneg, %ms[%i] : memref<128xf32, #tile.fragment>
        %lscaled = arith.mulf %li, %alpha : f32
        memref.store %lscaled, %l[%i] : memref<128xf32, #tile.fragment>
        memref.store %mnew, %m[%i] : memref<128xf32, #tile.fragment>
        memref.store %alpha, %mb[%i] : memref<128xf32, #tile.fragment>
      }
      // P = exp2(S scale - m scale): one FMA and one ex2 per element; summed
      // into l and rounded for the second product.
      tile.parallel (%i, %c) in [128, 128] {
        %s = memref.load %S[%i, %c] : memref<128x128xf32, #tile.fragment>
        %mneg = memref.load %ms[%i] : memref<128xf32, #tile.fragment>
        %d = math.fma %s, %scale, %mneg : f32
        %p = math.exp2 %d fastmath<afn> : f32
        memref.store %p, %S[%i, %c] : memref<128x128xf32, #tile.fragment>
      }
      tile.reduce add %S into %l dim 1 : memref<128x128xf32, #tile.fragment> into memref<128xf32, #tile.fragment>
    }
    tile.copy %S to %P : memref<128x128xf32, #tile.fragment> to memref<128x128xf16, #tile.fragment>
  }

  // O = acc / l, as acc (1 / l): one division per row, not per
  // element (%mb is free after the loop); LSE = ln 2 (m scale + log2 l),
  // the natural-log log-sum-exp.
  tile.parallel (%i) in [128] {
    %li = memref.load %l[%i] : memref<128xf32, #tile.fragment>
    %one_l = arith.constant 1.0 : f32
    %rl = arith.divf %one_l, %li : f32
    memref.store %rl, %mb[%i] : memref<128xf32, #tile.fragment>
  }
  tile.parallel (%i, %d) in [128, 64] {
    %o = memref.load %acc[%i, %d] : memref<128x64xf32, #tile.fragment>
    %rl = memref.load %mb[%i] : memref<128xf32, #tile.fragment>
    %r = arith.mulf %o, %rl : f32
    memref.store %r, %acc[%i, %d] : memref<128x64xf32, #tile.fragment>
  }
  tile.copy %acc to %Oh[%m0, %c0] : memref<128x64xf32, #tile.fragment> to memref<?x64xf16, strided<[64, 1], offset: ?>>
  tile.parallel (%i) in [128] {
    %mi = memref.load %m[%i] : memref<128xf32, #tile.fragment>
    %li = memref.load %l[%i] : memref<128xf32, #tile.fragment>
    %lg = math.log2 %li fastmath<afn> : f32
    %mis = arith.mulf %mi, %scale : f32
    %sum = arith.addf %mis, %lg : f32
    %lse = arith.mulf %sum, %ln2 : f32
    memref.store %lse, %l[%i] : memref<128xf32, #tile.fragment>
  }
  tile.copy %l to %Lh[%m0] : memref<128xf32, #tile.fragment> to memref<?xf32, strided<[1], offset: ?>>
} grid_size {
^bb0(%Q: memref<?x?x?x64xf16>, %K: memref<?x?x?x64xf16>, %V: memref<?x?x?x64xf16>, %O: memref<?x?x?x64xf16>, %LSE: memref<?x?x?xf32>):
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %cm = arith.constant 128 : index
  %batch = memref.dim %Q, %c0 : memref<?x?x?x64xf16>
  %heads = memref.dim %Q, %c1 : memref<?x?x?x64xf16>
  %seq = memref.dim %Q, %c2 : memref<?x?x?x64xf16>
  %tiles = arith.ceildivui %seq, %cm : index
  tile.yield %tiles, %heads, %batch : index, index, index
}

tile.kernel @attention_f16_d128_causal(%Q: memref<?x?x?x128xf16>, %K: memref<?x?x?x128xf16>, %V: memref<?x?x?x128xf16>,
                             %O: memref<?x?x?x128xf16>, %LSE: memref<?x?x?xf32>)
    grid [?, ?, ?] threads [384] attributes {reference = @attention_f16_causal_reference,
        skip_llvm_passes = "gvn#2,gvn#3,ipsccp,sccp,constraint-elimination,dse,adce,consthoist,early-cse#1,early-cse#4,indvars#2,correlated-propagation#1,licm#1,loop-unroll-full,loop-unroll"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %cn = arith.constant 128 : index
  %ninf = arith.constant 0xFF800000 : f32
  // c = log2(e) / sqrt(128): exp(s / sqrt(D)) = exp2(s c), one ex2.approx.
  %scale = arith.constant 0.12751743082459868 : f32
  %ln2 = arith.constant 0.6931471805599453 : f32
  %tile = tile.block_id x
  %h = tile.block_id y
  %b = tile.block_id z
  %m0 = affine.apply affine_map<(i) -> (i * 128)>(%tile)
  %seq = memref.dim %Q, %c2 : memref<?x?x?x128xf16>
  %seqkv = memref.dim %K, %c2 : memref<?x?x?x128xf16>
  %seqv = memref.dim %V, %c2 : memref<?x?x?x128xf16>
  // One head's matrices: views whose rows are the sequence.
  %Qh = memref.subview %Q[%b, %h, 0, 0] [1, 1, %seq, 128] [1, 1, 1, 1] : memref<?x?x?x128xf16> to memref<?x128xf16, strided<[128, 1], offset: ?>>
  %Kh = memref.subview %K[%b, %h, 0, 0] [1, 1, %seqkv, 128] [1, 1, 1, 1] : memref<?x?x?x128xf16> to memref<?x128xf16, strided<[128, 1], offset: ?>>
  %Vh = memref.subview %V[%b, %h, 0, 0] [1, 1, %seqv, 128] [1, 1, 1, 1] : memref<?x?x?x128xf16> to memref<?x128xf16, strided<[128, 1], offset: ?>>
  %Oh = memref.subview %O[%b, %h, 0, 0] [1, 1, %seq, 128] [1, 1, 1, 1] : memref<?x?x?x128xf16> to memref<?x128xf16, strided<[128, 1], offset: ?>>
  %Lh = memref.subview %LSE[%b, %h, 0] [1, 1, %seq] [1, 1, 1] : memref<?x?x?xf32> to memref<?xf32, strided<[1], offset: ?>>

  %Qs = tile.alloc_shared : memref<128x128xf16, #gpu.address_space<workgroup>>
  %Ks = tile.alloc_shared : memref<128x128xf16, #gpu.address_space<workgroup>>
  %Vs = tile.alloc_shared : memref<128x128xf16, #gpu.address_space<workgroup>>
  %S = tile.alloc_fragment : memref<128x128xf32, #tile.fragment>
  %P = tile.alloc_fragment : memref<128x128xf16, #tile.fragment>
  %acc = tile.alloc_fragment : memref<128x128xf32, #tile.fragment>
  // Per row: the running maximum, the running sum, the block's maximum
  // (then the factor that rescales what came before), -max scale.
  %m = tile.alloc_fragment : memref<128xf32, #tile.fragment>
  %l = tile.alloc_fragment : memref<128xf32, #tile.fragment>
  %mb = tile.alloc_fragment : memref<128xf32, #tile.fragment>
  %ms = tile.alloc_fragment : memref<128xf32, #tile.fragment>

  tile.copy %Qh[%m0, %c0] to %Qs : memref<?x128xf16, strided<[128, 1], offset: ?>> to memref<128x128xf16, #gpu.address_space<workgroup>>
  tile.fill %m, %ninf : memref<128xf32, #tile.fragment>
  tile.clear %l : memref<128xf32, #tile.fragment>
  tile.clear %acc : memref<128x128xf32, #tile.fragment>
  %blocks = arith.ceildivui %seqkv, %cn : index
  // Causal: key blocks past the tile's last row are all masked; skip them.
  %rowsend = affine.apply affine_map<(m) -> (m + 128)>(%m0)
  %diag = arith.ceildivui %rowsend, %cn : index
  %kvend = arith.minui %blocks, %diag : index
  // One iteration more: iteration j computes S of block j and O of
  // block j - 1 (at least one block, so that the loop provably runs
  // twice and tile-peel-guarded-gemms peels its first iteration,
  // which has no P V, and its last, which has no S).
  %keyblocks = affine.max affine_map<()[s0] -> (s0, 1)>()[%kvend]
  %iterations = arith.addi %keyblocks, %c1 : index
  tile.warp_specialize %c0 to %iterations step %c1 stages 2
      tiles(%Ks, %Vs : memref<128x128xf16, #gpu.address_space<workgroup>>, memref<128x128xf16, #gpu.address_space<workgroup>>)
      producer(%j, %st) threads 128 regs 24 {
    %n0 = affine.apply affine_map<(j) -> (j * 128)>(%j)
    tile.copy %Kh[%n0, %c0] to %Ks : memref<?x128xf16, strided<[128, 1], offset: ?>> to memref<128x128xf16, #gpu.address_space<workgroup>>
    %v0 = affine.apply affine_map<(j) -> (j * 128 - 128)>(%j)
    tile.copy %Vh[%v0, %c0] to %Vs : memref<?x128xf16, strided<[128, 1], offset: ?>> to memref<128x128xf16, #gpu.address_space<workgroup>>
  } consumer(%j, %st) threads 256 regs 240 pingpong {
    %n0 = affine.apply affine_map<(j) -> (j * 128)>(%j)
    // Block j - 1's P V from the second iteration on, block j's S up
    // to the last block.
    %has_product = arith.cmpi ugt, %j, %c0 : index
    %has_scores = arith.cmpi ult, %j, %keyblocks : index
    // O = O alpha, before this iteration's gemms.
    scf.if %has_product {
      tile.parallel (%i, %d) in [128, 128] {
        %alpha = memref.load %mb[%i] : memref<128xf32, #tile.fragment>
        %o = memref.load %acc[%i, %d] : memref<128x128xf32, #tile.fragment>
        %scaled = arith.mulf %o, %alpha : f32
        memref.store %scaled, %acc[%i, %d] : memref<128x128xf32, #tile.fragment>
      }
    }
    scf.if %has_scores {
      // S = Q K^T, in raw units: the scale is applied inside exp2 below.
      tile.gemm %Qs, %Ks, %S {clear, transpose_b, lowering = #tile.gemm_lowering<wgmma>} : memref<128x128xf16, #gpu.address_space<workgroup>>, memref<128x128xf16, #gpu.address_space<workgroup>>, memref<128x128xf32, #tile.fragment>
    }
    // O += P V of the previous block, P read from registers: its MMAs
    // run during the softmax of this block's S below.
    scf.if %has_product {
      tile.gemm %P, %Vs, %acc {lowering = #tile.gemm_lowering<wgmma>} : memref<128x128xf16, #tile.fragment>, memref<128x128xf16, #gpu.address_space<workgroup>>, memref<128x128xf32, #tile.fragment>
    }
    // The mask and the softmax of S, with P V's MMAs in flight.
    scf.if %has_scores {
      // Keys past the end (and, causal, after the query) become -inf, in
      // the blocks that have any.
      %nend = affine.apply affine_map<(n) -> (n + 128)>(%n0)
      %partial = arith.cmpi ugt, %nend, %seqkv : index
      %rowfirst = affine.apply affine_map<(m) -> (m + 1)>(%m0)
      %diagonal = arith.cmpi ugt, %nend, %rowfirst : index
      %needmask = arith.ori %partial, %diagonal : i1
      scf.if %needmask {
        tile.parallel (%i, %c) in [128, 128] {
          %s = memref.load %S[%i, %c] : memref<128x128xf32, #tile.fragment>
          %col = arith.addi %n0, %c : index
          %inside = arith.cmpi ult, %col, %seqkv : index
          %qrow = arith.addi %m0, %i : index
          %past = arith.cmpi ule, %col, %qrow : index
          %keep = arith.andi %inside, %past : i1
          %masked = arith.select %keep, %s, %ninf : f32
          memref.store %masked, %S[%i, %c] : memref<128x128xf32, #tile.fragment>
        }
      }
      tile.reduce max %S into %mb dim 1 clear : memref<128x128xf32, #tile.fragment> into memref<128xf32, #tile.fragment>
      // The new running maximum; alpha = exp2((old - new) scale) rescales
      // the sum and the output so far; -new scale is kept for the FMA below.
      tile.parallel (%i) in [128] {
        %mi = memref.load %m[%i] : memref<128xf32, #tile.fragment>
        %bi = memref.load %mb[%i] : memref<128xf32, #tile.fragment>
        %li = memref.load %l[%i] : memref<128xf32, #tile.fragment>
        %mnew = arith.maximumf %mi, %bi : f32
        %delta = arith.subf %mi, %mnew : f32
        %deltas = arith.mulf %delta, %scale : f32
        %alpha = math.exp2 %deltas fastmath<afn> : f32
        %mscaled = arith.mulf %mnew, %scale : f32
        %mneg = arith.negf %mscaled : f32
        memref.store %mneg, %ms[%i] : memref<128xf32, #tile.fragment>
        %lscaled = arith.mulf %li, %alpha : f32
        memref.store %lscaled, %l[%i] : memref<128xf32, #tile.fragment>
        memref.store %mnew, %m[%i] : memref<128xf32, #tile.fragment>
        memref.store %alpha, %mb[%i] : memref<128xf32, #tile.fragment>
      }
      // P = exp2(S scale - m scale): one FMA and one ex2 per element; summed
      // into l and rounded for the second product.
      tile.parallel (%i, %c) in [128, 128] {
        %s = memref.load %S[%i, %c] : memref<128x128xf32, #tile.fragment>
        %mneg = memref.load %ms[%i] : memref<128xf32, #tile.fragment>
        %d = math.fma %s, %scale, %mneg : f32
        %p = math.exp2 %d fastmath<afn> : f32
        memref.store %p, %S[%i, %c] : memref<128x128xf32, #tile.fragment>
      }
      tile.reduce add %S into %l dim 1 : memref<128x128xf32, #tile.fragment> into memref<128xf32, #tile.fragment>
    }
    tile.copy %S to %P : memref<128x128xf32, #tile.fragment> to memref<128x128xf16, #tile.fragment>
  }

  // O = acc / l, as acc (1 / l): one division per row, not per
  // element (%mb is free after the loop); LSE = ln 2 (m scale + log2 l),
  // the natural-log log-sum-exp.
  tile.parallel (%i) in [128] {
    %li = memref.load %l[%i] : memref<128xf32, #tile.fragment>
    %one_l = arith.constant 1.0 : f32
    %rl = arith.divf %one_l, %li : f32
    memref.store %rl, %mb[%i] : memref<128xf32, #tile.fragment>
  }
  tile.parallel (%i, %d) in [128, 128] {
    %o = memref.load %acc[%i, %d] : memref<128x128xf32, #tile.fragment>
    %rl = memref.load %mb[%i] : memref<128xf32, #tile.fragment>
    %r = arith.mulf %o, %rl : f32
    memref.store %r, %acc[%i, %d] : memref<128x128xf32, #tile.fragment>
  }
  tile.copy %acc to %Oh[%m0, %c0] : memref<128x128xf32, #tile.fragment> to memref<?x128xf16, strided<[128, 1], offset: ?>>
  tile.parallel (%i) in [128] {
    %mi = memref.load %m[%i] : memref<128xf32, #tile.fragment>
    %li = memref.load %l[%i] : memref<128xf32, #tile.fragment>
    %lg = math.log2 %li fastmath<afn> : f32
    %mis = arith.mulf %mi, %scale : f32
    %sum = arith.addf %mis, %lg : f32
    %lse = arith.mulf %sum, %ln2 : f32
    memref.store %lse, %l[%i] : memref<128xf32, #tile.fragment>
  }
  tile.copy %l to %Lh[%m0] : memref<128xf32, #tile.fragment> to memref<?xf32, strided<[1], offset: ?>>
} grid_size {
^bb0(%Q: memref<?x?x?x128xf16>, %K: memref<?x?x?x128xf16>, %V: memref<?x?x?x128xf16>, %O: memref<?x?x?x128xf16>, %LSE: memref<?x?x?xf32>):
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %cm = arith.constant 128 : index
  %batch = memref.dim %Q, %c0 : memref<?x?x?x128xf16>
  %heads = memref.dim %Q, %c1 : memref<?x?x?x128xf16>
  %seq = memref.dim %Q, %c2 : memref<?x?x?x128xf16>
  %tiles = arith.ceildivui %seq, %cm : index
  tile.yield %tiles, %heads, %batch : index, index, index
}

tile.kernel @attention_bf16_d64_causal(%Q: memref<?x?x?x64xbf16>, %K: memref<?x?x?x64xbf16>, %V: memref<?x?x?x64xbf16>,
                             %O: memref<?x?x?x64xbf16>, %LSE: memref<?x?x?xf32>)
    grid [?, ?, ?] threads [384] attributes {reference = @attention_bf16_causal_reference,
        skip_llvm_passes = "gvn#2,gvn#3,ipsccp,sccp,constraint-elimination,dse,adce,consthoist,early-cse#1,early-cse#4,indvars#2,correlated-propagation#1,licm#1,loop-unroll-full,loop-unroll"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %cn = arith.constant 128 : index
  %ninf = arith.constant 0xFF800000 : f32
  // c = log2(e) / sqrt(64): exp(s / sqrt(D)) = exp2(s c), one ex2.approx.
  %scale = arith.constant 0.18033688011112042 : f32
  %ln2 = arith.constant 0.6931471805599453 : f32
  %tile = tile.block_id x
  %h = tile.block_id y
  %b = tile.block_id z
  %m0 = affine.apply affine_map<(i) -> (i * 128)>(%tile)
  %seq = memref.dim %Q, %c2 : memref<?x?x?x64xbf16>
  %seqkv = memref.dim %K, %c2 : memref<?x?x?x64xbf16>
  %seqv = memref.dim %V, %c2 : memref<?x?x?x64xbf16>
  // One head's matrices: views whose rows are the sequence.
  %Qh = memref.subview %Q[%b, %h, 0, 0] [1, 1, %seq, 64] [1, 1, 1, 1] : memref<?x?x?x64xbf16> to memref<?x64xbf16, strided<[64, 1], offset: ?>>
  %Kh = memref.subview %K[%b, %h, 0, 0] [1, 1, %seqkv, 64] [1, 1, 1, 1] : memref<?x?x?x64xbf16> to memref<?x64xbf16, strided<[64, 1], offset: ?>>
  %Vh = memref.subview %V[%b, %h, 0, 0] [1, 1, %seqv, 64] [1, 1, 1, 1] : memref<?x?x?x64xbf16> to memref<?x64xbf16, strided<[64, 1], offset: ?>>
  %Oh = memref.subview %O[%b, %h, 0, 0] [1, 1, %seq, 64] [1, 1, 1, 1] : memref<?x?x?x64xbf16> to memref<?x64xbf16, strided<[64, 1], offset: ?>>
  %Lh = memref.subview %LSE[%b, %h, 0] [1, 1, %seq] [1, 1, 1] : memref<?x?x?xf32> to memref<?xf32, strided<[1], offset: ?>>

  %Qs = tile.alloc_shared : memref<128x64xbf16, #gpu.address_space<workgroup>>
  %Ks = tile.alloc_shared : memref<128x64xbf16, #gpu.address_space<workgroup>>
  %Vs = tile.alloc_shared : memref<128x64xbf16, #gpu.address_space<workgroup>>
  %S = tile.alloc_fragment : memref<128x128xf32, #tile.fragment>
  %P = tile.alloc_fragment : memref<128x128xbf16, #tile.fragment>
  %acc = tile.alloc_fragment : memref<128x64xf32, #tile.fragment>
  // Per row: the running maximum, the running sum, the block's maximum
  // (then the factor that rescales what came before), -max scale.
  %m = tile.alloc_fragment : memref<128xf32, #tile.fragment>
  %l = tile.alloc_fragment : memref<128xf32, #tile.fragment>
  %mb = tile.alloc_fragment : memref<128xf32, #tile.fragment>
  %ms = tile.alloc_fragment : memref<128xf32, #tile.fragment>

  tile.copy %Qh[%m0, %c0] to %Qs : memref<?x64xbf16, strided<[64, 1], offset: ?>> to memref<128x64xbf16, #gpu.address_space<workgroup>>
  tile.fill %m, %ninf : memref<128xf32, #tile.fragment>
  tile.clear %l : memref<128xf32, #tile.fragment>
  tile.clear %acc : memref<128x64xf32, #tile.fragment>
  %blocks = arith.ceildivui %seqkv, %cn : index
  // Causal: key blocks past the tile's last row are all masked; skip them.
  %rowsend = affine.apply affine_map<(m) -> (m + 128)>(%m0)
  %diag = arith.ceildivui %rowsend, %cn : index
  %kvend = arith.minui %blocks, %diag : index
  // One iteration more: iteration j computes S of block j and O of
  // block j - 1 (at least one block, so that the loop provably runs
  // twice and tile-peel-guarded-gemms peels its first iteration,
  // which has no P V, and its last, which has no S).
  %keyblocks = affine.max affine_map<()[s0] -> (s0, 1)>()[%kvend]
  %iterations = arith.addi %keyblocks, %c1 : index
  tile.warp_specialize %c0 to %iterations step %c1 stages 2
      tiles(%Ks, %Vs : memref<128x64xbf16, #gpu.address_space<workgroup>>, memref<128x64xbf16, #gpu.address_space<workgroup>>)
      producer(%j, %st) threads 128 regs 24 {
    %n0 = affine.apply affine_map<(j) -> (j * 128)>(%j)
    tile.copy %Kh[%n0, %c0] to %Ks : memref<?x64xbf16, strided<[64, 1], offset: ?>> to memref<128x64xbf16, #gpu.address_space<workgroup>>
    %v0 = affine.apply affine_map<(j) -> (j * 128 - 128)>(%j)
    tile.copy %Vh[%v0, %c0] to %Vs : memref<?x64xbf16, strided<[64, 1], offset: ?>> to memref<128x64xbf16, #gpu.address_space<workgroup>>
  } consumer(%j, %st) threads 256 regs 240 pingpong {
    %n0 = affine.apply affine_map<(j) -> (j * 128)>(%j)
    // Block j - 1's P V from the second iteration on, block j's S up
    // to the last block.
    %has_product = arith.cmpi ugt, %j, %c0 : index
    %has_scores = arith.cmpi ult, %j, %keyblocks : index
    // O = O alpha, before this iteration's gemms.
    scf.if %has_product {
      tile.parallel (%i, %d) in [128, 64] {
        %alpha = memref.load %mb[%i] : memref<128xf32, #tile.fragment>
        %o = memref.load %acc[%i, %d] : memref<128x64xf32, #tile.fragment>
        %scaled = arith.mulf %o, %alpha : f32
        memref.store %scaled, %acc[%i, %d] : memref<128x64xf32, #tile.fragment>
      }
    }
    scf.if %has_scores {
      // S = Q K^T, in raw units: the scale is applied inside exp2 below.
      tile.gemm %Qs, %Ks, %S {clear, transpose_b, lowering = #tile.gemm_lowering<wgmma>} : memref<128x64xbf16, #gpu.address_space<workgroup>>, memref<128x64xbf16, #gpu.address_space<workgroup>>, memref<128x128xf32, #tile.fragment>
    }
    // O += P V of the previous block, P read from registers: its MMAs
    // run during the softmax of this block's S below.
    scf.if %has_product {
      tile.gemm %P, %Vs, %acc {lowering = #tile.gemm_lowering<wgmma>} : memref<128x128xbf16, #tile.fragment>, memref<128x64xbf16, #gpu.address_space<workgroup>>, memref<128x64xf32, #tile.fragment>
    }
    // The mask and the softmax of S, with P V's MMAs in flight.
    scf.if %has_scores {
      // Keys past the end (and, causal, after the query) become -inf, in
      // the blocks that have any.
      %nend = affine.apply affine_map<(n) -> (n + 128)>(%n0)
      %partial = arith.cmpi ugt, %nend, %seqkv : index
      %rowfirst = affine.apply affine_map<(m) -> (m + 1)>(%m0)
      %diagonal = arith.cmpi ugt, %nend, %rowfirst : index
      %needmask = arith.ori %partial, %diagonal : i1
      scf.if %needmask {
        tile.parallel (%i, %c) in [128, 128] {
          %s = memref.load %S[%i, %c] : memref<128x128xf32, #tile.fragment>
          %col = arith.addi %n0, %c : index
          %inside = arith.cmpi ult, %col, %seqkv : index
          %qrow = arith.addi %m0, %i : index
          %past = arith.cmpi ule, %col, %qrow : index
          %keep = arith.andi %inside, %past : i1
          %masked = arith.select %keep, %s, %ninf : f32
          memref.store %masked, %S[%i, %c] : memref<128x128xf32, #tile.fragment>
        }
      }
      tile.reduce max %S into %mb dim 1 clear : memref<128x128xf32, #tile.fragment> into memref<128xf32, #tile.fragment>
      // The new running maximum; alpha = exp2((old - new) scale) rescales
      // the sum and the output so far; -new scale is kept for the FMA below.
      tile.parallel (%i) in [128] {
        %mi = memref.load %m[%i] : memref<128xf32, #tile.fragment>
        %bi = memref.load %mb[%i] : memref<128xf32, #tile.fragment>
        %li = memref.load %l[%i] : memref<128xf32, #tile.fragment>
        %mnew = arith.maximumf %mi, %bi : f32
        %delta = arith.subf %mi, %mnew : f32
        %deltas = arith.mulf %delta, %scale : f32
        %alpha = math.exp2 %deltas fastmath<afn> : f32
        %mscaled = arith.mulf %mnew, %scale : f32
        %mneg = arith.negf %mscaled : f32
        memref.store %mneg, %ms[%i] : memref<128xf32, #tile.fragment>
        %lscaled = arith.mulf %li, %alpha : f32
        memref.store %lscaled, %l[%i] : memref<128xf32, #tile.fragment>
        memref.store %mnew, %m[%i] : memref<128xf32, #tile.fragment>
        memref.store %alpha, %mb[%i] : memref<128xf32, #tile.fragment>
      }
      // P = exp2(S scale - m scale): one FMA and one ex2 per element; summed
      // into l and rounded for the second product.
      tile.parallel (%i, %c) in [128, 128] {
        %s = memref.load %S[%i, %c] : memref<128x128xf32, #tile.fragment>
        %mneg = memref.load %ms[%i] : memref<128xf32, #tile.fragment>
        %d = math.fma %s, %scale, %mneg : f32
        %p = math.exp2 %d fastmath<afn> : f32
        memref.store %p, %S[%i, %c] : memref<128x128xf32, #tile.fragment>
      }
      tile.reduce add %S into %l dim 1 : memref<128x128xf32, #tile.fragment> into memref<128xf32, #tile.fragment>
    }
    tile.copy %S to %P : memref<128x128xf32, #tile.fragment> to memref<128x128xbf16, #tile.fragment>
  }

  // O = acc / l, as acc (1 / l): one division per row, not per
  // element (%mb is free after the loop); LSE = ln 2 (m scale + log2 l),
  // the natural-log log-sum-exp.
  tile.parallel (%i) in [128] {
    %li = memref.load %l[%i] : memref<128xf32, #tile.fragment>
    %one_l = arith.constant 1.0 : f32
    %rl = arith.divf %one_l, %li : f32
    memref.store %rl, %mb[%i] : memref<128xf32, #tile.fragment>
  }
  tile.parallel (%i, %d) in [128, 64] {
    %o = memref.load %acc[%i, %d] : memref<128x64xf32, #tile.fragment>
    %rl = memref.load %mb[%i] : memref<128xf32, #tile.fragment>
    %r = arith.mulf %o, %rl : f32
    memref.store %r, %acc[%i, %d] : memref<128x64xf32, #tile.fragment>
  }
  tile.copy %acc to %Oh[%m0, %c0] : memref<128x64xf32, #tile.fragment> to memref<?x64xbf16, strided<[64, 1], offset: ?>>
  tile.parallel (%i) in [128] {
    %mi = memref.load %m[%i] : memref<128xf32, #tile.fragment>
    %li = memref.load %l[%i] : memref<128xf32, #tile.fragment>
    %lg = math.log2 %li fastmath<afn> : f32
    %mis = arith.mulf %mi, %scale : f32
    %sum = arith.addf %mis, %lg : f32
    %lse = arith.mulf %sum, %ln2 : f32
    memref.store %lse, %l[%i] : memref<128xf32, #tile.fragment>
  }
  tile.copy %l to %Lh[%m0] : memref<128xf32, #tile.fragment> to memref<?xf32, strided<[1], offset: ?>>
} grid_size {
^bb0(%Q: memref<?x?x?x64xbf16>, %K: memref<?x?x?x64xbf16>, %V: memref<?x?x?x64xbf16>, %O: memref<?x?x?x64xbf16>, %LSE: memref<?x?x?xf32>):
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %cm = arith.constant 128 : index
  %batch = memref.dim %Q, %c0 : memref<?x?x?x64xbf16>
  %heads = memref.dim %Q, %c1 : memref<?x?x?x64xbf16>
  %seq = memref.dim %Q, %c2 : memref<?x?x?x64xbf16>
  %tiles = arith.ceildivui %seq, %cm : index
  tile.yield %tiles, %heads, %batch : index, index, index
}

tile.kernel @attention_bf16_d128_causal(%Q: memref<?x?x?x128xbf16>, %K: memref<?x?x?x128xbf16>, %V: memref<?x?x?x128xbf16>,
                              %O: memref<?x?x?x128xbf16>, %LSE: memref<?x?x?xf32>)
    grid [?, ?, ?] threads [384] attributes {reference = @attention_bf16_causal_reference,
        skip_llvm_passes = "gvn#2,gvn#3,ipsccp,sccp,constraint-elimination,dse,adce,consthoist,early-cse#1,early-cse#4,indvars#2,correlated-propagation#1,licm#1,loop-unroll-full,loop-unroll"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %cn = arith.constant 128 : index
  %ninf = arith.constant 0xFF800000 : f32
  // c = log2(e) / sqrt(128): exp(s / sqrt(D)) = exp2(s c), one ex2.approx.
  %scale = arith.constant 0.12751743082459868 : f32
  %ln2 = arith.constant 0.6931471805599453 : f32
  %tile = tile.block_id x
  %h = tile.block_id y
  %b = tile.block_id z
  %m0 = affine.apply affine_map<(i) -> (i * 128)>(%tile)
  %seq = memref.dim %Q, %c2 : memref<?x?x?x128xbf16>
  %seqkv = memref.dim %K, %c2 : memref<?x?x?x128xbf16>
  %seqv = memref.dim %V, %c2 : memref<?x?x?x128xbf16>
  // One head's matrices: views whose rows are the sequence.
  %Qh = memref.subview %Q[%b, %h, 0, 0] [1, 1, %seq, 128] [1, 1, 1, 1] : memref<?x?x?x128xbf16> to memref<?x128xbf16, strided<[128, 1], offset: ?>>
  %Kh = memref.subview %K[%b, %h, 0, 0] [1, 1, %seqkv, 128] [1, 1, 1, 1] : memref<?x?x?x128xbf16> to memref<?x128xbf16, strided<[128, 1], offset: ?>>
  %Vh = memref.subview %V[%b, %h, 0, 0] [1, 1, %seqv, 128] [1, 1, 1, 1] : memref<?x?x?x128xbf16> to memref<?x128xbf16, strided<[128, 1], offset: ?>>
  %Oh = memref.subview %O[%b, %h, 0, 0] [1, 1, %seq, 128] [1, 1, 1, 1] : memref<?x?x?x128xbf16> to memref<?x128xbf16, strided<[128, 1], offset: ?>>
  %Lh = memref.subview %LSE[%b, %h, 0] [1, 1, %seq] [1, 1, 1] : memref<?x?x?xf32> to memref<?xf32, strided<[1], offset: ?>>

  %Qs = tile.alloc_shared : memref<128x128xbf16, #gpu.address_space<workgroup>>
  %Ks = tile.alloc_shared : memref<128x128xbf16, #gpu.address_space<workgroup>>
  %Vs = tile.alloc_shared : memref<128x128xbf16, #gpu.address_space<workgroup>>
  %S = tile.alloc_fragment : memref<128x128xf32, #tile.fragment>
  %P = tile.alloc_fragment : memref<128x128xbf16, #tile.fragment>
  %acc = tile.alloc_fragment : memref<128x128xf32, #tile.fragment>
  // Per row: the running maximum, the running sum, the block's maximum
  // (then the factor that rescales what came before), -max scale.
  %m = tile.alloc_fragment : memref<128xf32, #tile.fragment>
  %l = tile.alloc_fragment : memref<128xf32, #tile.fragment>
  %mb = tile.alloc_fragment : memref<128xf32, #tile.fragment>
  %ms = tile.alloc_fragment : memref<128xf32, #tile.fragment>

  tile.copy %Qh[%m0, %c0] to %Qs : memref<?x128xbf16, strided<[128, 1], offset: ?>> to memref<128x128xbf16, #gpu.address_space<workgroup>>
  tile.fill %m, %ninf : memref<128xf32, #tile.fragment>
  tile.clear %l : memref<128xf32, #tile.fragment>
  tile.clear %acc : memref<128x128xf32, #tile.fragment>
  %blocks = arith.ceildivui %seqkv, %cn : index
  // Causal: key blocks past the tile's last row are all masked; skip them.
  %rowsend = affine.apply affine_map<(m) -> (m + 128)>(%m0)
  %diag = arith.ceildivui %rowsend, %cn : index
  %kvend = arith.minui %blocks, %diag : index
  // One iteration more: iteration j computes S of block j and O of
  // block j - 1 (at least one block, so that the loop provably runs
  // twice and tile-peel-guarded-gemms peels its first iteration,
  // which has no P V, and its last, which has no S).
  %keyblocks = affine.max affine_map<()[s0] -> (s0, 1)>()[%kvend]
  %iterations = arith.addi %keyblocks, %c1 : index
  tile.warp_specialize %c0 to %iterations step %c1 stages 2
      tiles(%Ks, %Vs : memref<128x128xbf16, #gpu.address_space<workgroup>>, memref<128x128xbf16, #gpu.address_space<workgroup>>)
      producer(%j, %st) threads 128 regs 24 {
    %n0 = affine.apply affine_map<(j) -> (j * 128)>(%j)
    tile.copy %Kh[%n0, %c0] to %Ks : memref<?x128xbf16, strided<[128, 1], offset: ?>> to memref<128x128xbf16, #gpu.address_space<workgroup>>
    %v0 = affine.apply affine_map<(j) -> (j * 128 - 128)>(%j)
    tile.copy %Vh[%v0, %c0] to %Vs : memref<?x128xbf16, strided<[128, 1], offset: ?>> to memref<128x128xbf16, #gpu.address_space<workgroup>>
  } consumer(%j, %st) threads 256 regs 240 pingpong {
    %n0 = affine.apply affine_map<(j) -> (j * 128)>(%j)
    // Block j - 1's P V from the second iteration on, block j's S up
    // to the last block.
    %has_product = arith.cmpi ugt, %j, %c0 : index
    %has_scores = arith.cmpi ult, %j, %keyblocks : index
    // O = O alpha, before this iteration's gemms.
    scf.if %has_product {
      tile.parallel (%i, %d) in [128, 128] {
        %alpha = memref.load %mb[%i] : memref<128xf32, #tile.fragment>
        %o = memref.load %acc[%i, %d] : memref<128x128xf32, #tile.fragment>
        %scaled = arith.mulf %o, %alpha : f32
        memref.store %scaled, %acc[%i, %d] : memref<128x128xf32, #tile.fragment>
      }
    }
    scf.if %has_scores {
      // S = Q K^T, in raw units: the scale is applied inside exp2 below.
      tile.gemm %Qs, %Ks, %S {clear, transpose_b, lowering = #tile.gemm_lowering<wgmma>} : memref<128x128xbf16, #gpu.address_space<workgroup>>, memref<128x128xbf16, #gpu.address_space<workgroup>>, memref<128x128xf32, #tile.fragment>
    }
    // O += P V of the previous block, P read from registers: its MMAs
    // run during the softmax of this block's S below.
    scf.if %has_product {
      tile.gemm %P, %Vs, %acc {lowering = #tile.gemm_lowering<wgmma>} : memref<128x128xbf16, #tile.fragment>, memref<128x128xbf16, #gpu.address_space<workgroup>>, memref<128x128xf32, #tile.fragment>
    }
    // The mask and the softmax of S, with P V's MMAs in flight.
    scf.if %has_scores {
      // Keys past the end (and, causal, after the query) become -inf, in
      // the blocks that have any.
      %nend = affine.apply affine_map<(n) -> (n + 128)>(%n0)
      %partial = arith.cmpi ugt, %nend, %seqkv : index
      %rowfirst = affine.apply affine_map<(m) -> (m + 1)>(%m0)
      %diagonal = arith.cmpi ugt, %nend, %rowfirst : index
      %needmask = arith.ori %partial, %diagonal : i1
      scf.if %needmask {
        tile.parallel (%i, %c) in [128, 128] {
          %s = memref.load %S[%i, %c] : memref<128x128xf32, #tile.fragment>
          %col = arith.addi %n0, %c : index
          %inside = arith.cmpi ult, %col, %seqkv : index
          %qrow = arith.addi %m0, %i : index
          %past = arith.cmpi ule, %col, %qrow : index
          %keep = arith.andi %inside, %past : i1
          %masked = arith.select %keep, %s, %ninf : f32
          memref.store %masked, %S[%i, %c] : memref<128x128xf32, #tile.fragment>
        }
      }
      tile.reduce max %S into %mb dim 1 clear : memref<128x128xf32, #tile.fragment> into memref<128xf32, #tile.fragment>
      // The new running maximum; alpha = exp2((old - new) scale) rescales
      // the sum and the output so far; -new scale is kept for the FMA below.
      tile.parallel (%i) in [128] {
        %mi = memref.load %m[%i] : memref<128xf32, #tile.fragment>
        %bi = memref.load %mb[%i] : memref<128xf32, #tile.fragment>
        %li = memref.load %l[%i] : memref<128xf32, #tile.fragment>
        %mnew = arith.maximumf %mi, %bi : f32
        %delta = arith.subf %mi, %mnew : f32
        %deltas = arith.mulf %delta, %scale : f32
        %alpha = math.exp2 %deltas fastmath<afn> : f32
        %mscaled = arith.mulf %mnew, %scale : f32
        %mneg = arith.negf %mscaled : f32
        memref.store %mneg, %ms[%i] : memref<128xf32, #tile.fragment>
        %lscaled = arith.mulf %li, %alpha : f32
        memref.store %lscaled, %l[%i] : memref<128xf32, #tile.fragment>
        memref.store %mnew, %m[%i] : memref<128xf32, #tile.fragment>
        memref.store %alpha, %mb[%i] : memref<128xf32, #tile.fragment>
      }
      // P = exp2(S scale - m scale): one FMA and one ex2 per element; summed
      // into l and rounded for the second product.
      tile.parallel (%i, %c) in [128, 128] {
        %s = memref.load %S[%i, %c] : memref<128x128xf32, #tile.fragment>
        %mneg = memref.load %ms[%i] : memref<128xf32, #tile.fragment>
        %d = math.fma %s, %scale, %mneg : f32
        %p = math.exp2 %d fastmath<afn> : f32
        memref.store %p, %S[%i, %c] : memref<128x128xf32, #tile.fragment>
      }
      tile.reduce add %S into %l dim 1 : memref<128x128xf32, #tile.fragment> into memref<128xf32, #tile.fragment>
    }
    tile.copy %S to %P : memref<128x128xf32, #tile.fragment> to memref<128x128xbf16, #tile.fragment>
  }

  // O = acc / l, as acc (1 / l): one division per row, not per
  // element (%mb is free after the loop); LSE = ln 2 (m scale + log2 l),
  // the natural-log log-sum-exp.
  tile.parallel (%i) in [128] {
    %li = memref.load %l[%i] : memref<128xf32, #tile.fragment>
    %one_l = arith.constant 1.0 : f32
    %rl = arith.divf %one_l, %li : f32
    memref.store %rl, %mb[%i] : memref<128xf32, #tile.fragment>
  }
  tile.parallel (%i, %d) in [128, 128] {
    %o = memref.load %acc[%i, %d] : memref<128x128xf32, #tile.fragment>
    %rl = memref.load %mb[%i] : memref<128xf32, #tile.fragment>
    %r = arith.mulf %o, %rl : f32
    memref.store %r, %acc[%i, %d] : memref<128x128xf32, #tile.fragment>
  }
  tile.copy %acc to %Oh[%m0, %c0] : memref<128x128xf32, #tile.fragment> to memref<?x128xbf16, strided<[128, 1], offset: ?>>
  tile.parallel (%i) in [128] {
    %mi = memref.load %m[%i] : memref<128xf32, #tile.fragment>
    %li = memref.load %l[%i] : memref<128xf32, #tile.fragment>
    %lg = math.log2 %li fastmath<afn> : f32
    %mis = arith.mulf %mi, %scale : f32
    %sum = arith.addf %mis, %lg : f32
    %lse = arith.mulf %sum, %ln2 : f32
    memref.store %lse, %l[%i] : memref<128xf32, #tile.fragment>
  }
  tile.copy %l to %Lh[%m0] : memref<128xf32, #tile.fragment> to memref<?xf32, strided<[1], offset: ?>>
} grid_size {
^bb0(%Q: memref<?x?x?x128xbf16>, %K: memref<?x?x?x128xbf16>, %V: memref<?x?x?x128xbf16>, %O: memref<?x?x?x128xbf16>, %LSE: memref<?x?x?xf32>):
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %cm = arith.constant 128 : index
  %batch = memref.dim %Q, %c0 : memref<?x?x?x128xbf16>
  %heads = memref.dim %Q, %c1 : memref<?x?x?x128xbf16>
  %seq = memref.dim %Q, %c2 : memref<?x?x?x128xbf16>
  %tiles = arith.ceildivui %seq, %cm : index
  tile.yield %tiles, %heads, %batch : index, index, index
}

// PTX-LABEL: .entry attention_f16_d128(
// The producer: one head's K and V blocks by TMA, 4-D boxes. The consumer's
// loop is laid out by LLVM in its own order: the rest in any order.
// PTX: setmaxnreg.dec.sync.aligned.u32 24;
// Q first, ahead of the loop (its tile is the first of shared memory).
// PTX: cp.async.bulk.tensor.4d.shared::cta.global.tile.mbarrier::complete_tx::bytes [__dynamic_shmem__0],
// PTX: cp.async.bulk.tensor.4d.shared::cta.global.tile.mbarrier::complete_tx::bytes
// PTX: setmaxnreg.inc.sync.aligned.u32 240;
// The last warp group gives the first its first turn.
// PTX: bar.arrive 2, 256;
// A warp group's turn: S = Q K^T, both operands through descriptors (K
// stored N x K), and O += P V, P from registers, V (stored K x N) through a
// descriptor; the softmax with P V in flight.
// PTX: bar.sync {{%r[0-9]+}}, 256;
// PTX: wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16 {{.*}}, %rd{{[0-9]+}}, %rd{{[0-9]+}}, p, 1, 1, 0, 0;
// PTX: wgmma.commit_group.sync.aligned;
// PTX: wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16 {{.*}}, {{[{]}}%r{{[0-9]+}},%r{{[0-9]+}},%r{{[0-9]+}},%r{{[0-9]+}}}, %rd{{[0-9]+}}, p, 1, 1, 1;
// PTX: wgmma.commit_group.sync.aligned;
// PTX: bar.arrive {{%r[0-9]+}}, 256;
// PTX: wgmma.wait_group.sync.aligned 1;
// After the loop the first warp group takes the last one's final turn.
// The kernel ends with the op: no role sets its register count back.
// PTX: bar.sync 2, 256;
// PTX-NOT: setmaxnreg
// The softmax: one FMA and one ex2.approx per element, row reductions by
// shuffles, wherever LLVM places them.
// PTX-MATH-DAG: ex2.approx.ftz.f32
// PTX-MATH-DAG: lg2.approx.ftz.f32
// PTX-MATH-DAG: shfl.sync.bfly.b32

func.func @attention_f16_reference(%Q: memref<?x?x?x?xf16>, %K: memref<?x?x?x?xf16>, %V: memref<?x?x?x?xf16>, %O: memref<?x?x?x?xf16>,
    %LSE: memref<?x?x?xf32>) {
  %causal = arith.constant false
  call @attention_f16_rows(%Q, %K, %V, %O, %LSE, %causal) : (memref<?x?x?x?xf16>, memref<?x?x?x?xf16>, memref<?x?x?x?xf16>, memref<?x?x?x?xf16>, memref<?x?x?xf32>, i1) -> ()
  return
}

func.func @attention_bf16_reference(%Q: memref<?x?x?x?xbf16>, %K: memref<?x?x?x?xbf16>, %V: memref<?x?x?x?xbf16>, %O: memref<?x?x?x?xbf16>,
    %LSE: memref<?x?x?xf32>) {
  %causal = arith.constant false
  call @attention_bf16_rows(%Q, %K, %V, %O, %LSE, %causal) : (memref<?x?x?x?xbf16>, memref<?x?x?x?xbf16>, memref<?x?x?x?xbf16>, memref<?x?x?x?xbf16>, memref<?x?x?xf32>, i1) -> ()
  return
}

func.func @attention_f16_causal_reference(%Q: memref<?x?x?x?xf16>, %K: memref<?x?x?x?xf16>, %V: memref<?x?x?x?xf16>, %O: memref<?x?x?x?xf16>,
    %LSE: memref<?x?x?xf32>) {
  %causal = arith.constant true
  call @attention_f16_rows(%Q, %K, %V, %O, %LSE, %causal) : (memref<?x?x?x?xf16>, memref<?x?x?x?xf16>, memref<?x?x?x?xf16>, memref<?x?x?x?xf16>, memref<?x?x?xf32>, i1) -> ()
  return
}

func.func @attention_bf16_causal_reference(%Q: memref<?x?x?x?xbf16>, %K: memref<?x?x?x?xbf16>, %V: memref<?x?x?x?xbf16>, %O: memref<?x?x?x?xbf16>,
    %LSE: memref<?x?x?xf32>) {
  %causal = arith.constant true
  call @attention_bf16_rows(%Q, %K, %V, %O, %LSE, %causal) : (memref<?x?x?x?xbf16>, memref<?x?x?x?xbf16>, memref<?x?x?x?xbf16>, memref<?x?x?x?xbf16>, memref<?x?x?xf32>, i1) -> ()
  return
}

// softmax(Q K^T / sqrt(D)) V and the log-sum-exp, in f32, one query row
// at a time; with %causal, keys after the query are left out.
func.func private @attention_f16_rows(%Q: memref<?x?x?x?xf16>, %K: memref<?x?x?x?xf16>, %V: memref<?x?x?x?xf16>, %O: memref<?x?x?x?xf16>,
    %LSE: memref<?x?x?xf32>, %causal: i1) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %batch = memref.dim %Q, %c0 : memref<?x?x?x?xf16>
  %heads = memref.dim %Q, %c1 : memref<?x?x?x?xf16>
  %seq = memref.dim %Q, %c2 : memref<?x?x?x?xf16>
  %seqkv = memref.dim %K, %c2 : memref<?x?x?x?xf16>
  %dim = memref.dim %Q, %c3 : memref<?x?x?x?xf16>
  %dimi = arith.index_cast %dim : index to i64
  %dimf = arith.uitofp %dimi : i64 to f32
  %scale = math.rsqrt %dimf : f32
  %row = memref.alloc(%seqkv) : memref<?xf32>
  scf.for %b = %c0 to %batch step %c1 {
    scf.for %h = %c0 to %heads step %c1 {
      scf.for %i = %c0 to %seq step %c1 {
        %last = arith.addi %i, %c1 : index
        %causalend = arith.minui %last, %seqkv : index
        %end = arith.select %causal, %causalend, %seqkv : index
        %max = scf.for %j = %c0 to %end step %c1 iter_args(%mx = %ninf) -> (f32) {
          %dot = scf.for %d = %c0 to %dim step %c1 iter_args(%acc = %zero) -> (f32) {
            %q = memref.load %Q[%b, %h, %i, %d] : memref<?x?x?x?xf16>
            %k = memref.load %K[%b, %h, %j, %d] : memref<?x?x?x?xf16>
            %qf = arith.extf %q : f16 to f32
            %kf = arith.extf %k : f16 to f32
            %next = math.fma %qf, %kf, %acc : f32
            scf.yield %next : f32
          }
          %s = arith.mulf %dot, %scale : f32
          memref.store %s, %row[%j] : memref<?xf32>
          %m = arith.maximumf %mx, %s : f32
          scf.yield %m : f32
        }
        %sum = scf.for %j = %c0 to %end step %c1 iter_args(%acc = %zero) -> (f32) {
          %s = memref.load %row[%j] : memref<?xf32>
          %d = arith.subf %s, %max : f32
          %e = math.exp %d : f32
          memref.store %e, %row[%j] : memref<?xf32>
          %next = arith.addf %acc, %e : f32
          scf.yield %next : f32
        }
        scf.for %d = %c0 to %dim step %c1 {
          %o = scf.for %j = %c0 to %end step %c1 iter_args(%acc = %zero) -> (f32) {
            %p = memref.load %row[%j] : memref<?xf32>
            %v = memref.load %V[%b, %h, %j, %d] : memref<?x?x?x?xf16>
            %vf = arith.extf %v : f16 to f32
            %next = math.fma %p, %vf, %acc : f32
            scf.yield %next : f32
          }
          %n = arith.divf %o, %sum : f32
          %t = arith.truncf %n : f32 to f16
          memref.store %t, %O[%b, %h, %i, %d] : memref<?x?x?x?xf16>
        }
        %lg = math.log %sum : f32
        %lse = arith.addf %max, %lg : f32
        memref.store %lse, %LSE[%b, %h, %i] : memref<?x?x?xf32>
      }
    }
  }
  memref.dealloc %row : memref<?xf32>
  return
}

// softmax(Q K^T / sqrt(D)) V and the log-sum-exp, in f32, one query row
// at a time; with %causal, keys after the query are left out.
func.func private @attention_bf16_rows(%Q: memref<?x?x?x?xbf16>, %K: memref<?x?x?x?xbf16>, %V: memref<?x?x?x?xbf16>, %O: memref<?x?x?x?xbf16>,
    %LSE: memref<?x?x?xf32>, %causal: i1) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %batch = memref.dim %Q, %c0 : memref<?x?x?x?xbf16>
  %heads = memref.dim %Q, %c1 : memref<?x?x?x?xbf16>
  %seq = memref.dim %Q, %c2 : memref<?x?x?x?xbf16>
  %seqkv = memref.dim %K, %c2 : memref<?x?x?x?xbf16>
  %dim = memref.dim %Q, %c3 : memref<?x?x?x?xbf16>
  %dimi = arith.index_cast %dim : index to i64
  %dimf = arith.uitofp %dimi : i64 to f32
  %scale = math.rsqrt %dimf : f32
  %row = memref.alloc(%seqkv) : memref<?xf32>
  scf.for %b = %c0 to %batch step %c1 {
    scf.for %h = %c0 to %heads step %c1 {
      scf.for %i = %c0 to %seq step %c1 {
        %last = arith.addi %i, %c1 : index
        %causalend = arith.minui %last, %seqkv : index
        %end = arith.select %causal, %causalend, %seqkv : index
        %max = scf.for %j = %c0 to %end step %c1 iter_args(%mx = %ninf) -> (f32) {
          %dot = scf.for %d = %c0 to %dim step %c1 iter_args(%acc = %zero) -> (f32) {
            %q = memref.load %Q[%b, %h, %i, %d] : memref<?x?x?x?xbf16>
            %k = memref.load %K[%b, %h, %j, %d] : memref<?x?x?x?xbf16>
            %qf = arith.extf %q : bf16 to f32
            %kf = arith.extf %k : bf16 to f32
            %next = math.fma %qf, %kf, %acc : f32
            scf.yield %next : f32
          }
          %s = arith.mulf %dot, %scale : f32
          memref.store %s, %row[%j] : memref<?xf32>
          %m = arith.maximumf %mx, %s : f32
          scf.yield %m : f32
        }
        %sum = scf.for %j = %c0 to %end step %c1 iter_args(%acc = %zero) -> (f32) {
          %s = memref.load %row[%j] : memref<?xf32>
          %d = arith.subf %s, %max : f32
          %e = math.exp %d : f32
          memref.store %e, %row[%j] : memref<?xf32>
          %next = arith.addf %acc, %e : f32
          scf.yield %next : f32
        }
        scf.for %d = %c0 to %dim step %c1 {
          %o = scf.for %j = %c0 to %end step %c1 iter_args(%acc = %zero) -> (f32) {
            %p = memref.load %row[%j] : memref<?xf32>
            %v = memref.load %V[%b, %h, %j, %d] : memref<?x?x?x?xbf16>
            %vf = arith.extf %v : bf16 to f32
            %next = math.fma %p, %vf, %acc : f32
            scf.yield %next : f32
          }
          %n = arith.divf %o, %sum : f32
          %t = arith.truncf %n : f32 to bf16
          memref.store %t, %O[%b, %h, %i, %d] : memref<?x?x?x?xbf16>
        }
        %lg = math.log %sum : f32
        %lse = arith.addf %max, %lg : f32
        memref.store %lse, %LSE[%b, %h, %i] : memref<?x?x?xf32>
      }
    }
  }
  memref.dealloc %row : memref<?xf32>
  return
}
