//===- Passes.td - Serialization of GPU code ---------------*- tablegen -*-===//
//
// The passes at the end of the GPU pipeline that turn gpu.modules into PTX
// and write it out, implemented next to the pipeline in lib/Pipelines.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_PIPELINES_PASSES_TD
#define TILE_PIPELINES_PASSES_TD

include "mlir/Pass/PassBase.td"

def TileSerializeToPTX : Pass<"tile-serialize-to-ptx", "::mlir::ModuleOp"> {
  let summary = "Compile every gpu.module to a gpu.binary holding PTX, in parallel";
  let description = [{
    `gpu-module-to-binary{format=isa}`, with the modules compiled
    concurrently (MLIR's thread pool; `--mlir-disable-threading` makes it
    sequential). `tile-to-gpu` puts every kernel in a `gpu.module` of its
    own, so a file's compile time is that of its largest kernel rather than
    the sum. Each module needs a target attribute (`nvvm-attach-target`);
    the binaries keep the modules' names and order.

    The LLVM IR pipeline is the target's O level's default, as upstream's
    serialization runs it, unless `llvm-passes` gives one (LLVM's `opt
    -passes=` syntax, or `lean`: one round of function simplification,
    lib/Pipelines/PTXSerializer.cpp) or, without it, the module's kernel
    does (`tile.kernel`'s `llvm_passes`, `tile.llvm_passes` on the
    module). libdevice is linked only into modules
    that call a function they do not define.

    The LLVM passes named in `skip-llvm-passes` do not run, in the IR
    pipeline (names as in opt's `-passes`) or the NVPTX backend (names as
    in llc's `-opt-disable`). The default list holds the passes measured to
    cost compile time and give nothing on tile kernels
    (`tile::kDefaultSkippedLLVMPasses`, lib/Pipelines/PTXSerializer.cpp
    says why for each); an empty list runs them all, and `default` in the
    list stands for the default list (`default,loop-reduce` adds LSR).
  }];
  let options = [
    Option<"toolkitPath", "toolkit", "std::string", "\"\"",
           "CUDA toolkit whose libdevice is linked when needed">,
    Option<"skipLLVMPasses", "skip-llvm-passes", "std::string",
           "::mlir::tile::kDefaultSkippedLLVMPasses",
           "Comma-separated LLVM passes not to run (IR pipeline and "
           "backend names; 'default': the default list; empty: run all)">,
    Option<"llvmPasses", "llvm-passes", "std::string", "\"\"",
           "LLVM IR pipeline, in opt's -passes syntax, or 'lean' (empty: "
           "each kernel's llvm_passes, else the O level's default "
           "pipeline)">
  ];
}

def TilePromoteRegisters : Pass<"tile-promote-registers"> {
  let summary = "Promote per-thread buffers read and written only at "
                "constant indices to SSA values";
  let description = [{
    Every element of a `memref.alloca` of static shape (a fragment's
    registers, a `tile.alloc_local` buffer) whose every use is a
    `memref.load` or `memref.store` (or a 1-D `vector.load` or
    `vector.store` along the last dimension) at constant in-bounds indices, in the
    CFG of a function, becomes SSA values: block arguments where stored
    values meet (the iterated dominance frontier of the storing blocks),
    each load replaced by the value of the dominating store, zero where
    none. A buffer with any other use (a view, a transfer, a dynamic
    index, an access in a nested region) is left as it is. Run after
    `convert-scf-to-cf`. Upstream `mem2reg` does the same one element at a
    time, which cost more than it saved on 128-register accumulators.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::vector::VectorDialect"];
}

def TileLLVMArrayAllocas : Pass<"tile-llvm-array-allocas"> {
  let summary = "Give each llvm.alloca of N > 1 elements the type [N x T]";
  let description = [{
    memref-to-llvm allocates a static memref as a count of elements
    (`llvm.alloca %c128 x f32`), an array allocation in LLVM IR, which
    LLVM's SROA leaves alone. The first InstCombine of the O3 pipeline
    rewrites it to `alloca [128 x float]`, so the registers of a fragment or
    a `tile.alloc_local` buffer were promoted only by the second SROA, after
    the loop passes, and every pass before it ran over their loads, stores
    and address computations. This pass makes each such alloca one element
    of an array type (`llvm.alloca %c1 x !llvm.array<128 x f32>`), which the
    first SROA promotes. The pointer is opaque, so its users are unchanged.
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect"];
}

def TileLowerAffine : Pass<"tile-lower-affine"> {
  let summary = "lower-affine, with the ranges of thread ids and loop "
                "counters";
  let description = [{
    Lowers each `affine.apply` whose divisions and remainders are by
    positive constants to `arith` ops, using the ranges its operands are
    known to lie in (thread and block ids, loop induction variables,
    constants, arithmetic of those: tile::getIndexRange). A subexpression
    whose range is one value becomes that constant (`(t mod 4 + 60)
    floordiv 64` is 0 for any thread t); a division or remainder of a
    non-negative value is unsigned, a shift or mask by a power of two;
    `a + b * -c` is a subtraction. Others keep their signed semantics
    (`arith.floordivsi`, `arith.ceildivsi`: arith-expand follows). Then,
    only when an affine op remains (`affine.for`, `affine.min`, an apply
    with a symbolic divisor), upstream's `lower-affine` runs.

    Upstream expands every floordiv and mod of a thread index into ops
    testing its sign, and LLVM's first InstCombine then spent its time
    proving them away: composed layout and swizzle maps made those most of
    the index arithmetic of a tensor-core kernel. And `lower-affine` is a
    dialect conversion over every op of the module, for the few it lowers.
  }];
}

def TileArithExpand : Pass<"tile-arith-expand"> {
  let summary = "arith-expand's patterns on the ops they rewrite only";
  let description = [{
    Applies upstream's `arith-expand` patterns (floordivsi, ceildivsi,
    ceildivui, maxsi ... as ops the LLVM conversion has) to the ops they
    are rooted at, and to nothing else; with none present, nothing runs.
    arith-expand itself is a dialect conversion over every op of the
    module, and after tile-lower-affine a kernel has a handful of such ops
    among thousands (attention 15 M instructions for two ops). Float
    extensions and truncations, which it rewrites only for the types its
    options name (none here), do not count. An op its patterns leave is an
    error, as in arith-expand.
  }];
}

def TileExpandViewsAndTransfers : Pass<"tile-expand-views-and-transfers"> {
  let summary = "expand-strided-metadata and convert-vector-to-scf, run only "
                "where their patterns apply";
  let description = [{
    Applies the upstream `expand-strided-metadata` patterns when the IR
    holds an op one of them is rooted at, to those ops and the ones they
    create only, and runs `convert-vector-to-scf` when it holds a vector
    transfer, gather or scatter; otherwise neither. The upstream passes
    drive their patterns greedily over every op of a module, folding each
    and simplifying regions: on a wgmma kernel of 2,600 ops without a view
    or a transfer they took a twentieth of the compile time for nothing,
    and on an attention kernel (three subviews among 10k ops) 4% of it.
  }];
}

def TileWritePTX : Pass<"tile-write-ptx", "::mlir::ModuleOp"> {
  let summary = "Write the PTX of every gpu.binary to a file";
  let description = [{
    Writes the PTX held by the `gpu.binary` ops of the module (one per
    kernel, from `tile-serialize-to-ptx` or
    `gpu-module-to-binary{format=isa}`). With one kernel, `output` receives
    it. With several, each kernel's PTX goes to a file of its own, named
    after the kernel: `out.ptx` becomes `out.k1.ptx`, `out.k2.ptx`; `-` and
    files that are not regular (`/dev/null`) receive them one after the
    other, each after a `// ===== kernel NAME` line. Fails when no PTX
    object is found.
  }];
  let options = [
    Option<"output", "output", "std::string", "\"-\"",
           "File that receives the PTX ('-' for standard output)">
  ];
}

#endif // TILE_PIPELINES_PASSES_TD
