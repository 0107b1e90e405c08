#!/usr/bin/env python3
"""Writes examples/attention/attention.mlir: one FlashAttention forward
template instantiated for f16 and bf16, D = 64 and 128, causal and not,
with its references. Usage: gen_attention.py > attention.mlir"""
import math
import sys

# LLVM passes (and runs: `gvn#2` and `gvn#3` are the NVPTX backend's two
# GVNs after O3's) that leave the PTX of all eight warp-specialized kernels
# byte-identical: what scripts/skippable-passes.py finds for every one of
# them, 10-12% of each kernel's compile (docs/Pipeline.md, "Per-kernel skip
# lists").
WS_SKIPPED_LLVM_PASSES = ("gvn#2,gvn#3,ipsccp,sccp,constraint-elimination,"
                          "dse,adce,consthoist,early-cse#1,early-cse#4,"
                          "indvars#2,correlated-propagation#1,licm#1,"
                          "loop-unroll-full,loop-unroll")


def kernel(name, T, D, causal, BM=64, BN=64, threads=128, stages=2, qreg=False, rolled=False, lowering=None, ws=False, overlap=False, pingpong=False, cregs=240):
    """One kernel. ws: a tile.warp_specialize with a TMA producer warp group
    (else a tile.pipelined loop of all threads); overlap (with ws): the body
    rotated so that block j's S = Q K^T and block j - 1's O += P V are
    issued together and the softmax of S runs while P V's MMAs do (one
    iteration more; the producer loads K of block j and V of block j - 1,
    zeros outside; docs/TensorCores.md, "Deferred wgmma waits"); pingpong
    (with ws): the consumer's two warp groups take turns issuing their
    gemms."""
    low = f", lowering = #tile.gemm_lowering<{lowering}>" if lowering else ""
    scale = math.log2(math.e) / math.sqrt(D)
    seqty = f"memref<?x?x?x{D}x{T}>"
    view = f"memref<?x{D}x{T}, strided<[{D}, 1], offset: ?>>"
    sh = lambda r, c: f"memref<{r}x{c}x{T}, #gpu.address_space<workgroup>>"
    fr = lambda r, c, t='f32': f"memref<{r}x{c}x{t}, #tile.fragment>"
    row = f"memref<{BM}xf32, #tile.fragment>"
    ref = f"@{name}_reference"
    o = []
    w = o.append
    w(f"tile.kernel @{name}(%Q: {seqty}, %K: {seqty}, %V: {seqty},")
    w(f"    {' ' * len(name)}%O: {seqty}, %LSE: memref<?x?x?xf32>)")
    skip = f",\n{' ' * 8}skip_llvm_passes = \"{WS_SKIPPED_LLVM_PASSES}\"" if ws else ""
    w(f"    grid [?, ?, ?] threads [{threads + (128 if ws else 0)}] attributes {{reference = {ref}{skip}}} {{")
    w("  %c0 = arith.constant 0 : index")
    w("  %c1 = arith.constant 1 : index")
    w("  %c2 = arith.constant 2 : index")
    w(f"  %cn = arith.constant {BN} : index")
    w("  %ninf = arith.constant 0xFF800000 : f32")
    w(f"  // c = log2(e) / sqrt({D}): exp(s / sqrt(D)) = exp2(s c), one ex2.approx.")
    w(f"  %scale = arith.constant {scale!r} : f32")
    w("  %ln2 = arith.constant 0.6931471805599453 : f32")
    w("  %tile = tile.block_id x")
    w("  %h = tile.block_id y")
    w("  %b = tile.block_id z")
    w(f"  %m0 = affine.apply affine_map<(i) -> (i * {BM})>(%tile)")
    w(f"  %seq = memref.dim %Q, %c2 : {seqty}")
    w(f"  %seqkv = memref.dim %K, %c2 : {seqty}")
    w(f"  %seqv = memref.dim %V, %c2 : {seqty}")
    w("  // One head's matrices: views whose rows are the sequence.")
    for v, n in (("Q", "seq"), ("K", "seqkv"), ("V", "seqv"), ("O", "seq")):
        w(f"  %{v}h = memref.subview %{v}[%b, %h, 0, 0] [1, 1, %{n}, {D}] [1, 1, 1, 1] : {seqty} to {view}")
    w("  %Lh = memref.subview %LSE[%b, %h, 0] [1, 1, %seq] [1, 1, 1] : memref<?x?x?xf32> to memref<?xf32, strided<[1], offset: ?>>")
    w("")
    qty = fr(BM, D, T) if qreg else sh(BM, D)
    if qreg:
        w(f"  %Qs = tile.alloc_fragment : {qty}")
    else:
        w(f"  %Qs = tile.alloc_shared : {qty}")
    w(f"  %Ks = tile.alloc_shared : {sh(BN, D)}")
    w(f"  %Vs = tile.alloc_shared : {sh(BN, D)}")
    w(f"  %S = tile.alloc_fragment : {fr(BM, BN)}")
    w(f"  %P = tile.alloc_fragment : {fr(BM, BN, T)}")
    w(f"  %acc = tile.alloc_fragment : {fr(BM, D)}")
    w("  // Per row: the running maximum, the running sum, the block's maximum")
    w("  // (then the factor that rescales what came before), -max scale.")
    w(f"  %m = tile.alloc_fragment : {row}")
    w(f"  %l = tile.alloc_fragment : {row}")
    w(f"  %mb = tile.alloc_fragment : {row}")
    w(f"  %ms = tile.alloc_fragment : {row}")
    w("")
    w(f"  tile.copy %Qh[%m0, %c0] to %Qs : {view} to {qty}")
    w(f"  tile.fill %m, %ninf : {row}")
    w(f"  tile.clear %l : {row}")
    w(f"  tile.clear %acc : {fr(BM, D)}")
    w("  %blocks = arith.ceildivui %seqkv, %cn : index")
    if causal:
        w("  // Causal: key blocks past the tile's last row are all masked; skip them.")
        w(f"  %rowsend = affine.apply affine_map<(m) -> (m + {BM})>(%m0)")
        w("  %diag = arith.ceildivui %rowsend, %cn : index")
        w("  %kvend = arith.minui %blocks, %diag : index")
    end = "%kvend" if causal else "%blocks"
    realend = end
    if overlap:
        w("  // One iteration more: iteration j computes S of block j and O of")
        w("  // block j - 1 (at least one block, so that the loop provably runs")
        w("  // twice and tile-peel-guarded-gemms peels its first iteration,")
        w("  // which has no P V, and its last, which has no S).")
        w(f"  %keyblocks = affine.max affine_map<()[s0] -> (s0, 1)>()[{end}]")
        w("  %iterations = arith.addi %keyblocks, %c1 : index")
        realend = "%keyblocks"
        end = "%iterations"
    if ws:
        w(f"  tile.warp_specialize %c0 to {end} step %c1 stages {stages}")
        w(f"      tiles(%Ks, %Vs : {sh(BN, D)}, {sh(BN, D)})")
        w(f"      producer(%j, %st) threads 128 regs 24 {{")
        w(f"    %n0 = affine.apply affine_map<(j) -> (j * {BN})>(%j)")
        w(f"    tile.copy %Kh[%n0, %c0] to %Ks : {view} to {sh(BN, D)}")
        if overlap:
            w(f"    %v0 = affine.apply affine_map<(j) -> (j * {BN} - {BN})>(%j)")
            w(f"    tile.copy %Vh[%v0, %c0] to %Vs : {view} to {sh(BN, D)}")
        else:
            w(f"    tile.copy %Vh[%n0, %c0] to %Vs : {view} to {sh(BN, D)}")
        w(f"  }} consumer(%j, %st) threads {threads} regs {cregs}{' pingpong' if pingpong else ''} {{")
        w(f"    %n0 = affine.apply affine_map<(j) -> (j * {BN})>(%j)")
    else:
        w(f"  tile.pipelined %j = %c0 to {end} step %c1 stages {stages}{' rolled' if rolled else ''} {{")
        w(f"    %n0 = affine.apply affine_map<(j) -> (j * {BN})>(%j)")
        w(f"    tile.copy %Kh[%n0, %c0] to %Ks : {view} to {sh(BN, D)}")
        w(f"    tile.copy %Vh[%n0, %c0] to %Vs : {view} to {sh(BN, D)}")
    w("    // S = Q K^T, in raw units: the scale is applied inside exp2 below.")
    w(f"    tile.gemm %Qs, %Ks, %S {{clear, transpose_b{low}}} : {qty}, {sh(BN, D)}, {fr(BM, BN)}")
    # The mask, only on the blocks that need it: the one crossing the end of
    # the keys and, causal, those crossing the diagonal.
    w("    // Keys past the end (and, causal, after the query) become -inf, in")
    w("    // the blocks that have any.")
    w(f"    %nend = affine.apply affine_map<(n) -> (n + {BN})>(%n0)")
    w("    %partial = arith.cmpi ugt, %nend, %seqkv : index")
    cond = "%partial"
    if causal:
        w(f"    %rowfirst = affine.apply affine_map<(m) -> (m + 1)>(%m0)")
        w("    %diagonal = arith.cmpi ugt, %nend, %rowfirst : index")
        w("    %needmask = arith.ori %partial, %diagonal : i1")
        cond = "%needmask"
    w(f"    scf.if {cond} {{")
    w(f"      tile.parallel (%i, %c) in [{BM}, {BN}] {{")
    w(f"        %s = memref.load %S[%i, %c] : {fr(BM, BN)}")
    w("        %col = arith.addi %n0, %c : index")
    w("        %inside = arith.cmpi ult, %col, %seqkv : index")
    if causal:
        w("        %qrow = arith.addi %m0, %i : index")
        w("        %past = arith.cmpi ule, %col, %qrow : index")
        w("        %keep = arith.andi %inside, %past : i1")
        w("        %masked = arith.select %keep, %s, %ninf : f32")
    else:
        w("        %masked = arith.select %inside, %s, %ninf : f32")
    w(f"        memref.store %masked, %S[%i, %c] : {fr(BM, BN)}")
    w("      }")
    w("    }")
    w(f"    tile.reduce max %S into %mb dim 1 clear : {fr(BM, BN)} into {row}")
    w("    // The new running maximum; alpha = exp2((old - new) scale) rescales")
    w("    // the sum and the output so far; -new scale is kept for the FMA below.")
    w(f"    tile.parallel (%i) in [{BM}] {{")
    w(f"      %mi = memref.load %m[%i] : {row}")
    w(f"      %bi = memref.load %mb[%i] : {row}")
    w(f"      %li = memref.load %l[%i] : {row}")
    w("      %mnew = arith.maximumf %mi, %bi : f32")
    w("      %delta = arith.subf %mi, %mnew : f32")
    w("      %deltas = arith.mulf %delta, %scale : f32")
    w("      %alpha = math.exp2 %deltas fastmath<afn> : f32")
    w("      %mscaled = arith.mulf %mnew, %scale : f32")
    w("      %mneg = arith.negf %mscaled : f32")
    w(f"      memref.store %mneg, %ms[%i] : {row}")
    w("      %lscaled = arith.mulf %li, %alpha : f32")
    w(f"      memref.store %lscaled, %l[%i] : {row}")
    w(f"      memref.store %mnew, %m[%i] : {row}")
    w(f"      memref.store %alpha, %mb[%i] : {row}")
    w("    }")
    w("    // P = exp2(S scale - m scale): one FMA and one ex2 per element; summed")
    w("    // into l and rounded for the second product.")
    w(f"    tile.parallel (%i, %c) in [{BM}, {BN}] {{")
    w(f"      %s = memref.load %S[%i, %c] : {fr(BM, BN)}")
    w(f"      %mneg = memref.load %ms[%i] : {row}")
    w("      %d = math.fma %s, %scale, %mneg : f32")
    w("      %p = math.exp2 %d fastmath<afn> : f32")
    w(f"      memref.store %p, %S[%i, %c] : {fr(BM, BN)}")
    w("    }")
    w(f"    tile.reduce add %S into %l dim 1 : {fr(BM, BN)} into {row}")
    w(f"    tile.copy %S to %P : {fr(BM, BN)} to {fr(BM, BN, T)}")
    w(f"    tile.parallel (%i, %d) in [{BM}, {D}] {{")
    w(f"      %alpha = memref.load %mb[%i] : {row}")
    w(f"      %o = memref.load %acc[%i, %d] : {fr(BM, D)}")
    w("      %scaled = arith.mulf %o, %alpha : f32")
    w(f"      memref.store %scaled, %acc[%i, %d] : {fr(BM, D)}")
    w("    }")
    w("    // O += P V, P read from registers.")
    w(f"    tile.gemm %P, %Vs, %acc{(' {' + low[2:] + '}') if low else ''} : {fr(BM, BN, T)}, {sh(BN, D)}, {fr(BM, D)}")
    if overlap:
        # S's softmax after the previous block's O += P V, whose MMAs run
        # meanwhile: S gemm, rescale, P V, then the mask and softmax.
        first = o.index("    // Keys past the end (and, causal, after the query) become -inf, in")
        middle = o.index(f"    tile.parallel (%i, %d) in [{BM}, {D}] {{")
        softmax, product = o[first:middle], o[middle:]
        del o[first:]
        if overlap == "early":
            # The rescale before S's gemm: nothing between the two gemms.
            rescale, product = product[:6], product[6:]
            gemm = o.index("    // S = Q K^T, in raw units: the scale is applied inside exp2 below.")
            o[gemm:gemm] = ["    // O = O alpha, before this iteration's gemms."] + rescale
        o.extend(product)
        # The first iteration has no P V (no block before the first) and
        # the last no S (the block past the end): both are guarded, and
        # tile-peel-guarded-gemms peels those two iterations so that no
        # gemm stays in a branch (ptxas would serialize every wgmma, C7515).
        # The copy to P stays outside the ifs, so that the softmax's needs
        # only S's MMAs retired and P V's run on during the softmax (a wait
        # inside a branch would make ptxas serialize the wgmmas, C7514).
        copy = softmax.pop()
        gemm = o.index("    // S = Q K^T, in raw units: the scale is applied inside exp2 below.")
        guard = lambda cond, lines: [f"    scf.if {cond} {{"] + [("  " + l) if l else l for l in lines] + ["    }"]
        head = o[:gemm]
        first_rescale = head.index("    // O = O alpha, before this iteration's gemms.")
        rescale = head[first_rescale + 1:]
        head = head[:first_rescale]
        sgemm = o[gemm:gemm + 2]
        pv = o[gemm + 2:]
        del o[len(head):]
        o.append("    // Block j - 1's P V from the second iteration on, block j's S up")
        o.append("    // to the last block.")
        o.append("    %has_product = arith.cmpi ugt, %j, %c0 : index")
        o.append(f"    %has_scores = arith.cmpi ult, %j, {realend} : index")
        o.append("    // O = O alpha, before this iteration's gemms.")
        o.extend(guard("%has_product", rescale))
        o.extend(guard("%has_scores", sgemm))
        o.append("    // O += P V of the previous block, P read from registers: its MMAs")
        o.append("    // run during the softmax of this block's S below.")
        o.extend(guard("%has_product", [l for l in pv if not l.lstrip().startswith("//")]))
        o.append("    // The mask and the softmax of S, with P V's MMAs in flight.")
        o.extend(guard("%has_scores", softmax))
        o.append(copy)
    w("  }")
    w("")
    w("  // O = acc / l, as acc (1 / l): one division per row, not per")
    w("  // element (%mb is free after the loop); LSE = ln 2 (m scale + log2 l),")
    w("  // the natural-log log-sum-exp.")
    w(f"  tile.parallel (%i) in [{BM}] {{")
    w(f"    %li = memref.load %l[%i] : {row}")
    w("    %one_l = arith.constant 1.0 : f32")
    w("    %rl = arith.divf %one_l, %li : f32")
    w(f"    memref.store %rl, %mb[%i] : {row}")
    w("  }")
    w(f"  tile.parallel (%i, %d) in [{BM}, {D}] {{")
    w(f"    %o = memref.load %acc[%i, %d] : {fr(BM, D)}")
    w(f"    %rl = memref.load %mb[%i] : {row}")
    w("    %r = arith.mulf %o, %rl : f32")
    w(f"    memref.store %r, %acc[%i, %d] : {fr(BM, D)}")
    w("  }")
    w(f"  tile.copy %acc to %Oh[%m0, %c0] : {fr(BM, D)} to {view}")
    w(f"  tile.parallel (%i) in [{BM}] {{")
    w(f"    %mi = memref.load %m[%i] : {row}")
    w(f"    %li = memref.load %l[%i] : {row}")
    w("    %lg = math.log2 %li fastmath<afn> : f32")
    w("    %mis = arith.mulf %mi, %scale : f32")
    w("    %sum = arith.addf %mis, %lg : f32")
    w("    %lse = arith.mulf %sum, %ln2 : f32")
    w(f"    memref.store %lse, %l[%i] : {row}")
    w("  }")
    w(f"  tile.copy %l to %Lh[%m0] : {row} to memref<?xf32, strided<[1], offset: ?>>")
    w("} grid_size {")
    w(f"^bb0(%Q: {seqty}, %K: {seqty}, %V: {seqty}, %O: {seqty}, %LSE: memref<?x?x?xf32>):")
    w("  %c0 = arith.constant 0 : index")
    w("  %c1 = arith.constant 1 : index")
    w("  %c2 = arith.constant 2 : index")
    w(f"  %cm = arith.constant {BM} : index")
    w(f"  %batch = memref.dim %Q, %c0 : {seqty}")
    w(f"  %heads = memref.dim %Q, %c1 : {seqty}")
    w(f"  %seq = memref.dim %Q, %c2 : {seqty}")
    w("  %tiles = arith.ceildivui %seq, %cm : index")
    w("  tile.yield %tiles, %heads, %batch : index, index, index")
    w("}")
    return "\n".join(o) + "\n"

def reference(T, causal):
    name = f"attention_{T}{'_causal' if causal else ''}_reference"
    ty = f"memref<?x?x?x?x{T}>"
    flag = "true" if causal else "false"
    return f"""func.func @{name}(%Q: {ty}, %K: {ty}, %V: {ty}, %O: {ty},
    %LSE: memref<?x?x?xf32>) {{
  %causal = arith.constant {flag}
  call @attention_{T}_rows(%Q, %K, %V, %O, %LSE, %causal) : ({ty}, {ty}, {ty}, {ty}, memref<?x?x?xf32>, i1) -> ()
  return
}}
"""

def rows(T):
    ty = f"memref<?x?x?x?x{T}>"
    return f"""// softmax(Q K^T / sqrt(D)) V and the log-sum-exp, in f32, one query row
// at a time; with %causal, keys after the query are left out.
func.func private @attention_{T}_rows(%Q: {ty}, %K: {ty}, %V: {ty}, %O: {ty},
    %LSE: memref<?x?x?xf32>, %causal: i1) {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %batch = memref.dim %Q, %c0 : {ty}
  %heads = memref.dim %Q, %c1 : {ty}
  %seq = memref.dim %Q, %c2 : {ty}
  %seqkv = memref.dim %K, %c2 : {ty}
  %dim = memref.dim %Q, %c3 : {ty}
  %dimi = arith.index_cast %dim : index to i64
  %dimf = arith.uitofp %dimi : i64 to f32
  %scale = math.rsqrt %dimf : f32
  %row = memref.alloc(%seqkv) : memref<?xf32>
  scf.for %b = %c0 to %batch step %c1 {{
    scf.for %h = %c0 to %heads step %c1 {{
      scf.for %i = %c0 to %seq step %c1 {{
        %last = arith.addi %i, %c1 : index
        %causalend = arith.minui %last, %seqkv : index
        %end = arith.select %causal, %causalend, %seqkv : index
        %max = scf.for %j = %c0 to %end step %c1 iter_args(%mx = %ninf) -> (f32) {{
          %dot = scf.for %d = %c0 to %dim step %c1 iter_args(%acc = %zero) -> (f32) {{
            %q = memref.load %Q[%b, %h, %i, %d] : {ty}
            %k = memref.load %K[%b, %h, %j, %d] : {ty}
            %qf = arith.extf %q : {T} to f32
            %kf = arith.extf %k : {T} to f32
            %next = math.fma %qf, %kf, %acc : f32
            scf.yield %next : f32
          }}
          %s = arith.mulf %dot, %scale : f32
          memref.store %s, %row[%j] : memref<?xf32>
          %m = arith.maximumf %mx, %s : f32
          scf.yield %m : f32
        }}
        %sum = scf.for %j = %c0 to %end step %c1 iter_args(%acc = %zero) -> (f32) {{
          %s = memref.load %row[%j] : memref<?xf32>
          %d = arith.subf %s, %max : f32
          %e = math.exp %d : f32
          memref.store %e, %row[%j] : memref<?xf32>
          %next = arith.addf %acc, %e : f32
          scf.yield %next : f32
        }}
        scf.for %d = %c0 to %dim step %c1 {{
          %o = scf.for %j = %c0 to %end step %c1 iter_args(%acc = %zero) -> (f32) {{
            %p = memref.load %row[%j] : memref<?xf32>
            %v = memref.load %V[%b, %h, %j, %d] : {ty}
            %vf = arith.extf %v : {T} to f32
            %next = math.fma %p, %vf, %acc : f32
            scf.yield %next : f32
          }}
          %n = arith.divf %o, %sum : f32
          %t = arith.truncf %n : f32 to {T}
          memref.store %t, %O[%b, %h, %i, %d] : {ty}
        }}
        %lg = math.log %sum : f32
        %lse = arith.addf %max, %lg : f32
        memref.store %lse, %LSE[%b, %h, %i] : memref<?x?x?xf32>
      }}
    }}
  }}
  memref.dealloc %row : memref<?xf32>
  return
}}
"""

HEADER = """\
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
"""


def main():
    out = [HEADER]
    for causal in (False, True):
        for T in ("f16", "bf16"):
            for D in (64, 128):
                kind = "_causal" if causal else ""
                name = f"attention_{T}_d{D}{kind}"
                # D = 64 without a mask: 192-row tiles, three consumer warp
                # groups taking turns (FlashAttention-3's choice for this
                # head size): two softmaxes run while one group's MMAs do.
                # Causal keeps 128 rows: at 1k its diagonal blocks cost
                # more than the third group gains (docs/Attention.md).
                wide = D == 64 and not causal
                k = kernel(name, T, D, causal, BM=192 if wide else 128,
                           BN=128, threads=384 if wide else 256,
                           lowering="wgmma", ws=True, overlap="early",
                           pingpong=True, cregs=160 if wide else 240)
                k = k.replace(f"@{name}_reference", f"@attention_{T}{kind}_reference")
                if name == "attention_f16_d128":
                    k = "// CHECK-LABEL: tile.kernel @attention_f16_d128\n// CHECK: tile.reduce max\n// CHECK: tile.gemm\n" + k
                out.append(k)
    out.append("""// PTX-LABEL: .entry attention_f16_d128(
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
""")
    for causal in (False, True):
        for T in ("f16", "bf16"):
            out.append(reference(T, causal))
    for T in ("f16", "bf16"):
        out.append(rows(T))
    sys.stdout.write("\n".join(out))


if __name__ == "__main__":
    main()
