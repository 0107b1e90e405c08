//===- Passes.td - Transformations of tile kernels ---------*- tablegen -*-===//
//
// Every pass of the tile dialect, in alphabetical order of flag (the
// passes that serialize GPU code: tile/Pipelines/Passes.td).
//
//===----------------------------------------------------------------------===//

#ifndef TILE_DIALECT_TILE_TRANSFORMS_PASSES_TD
#define TILE_DIALECT_TILE_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def TileApplySwizzles : Pass<"tile-apply-swizzles", "::mlir::tile::KernelOp"> {
  let summary = "Address swizzled shared tiles at their physical positions";
  let description = [{
    Rewrites the indices of every access to a `tile.alloc_shared` with
    `swizzle = 128` (loads, stores, vector loads and stores, `nvgpu.ldmatrix`,
    cp.async targets) from the logical position to the physical one
    (lib/Dialect/Tile/IR/Swizzle.h). It runs after vectorization: the
    analyses and rewrites before it (barriers, contiguity, alignment) work
    on logical indices, and no access it sees crosses a 16-byte chunk. Any
    other use of the buffer (a view, a cast) is an error.
  }];
}

def TileEmulateTma : Pass<"tile-emulate-tma", "::mlir::tile::KernelOp"> {
  let summary = "Run TMA copies on the CPU target: the issuing thread copies";
  let description = [{
    The CPU target's form of `tile.tma_load`: the thread that issues it
    copies the tile element by element (elements outside the source read as
    zero, as TMA and `tile.copy` define), into the target's logical
    positions (tile-apply-swizzles, later, swizzles them as TMA would), then
    completes the tile's bytes on the op's mbarrier with
    `nvvm.mbarrier.complete_tx`. The pipeline around it keeps the GPU's
    structure (the producer's `mbarrier.arrive.expect_tx`, the consumers'
    waits), and the CPU runtime counts transaction bytes: a phase completes
    when its arrivals are in and its bytes have landed, and a short
    expect_tx is reported. The race check sees the copy's writes as the
    issuing thread's, released to the threads that see the phase complete.
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect",
                           "::mlir::NVVM::NVVMDialect",
                           "::mlir::scf::SCFDialect"];
}

def TileForwardLocalStores : Pass<"tile-forward-local-stores", "::mlir::tile::KernelOp"> {
  let summary = "Forward stores to loads and drop overwritten stores of thread-local buffers";
  let description = [{
    Block by block, a load of a `tile.alloc_local` element stored (or loaded)
    earlier in the block takes that value, a lane of a stored vector through
    `vector.extract`; a store all of whose elements are overwritten in the
    block before anything can read them is erased. Accesses need constant
    in-bounds indices; a buffer with any use other than a load or store
    through it is left alone, and an op with regions that touches a buffer
    counts as reading and writing all of it.

    Register-blocked kernels, once unrolled, are mostly such accesses (three
    loads and a store per FMA); forwarding them here gives the same code LLVM
    would get to after SROA, at a fraction of the compile time.
  }];
  let dependentDialects = ["::mlir::vector::VectorDialect"];
}

def TileInferLayouts : Pass<"tile-infer-layouts", "::mlir::tile::KernelOp"> {
  let summary = "Choose the thread layout of every fragment";
  let description = [{
    Gives every `tile.alloc_fragment` a `layout` (which thread and register
    hold each element), every `tile.gemm` its `warps` and every
    `tile.parallel` over fragments the layout it iterates in
    (lib/Dialect/Tile/Analysis/LayoutInference.cpp, docs/TensorCores.md):

    1. a layout written on `tile.alloc_fragment` is kept;
    2. the accumulator of a `tile.gemm` takes the tensor-core accumulator
       layout of the gemm's warp grid (given, or chosen: whole m16n8 tiles
       per warp, closest to square);
    3. fragments touched by one `tile.parallel`, and the two sides of a
       fragment-to-fragment `tile.copy`, share their layout, in both
       directions, to a fixpoint;
    4. a fragment left over gets the blocked layout (16-byte runs dealt
       round-robin to the threads);
    5. a shared buffer read by a `tile.gemm` gets `swizzle = 128` when it
       has no `swizzle` and its shape allows it (ldmatrix then reads
       without bank conflicts);
    6. a fragment A operand of a `tile.gemm` takes the accumulator layout
       of an M x K product with the warps split along M only, as do its
       gemm and the gemm whose accumulator feeds it;
    7. a fragment-to-fragment `tile.copy` with `convert_layout` joins
       nothing; the pass rewrites it into two copies through a shared tile
       (barrier insertion, next, places the barrier between them).

    Two layouts for one fragment are an error that names both ops (and
    suggests `convert_layout`). With
    `print`, each fragment's layout is also reported as a remark holding the
    grid of owning thread:register per element; with `svg-dir`, written as
    an SVG picture `<dir>/<kernel>.<fragment number>.svg`.

    With `gemm-lowering` (the pipeline passes its own), every `tile.gemm`
    without a `lowering` (or with `auto`) first gets that one written on
    it, so that inference and every later pass (pipelining, warp
    specialization's turns, wait scheduling, fragment lowering) see the
    same choice; a gemm the chosen lowering cannot run is an error naming
    it and the option.
  }];
  let options = [
    Option<"print", "print", "bool", /*default=*/"false",
           "Report each fragment's layout as a grid (a remark)">,
    Option<"svgDir", "svg-dir", "std::string", /*default=*/"\"\"",
           "Write each fragment's layout as an SVG picture into this folder">,
    Option<"gemmLowering", "gemm-lowering", "std::string", /*default=*/"\"\"",
           "Write this lowering (mma_sync, wgmma or scalar) on every "
           "tile.gemm that does not choose one, before inferring (the "
           "layouts and the later passes follow it); empty: leave them">,
  ];
}

def TileInsertBarriers : Pass<"tile-insert-barriers", "::mlir::tile::KernelOp"> {
  let summary = "Insert the barriers that shared-memory hazards need";
  let description = [{
    Inserts `tile.barrier` exactly where two threads of a block may touch the
    same shared-memory element, at least one writing, with no barrier in
    between: read-after-write, write-after-read and write-after-write,
    including hazards carried from one loop iteration to the next (the next
    iteration's writes against this iteration's reads). Accesses that each
    thread provably makes to its own elements (same index, a thread-injective
    function of the thread index) get none; neither do atomics among
    themselves.

    The pass runs at tile level, before collective ops are lowered: a
    `tile.copy`, `tile.fill` or `tile.parallel` is one access whose elements
    are spread over the threads (different threads write different elements
    by construction), so barriers go between ops, never inside their loops.

    Barriers are never placed under thread-dependent control flow: a hazard
    between an access there and one before it gets a barrier before the
    branch or loop (hoisted); a hazard between two accesses inside it is an
    error, with both accesses and the control flow in the message.
  }];
}

def TileLowerAtomics : Pass<"tile-lower-atomics", "::mlir::tile::KernelOp"> {
  let summary = "Lower tile.atomic_add to hardware atomics";
  let description = [{
    Scalar atomics (f32, f16, bf16, i32) become `memref.atomic_rmw`, which
    reaches `atom.add` in PTX. Packed `vector<2xf16>` / `vector<2xbf16>`
    atomics become the PTX instruction `atom.add.noftz.f16x2` (`.bf16x2`) on
    the element's generic address, or `red.add.noftz.*` when the old value is
    unused; LLVM would otherwise expand a vector atomicrmw into a
    compare-and-swap loop.
  }];
  let dependentDialects = [
    "::mlir::LLVM::LLVMDialect",
    "::mlir::arith::ArithDialect",
    "::mlir::memref::MemRefDialect",
    "::mlir::vector::VectorDialect"
  ];
}

def TilePeelGuardedGemms
    : Pass<"tile-peel-guarded-gemms", "::mlir::tile::KernelOp"> {
  let summary = "Peel the first and last iterations of loops whose gemms "
                "run in only some iterations";
  let description = [{
    A loop whose body holds a `tile.gemm` under an `scf.if` on the
    iteration (attention's rotated loop: the product of the previous block
    `if %j > 0`, the scores of this block `if %j < blocks`) gets its first
    and last iterations peeled, and in each of the three parts every
    `scf.if` of the body's top level whose `arith.cmpi` condition is then
    decided (ValueBoundsConstraintSet, from the loop's bounds) is replaced
    by the branch it takes:

      scf.for %j = %lb to %ub step 1 { B(%j) }          (%ub - %lb >= 2)
      ->  B(%lb); scf.for %j = %lb + 1 to %ub - 1 step 1 { B(%j) }; B(%ub - 1)

    so that no gemm of the steady state sits in a branch (a wgmma whose
    registers meet others in a phi makes ptxas serialize every wgmma of the
    kernel, C7515). A guard that a decided guard's branch brings to the top
    level is decided in turn (or reported). Only loops of step 1 (signed)
    whose trip count is provably at least 2 are peeled; a guard of a gemm
    that stays undecided gets a remark. Loops without a gemm guarded on the
    iteration, and loops whose gemms a pipeline leaves in flight
    (`tile.wgmma_in_flight`, waited for after the loop), are left alone.
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::scf::SCFDialect"
  ];
}

def TileScheduleWgmmaWaits
    : Pass<"tile-schedule-wgmma-waits", "::mlir::tile::KernelOp"> {
  let summary = "Wait for wgmma gemms where their results are needed";
  let description = [{
    A `tile.gemm` lowered to wgmma waits for its MMAs right after issuing
    them unless this pass defers the wait: in each block, a wgmma gemm
    (not tf32, not one a pipeline leaves in flight) is marked
    `tile.wgmma_deferred` and a `tile.wgmma_wait N` goes before the first
    later op of the block that touches its fragments (C, or a fragment A)
    or may write shared memory or synchronize, N being the deferred gemms
    issued after it that this op does not need; at the end of the block
    nothing is left in flight. The ops in between run while the MMAs do:

      S = Q K^T (deferred); acc *= alpha; acc += P V (deferred)
      wgmma_wait 1 (S)     softmax of S, with P V in flight
      wgmma_wait 0 (acc)   P = S, rounded

    Only blocks with a gemm to defer change; ops with regions count as
    touching what their nested ops touch.
  }];
  let options = [
    Option<"gemmLowering", "gemm-lowering", "std::string",
           /*default=*/"\"mma_sync\"",
           "Lowering of tile.gemm ops with lowering = auto or none">,
    Option<"chip", "chip", "std::string", /*default=*/"\"sm_90a\"",
           "Where the kernels run: the pass only acts on sm_90a">,
  ];
}

def TileLowerFragments : Pass<"tile-lower-fragments", "::mlir::tile::KernelOp"> {
  let summary = "Lower fragments to per-thread registers and tile.gemm to MMAs";
  let description = [{
    After `tile-infer-layouts`, each fragment becomes a per-thread
    `tile.alloc_local` holding the elements its layout gives the thread, and
    the ops on it become per-thread code:
    - `tile.copy` to or from shared or global memory: each thread copies its
      elements, in runs of registers contiguous in memory (vector accesses),
      bounds handled as for any copy; a fragment source of another float
      type is converted on the way. Out to global memory in runs under 16
      bytes (the MMA accumulators' pairs of columns), the lanes that hold
      consecutive runs exchange them first (xor shuffles, `getLaneExchange`)
      so that each thread stores 16 bytes;
    - `tile.fill` / `tile.clear`: each thread fills its registers;
    - `tile.parallel` with a `layout`: one copy of the body per register,
      at that register's coordinates (unrolled: registers are addressed by
      constants);
    - `tile.gemm`: `mma_sync` lowering (lib/.../GemmMmaSync.cpp: per warp
      and 16-wide K step, `nvgpu.ldmatrix` for A and B and `nvgpu.mma.sync`
      m16n8k16 per 16x8 accumulator tile), or `scalar` lowering
      (lib/.../GemmScalar.cpp: each thread accumulates the elements it
      holds over K, reading A and B from shared memory), or `wgmma`
      lowering (lib/.../GemmWgmma.cpp: per warp group and K step, one
      `wgmma.mma_async` per at most 256 columns, A and B read through
      shared-memory descriptors). `gemm-lowering` picks the lowering of
      gemms that do not choose (`auto`: mma_sync); `chip` is where the
      kernel runs: wgmma needs sm_90a, and on `cpu` every gemm lowers to
      scalar (the layouts stay those the gemm asked for).
      A fragment A operand is used in place: its registers are the mma
      operand registers (mma_sync), or are fetched from the lanes that hold
      them by shuffles (scalar).
    With `tma` (sm_90a), a `tile.copy` of an accumulator of 8x8 blocks per
    register pair out to a 2-D f16 or bf16 kernel argument goes through two
    128-byte-swizzled shared tiles of 64 columns: stmatrix into a tile, a
    proxy fence and named barrier 1, then `tile.tma_store` by the first
    thread (lib/.../CopyOutTma.cpp; docs/TensorCores.md, "TMA-store
    epilogue"). No bounds test remains: TMA clips the box.
  }];
  let options = [
    Option<"gemmLowering", "gemm-lowering", "std::string",
           /*default=*/"\"mma_sync\"",
           "Lowering of tile.gemm ops with lowering = auto or none: mma_sync, "
           "wgmma or scalar">,
    Option<"chip", "chip", "std::string", /*default=*/"\"sm_90a\"",
           "Where the kernels run: a GPU architecture (sm_80, sm_90a, ...) "
           "or 'cpu' (every tile.gemm lowers to scalar)">,
    Option<"tma", "tma", "bool", /*default=*/"false",
           "Copy accumulators out to kernel arguments through shared tiles "
           "and TMA stores where the layout and the target allow (sm_90a)">,
  ];
  let dependentDialects = ["::mlir::affine::AffineDialect",
                           "::mlir::gpu::GPUDialect",
                           "::mlir::LLVM::LLVMDialect",
                           "::mlir::math::MathDialect",
                           "::mlir::NVVM::NVVMDialect",
                           "::mlir::nvgpu::NVGPUDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::vector::VectorDialect"];
}

def TileLowerReductions : Pass<"tile-lower-reductions", "::mlir::tile::KernelOp"> {
  let summary = "Lower tile.thread_allreduce to warp shuffles and shared memory";
  let description = [{
    When every extent of the thread block is a power of two, the reduced
    bits of the linear thread index that select lanes are combined by an xor
    butterfly of `gpu.shuffle` (no barrier), and those that select warps
    through a shared buffer with one slot per thread, two barriers, and a
    fixed combination order. Other shapes (non-power-of-two extents) use a
    shared-memory tree over the group's reduction index with a barrier per
    step. f16 and bf16 values travel in 32-bit shuffles. See
    docs/Reductions.md.
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::gpu::GPUDialect",
    "::mlir::memref::MemRefDialect",
    "::mlir::scf::SCFDialect"
  ];
}

def TileLowerWarpSpecialize : Pass<"tile-lower-warp-specialize", "::mlir::tile::KernelOp"> {
  let summary = "Lower tile.warp_specialize to roles synchronized by mbarriers";
  let description = [{
    Each `tile.warp_specialize` becomes a "full" and an "empty" mbarrier
    per stage (initialized by thread 0, then a barrier), and two roles: the
    first `consumer` threads run the consumer region for every iteration,
    waiting for "full" and arriving on "empty" after it; the others run the
    producer region, waiting for the stage to be empty and arriving on
    "full". Phases are tracked from the iteration number, so the stages are
    reused in turn without a deadlock. `regs` become `setmaxnreg.dec` /
    `setmaxnreg.inc` at the start of the role, with the register count at
    entry set on the kernel (`.maxnreg`), without which ptxas ignores them.
    Collective ops in a role are spread over that role's threads. `tiles`
    get one copy per stage, each iteration's a view.

    With `tma` (sm_90 and later), the producer's whole-tile copies from
    kernel arguments into `tiles` become TMA copies issued by its first
    thread, completing on "full" (expect_tx), and the consumer's wgmma
    gemms stay in flight, their stage released one iteration later.

    Checked first, with the op named: the roles touch shared memory only
    through the op's buffers and tiles (a buffer at the slice of the stage
    argument), the producer only writing them and the consumer only
    reading; no block-wide barrier or reduction in a role (the other role
    would never reach it); no tf32 wgmma gemm in a role.
    Runs after barrier insertion, which leaves the op's regions alone.
  }];
  let options = [
    Option<"tma", "tma", "bool", /*default=*/"false",
           "Copy whole tiles into the pipeline's tiles with TMA">,
    Option<"testReleaseEarly", "test-release-early", "bool",
           /*default=*/"false",
           "Testing the race check: the consumer releases each stage right "
           "after issuing the MMAs that read it, before they retire">,
    Option<"testSkipResidentWait", "test-skip-resident-wait", "bool",
           /*default=*/"false",
           "Testing the race check: the consumer does not wait for the "
           "resident tiles' TMA copies before its loop">
  ];
  let dependentDialects = [
    "::mlir::NVVM::NVVMDialect",
    "::mlir::arith::ArithDialect",
    "::mlir::memref::MemRefDialect",
    "::mlir::nvgpu::NVGPUDialect",
    "::mlir::scf::SCFDialect",
    "::mlir::vector::VectorDialect"
  ];
}

def TileLowerTileOps : Pass<"tile-lower-tile-ops", "::mlir::tile::KernelOp"> {
  let summary = "Lower collective tile ops and tile loops to thread-level loops";
  let description = [{
    Distributes the work of the collective ops over the block's threads and
    turns the tile loops into `scf.for`:

    - `tile.parallel`, `tile.copy`, and `tile.fill` / `tile.clear` of shared
      or global memory become a loop over the iteration space linearized
      innermost-first, strided by the block size and started at the linear
      thread index, so consecutive threads touch consecutive elements
      (coalesced). The loop's trip count is uniform; a tail is guarded.
    - `tile.copy` moves chunks of up to 16 bytes: each chunk is a
      `tile.vectorized` loop, which `tile-vectorize` turns into one vector
      access when it proves contiguity and alignment. Chunks that may cross
      the bounds of an operand are copied element by element instead, with
      out-of-bounds source elements read as zero and out-of-bounds target
      elements skipped; the bounds test is omitted where the index analysis
      proves the tile in bounds. An asynchronous copy (a pipelined one,
      `tile.async`) from global into shared memory whose chunks are 4, 8 or
      16 bytes and provably aligned is instead one `nvgpu.device_async_copy`
      per chunk whose source element count stops at the bounds: cp.async
      zero-fills the rest, with no branch.
    - `tile.fill` / `tile.clear` of a per-thread buffer become per-thread
      stores with constant indices.
    - `tile.serial` becomes `scf.for`; `tile.unroll` becomes `scf.for`, then
      is unrolled completely; `tile.pipelined` becomes `scf.for` with a remark
      when it asks for more than one stage (software pipelining is done by a
      later pass). `tile.vectorized` is left to `tile-vectorize`.
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::memref::MemRefDialect",
    "::mlir::nvgpu::NVGPUDialect",
    "::mlir::scf::SCFDialect"
  ];
}

def TileSoftwarePipeline : Pass<"tile-software-pipeline", "::mlir::tile::KernelOp"> {
  let summary = "Pipeline tile.pipelined loops with cp.async and a buffer per stage";
  let description = [{
    For a `tile.pipelined` loop of `S > 1` stages, the copies of the body
    from global memory into shared buffers allocated outside the loop run
    `S - 1` iterations ahead of the rest of the body: each such buffer gets
    a copy per stage, the copies are marked asynchronous (`tile.async`:
    `cp.async` after vectorization, 16 bytes per thread and chunk where
    alignment is proven), and the loop becomes a prologue that issues the
    first `S - 1` iterations' copies, then a loop unrolled by `S` in which
    each iteration waits for its copies (`cp.async.wait_group S-2`), passes
    one barrier, issues the copies `S - 1` iterations ahead and computes on
    its stage. Bounds are uniform; iterations past the end are skipped.

    Runs before barrier insertion, which sees a buffer per stage and so adds
    no barrier of its own between the copies in flight and the computation.
    Rejected, with the op named: a copy that depends on a side-effecting op
    of the body, another write to a pipelined buffer in the loop, a use of
    one after the loop, two copies into one buffer. A loop with nothing to
    pipeline runs serially, with a remark.

    A `rolled` loop keeps one copy of the body, each buffer one allocation
    of `S` stages addressed by `iteration mod S`; a wgmma `tile.gemm` whose
    accumulator only it touches stays in flight into the next iteration
    (copies then run `S - 2` ahead).

    With `tma` (sm_90 and later; the tile-to-ptx pipeline sets it on
    sm_90a), the copies of a rolled loop become `tile.tma_load`: one thread
    issues them, each stage completes on an mbarrier of its own (the
    transaction bytes of its tiles), and each iteration waits on its
    stage's mbarrier instead of `cp.async.wait_group`; the barrier that
    releases the stage to refill stays. A loop whose copies TMA cannot make
    (source not a kernel argument, rows not known to be multiples of 16
    bytes, a box over the limits, a swizzle TMA does not write) keeps
    cp.async, with a remark saying why.
  }];
  let dependentDialects = [
    "::mlir::NVVM::NVVMDialect",
    "::mlir::arith::ArithDialect",
    "::mlir::nvgpu::NVGPUDialect",
    "::mlir::scf::SCFDialect"
  ];
  let options = [
    Option<"tma", "tma", "bool", /*default=*/"false",
           "Copy the tiles of rolled pipelines with the Tensor Memory "
           "Accelerator (sm_90 and later)">
  ];
}

def TileVectorize : Pass<"tile-vectorize", "::mlir::tile::KernelOp"> {
  let summary = "Turn tile.vectorized loops into vector memory accesses";
  let description = [{
    Replaces each `tile.vectorized` loop by vector code: every load and
    store of the body becomes a `vector.load` / `vector.store` of up to 16
    bytes (with the alignment set on the op), and the elementwise arithmetic
    between them operates on vectors. This needs, for every access, an
    innermost index `base + iv` with `base` defined outside the loop, other
    indices independent of `iv`, a unit innermost stride, outer strides and a
    `base` that are multiples of the vector length (alignment, proven by the
    index analysis; buffers themselves are 16-byte aligned by the kernel
    ABI and by `tile.alloc_shared` / `tile.alloc_local`).

    When any condition fails, the loop is unrolled into scalar code and a
    remark says which access or op prevented vectorization and why; nothing
    falls back silently and no access is vectorized without a proof.

    A store marked `tile.async` (the chunks of a copy that
    `tile-software-pipeline` made asynchronous) of a vector of 4, 8 or 16
    bytes just loaded from global memory into shared memory becomes
    `nvgpu.device_async_copy` (`cp.async`, `.cg` for 16 bytes); scalar code
    stays synchronous, which the pipeline's wait-and-barrier also covers.
  }];
  let dependentDialects = [
    "::mlir::affine::AffineDialect",
    "::mlir::arith::ArithDialect",
    "::mlir::nvgpu::NVGPUDialect",
    "::mlir::scf::SCFDialect",
    "::mlir::vector::VectorDialect"
  ];
}

#endif // TILE_DIALECT_TILE_TRANSFORMS_PASSES_TD
