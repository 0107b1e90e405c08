// RUN: tile-opt %s -split-input-file --pass-pipeline='builtin.module(tile.kernel(tile-infer-layouts,tile-lower-fragments,canonicalize,cse))' | FileCheck %s
// RUN: tile-opt %s -split-input-file --pass-pipeline='builtin.module(tile.kernel(tile-infer-layouts,tile-lower-fragments{chip=cpu},canonicalize,cse))' | FileCheck %s --check-prefix=CPU

// One warp group, C 64x64 = A (64x64, K-major) B (64x64 stored K x N:
// MN-major). Layout inference swizzles both tiles and aligns them to a
// 1024-byte atom. The warp group index comes through a shuffle from lane 0
// (warp-uniform descriptors). The generic-proxy writes are fenced for the
// async proxy, then the four m64n64k16 wgmmas (K = 64) issue from one
// inline PTX statement that opens with wgmma.fence (every register the
// MMAs read is written before it) and whose outputs are C's registers (untied: the first,
// with scale-d 0 for `clear`, writes them all), and the group is committed
// and waited for before the registers are read.
// Descriptors: A = (start >> 4) | LBO 1 << 16 | SBO 64 (1024 B) << 32 |
// 128-byte swizzle (1 << 62); A's warp group starts 64 rows (8192 B) in
// and K steps of 16 move 32 bytes. B's LBO is a 64-row panel (512 x 16 B)
// and a K step moves 16 rows (2048 B). The low word of each tile's first
// descriptor is built once; an instruction's descriptor adds its start in
// 16-byte units to it (one 32-bit add) and joins the constant high word.
// CHECK-LABEL: tile.kernel @wgmma_64x64
// CHECK-DAG: %[[HIGH:.+]] = arith.constant 4611686293305294848 : i64
// CHECK-DAG: %[[MASK:.+]] = arith.constant 16383 : i32
// CHECK-DAG: %[[ALEAD:.+]] = arith.constant 65536 : i32
// CHECK-DAG: %[[BLEAD:.+]] = arith.constant 33554432 : i32
// CHECK: %[[AS:.+]] = tile.alloc_shared {alignment = 1024 : i64, swizzle = 128 : i64} : memref<64x64xf16
// CHECK: %[[BS:.+]] = tile.alloc_shared {alignment = 1024 : i64, swizzle = 128 : i64} : memref<64x64xf16
// CHECK: %[[ACC:.+]] = tile.alloc_local : memref<16x2xf32>
// CHECK: %[[WARP:.+]], %{{.+}} = gpu.shuffle  idx %{{.+}}, %c0_i32, %c32_i32 : i32
// CHECK: nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
// CHECK: %[[APTR:.+]] = memref.extract_aligned_pointer_as_index %[[AS]]
// CHECK: %[[AROWS:.+]] = arith.muli %{{.+}}, %c8192
// CHECK: %[[AADDR:.+]] = arith.addi %[[APTR]], %[[AROWS]]
// CHECK: %[[ABITS:.+]] = arith.index_castui %[[AADDR]] : index to i32
// CHECK: %[[ASHIFT:.+]] = arith.shrui %[[ABITS]], %c4_i32
// CHECK: %[[AMASKED:.+]] = arith.andi %[[ASHIFT]], %[[MASK]]
// CHECK: %[[ALOW:.+]] = arith.ori %[[AMASKED]], %[[ALEAD]]
// CHECK: %[[AWIDE:.+]] = arith.extui %[[ALOW]] : i32 to i64
// CHECK: %[[DESCA:.+]] = arith.ori %[[AWIDE]], %[[HIGH]]
// CHECK: %[[BPTR:.+]] = memref.extract_aligned_pointer_as_index %[[BS]]
// CHECK: %[[BLOW:.+]] = arith.ori %{{.+}}, %[[BLEAD]]
// CHECK: %[[BWIDE:.+]] = arith.extui %[[BLOW]] : i32 to i64
// CHECK: %[[DESCB:.+]] = arith.ori %[[BWIDE]], %[[HIGH]]
// CHECK: arith.addi %[[ALOW]], %c2_i32
// CHECK: arith.addi %[[BLOW]], %c128_i32
// CHECK: arith.addi %[[ALOW]], %c4_i32
// CHECK: arith.addi %[[BLOW]], %c256_i32
// CHECK: arith.addi %[[ALOW]], %c6_i32
// CHECK: arith.addi %[[BLOW]], %c384_i32
// CHECK-NOT: memref.extract_aligned_pointer_as_index
// CHECK: %[[D:.+]] = llvm.inline_asm has_side_effects "{\0A.reg .pred p;\0Asetp.ne.b32 p, 1, 0;\0A.reg .pred z;\0Asetp.ne.b32 z, 0, 0;\0Awgmma.fence.sync.aligned;\0Awgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 {$0,{{.+}},$31}, $32, $33, z, 1, 1, 0, 1;\0Awgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 {$0,{{.+}},$31}, $34, $35, p, 1, 1, 0, 1;\0A{{.+}}, $36, $37, p, 1, 1, 0, 1;\0A{{.+}}, $38, $39, p, 1, 1, 0, 1;\0A}", "=f,{{.+}},=f,l,l,l,l,l,l,l,l" %[[DESCA]], %[[DESCB]], %{{[^,]+}}, %{{[^,]+}}, %{{[^,]+}}, %{{[^,]+}}, %{{[^,]+}}, %{{[^,]+}} :
// CHECK: %[[V0:.+]] = llvm.extractvalue %[[D]][0]
// CHECK-NOT: wgmma.mma_async
// CHECK: nvvm.wgmma.commit.group.sync.aligned
// CHECK: %[[W:.+]] = llvm.inline_asm has_side_effects "wgmma.wait_group.sync.aligned 0;", "=f,{{.*}},0,1,{{.*}},31" %[[V0]],
// CHECK: %[[R0:.+]] = llvm.extractvalue %[[W]][0]
// CHECK: memref.store %[[R0]], %[[ACC]][%c0, %c0]
// The CPU target computes the same layout with FMAs.
// CPU-LABEL: tile.kernel @wgmma_64x64
// CPU-NOT: nvvm.wgmma
// CPU: scf.for %{{.+}} = %c0 to %c64 step %c1 iter_args
tile.kernel @wgmma_64x64(%C: memref<64x64xf16>) grid [1] threads [128] {
  %As = tile.alloc_shared : memref<64x64xf16, #gpu.address_space<workgroup>>
  %Bs = tile.alloc_shared : memref<64x64xf16, #gpu.address_space<workgroup>>
  %acc = tile.alloc_fragment : memref<64x64xf32, #tile.fragment>
  tile.gemm %As, %Bs, %acc {clear, lowering = #tile.gemm_lowering<wgmma>} : memref<64x64xf16, #gpu.address_space<workgroup>>, memref<64x64xf16, #gpu.address_space<workgroup>>, memref<64x64xf32, #tile.fragment>
  tile.copy %acc to %C : memref<64x64xf32, #tile.fragment> to memref<64x64xf16>
}

// -----

// A tile chosen at run time as A (an arith.select of two whole tiles): the
// descriptor starts at the chosen tile; the CPU target reads it with loads.
// CHECK-LABEL: tile.kernel @wgmma_selected_a
// CHECK: %[[A0:.+]] = tile.alloc_shared {alignment = 1024 : i64, swizzle = 128 : i64} : memref<64x64xf16
// CHECK: %[[A1:.+]] = tile.alloc_shared {alignment = 1024 : i64, swizzle = 128 : i64} : memref<64x64xf16
// CHECK: %[[SEL:.+]] = arith.select %{{.+}}, %[[A1]], %[[A0]]
// CHECK: memref.extract_aligned_pointer_as_index %[[SEL]]
// CHECK: wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16
// CPU-LABEL: tile.kernel @wgmma_selected_a
// CPU: %[[SEL:.+]] = arith.select
// CPU: memref.load %[[SEL]]
tile.kernel @wgmma_selected_a(%C: memref<64x64xf16>) grid [2] threads [128] {
  %c0 = arith.constant 0 : index
  %A0 = tile.alloc_shared : memref<64x64xf16, #gpu.address_space<workgroup>>
  %A1 = tile.alloc_shared : memref<64x64xf16, #gpu.address_space<workgroup>>
  %Bs = tile.alloc_shared : memref<64x64xf16, #gpu.address_space<workgroup>>
  %acc = tile.alloc_fragment : memref<64x64xf32, #tile.fragment>
  %x = tile.block_id x
  %second = arith.cmpi ne, %x, %c0 : index
  %As = arith.select %second, %A1, %A0 : memref<64x64xf16, #gpu.address_space<workgroup>>
  tile.gemm %As, %Bs, %acc {clear, lowering = #tile.gemm_lowering<wgmma>} : memref<64x64xf16, #gpu.address_space<workgroup>>, memref<64x64xf16, #gpu.address_space<workgroup>>, memref<64x64xf32, #tile.fragment>
  tile.copy %acc to %C : memref<64x64xf32, #tile.fragment> to memref<64x64xf16>
}

// -----

// Two warp groups (M = 128), B stored N x K (`transpose_b`: K-major) and
// N = 512: two m64n256k16 instructions per K step (8 for K = 64), the
// second starting 256 rows of B (32768 B) in, issued K step by K step (A's
// descriptor shared by the step's two). Accumulating (no `clear`): C's
// registers are loaded and tied to the statement's outputs, and every
// wgmma has scale-d 1.
// CHECK-LABEL: tile.kernel @wgmma_wide
// CHECK: arith.addi %{{.+}}, %c2048_i32
// CHECK: llvm.inline_asm has_side_effects "{\0A.reg .pred p;\0Asetp.ne.b32 p, 1, 0;\0Awgmma.fence.sync.aligned;\0Awgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16 {$0,{{.+}},$127}, $512, $513, p, 1, 1, 0, 0;\0Awgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16 {$128,{{.+}},$255}, $512, $514, p, 1, 1, 0, 0;\0A{{.+}}{$0,{{.+}}, $515, $516, p, {{.+}}{$128,{{.+}}, $515, $517, p, {{.+}}, $518, $519, {{.+}}, $518, $520, {{.+}}, $521, $522, {{.+}}, $521, $523, p, 1, 1, 0, 0;\0A}", "=f,{{.+}},=f,0,1,{{.+}},255,l,l,l,l,l,l,l,l,l,l,l,l"
// CHECK-NOT: wgmma.mma_async
// CHECK: llvm.inline_asm has_side_effects "wgmma.wait_group.sync.aligned 0;"
tile.kernel @wgmma_wide(%C: memref<128x512xf32>) grid [1] threads [256] {
  %As = tile.alloc_shared : memref<128x64xbf16, #gpu.address_space<workgroup>>
  %Bs = tile.alloc_shared : memref<512x64xbf16, #gpu.address_space<workgroup>>
  %acc = tile.alloc_fragment : memref<128x512xf32, #tile.fragment>
  tile.copy %C to %acc : memref<128x512xf32> to memref<128x512xf32, #tile.fragment>
  tile.gemm %As, %Bs, %acc {transpose_b, lowering = #tile.gemm_lowering<wgmma>} : memref<128x64xbf16, #gpu.address_space<workgroup>>, memref<512x64xbf16, #gpu.address_space<workgroup>>, memref<128x512xf32, #tile.fragment>
  tile.copy %acc to %C : memref<128x512xf32, #tile.fragment> to memref<128x512xf32>
}

// -----

// tf32: f32 tiles read K-major (A M x K, B N x K), K steps of 8 (32 bytes),
// both rounded to tf32 in place first (the tensor cores would truncate).
// CHECK-LABEL: tile.kernel @wgmma_tf32
// CHECK: %[[AS:.+]] = tile.alloc_shared {{.+}} : memref<64x32xf32
// CHECK: %[[BS:.+]] = tile.alloc_shared {{.+}} : memref<64x32xf32
// CHECK: tile.barrier
// CHECK: vector.load %[[AS]]
// CHECK: nvvm.convert.float.to.tf32 {{.+}}<rn>
// CHECK: vector.load %[[BS]]
// CHECK: vector.store %{{.+}}, %[[BS]]
// CHECK: nvvm.fence.proxy
// CHECK-NEXT: tile.barrier
// CHECK: llvm.inline_asm has_side_effects "{{.+}}wgmma.fence.sync.aligned;\0Awgmma.mma_async.sync.aligned.m64n64k8.f32.tf32.tf32 {$0,{{.+}},$31}, $32, $33, z, 1, 1;\0A{{.+}}, $34, $35, p, 1, 1;\0A{{.+}}, $36, $37, p, 1, 1;\0A{{.+}}, $38, $39, p, 1, 1;\0A}"
// CHECK-NOT: wgmma.mma_async
tile.kernel @wgmma_tf32(%C: memref<64x64xf32>) grid [1] threads [128] {
  %As = tile.alloc_shared : memref<64x32xf32, #gpu.address_space<workgroup>>
  %Bs = tile.alloc_shared : memref<64x32xf32, #gpu.address_space<workgroup>>
  %acc = tile.alloc_fragment : memref<64x64xf32, #tile.fragment>
  tile.gemm %As, %Bs, %acc {clear, transpose_b, lowering = #tile.gemm_lowering<wgmma>} : memref<64x32xf32, #gpu.address_space<workgroup>>, memref<64x32xf32, #gpu.address_space<workgroup>>, memref<64x64xf32, #tile.fragment>
  tile.copy %acc to %C : memref<64x64xf32, #tile.fragment> to memref<64x64xf32>
}

// -----

// tf32 with B stored K x N: C^T = B^T A^T. A barrier (no gemm precedes:
// readers of the tiles may), A's tile rounded in place by the block's
// threads in runs of 4 (cvt.rn), fenced for the async proxy, a barrier;
// then each thread loads and rounds its B^T registers for the four K
// steps, and the m64n64k8 wgmmas take them as their register A operand
// (inline PTX, accumulators tied), A's tile as their B operand through a
// K-major descriptor; the gemm waits for its MMAs itself.
// CHECK-LABEL: tile.kernel @wgmma_tf32_transposed
// CHECK: %[[AS:.+]] = tile.alloc_shared {alignment = 1024 : i64, swizzle = 128 : i64} : memref<64x32xf32
// CHECK: %[[BS:.+]] = tile.alloc_shared {alignment = 1024 : i64, swizzle = 128 : i64} : memref<32x64xf32
// CHECK: tile.barrier
// CHECK: %[[CHUNK:.+]] = vector.load %[[AS]]
// CHECK: nvvm.convert.float.to.tf32 {{.+}}<rn>
// CHECK: vector.store %{{.+}}, %[[AS]]
// CHECK-COUNT-3: vector.store %{{.+}}, %[[AS]]
// CHECK: nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>
// CHECK-NEXT: tile.barrier
// CHECK: memref.load %[[BS]]
// CHECK-NEXT: nvvm.convert.float.to.tf32 {{.+}}<rn>
// CHECK: llvm.inline_asm has_side_effects "{{.+}}wgmma.fence.sync.aligned;\0Awgmma.mma_async.sync.aligned.m64n64k8.f32.tf32.tf32 {$0,{{.+}},$31}, {$32,$33,$34,$35}, $36, z, 1, 1;\0A{{.+}}, {$37,$38,$39,$40}, $41, p, 1, 1;\0A{{.+}}, {$42,$43,$44,$45}, $46, p, 1, 1;\0A{{.+}}, {$47,$48,$49,$50}, $51, p, 1, 1;\0A}", "=f,{{.+}},=f,r,r,r,r,l,r,r,r,r,l,r,r,r,r,l,r,r,r,r,l"
// CHECK-NOT: wgmma.mma_async
// CHECK: nvvm.wgmma.commit.group.sync.aligned
// CHECK: llvm.inline_asm has_side_effects "wgmma.wait_group.sync.aligned 0;"
// The CPU target rounds in the scalar product instead.
// CPU-LABEL: tile.kernel @wgmma_tf32_transposed
// CPU-NOT: nvvm.
// CPU: scf.for
tile.kernel @wgmma_tf32_transposed(%C: memref<64x64xf32>) grid [1] threads [128] {
  %As = tile.alloc_shared : memref<64x32xf32, #gpu.address_space<workgroup>>
  %Bs = tile.alloc_shared : memref<32x64xf32, #gpu.address_space<workgroup>>
  %acc = tile.alloc_fragment : memref<64x64xf32, #tile.fragment>
  tile.gemm %As, %Bs, %acc {clear, lowering = #tile.gemm_lowering<wgmma>} : memref<64x32xf32, #gpu.address_space<workgroup>>, memref<32x64xf32, #gpu.address_space<workgroup>>, memref<64x64xf32, #tile.fragment>
  tile.copy %acc to %C : memref<64x64xf32, #tile.fragment> to memref<64x64xf32>
}

// -----

// A tf32 gemm whose tiles TMA rounded on the copy (tile.tf32_rounded: a
// warp-specialized consumer's, filled through TFLOAT32 tensor maps) and
// only TMA wrote (tile.tma_operands): no barrier, no rounding in place, no
// fence; B^T's registers are loaded as they are, their bits reinterpreted.
// CHECK-LABEL: tile.kernel @wgmma_tf32_rounded
// CHECK-NOT: tile.barrier
// CHECK-NOT: vector.store
// CHECK-NOT: nvvm.fence.proxy
// CHECK-NOT: nvvm.convert.float.to.tf32
// CHECK: memref.load
// CHECK-NEXT: arith.bitcast %{{.+}} : f32 to i32
// CHECK-NOT: tile.barrier
// CHECK-NOT: nvvm.convert.float.to.tf32
// CHECK: wgmma.fence.sync.aligned;\0Awgmma.mma_async.sync.aligned.m64n64k8.f32.tf32.tf32
tile.kernel @wgmma_tf32_rounded(%C: memref<64x64xf32>) grid [1] threads [128] {
  %As = tile.alloc_shared : memref<64x32xf32, #gpu.address_space<workgroup>>
  %Bs = tile.alloc_shared : memref<32x64xf32, #gpu.address_space<workgroup>>
  %acc = tile.alloc_fragment : memref<64x64xf32, #tile.fragment>
  tile.gemm %As, %Bs, %acc {clear, lowering = #tile.gemm_lowering<wgmma>, tile.tf32_rounded, tile.tma_operands} : memref<64x32xf32, #gpu.address_space<workgroup>>, memref<32x64xf32, #gpu.address_space<workgroup>>, memref<64x64xf32, #tile.fragment>
  tile.copy %acc to %C : memref<64x64xf32, #tile.fragment> to memref<64x64xf32>
}

// -----

// A fragment A (attention's P): the m64nNk16 A fragment of each warp is the
// mma.sync m16n8k16 one, which P's layout (the accumulator layout of
// 64 x 32 with warps [4, 1]) holds as it is: per K step of 16, registers
// 0-3 and 4-7 of the warp's two m16n8 tiles, packed two f16 to a 32-bit
// register, after one wgmma.fence; B (stored K x N) through a descriptor,
// transposed (the last immediate 1). Two K steps, the first scale-d 0.
// CHECK-LABEL: tile.kernel @wgmma_fragment_a
// CHECK: %[[P:.+]] = tile.alloc_local : memref<8x2xf16>
// CHECK: memref.load %[[P]][%c0, %c0]
// CHECK: memref.load %[[P]][%c0, %c1]
// CHECK: vector.bitcast %{{.+}} : vector<2xf16> to vector<1xi32>
// CHECK: llvm.inline_asm has_side_effects "{{.+}}wgmma.fence.sync.aligned;\0Awgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 {$0,{{.+}},$31}, {$32,$33,$34,$35}, $36, z, 1, 1, 1;\0Awgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 {$0,{{.+}},$31}, {$37,$38,$39,$40}, $41, p, 1, 1, 1;\0A}"
// CHECK-NOT: wgmma.mma_async
// CHECK: nvvm.wgmma.commit.group.sync.aligned
// CHECK: llvm.inline_asm has_side_effects "wgmma.wait_group.sync.aligned 0;"
tile.kernel @wgmma_fragment_a(%A: memref<64x32xf16>, %C: memref<64x64xf32>) grid [1] threads [128] {
  %P = tile.alloc_fragment : memref<64x32xf16, #tile.fragment>
  %Bs = tile.alloc_shared : memref<32x64xf16, #gpu.address_space<workgroup>>
  %acc = tile.alloc_fragment : memref<64x64xf32, #tile.fragment>
  tile.copy %A to %P : memref<64x32xf16> to memref<64x32xf16, #tile.fragment>
  tile.gemm %P, %Bs, %acc {clear, lowering = #tile.gemm_lowering<wgmma>} : memref<64x32xf16, #tile.fragment>, memref<32x64xf16, #gpu.address_space<workgroup>>, memref<64x64xf32, #tile.fragment>
  tile.copy %acc to %C : memref<64x64xf32, #tile.fragment> to memref<64x64xf32>
}

// -----

// A gemm left in flight by a rolled pipeline (tile.wgmma_in_flight): it
// waits for the previous group only, and the loop is followed by a wait
// for all, through which C's registers pass.
// CHECK-LABEL: tile.kernel @wgmma_in_flight
// CHECK: tile.serial
// CHECK: nvvm.wgmma.commit.group.sync.aligned
// CHECK: nvvm.wgmma.wait.group.sync.aligned 1
// CHECK-NOT: wgmma.wait
// CHECK: }
// CHECK: llvm.inline_asm has_side_effects "wgmma.wait_group.sync.aligned 0;"
// CHECK: tile.copy
tile.kernel @wgmma_in_flight(%C: memref<64x64xf32>, %n: index) grid [1] threads [128] {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %As = tile.alloc_shared : memref<64x64xf16, #gpu.address_space<workgroup>>
  %Bs = tile.alloc_shared : memref<64x64xf16, #gpu.address_space<workgroup>>
  %acc = tile.alloc_fragment : memref<64x64xf32, #tile.fragment>
  tile.clear %acc : memref<64x64xf32, #tile.fragment>
  tile.serial %k = %c0 to %n step %c1 {
    tile.gemm %As, %Bs, %acc {lowering = #tile.gemm_lowering<wgmma>, tile.wgmma_in_flight} : memref<64x64xf16, #gpu.address_space<workgroup>>, memref<64x64xf16, #gpu.address_space<workgroup>>, memref<64x64xf32, #tile.fragment>
  }
  tile.copy %acc to %C : memref<64x64xf32, #tile.fragment> to memref<64x64xf32>
}

// -----

// A deferred gemm (tile-schedule-wgmma-waits) commits and does not wait;
// the tile.wgmma_wait further on waits with pending 1 and passes C's 32
// registers through it, tied, before the copy reads them. The plain
// wait of an empty tile.wgmma_wait. On the CPU the waits are the plain
// ones its runtime models.
// CHECK-LABEL: tile.kernel @wgmma_deferred
// CHECK: nvvm.wgmma.commit.group.sync.aligned
// CHECK-NOT: wgmma.wait
// CHECK: llvm.inline_asm has_side_effects "wgmma.wait_group.sync.aligned 1;", "=f,{{.*}},0,1,{{.*}},31"
// CHECK-NOT: wgmma.wait
// CHECK: tile.copy
// CHECK: nvvm.wgmma.wait.group.sync.aligned 0
// CPU-LABEL: tile.kernel @wgmma_deferred
// CPU-NOT: llvm.inline_asm
// CPU: nvvm.wgmma.wait.group.sync.aligned 1
// CPU-NOT: llvm.inline_asm
// CPU: tile.copy
// CPU: nvvm.wgmma.wait.group.sync.aligned 0
tile.kernel @wgmma_deferred(%C: memref<64x64xf32>) grid [1] threads [128] {
  %As = tile.alloc_shared : memref<64x64xf16, #gpu.address_space<workgroup>>
  %Bs = tile.alloc_shared : memref<64x64xf16, #gpu.address_space<workgroup>>
  %acc = tile.alloc_fragment : memref<64x64xf32, #tile.fragment>
  tile.gemm %As, %Bs, %acc {clear, lowering = #tile.gemm_lowering<wgmma>, tile.wgmma_deferred} : memref<64x64xf16, #gpu.address_space<workgroup>>, memref<64x64xf16, #gpu.address_space<workgroup>>, memref<64x64xf32, #tile.fragment>
  tile.wgmma_wait 1, %acc : memref<64x64xf32, #tile.fragment>
  tile.copy %acc to %C : memref<64x64xf32, #tile.fragment> to memref<64x64xf32>
  tile.wgmma_wait 0
}
