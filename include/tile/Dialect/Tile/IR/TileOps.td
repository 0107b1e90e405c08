//===- TileOps.td - Operations of the tile dialect ---------*- tablegen -*-===//
//
// Kernels, indices, buffers, loops, collective data movement, atomics,
// reductions, warp specialization and debugging.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_DIALECT_TILE_IR_TILEOPS_TD
#define TILE_DIALECT_TILE_IR_TILEOPS_TD

include "tile/Dialect/Tile/IR/TileDialect.td"
include "tile/Dialect/Tile/IR/TileAttrs.td"
include "tile/Dialect/Tile/IR/TileInterfaces.td"
include "mlir/IR/BuiltinAttributeInterfaces.td"
include "mlir/IR/CommonAttrConstraints.td"
include "mlir/IR/OpAsmInterface.td"
include "mlir/IR/SymbolInterfaces.td"
include "mlir/Interfaces/CallInterfaces.td"
include "mlir/Interfaces/ControlFlowInterfaces.td"
include "mlir/Interfaces/FunctionInterfaces.td"
include "mlir/Interfaces/InferTypeOpInterface.td"
include "mlir/Interfaces/LoopLikeInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

//===----------------------------------------------------------------------===//
// Kernel
//===----------------------------------------------------------------------===//

def Tile_KernelOp : Tile_Op<"kernel", [
    AffineScope, AutomaticAllocationScope, IsolatedFromAbove, Symbol,
    DeclareOpInterfaceMethods<OpAsmOpInterface, ["getAsmBlockArgumentNames"]>,
    DeclareOpInterfaceMethods<SymbolUserOpInterface>]> {
  let summary = "A GPU kernel: arguments, a grid and a thread block shape";
  let description = [{
    Defines a kernel. The body runs once per thread of every thread block of
    the grid (SPMD, as in CUDA). Arguments are memrefs of global memory and
    scalars (integers, index, floats); a kernel has no results.

    `threads [x, y, z]` is the static thread block shape (1 to 3 dimensions,
    at most 1024 threads). `grid [x, y, z]` is the grid (1 to 3 dimensions);
    an extent written `?` is computed at launch time by the `grid_size`
    region, which receives the kernel's arguments and yields one `index` per
    dynamic extent, in order.

    The argument names of the source (`%A`) are kept (`arg_names`) and
    name the arguments in diagnostics, in printed IR and in `tile-run`.

    `reference` names the kernel's reference implementation: a `func.func`
    (run on the CPU) or another `tile.kernel` of the module, with the same
    argument types, that writes the same outputs. `tile-run --check`
    compares against it.

    `min_blocks_per_sm` asks the code generator to fit that many blocks on
    one SM (CUDA's `__launch_bounds__(threads, N)`, PTX `.minnctapersm`):
    ptxas limits each thread's registers to match, spilling if it must.

    `llvm_passes` picks the LLVM IR pipeline of this kernel's GPU code, as
    tile-to-ptx's `llvm-passes` option names one (opt's `-passes` syntax, or
    `lean`: one round of function simplification; docs/Pipeline.md). A
    pipeline given to tile-to-ptx (`tile-run --llvm-passes`) takes
    precedence; without either, the O level's default pipeline runs.
    `skip_llvm_passes` (comma-separated, as tile-to-ptx's `skip-llvm-passes`
    names them) are LLVM passes this kernel's code skips beside the default
    list; a list given to tile-to-ptx (`tile-run --skip-llvm-passes`) takes
    precedence.

    Block and thread indices are read with `tile.block_id` and
    `tile.thread_id` (upstream `gpu.thread_id` works too). Tile-level ops in
    the body (`tile.copy`, `tile.parallel`, `tile.barrier`, ...) are
    collective and must not be nested in thread-dependent control flow.

    Example:

    ```mlir
    tile.kernel @scale(%x: memref<?xf32>, %alpha: f32) grid [?] threads [256] {
      %bx = tile.block_id x
      %tx = tile.thread_id x
      ...
    } grid_size {
    ^bb0(%x: memref<?xf32>, %alpha: f32):
      %c0 = arith.constant 0 : index
      %c256 = arith.constant 256 : index
      %n = memref.dim %x, %c0 : memref<?xf32>
      %blocks = arith.ceildivui %n, %c256 : index
      tile.yield %blocks : index
    }
    ```
  }];

  let arguments = (ins SymbolNameAttr:$sym_name,
                       TypeAttrOf<FunctionType>:$function_type,
                       DenseI64ArrayAttr:$grid,
                       DenseI64ArrayAttr:$threads,
                       OptionalAttr<FlatSymbolRefAttr>:$reference,
                       OptionalAttr<ConfinedAttr<I64Attr, [IntMinValue<1>, IntMaxValue<32>]>>:$min_blocks_per_sm,
                       OptionalAttr<StrAttr>:$llvm_passes,
                       OptionalAttr<StrAttr>:$skip_llvm_passes,
                       OptionalAttr<StrArrayAttr>:$arg_names,
                       OptionalAttr<StrAttr>:$sym_visibility,
                       OptionalAttr<DictArrayAttr>:$arg_attrs,
                       OptionalAttr<DictArrayAttr>:$res_attrs);
  let regions = (region SizedRegion<1>:$body, AnyRegion:$grid_size);

  let extraClassDeclaration = [{
    ::llvm::ArrayRef<::mlir::Type> getArgumentTypes() {
      return getFunctionType().getInputs();
    }
    ::llvm::ArrayRef<::mlir::Type> getResultTypes() {
      return getFunctionType().getResults();
    }
    ::mlir::Block::BlockArgListType getArguments() {
      return getBody().getArguments();
    }

    /// The source name of argument `index` (`A` for `%A`), or `arg<index>`.
    std::string getArgName(unsigned index);
    /// Number of threads of one block (product of the `threads` extents).
    int64_t getNumThreads();
    /// Extent of the thread block along `dim`; 1 beyond its rank.
    int64_t getThreadExtent(::mlir::tile::Dim dim);
    /// Number of grid extents written `?`.
    unsigned getNumDynamicGridExtents();
    /// Total bytes of statically allocated shared memory.
    int64_t getStaticSharedMemoryBytes();
  }];

  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
  let hasRegionVerifier = 1;
}

def Tile_ReturnOp : Tile_Op<"return", [
    HasParent<"KernelOp">, Pure, ReturnLike, Terminator]> {
  let summary = "Ends a kernel body";
  let description = [{
    Terminates the body of a `tile.kernel`. It takes no operands and may be
    omitted in the textual form.

    ```mlir
    tile.return
    ```
  }];
  let assemblyFormat = "attr-dict";
}

def Tile_YieldOp : Tile_Op<"yield", [
    Pure, ReturnLike, Terminator,
    ParentOneOf<["KernelOp", "SerialOp", "UnrollOp", "VectorizedOp",
                 "ParallelOp", "PipelinedOp", "WarpSpecializeOp",
                 "ForEachOwnedOp"]>]> {
  let summary = "Ends a loop body, a role region or a grid computation";
  let description = [{
    Terminates the body of a tile loop and the regions of
    `tile.warp_specialize` (no operands; may be omitted in the textual form),
    and the `grid_size` region of a `tile.kernel`, where it yields one `index`
    per dynamic grid extent. In a `tile.serial` or `tile.unroll` with
    `iter_args` it yields the values of the next iteration, one per
    iteration argument, of the same types.

    ```mlir
    tile.yield %blocks : index
    tile.yield %next_sum, %next_max : f32, f32
    ```
  }];
  let arguments = (ins Variadic<AnyType>:$values);
  let builders = [OpBuilder<(ins), [{ /* nothing to yield */ }]>];
  let assemblyFormat = "attr-dict ($values^ `:` type($values))?";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Indices
//===----------------------------------------------------------------------===//

class Tile_IndexOp<string mnemonic>
    : Tile_Op<mnemonic, [Pure,
        DeclareOpInterfaceMethods<OpAsmOpInterface, ["getAsmResultNames"]>]> {
  let arguments = (ins Tile_DimAttr:$dim);
  let results = (outs Index:$result);
  let assemblyFormat = "custom<DimKeyword>($dim) attr-dict";
  let hasVerifier = 1;
}

def Tile_BlockIdOp : Tile_IndexOp<"block_id"> {
  let summary = "Index of the current thread block along a grid dimension";
  let description = [{
    Returns the index of the executing thread block along `x`, `y` or `z`
    (CUDA's `blockIdx`). The dimension must exist in the kernel's grid.

    ```mlir
    %bx = tile.block_id x
    ```
  }];
}

def Tile_ThreadIdOp : Tile_IndexOp<"thread_id"> {
  let summary = "Index of the current thread within its block";
  let description = [{
    Returns the index of the executing thread within its block along `x`, `y`
    or `z` (CUDA's `threadIdx`). The dimension must exist in the kernel's
    thread block. Values derived from it are thread-dependent.

    ```mlir
    %tx = tile.thread_id x
    ```
  }];
}

def Tile_BlockDimOp : Tile_IndexOp<"block_dim"> {
  let summary = "Number of threads of the block along a dimension";
  let description = [{
    Returns the static extent of the thread block along `x`, `y` or `z`
    (CUDA's `blockDim`); it folds to a constant.

    ```mlir
    %ntx = tile.block_dim x
    ```
  }];
  let hasFolder = 1;
}

def Tile_GridDimOp : Tile_IndexOp<"grid_dim"> {
  let summary = "Number of thread blocks of the grid along a dimension";
  let description = [{
    Returns the extent of the grid along `x`, `y` or `z` (CUDA's `gridDim`);
    it folds to a constant when the extent is static.

    ```mlir
    %nbx = tile.grid_dim x
    ```
  }];
  let hasFolder = 1;
}

//===----------------------------------------------------------------------===//
// Buffers
//===----------------------------------------------------------------------===//

def Tile_AllocSharedOp : Tile_Op<"alloc_shared", [
    DeclareOpInterfaceMethods<Tile_CollectiveOpInterface>]> {
  let summary = "A buffer in the block's shared memory";
  let description = [{
    Allocates a buffer in shared memory, shared by all threads of the block
    and live for the whole kernel. It must stand at the top level of a
    `tile.kernel` body, have a static shape with an identity layout, and live
    in `#gpu.address_space<workgroup>`. `alignment` (bytes, a power of two)
    defaults to 16. Buffers whose total exceeds 48 KB are placed in dynamic
    shared memory by the lowering; the kernel verifier rejects kernels that
    exceed the 227 KB a Hopper block can have.

    `swizzle = 128` stores the tile's 16-byte chunks XOR-permuted within
    128-byte lines (lib/Dialect/Tile/IR/Swizzle.h), so that reading a
    column of rows (`ldmatrix`) hits no bank twice. Kernels keep using
    logical indices; tile-apply-swizzles rewrites the accesses. Rows wider
    than 128 bytes are stored in 128-byte panels, each whole before the
    next (the layout TMA writes box by box and wgmma reads). The buffer is
    then 128-byte aligned, 1024-byte for wgmma operands. `tile-infer-layouts`
    swizzles the shared operands of `tile.gemm` that allow it;
    `swizzle = 0` keeps a buffer plain.

    ```mlir
    %As = tile.alloc_shared {alignment = 128}
        : memref<64x32xf32, #gpu.address_space<workgroup>>
    %Bs = tile.alloc_shared {swizzle = 128}
        : memref<32x128xf16, #gpu.address_space<workgroup>>
    ```
  }];
  let arguments = (ins OptionalAttr<ConfinedAttr<I64Attr,
                                     [IntPositive, IntPowerOf2]>>:$alignment,
                       OptionalAttr<I64Attr>:$swizzle);
  // The allocation effect is on the result, so analyses can tell which
  // buffer it created.
  let results = (outs Res<AnyMemRef, "", [MemAlloc<DefaultResource>]>:$result);
  let assemblyFormat = "attr-dict `:` type($result)";
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// True when the buffer is stored swizzled (`swizzle = 128`).
    bool isSwizzled() { return getSwizzle().value_or(0) != 0; }
    /// The alignment the buffer gets: `alignment` (16 by default), at least
    /// a swizzle span when swizzled (bank conflicts depend on the address
    /// modulo 128).
    int64_t getEffectiveAlignment() {
      int64_t alignment = getAlignment().value_or(16);
      return isSwizzled() ? std::max<int64_t>(alignment, 128) : alignment;
    }
  }];
}

def Tile_AllocLocalOp : Tile_Op<"alloc_local", []> {
  let summary = "A per-thread buffer in registers or local memory";
  let description = [{
    Allocates a buffer private to the executing thread (registers when every
    access has a static index, local memory otherwise). Its shape is static;
    its memory space is the default one or `#gpu.address_space<private>`.

    ```mlir
    %acc = tile.alloc_local : memref<8xf32>
    ```
  }];
  let results = (outs Res<AnyMemRef, "",
                         [MemAlloc<AutomaticAllocationScopeResource>]>:$result);
  let assemblyFormat = "attr-dict `:` type($result)";
  let hasVerifier = 1;
}

def Tile_AllocFragmentOp : Tile_Op<"alloc_fragment", [
    DeclareOpInterfaceMethods<Tile_CollectiveOpInterface>]> {
  let summary = "A block-wide tile held in the threads' registers";
  let description = [{
    Allocates a fragment: a tile of static shape in the `#tile.fragment`
    memory space, distributed over the registers of the block's threads.
    Which thread holds which element is the fragment's layout: the compiler
    infers it (`tile-infer-layouts`) from the ops that use the fragment
    (the accumulator layout of the `tile.gemm` that writes it, the layout of
    another fragment a `tile.parallel` touches, else a blocked layout) and
    records it in `layout`, where it can be read, or given by hand.

    Fragments are accessed only by tile-level ops: `tile.copy` to and from
    shared or global memory (each thread moves the elements it holds),
    `tile.fill` / `tile.clear`, `tile.gemm`, and `tile.parallel` loops over
    the fragment's index space. Like shared buffers they stand at the top
    level of the kernel body.

    ```mlir
    %acc = tile.alloc_fragment : memref<128x128xf32, #tile.fragment>
    ```
  }];
  let arguments = (ins OptionalAttr<Tile_LayoutAttr>:$layout);
  let results = (outs Res<AnyStaticShapeMemRef, "",
                         [MemAlloc<AutomaticAllocationScopeResource>]>:$result);
  let assemblyFormat = "attr-dict `:` type($result)";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Loops
//===----------------------------------------------------------------------===//

/// A one-dimensional loop `%iv = %lb to %ub step %step`, optionally
/// carrying values from one iteration to the next (`iter_args`, as in
/// `scf.for`). Parsing, printing, verification and LoopLikeOpInterface are
/// shared by the family (LoopOps.cpp); `constantBounds` marks the loops
/// expanded at compile time, `carriesValues` those that take `iter_args`.
class Tile_RangeLoopOp<string mnemonic, list<Trait> traits = [],
                       bit constantBounds = 0, bit carriesValues = 1>
    : Tile_Op<mnemonic, !listconcat(traits, [
        AutomaticAllocationScope, RecursiveMemoryEffects,
        SingleBlockImplicitTerminator<"YieldOp">,
        DeclareOpInterfaceMethods<LoopLikeOpInterface,
          ["getLoopInductionVars", "getLoopLowerBounds",
           "getLoopUpperBounds", "getLoopSteps", "getInitsMutable",
           "getRegionIterArgs", "getYieldedValuesMutable",
           "getLoopResults"]>])> {
  let arguments = (ins Index:$lowerBound, Index:$upperBound, Index:$step,
                       Variadic<AnyType>:$initArgs);
  let results = (outs Variadic<AnyType>:$results);
  let regions = (region SizedRegion<1>:$body);
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The loop's induction variable.
    ::mlir::BlockArgument getInductionVar() {
      return getBody().getArgument(0);
    }
    /// The trip count when the bounds and the step are constants.
    std::optional<int64_t> getConstantTripCount();
  }];
  let extraClassDefinition = [{
    ::mlir::ParseResult $cppClass::parse(::mlir::OpAsmParser &parser,
                                         ::mlir::OperationState &result) {
      return detail::parseRangeLoop(
          parser, result,
          [](::mlir::Region &region, ::mlir::Builder &builder,
             ::mlir::Location loc) {
            $cppClass::ensureTerminator(region, builder, loc);
          });
    }
    void $cppClass::print(::mlir::OpAsmPrinter &p) {
      detail::printRangeLoop(p, *this);
    }
    ::llvm::LogicalResult $cppClass::verify() {
      return detail::verifyRangeLoop(*this, }] #
      !if(constantBounds, "true", "false") # ", " #
      !if(carriesValues, "true", "false") # [{);
    }
    ::llvm::SmallVector<::mlir::Region *> $cppClass::getLoopRegions() {
      return {&getBody()};
    }
    std::optional<::llvm::SmallVector<::mlir::Value>>
    $cppClass::getLoopInductionVars() {
      return ::llvm::SmallVector<::mlir::Value>{getInductionVar()};
    }
    std::optional<::llvm::SmallVector<::mlir::OpFoldResult>>
    $cppClass::getLoopLowerBounds() {
      return ::llvm::SmallVector<::mlir::OpFoldResult>{getLowerBound()};
    }
    std::optional<::llvm::SmallVector<::mlir::OpFoldResult>>
    $cppClass::getLoopUpperBounds() {
      return ::llvm::SmallVector<::mlir::OpFoldResult>{getUpperBound()};
    }
    std::optional<::llvm::SmallVector<::mlir::OpFoldResult>>
    $cppClass::getLoopSteps() {
      return ::llvm::SmallVector<::mlir::OpFoldResult>{getStep()};
    }
    ::llvm::MutableArrayRef<::mlir::OpOperand> $cppClass::getInitsMutable() {
      return getInitArgsMutable();
    }
    ::mlir::Block::BlockArgListType $cppClass::getRegionIterArgs() {
      return getBody().getArguments().drop_front();
    }
    std::optional<::llvm::MutableArrayRef<::mlir::OpOperand>>
    $cppClass::getYieldedValuesMutable() {
      return getBody().front().getTerminator()->getOpOperands();
    }
    std::optional<::mlir::ResultRange> $cppClass::getLoopResults() {
      return getResults();
    }
    std::optional<int64_t> $cppClass::getConstantTripCount() {
      return ::mlir::tile::getConstantTripCount(getLowerBound(),
                                                getUpperBound(), getStep());
    }
  }];
  let skipDefaultBuilders = 1;
  let builders = [OpBuilder<(ins "::mlir::Value":$lowerBound,
                                 "::mlir::Value":$upperBound,
                                 "::mlir::Value":$step,
                                 CArg<"::mlir::ValueRange", "{}">:$initArgs),
    [{
      detail::buildRangeLoop($_builder, $_state, lowerBound, upperBound, step,
                             initArgs);
    }]>];
}

def Tile_SerialOp : Tile_RangeLoopOp<"serial"> {
  let summary = "A sequential loop run by each thread";
  let description = [{
    Runs its body for `%iv = %lb, %lb + %step, ...` while `%iv < %ub`, in
    order, in every thread. The step must be positive. Tile-level ops in the
    body are allowed when the bounds are uniform across the block.

    Values can be carried from one iteration to the next, as in `scf.for`:
    `iter_args` binds one block argument per initial value, the body ends
    with a `tile.yield` of the next values, and the loop returns the last
    ones (the initial values when it runs no iteration). Scalars and vectors
    are carried; buffers are not (pass the buffer itself). A carried value
    may differ between threads (a per-thread partial sum) without making the
    loop divergent: only the bounds decide that.

    ```mlir
    tile.serial %k = %c0 to %c64 step %c1 {
      ...
    }
    %sum = tile.serial %k = %c0 to %cK step %c1
        iter_args(%acc = %zero) -> (f32) {
      %a = memref.load %A[%k] : memref<1024xf32>
      %next = arith.addf %acc, %a : f32
      tile.yield %next : f32
    }
    ```
  }];
}

def Tile_UnrollOp : Tile_RangeLoopOp<"unroll", [], /*constantBounds=*/1> {
  let summary = "A sequential loop that is fully unrolled";
  let description = [{
    Same semantics as `tile.serial`; the lowering unrolls it completely, so
    the bounds and the step must be constants. Use it to keep per-thread
    buffers in registers. At most 4096 iterations, and one unrolled loop
    (nested unrolled loops included) creates at most 8192 operations
    (docs/TileDialect.md, "Limits"). Carries values with `iter_args` like
    `tile.serial`: unrolled, each iteration's yielded values feed the next
    copy of the body directly.

    ```mlir
    tile.unroll %i = %c0 to %c8 step %c1 {
      ...
    }
    %dot = tile.unroll %l = %c0 to %c32 step %c1
        iter_args(%s = %acc) -> (f32) {
      %a = memref.load %a_regs[%l] : memref<32xf32>
      %b = memref.load %b_regs[%l] : memref<32xf32>
      %t = math.fma %a, %b, %s : f32
      tile.yield %t : f32
    }
    ```
  }];
}

def Tile_VectorizedOp : Tile_RangeLoopOp<"vectorized", [],
    /*constantBounds=*/1, /*carriesValues=*/0> {
  let summary = "A per-thread loop turned into vector memory accesses";
  let description = [{
    Same semantics as `tile.serial` without `iter_args`, with constant
    bounds and step. The vectorizer turns the loads and stores of the body into vector accesses of
    up to 128 bits when it proves them contiguous and aligned; otherwise it
    keeps scalar code and emits a remark that says why. At most 4096
    iterations; its copies count toward the 8192 operations of one
    unrolled loop (docs/TileDialect.md, "Limits").

    ```mlir
    tile.vectorized %k = %c0 to %c8 step %c1 {
      %v = memref.load %A[%k] : memref<1024xf16>
      memref.store %v, %a[%k] : memref<8xf16>
    }
    ```
  }];
}

def Tile_PipelinedOp : Tile_RangeLoopOp<"pipelined", [
    DeclareOpInterfaceMethods<Tile_CollectiveOpInterface>]> {
  let summary = "A software-pipelined loop over K tiles";
  let description = [{
    A collective loop whose copies into shared memory run `stages - 1`
    iterations ahead of the computation that reads them: the lowering
    multi-buffers the shared buffers written by `tile.copy` in the body,
    turns those copies into asynchronous copies, and emits the prologue, the
    waits and the epilogue. `stages = 1` is an ordinary serial loop; at most
    16 stages. The bounds must be uniform across the block. It carries
    values with `iter_args` like `tile.serial` (a running sum or maximum);
    the copies, which run ahead, must not depend on them.

    By default the lowering unrolls the loop by the stage count, so that
    every stage is a buffer of its own at a constant address. With `rolled`
    it keeps one copy of the body: the stages are slices of one shared
    allocation and each iteration picks its slices by `iteration mod
    stages` (a few address instructions per iteration; the code, and the
    compile time, no longer grow with the stage count).

    ```mlir
    tile.pipelined %k = %c0 to %c64 step %c1 stages 3 {
      tile.copy %A[%m0, %k] to %As : memref<1024x2048xf32> to
          memref<64x32xf32, #gpu.address_space<workgroup>>
      ...
    }
    tile.pipelined %t = %c0 to %cN step %c1 stages 6 rolled { ... }
    ```
  }];
  let arguments = (ins Index:$lowerBound, Index:$upperBound, Index:$step,
                       Variadic<AnyType>:$initArgs, I64Attr:$stages,
                       UnitAttr:$rolled);
  let builders = [OpBuilder<(ins "::mlir::Value":$lowerBound,
                                 "::mlir::Value":$upperBound,
                                 "::mlir::Value":$step, "int64_t":$stages),
    [{
      $_state.addAttribute(getStagesAttrName($_state.name),
                           $_builder.getI64IntegerAttr(stages));
      detail::buildRangeLoop($_builder, $_state, lowerBound, upperBound, step,
                             /*initArgs=*/{});
    }]>];
}

def Tile_ParallelOp : Tile_Op<"parallel", [
    AutomaticAllocationScope, RecursiveMemoryEffects,
    SingleBlockImplicitTerminator<"YieldOp">,
    DeclareOpInterfaceMethods<Tile_CollectiveOpInterface>]> {
  let summary = "A tile-level loop nest distributed over the block's threads";
  let description = [{
    Runs its body once for every point of the static iteration space
    `[0, e0) x [0, e1) x ...`; the iterations are distributed over the
    threads of the block (the innermost dimension fastest, so that contiguous
    accesses are coalesced and vectorized). Iterations are independent: the
    body must not depend on the order in which they run. Collective.

    ```mlir
    tile.parallel (%i, %j) in [64, 32] {
      %v = memref.load %As[%i, %j] : memref<64x32xf32, #gpu.address_space<workgroup>>
      ...
    }
    ```

    Over a fragment (a `#tile.fragment` memref accessed in the body at
    exactly the induction variables), iteration `(i, j)` runs on the thread
    that holds element `(i, j)`: elementwise code on a register tile (scale,
    bias, activation, cast) is written once, with no thread index.
    `tile-infer-layouts` records the fragment's layout in `layout`; every
    fragment the body touches must have that layout.
  }];
  let arguments = (ins DenseI64ArrayAttr:$extents,
                       OptionalAttr<Tile_LayoutAttr>:$layout);
  let regions = (region SizedRegion<1>:$body);
  let skipDefaultBuilders = 1;
  let builders = [OpBuilder<(ins "::llvm::ArrayRef<int64_t>":$extents)>];
  let extraClassDeclaration = [{
    /// The induction variables, outermost first.
    ::mlir::Block::BlockArgListType getInductionVars() {
      return getBody().getArguments();
    }
  }];
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
}

def Tile_ForEachOwnedOp : Tile_Op<"for_each_owned", [
    RecursiveMemoryEffects, SingleBlockImplicitTerminator<"YieldOp">]> {
  let summary = "Thread-level code over the fragment elements a thread holds";
  let description = [{
    The escape hatch of fragments: every thread runs the body once for each
    element of `fragment` it holds, in register order, with the register's
    number and the element's coordinates. The body is ordinary per-thread
    code: it reads and writes the element (`memref.load` / `memref.store` of
    the fragment, or of another fragment of the same layout, at exactly the
    coordinates), and may use thread indices, shuffles and any other
    thread-level op. Every thread runs the same number of iterations, so
    warp-wide ops (`gpu.shuffle`) are safe in it. Not collective: barrier
    insertion treats the whole op as one step of per-thread code.

    ```mlir
    tile.for_each_owned %acc (%r, %i, %j) : memref<64x64xf32, #tile.fragment> {
      %t = tile.thread_id x
      ... // per-thread code: element (%i, %j) is this thread's register %r
    }
    ```

    After `tile-lower-fragments` the loop is unrolled: `%r` is a constant,
    `(%i, %j)` the layout's coordinates of that register for the thread.
  }];
  let arguments = (ins Arg<AnyStaticShapeMemRef, "fragment">:$fragment);
  let regions = (region SizedRegion<1>:$body);
  let extraClassDeclaration = [{
    /// The register number, then the coordinates.
    ::mlir::BlockArgument getRegister() { return getBody().getArgument(0); }
    ::mlir::Block::BlockArgListType getCoordinates() {
      return getBody().getArguments().drop_front();
    }
  }];
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Data movement
//===----------------------------------------------------------------------===//

def Tile_CopyOp : Tile_Op<"copy", [
    AttrSizedOperandSegments,
    DeclareOpInterfaceMethods<Tile_CollectiveOpInterface, ["isCollective"]>]> {
  let summary = "Copies a tile between global, shared and local memory";
  let description = [{
    Copies a tile of static shape from `source` to `target`. An operand
    written with indices (`%A[%i, %j]`) is accessed at the tile that starts
    there; an operand written without indices is accessed as a whole and its
    shape is the tile shape. When both have indices the tile shape is given
    with `shape [..]`. Both operands have the same rank and element type.

    Bounds are handled: source elements outside the source memref read as
    zero, and target elements outside the target memref are not written.

    A copy between global and shared memory is collective: the elements are
    distributed over the block's threads, innermost dimension fastest, with
    vector accesses of up to 128 bits where contiguity and alignment allow. A
    copy that involves a per-thread buffer (`tile.alloc_local`) is performed
    by each thread on its own.

    ```mlir
    tile.copy %A[%m0, %k0] to %As
        : memref<1024x2048xf32> to memref<64x32xf32, #gpu.address_space<workgroup>>
    ```

    Between two fragments the copy is register to register, so both have
    one layout (layout inference gives them the same). With
    `convert_layout` they keep their own layouts and the copy goes through
    a shared-memory tile of the target's element type (two copies, the
    barrier between them placed by barrier insertion): the explicit way
    out of a layout conflict.
  }];
  let arguments = (ins Arg<AnyMemRef, "tile source", [MemRead]>:$source,
                       Variadic<Index>:$sourceIndices,
                       Arg<AnyMemRef, "tile target", [MemWrite]>:$target,
                       Variadic<Index>:$targetIndices,
                       OptionalAttr<DenseI64ArrayAttr>:$shape,
                       UnitAttr:$convert_layout);
  let assemblyFormat = [{
    $source (`[` $sourceIndices^ `]`)? `to` $target (`[` $targetIndices^ `]`)?
    (`shape` $shape^)? attr-dict `:` type($source) `to` type($target)
  }];
  let extraClassDeclaration = [{
    /// The static shape of the copied tile.
    ::llvm::SmallVector<int64_t> getTileShape();
  }];
  let hasVerifier = 1;
}

def Tile_MBarrierGroup : Type<
    CPred<"::llvm::isa<::mlir::nvgpu::MBarrierGroupType>($_self)">,
    "a group of mbarriers (!nvgpu.mbarrier.group)">;

def Tile_WgmmaWaitOp : Tile_Op<"wgmma_wait"> {
  let summary = "Waits for the warp group's earlier wgmma groups";
  let description = [{
    Waits until at most `pending` of the warp group's most recent groups of
    wgmma MMAs are in flight (`wgmma.wait_group pending`), and ties the
    registers of `fragments`, the accumulators of the gemms the wait
    retires, to it: their readers come after the wait, in LLVM and in
    ptxas. Placed by tile-schedule-wgmma-waits after gemms it marks
    `tile.wgmma_deferred`, before the first op that reads or writes their
    registers or their shared operands, so that the MMAs of a gemm run
    while the ops in between do (attention's O += P V during the next
    block's softmax).

    ```mlir
    tile.wgmma_wait 1, %S : memref<128x128xf32, #tile.fragment<...>>
    ```
  }];
  let arguments = (ins I64Attr:$pending,
                       Arg<Variadic<AnyMemRef>, "accumulators",
                           [MemRead, MemWrite]>:$fragments);
  let assemblyFormat = [{
    $pending (`,` $fragments^ `:` type($fragments))? attr-dict
  }];
  let hasVerifier = 1;
}

def Tile_TmaLoadOp : Tile_Op<"tma_load"> {
  let summary = "Copies a tile from a kernel argument into shared memory "
                "with the Tensor Memory Accelerator";
  let description = [{
    Starts an asynchronous copy of the tile of `source` that starts at
    `indices` into the whole of `target`, by the Tensor Memory Accelerator
    (TMA, sm_90 and later), and completes the target's bytes as transactions
    on mbarrier `barrierId` of `barriers`. Elements outside `source` read as
    zero, as `tile.copy` defines. Only the thread that runs the op issues
    the copy: it is the thread-level form of a `tile.copy`, made by
    tile-software-pipeline on sm_90a.

    `target` may have fewer dimensions than `source`: the box is one
    element along the source's leading dimensions that the target lacks (a
    tile of one head of a [batch, heads, seq, d] tensor).

    `source` is a memref argument of the kernel (up to rank 5): the launcher
    encodes a tensor map for it on the host (`cuTensorMapEncodeTiled`),
    which tile-to-gpu appends to the kernel's parameters and lists in the
    gpu.func's `tile.tensor_maps` attribute (docs/KernelABI.md). With
    `swizzle = 128` the target is a 128-byte-swizzled tile (IR/Swizzle.h):
    rows wider than 128 bytes are stored in 128-byte panels, and the copy
    issues one TMA load per panel.

    With `round_tf32` (f32 tiles) the copy rounds every element to tf32 on
    the way, to nearest with ties to even, as cuBLAS's TF32 mode does: the
    tensor map's data type is TFLOAT32 rather than 32-bit words. The tf32
    wgmma gemms of a warp-specialized consumer read their tiles so rounded
    (tile-lower-warp-specialize): the tensor cores themselves drop the low
    13 mantissa bits of an f32.

    ```mlir
    tile.tma_load %A[%m0, %k0] to %As, %barriers[%stage] {swizzle = 128}
        : memref<?x?xf16> to memref<128x64xf16, #gpu.address_space<workgroup>>,
          !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 4>
    ```
  }];
  let arguments = (ins Arg<AnyMemRef, "tile source", [MemRead]>:$source,
                       Variadic<Index>:$indices,
                       Arg<AnyStaticShapeMemRef, "tile target",
                           [MemWrite]>:$target,
                       Tile_MBarrierGroup:$barriers, Index:$barrierId,
                       DefaultValuedAttr<I64Attr, "0">:$swizzle,
                       UnitAttr:$round_tf32);
  let assemblyFormat = [{
    $source `[` $indices `]` `to` $target `,` $barriers `[` $barrierId `]`
    attr-dict `:` type($source) `to` type($target) `,` type($barriers)
  }];
  let extraClassDeclaration = [{
    /// The box of one TMA load: the target's shape, its innermost extent
    /// cut to one 128-byte panel when swizzled.
    ::llvm::SmallVector<int64_t> getBox();
    /// The bytes the copy completes on the mbarrier.
    int64_t getTransactionBytes();
  }];
  let hasVerifier = 1;
}

def Tile_TmaStoreOp : Tile_Op<"tma_store"> {
  let summary = "Copies a shared tile into a kernel argument with the Tensor "
                "Memory Accelerator";
  let description = [{
    Starts an asynchronous copy of the whole of `source` (shared memory)
    into the tile of `target` that starts at `indices`, by the Tensor
    Memory Accelerator (TMA, sm_90 and later), and commits it as one bulk
    async-group of the issuing thread. Elements outside `target` are not
    written. Only the thread that runs the op issues the copy; before it,
    the threads that wrote `source` fence their writes for the async proxy
    (`nvvm.fence.proxy`, `async.shared::cta`) and meet at a barrier. The
    issuing thread waits with `nvvm.cp.async.bulk.wait_group N {read}`
    before `source` is written again or the block exits. tile-lower-
    fragments makes it for the copy of an accumulator out to global memory
    on sm_90a (docs/TensorCores.md, "TMA-store epilogue").

    `target` is a memref argument of the kernel, whose tensor map the
    launcher encodes as for `tile.tma_load` (the same limits apply);
    `swizzle = 128`: `source` is a 128-byte-swizzled tile, one box per
    128-byte panel.

    ```mlir
    tile.tma_store %Cs to %C[%m0, %n0] {swizzle = 128}
        : memref<128x64xf16, #gpu.address_space<workgroup>> to memref<?x?xf16>
    ```
  }];
  let arguments = (ins Arg<AnyStaticShapeMemRef, "tile source",
                           [MemRead]>:$source,
                       Arg<AnyMemRef, "tile target", [MemWrite]>:$target,
                       Variadic<Index>:$indices,
                       DefaultValuedAttr<I64Attr, "0">:$swizzle);
  let assemblyFormat = [{
    $source `to` $target `[` $indices `]` attr-dict `:` type($source) `to`
    type($target)
  }];
  let extraClassDeclaration = [{
    /// The box of one TMA store: the source's shape, its innermost extent
    /// cut to one 128-byte panel when swizzled.
    ::llvm::SmallVector<int64_t> getBox();
  }];
  let hasVerifier = 1;
}

def Tile_FillOp : Tile_Op<"fill", [
    DeclareOpInterfaceMethods<Tile_CollectiveOpInterface, ["isCollective"]>,
    TypesMatchWith<"value type matches the buffer's element type",
                   "buffer", "value",
                   "::llvm::cast<::mlir::MemRefType>($_self).getElementType()">]> {
  let summary = "Sets every element of a buffer to a value";
  let description = [{
    Writes `value` to every element of `buffer`. On shared or global memory
    it is collective and the elements are distributed over the block's
    threads; on a per-thread buffer each thread fills its own.

    ```mlir
    tile.fill %Cs, %zero : memref<64x64xf32, #gpu.address_space<workgroup>>
    ```
  }];
  let arguments = (ins Arg<AnyStaticShapeMemRef, "filled buffer",
                           [MemWrite]>:$buffer, AnyType:$value);
  let assemblyFormat = "$buffer `,` $value attr-dict `:` type($buffer)";
}

def Tile_ClearOp : Tile_Op<"clear", [
    DeclareOpInterfaceMethods<Tile_CollectiveOpInterface, ["isCollective"]>]> {
  let summary = "Sets every element of a buffer to zero";
  let description = [{
    `tile.fill` with zero of the element type.

    ```mlir
    tile.clear %acc : memref<8xf32>
    ```
  }];
  let arguments = (ins Arg<AnyStaticShapeMemRef, "cleared buffer",
                           [MemWrite]>:$buffer);
  let assemblyFormat = "$buffer attr-dict `:` type($buffer)";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Matrix multiplication
//===----------------------------------------------------------------------===//

def Tile_GemmLoweringAuto : I32EnumAttrCase<"automatic", 0, "auto">;
def Tile_GemmLoweringMmaSync : I32EnumAttrCase<"mma_sync", 1>;
def Tile_GemmLoweringScalar : I32EnumAttrCase<"scalar", 2>;
def Tile_GemmLoweringWgmma : I32EnumAttrCase<"wgmma", 3>;
def Tile_GemmLowering : I32EnumAttr<"GemmLowering",
    "the instructions a tile.gemm lowers to",
    [Tile_GemmLoweringAuto, Tile_GemmLoweringMmaSync,
     Tile_GemmLoweringScalar, Tile_GemmLoweringWgmma]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::mlir::tile";
}
def Tile_GemmLoweringAttr : EnumAttr<Tile_Dialect, Tile_GemmLowering,
                                     "gemm_lowering"> {
  let assemblyFormat = "`<` $value `>`";
}

def Tile_GemmOp : Tile_Op<"gemm", [
    DeclareOpInterfaceMethods<Tile_CollectiveOpInterface>]> {
  let summary = "Matrix product of tiles into a fragment accumulator";
  let description = [{
    `C += A * B` (or `C = A * B` with `clear`), collectively by the block:
    `A` is an `M x K` tile (stored `K x M` with `transpose_a`) and `B` a
    `K x N` tile (stored `N x K` with `transpose_b`, as for `Q * K^T`), both
    in shared memory; `C` is an `M x N` fragment. Element types: `f16` x
    `f16` into `f32` or `f16`, `bf16` x `bf16` into `f32`, and `f32` x `f32`
    into `f32` (TF32 on tensor cores: inputs rounded to 10 mantissa bits).

    The block's warps tile `C`: `warps = [Wm, Wn]`, inferred by
    `tile-infer-layouts` when absent, gives each warp an
    `M/Wm x N/Wn` sub-tile, and `C`'s layout is the tensor-core accumulator
    layout for that split. `lowering` picks the instructions: `mma_sync`
    (`ldmatrix` + `mma.sync` m16n8k16, sm_80 and later), `wgmma`
    (`wgmma.mma_async` of warp groups reading A and B from shared memory
    through descriptors, sm_90a), `scalar` (each thread computes the
    elements of `C` it holds with FMAs: the CPU target, and any chip for
    debugging) or `auto` (the pipeline's choice).

    `wgmma` gives each warp group (4 warps) 64 rows of `C`, the warps
    split `M` only (`warps = [W, 1]`, `M = 16 W`, `W` a multiple of 4) and
    `C`'s layout is the same accumulator layout. `A` and `B` are whole
    `tile.alloc_shared` tiles, swizzled (128 bytes) and aligned to 1024
    bytes by layout inference, whose contiguous dimension spans a multiple
    of 128 bytes. The accumulator is `f32`. `f32` inputs (tf32) need `A`
    stored `M x K`, as the instruction reads tf32 only K-major from shared
    memory. With `B` stored `N x K` (`transpose_b`) both operands are read
    through descriptors; with `B` stored `K x N` the product is computed
    transposed, `C^T = B^T A^T`: the warp groups split `N` (64 columns
    each, `warps = [1, W]`, `N = 16 W`), each thread loads its part of
    `B^T` from shared memory into registers (the instruction's register A
    operand) and `C`'s layout is the transposed accumulator layout. A tf32
    wgmma rounds its descriptor operands to tf32 in place before the
    products (the tensor cores would truncate them), so afterwards those
    shared tiles hold the rounded values; in the consumer of a
    `tile.warp_specialize` the producer's other warps round them as TMA
    fills each stage.

    Shared tiles may be views (`memref.subview`) of padded buffers: rows
    padded by 16 bytes keep `ldmatrix` free of bank conflicts.

    `A` may instead be an `M x K` fragment of `f16` or `bf16` (not
    transposed), as `P` in attention's `O += P * V`: the warps then split
    `M` only (`warps = [W, 1]`), and `A`'s layout is the accumulator layout
    of an `M x K` product with those warps, which holds exactly the `A`
    operand registers of `mma.sync` m16n8k16 and of wgmma m64nNk16 (whose
    register form the wgmma lowering then uses). An accumulator converted to
    f16 (`tile.copy %S to %P`) feeds the next product without a trip
    through shared memory; layout inference gives the product that makes
    `S` the same warp split.

    ```mlir
    tile.gemm %As, %Bs, %acc
        : memref<128x32xf16, #gpu.address_space<workgroup>>,
          memref<32x128xf16, #gpu.address_space<workgroup>>,
          memref<128x128xf32, #tile.fragment>
    ```
  }];
  let arguments = (ins Arg<AnyMemRef, "A tile", [MemRead]>:$a,
                       Arg<AnyMemRef, "B tile", [MemRead]>:$b,
                       Arg<AnyStaticShapeMemRef, "accumulator",
                           [MemRead, MemWrite]>:$c,
                       UnitAttr:$transpose_a, UnitAttr:$transpose_b,
                       UnitAttr:$clear,
                       OptionalAttr<DenseI64ArrayAttr>:$warps,
                       OptionalAttr<Tile_GemmLoweringAttr>:$lowering);
  let assemblyFormat = [{
    $a `,` $b `,` $c attr-dict `:` type($a) `,` type($b) `,` type($c)
  }];
  let extraClassDeclaration = [{
    /// M, N and K.
    int64_t getM();
    int64_t getN();
    int64_t getK();
    /// The constraints of the wgmma lowering, for a block of `warps`.
    LogicalResult verifyWgmma(int64_t warps);
    /// True for a tf32 product (f32 operands): the tensor cores truncate
    /// f32 to tf32, so every lowering but the scalar one rounds the
    /// operands first, or reads tiles a TMA copy rounded
    /// (tile.tf32_rounded).
    bool isTF32();
    /// True for a tf32 product whose B is stored K x N: wgmma reads tf32
    /// only K-major from shared memory, so its wgmma lowering computes
    /// C^T = B^T A^T, B^T from registers, and the warps split N.
    bool isTransposedWgmma();
  }];
  let hasVerifier = 1;
}

def Tile_ReduceOp : Tile_Op<"reduce", [
    DeclareOpInterfaceMethods<Tile_CollectiveOpInterface>]> {
  let summary = "Reduces a fragment along one dimension into a smaller one";
  let description = [{
    Combines the elements of `source`, a fragment, along dimension `dim`
    and writes the result to `target`, a fragment of the source's shape
    without that dimension (a rank-1 source reduces to `memref<1x...>`).
    Without `clear` the result is combined with what `target` holds (a
    running maximum or sum). Operators: `add`, `mul`, `max`, `min` on
    floats and integers, `and`, `or`, `xor` on integers. Collective.

    The target's layout is the source's with the reduced coordinate
    dropped (inferred by `tile-infer-layouts`): every thread that holds
    part of a row holds that row's result, so `tile.parallel` over the
    source can read it as `%target[%i]` (a broadcast) with no data
    movement. The compiler combines each thread's own elements first, then
    the threads that share a row with warp shuffles, and across warps
    through shared memory only where the layout spreads a row over warps.

    ```mlir
    tile.reduce max %S into %rowmax dim 1 clear
        : memref<64x64xf32, #tile.fragment> into memref<64xf32, #tile.fragment>
    ```
  }];
  let arguments = (ins Tile_ReduceKindAttr:$kind,
                       Arg<AnyStaticShapeMemRef, "reduced fragment",
                           [MemRead]>:$source,
                       Arg<AnyStaticShapeMemRef, "result fragment",
                           [MemRead, MemWrite]>:$target,
                       I64Attr:$dim, UnitAttr:$clear);
  let assemblyFormat = [{
    custom<ReduceKindKeyword>($kind) $source `into` $target `dim` $dim
    (`clear` $clear^)? attr-dict `:` type($source) `into` type($target)
  }];
  let extraClassDeclaration = [{
    /// The target's shape for a source of `shape` reduced along `dim`.
    static ::llvm::SmallVector<int64_t>
    getReducedShape(::llvm::ArrayRef<int64_t> shape, int64_t dim);
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Atomics and reductions
//===----------------------------------------------------------------------===//

def Tile_AtomicAddOp : Tile_Op<"atomic_add"> {
  let summary = "Atomically adds a value to an element of memory";
  let description = [{
    Atomically adds `value` to `memref[indices]` in global or shared memory
    and, when a result is requested, returns the value held before. Element
    types: `f32`, `f16`, `bf16`, `i32`. A `vector<2xf16>` or
    `vector<2xbf16>` value adds to two consecutive elements at once (packed
    atomics); the index of the first must be even. Each thread performs its
    own atomic; the op is not collective.

    ```mlir
    tile.atomic_add %Cs[%tn], %part : memref<64xf32, #gpu.address_space<workgroup>>, f32
    %old = tile.atomic_add %C[%i], %v : memref<1024xf16>, vector<2xf16> -> vector<2xf16>
    ```
  }];
  let arguments = (ins Arg<AnyMemRef, "updated buffer",
                           [MemRead, MemWrite]>:$memref,
                       Variadic<Index>:$indices, AnyType:$value);
  let results = (outs Optional<AnyType>:$old);
  let assemblyFormat = [{
    $memref `[` $indices `]` `,` $value attr-dict `:` type($memref) `,`
    type($value) (`->` type($old)^)?
  }];
  let hasVerifier = 1;
}

def Tile_ThreadAllReduceOp : Tile_Op<"thread_allreduce", [
    DeclareOpInterfaceMethods<Tile_CollectiveOpInterface>,
    DeclareOpInterfaceMethods<MemoryEffectsOpInterface>]> {
  let summary = "Reduces a value or a per-thread buffer across a subset of the block's dimensions";
  let description = [{
    Combines `value` over the threads that differ only along the listed
    thread-block dimensions, independently for each position along the
    others, and returns the result to every one of them. `across(y)` in a
    block of `threads [2, 32]` gives two independent reductions of 32 values.
    Any extent is supported, including non-powers of two. Operators: `add`,
    `mul`, `max`, `min` on `f16`, `bf16`, `f32`, `i32`, and `and`, `or`,
    `xor` on `i32`. Collective: every thread of the block must reach it.

    The buffer form takes a per-thread buffer (`tile.alloc_local`, static
    shape) instead of a value and has no result: every element is combined
    across the threads of the group, in place, so that afterwards each of
    them holds the same combined buffer. A register tile computed in parts
    by several threads is summed this way (a split-K GEMM's partial tiles).

    ```mlir
    %sum = tile.thread_allreduce add %part across(y) : f32
    tile.thread_allreduce add %acc across(z) : memref<8x8xf32>
    ```
  }];
  let arguments = (ins Tile_ReduceKindAttr:$kind, AnyType:$value,
                       Tile_DimArrayAttr:$dims);
  let results = (outs Optional<AnyType>:$result);
  let assemblyFormat = [{
    custom<ReduceKindKeyword>($kind) $value `across` `(` custom<DimList>($dims) `)` attr-dict `:`
    type($value) custom<AllReduceResult>(ref(type($value)), type($result))
  }];
  let extraClassDeclaration = [{
    /// The per-thread buffer of the buffer form, or null for a value.
    TypedValue<MemRefType> getBuffer() {
      return dyn_cast<TypedValue<MemRefType>>(getValue());
    }
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Warp specialization
//===----------------------------------------------------------------------===//

def Tile_WarpSpecializeOp : Tile_Op<"warp_specialize", [
    RecursiveMemoryEffects, AttrSizedOperandSegments,
    DeclareOpInterfaceMethods<Tile_CollectiveOpInterface>]> {
  let summary = "A producer/consumer pipeline between warp groups";
  let description = [{
    Splits the block's threads into a consumer warp group set (the first
    `consumer` threads, by linear thread index) and a producer set (the
    rest), and runs a pipeline of `stages` stages over the iterations
    `%iv = %lb to %ub step %step`. For every iteration the producer region
    fills stage `%stage = (iteration number) mod stages` and the consumer
    region reads it. The lowering creates a "full" and an "empty" mbarrier per
    stage with phase tracking, so a stage is never overwritten before the
    consumer has released it, nor read before the producer has filled it.

    The stages are given in one of two ways:
    - `buffers`: shared buffers whose leading dimension is the stage, which
      the regions index with `%stage` (thread-level code);
    - `tiles`: whole `tile.alloc_shared` tiles of one stage, which the op
      multiplies by `stages`. In the regions a tile names the iteration's
      stage, so tile-level code (`tile.copy` into it, `tile.gemm` from it)
      needs no stage index. On sm_90a the producer's copies of global tiles
      into them become TMA copies completing on the stage's mbarrier.

    The consumer threads come first so that what they hold after the op (a
    `tile.gemm` accumulator, per-thread results) sits where it would without
    specialization. Both thread counts are whole warp groups (multiples of
    128) and add up to the block. `regs` sets the per-thread register count
    of a role on sm_90a (`setmaxnreg`: a multiple of 8 in [24, 256]).

    `pingpong` (after the consumer's `threads` and `regs`) makes a consumer
    of several warp groups take turns issuing its wgmma gemms on sm_90a: in
    each iteration a warp group waits for its turn before the first op of
    the region's top level that is or holds a gemm (an `scf.if` guarding
    one, which tile-peel-guarded-gemms takes out of its branch) and passes
    the turn on after the last (named barriers), so that one group's MMAs run while the others compute
    on their results (FlashAttention-3's ping-pong schedule). It changes no
    result; the CPU target runs the turns too.

    ```mlir
    tile.warp_specialize %c0 to %kt step %c1 stages 4
        tiles(%As, %Bs : memref<128x64xf16, #gpu.address_space<workgroup>>,
                         memref<64x256xf16, #gpu.address_space<workgroup>>)
        producer(%k, %stage) threads 128 regs 40 {
      tile.copy %A[%m0, %k0] to %As : ...
      tile.copy %B[%k0, %n0] to %Bs : ...
    } consumer(%k, %stage) threads 256 regs 232 {
      tile.gemm %As, %Bs, %acc : ...
    }
    ```
  }];
  let arguments = (ins Index:$lowerBound, Index:$upperBound, Index:$step,
                       Variadic<AnyStaticShapeMemRef>:$buffers,
                       Variadic<AnyStaticShapeMemRef>:$tiles,
                       I64Attr:$stages,
                       I64Attr:$producerThreads,
                       I64Attr:$consumerThreads,
                       OptionalAttr<I64Attr>:$producerRegs,
                       OptionalAttr<I64Attr>:$consumerRegs,
                       UnitAttr:$pingpong);
  let regions = (region SizedRegion<1>:$producer, SizedRegion<1>:$consumer);
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Synchronization and debugging
//===----------------------------------------------------------------------===//

def Tile_BarrierOp : Tile_Op<"barrier", [
    DeclareOpInterfaceMethods<Tile_CollectiveOpInterface>]> {
  let summary = "Waits until every thread of the block reaches this point";
  let description = [{
    A block-wide barrier (`__syncthreads`) that also orders the block's
    shared-memory accesses. Barrier insertion places the barriers kernels
    need; this op is the escape hatch for writing one by hand. Collective.

    ```mlir
    tile.barrier
    ```
  }];
  let assemblyFormat = "attr-dict";
}

def Tile_PrintOp : Tile_Op<"print"> {
  let summary = "Prints values from the device, tagged with the thread";
  let description = [{
    Prints `format` with each `{}` replaced by the next value, prefixed with
    the block and thread coordinates of the printing thread, like
    `[block (3,0,0) thread (17,1,0)] acc = 1.5`. Values are integers, index
    or floats. Each thread prints; guard it with `scf.if` to print from one.

    ```mlir
    tile.print "acc = {} at k = {}" %acc, %k : f32, index
    ```
  }];
  let arguments = (ins StrAttr:$format, Variadic<AnyTypeOf<[AnyInteger, Index,
                                                 AnyFloat]>>:$values);
  let assemblyFormat = "$format ($values^ `:` type($values))? attr-dict";
  let hasVerifier = 1;
}

#endif // TILE_DIALECT_TILE_IR_TILEOPS_TD
