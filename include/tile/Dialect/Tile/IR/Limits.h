//===- Limits.h - Compile-time expansion limits of the tile dialect -*- C++
//-*-===//
//
// Ops whose lowering copies code once per iteration, stage or element take
// the count from a constant. Past these limits the verifier or the pass that
// expands them reports an error naming the limit, instead of growing the IR
// until the compile takes minutes (docs/TileDialect.md, "Limits").
//
//===----------------------------------------------------------------------===//

#ifndef TILE_DIALECT_TILE_IR_LIMITS_H
#define TILE_DIALECT_TILE_IR_LIMITS_H

#include <cstdint>

namespace mlir::tile {

/// Most iterations of a `tile.unroll` or `tile.vectorized` loop (each is a
/// copy of the body in the compiled code).
constexpr int64_t kMaxUnrolledIterations = 4096;

/// Most operations one full unroll may create (iterations times the ops of
/// the body, nested ops included). Nested unrolled loops count their inner
/// copies, so this bounds a whole nest. Measured: 1630 copies of a global
/// load, an add and a store (at the limit) compile in 3.5 s; 4096 copies of
/// 6 such operations took 17 s, which is why the limit is not higher.
constexpr int64_t kMaxUnrolledOps = 8192;

/// Most stages of a `tile.pipelined` loop or a `tile.warp_specialize`
/// pipeline (each stage is a buffer and, unrolled, a copy of the body).
constexpr int64_t kMaxPipelineStages = 16;

/// Most bytes of `tile.alloc_local` buffers one thread may have. A thread has
/// 255 registers; larger buffers live in local memory (CUDA allows 512 KiB
/// per thread) and, on the CPU target, on each thread's 256 KiB fiber stack,
/// which this leaves room on.
constexpr int64_t kMaxLocalBufferBytes = 64 * 1024;

/// Per-thread fills and clears of at most this many elements store each
/// element with a constant index, so that the buffer can stay in registers;
/// larger buffers cannot (255 registers per thread) and are filled by a loop.
constexpr int64_t kMaxUnrolledFillElements = 256;

/// Most elements of the buffer form of `tile.thread_allreduce`: every
/// element is loaded, combined and stored with a constant index, so that the
/// buffer can stay in registers.
constexpr int64_t kMaxAllReduceBufferElements = 256;

/// Hopper's limits on a thread block (the kernel's verifier).
constexpr int64_t kMaxThreadsPerBlock = 1024;
constexpr int64_t kMaxThreadExtent[3] = {1024, 1024, 64};
constexpr int64_t kMaxSharedMemoryBytes = 227 * 1024;

} // namespace mlir::tile

#endif // TILE_DIALECT_TILE_IR_LIMITS_H
