// Stand-alone reproducer of the producer/consumer protocol that
// lib/Dialect/Tile/Transforms/LowerWarpSpecialize.cpp emits, on the kernel of
// examples/gemv/warp_specialized.mlir: C[n] = sum_k A[k] * B[n, k], f16 in,
// f32 accumulation, f16 out, N = K = 1024; 8 blocks of 256 threads, each
// block 128 rows of C, over 8 K tiles of 128 through 2 shared-memory stages.
//
// compute-sanitizer reports errors on the compiled example (synccheck:
// "Barrier error detected. Missing wait"; racecheck: hazards between a
// shared-memory write and reads). This program runs the same protocol, written
// out by hand with inline PTX, in a few variants that each take one suspect
// away, so that running the tools on every variant says whether the reports
// are bugs of the protocol or limits of the tools. See README.md.
//
//   mbarrier_pipeline <variant> [--repeat R] [--seed S]
//
// Prints PASS or FAIL (against a CPU reference) and exits 1 on FAIL or on any
// CUDA error.

#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cinttypes>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <vector>

#define CHECK_CUDA(call)                                                       \
  do {                                                                         \
    cudaError_t status_ = (call);                                              \
    if (status_ != cudaSuccess) {                                              \
      std::fprintf(stderr, "%s:%d: %s failed: %s\n", __FILE__, __LINE__,       \
                   #call, cudaGetErrorString(status_));                        \
      std::exit(1);                                                            \
    }                                                                          \
  } while (0)

namespace {

// The example's shapes.
constexpr int kN = 1024;
constexpr int kK = 1024;
constexpr int kBlockN = 128;                // rows of C per block
constexpr int kBlockK = 128;                // K tile
constexpr int kIterations = kK / kBlockK;   // 8
constexpr int kStages = 2;
constexpr int kProducers = 128;             // threads 0..127
constexpr int kConsumers = 128;             // threads 128..255
constexpr int kThreads = kProducers + kConsumers;
constexpr int kRowPad = 136;                // padded B row, as in the example
constexpr int kChunk = 8;                   // f16 elements in 16 bytes
constexpr int kChunksPerRow = kBlockK / kChunk;                       // 16
constexpr int kBChunksPerThread = kBlockN * kChunksPerRow / kProducers; // 16
constexpr int kProducerRegs = 40;
constexpr int kConsumerRegs = 240;
// The suspend-time hint the compiler passes to mbarrier.try_wait.
constexpr uint32_t kSuspendTicks = 10000000;

// Dynamic shared memory laid out like TileToGPU's placeSharedBuffers (the
// buffers exceed the 48 KiB of static shared memory): As, then Bs.
constexpr int kABytes = kStages * kBlockK * 2;                 // 512
constexpr int kBBytes = kStages * kBlockN * kRowPad * 2;       // 69632
constexpr int kDynamicSharedBytes = kABytes + kBBytes;

enum class Variant {
  // The protocol as the compiler lowers it.
  Ours,
  // Ordinary ld.global + st.shared instead of cp.async, no
  // cp.async.mbarrier.arrive: only the mbarrier protocol is left.
  Plain,
  // Ours, plus the CUTLASS "producer tail": after its loop the producer
  // waits on empty[s] for the last round of each stage, so that every phase
  // of every mbarrier has been waited on by someone before the kernel ends.
  Drain,
  // Ours, plus every thread waiting for the phase it has just arrived on
  // (producer: full[s], consumer: empty[s]): no thread ever arrives on a
  // phase it does not itself see complete.
  SelfWait,
  // Ours, but each producer thread's only arrival on full[s] is
  // cp.async.mbarrier.arrive.noinc (the CUTLASS form): no pending-count
  // increment, no second, explicit arrive by the same thread in the phase.
  NoInc,
  // What tile-lower-warp-specialize emits since this reproducer: the .noinc
  // deferred arrival plus the thread's own explicit arrive (release of its
  // ordinary stores), full[s] initialized to twice the producer count.
  NoIncArrive,
};

struct VariantInfo {
  const char *name;
  Variant variant;
};

constexpr VariantInfo kVariants[] = {
    {"ours", Variant::Ours},         {"plain", Variant::Plain},
    {"drain", Variant::Drain},       {"selfwait", Variant::SelfWait},
    {"noinc", Variant::NoInc},       {"noinc_arrive", Variant::NoIncArrive},
};

//===----------------------------------------------------------------------===//
// PTX wrappers. The synchronizing ones carry a "memory" clobber: the
// compiler must not move the buffers' ordinary loads and stores across them,
// that ordering is what the protocol is about.
//===----------------------------------------------------------------------===//

__device__ __forceinline__ uint32_t sharedAddress(const void *pointer) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(pointer));
}

__device__ __forceinline__ void mbarrierInit(uint32_t bar, uint32_t count) {
  asm volatile("mbarrier.init.shared.b64 [%0], %1;" ::"r"(bar), "r"(count)
               : "memory");
}

// Default semantics: .release at CTA scope.
__device__ __forceinline__ void mbarrierArrive(uint32_t bar) {
  asm volatile("mbarrier.arrive.shared.b64 _, [%0];" ::"r"(bar) : "memory");
}

// Default semantics: .acquire at CTA scope. Loops like the lowering of
// nvgpu.mbarrier.try_wait.parity.
__device__ __forceinline__ void mbarrierWaitParity(uint32_t bar,
                                                   uint32_t parity) {
  asm volatile("{\n\t"
               ".reg .pred done;\n"
               "wait_%=:\n\t"
               "mbarrier.try_wait.parity.shared.b64 done, [%0], %1, %2;\n\t"
               "@!done bra.uni wait_%=;\n"
               "}" ::"r"(bar),
               "r"(parity), "r"(kSuspendTicks)
               : "memory");
}

__device__ __forceinline__ void cpAsync16(uint32_t sharedDst,
                                          const void *globalSrc) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(sharedDst),
               "l"(globalSrc)
               : "memory");
}

// Without .noinc: raises the pending count of the current phase by one, then
// arrives once this thread's earlier cp.async copies have landed (net: no
// arrival; the thread's own mbarrier.arrive is its arrival).
__device__ __forceinline__ void cpAsyncMbarrierArrive(uint32_t bar) {
  asm volatile("cp.async.mbarrier.arrive.shared.b64 [%0];" ::"r"(bar)
               : "memory");
}

// With .noinc: the deferred arrival is one of the init count's arrivals.
__device__ __forceinline__ void cpAsyncMbarrierArriveNoInc(uint32_t bar) {
  asm volatile("cp.async.mbarrier.arrive.noinc.shared.b64 [%0];" ::"r"(bar)
               : "memory");
}

template <int Registers> __device__ __forceinline__ void setMaxRegDec() {
  asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;" ::"n"(Registers));
}

template <int Registers> __device__ __forceinline__ void setMaxRegInc() {
  asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;" ::"n"(Registers));
}

//===----------------------------------------------------------------------===//
// The kernel.
//===----------------------------------------------------------------------===//

// `barrierOffsets` (5 words) receives, from block 0, the shared-window
// addresses of full[0], full[1], empty[0], empty[1] and the start of the
// dynamic buffers: the addresses compute-sanitizer prints.
template <Variant V>
__global__ void __launch_bounds__(kThreads, 1)
    gemvWarpSpecialized(const __half *__restrict__ A,
                        const __half *__restrict__ B, __half *__restrict__ C,
                        uint32_t *__restrict__ barrierOffsets) {
  constexpr bool kCpAsync = V != Variant::Plain;

  // full[s] is barrier s, empty[s] barrier kStages + s, as in the lowering;
  // static shared memory, like nvgpu.mbarrier.create.
  __shared__ __align__(8) uint64_t barriers[2 * kStages];
  extern __shared__ __align__(16) unsigned char dynamicShared[];
  auto As = reinterpret_cast<__half(*)[kBlockK]>(dynamicShared);
  auto Bs =
      reinterpret_cast<__half(*)[kBlockN][kRowPad]>(dynamicShared + kABytes);

  const unsigned t = threadIdx.x;
  const int n0 = blockIdx.x * kBlockN;
  const uint32_t barrierBase = sharedAddress(barriers);
  auto full = [&](int s) { return barrierBase + 8u * s; };
  auto empty = [&](int s) { return barrierBase + 8u * (kStages + s); };

  if (t == 0) {
    for (int s = 0; s < kStages; ++s) {
      mbarrierInit(full(s), V == Variant::NoIncArrive ? 2 * kProducers
                                                      : kProducers);
      mbarrierInit(empty(s), kConsumers);
    }
  }
  if (blockIdx.x == 0 && t < 2 * kStages)
    barrierOffsets[t] = barrierBase + 8u * t;
  if (blockIdx.x == 0 && t == 0)
    barrierOffsets[2 * kStages] = sharedAddress(dynamicShared);
  __syncthreads();

  float acc = 0.0f;
  if (t < kProducers) {
    setMaxRegDec<kProducerRegs>();
    for (int it = 0; it < kIterations; ++it) {
      const int s = it % kStages;
      const uint32_t phase = (it / kStages) & 1;
      // Passes at once in round 0: the "previous" phase has parity 1.
      mbarrierWaitParity(empty(s), phase ^ 1);
      const int k0 = it * kBlockK;
      // 16-byte pieces of the B tile: piece t + i * kProducers, consecutive
      // threads along a row.
#pragma unroll
      for (int i = 0; i < kBChunksPerThread; ++i) {
        const int r = t / kChunksPerRow + i * (kProducers / kChunksPerRow);
        const int col = t % kChunksPerRow * kChunk;
        const __half *src = B + static_cast<size_t>(n0 + r) * kK + k0 + col;
        __half *dst = &Bs[s][r][col];
        if constexpr (kCpAsync)
          cpAsync16(sharedAddress(dst), src);
        else
          *reinterpret_cast<uint4 *>(dst) =
              *reinterpret_cast<const uint4 *>(src);
      }
      if (t < kChunksPerRow) {
        const __half *src = A + k0 + t * kChunk;
        __half *dst = &As[s][t * kChunk];
        if constexpr (kCpAsync)
          cpAsync16(sharedAddress(dst), src);
        else
          *reinterpret_cast<uint4 *>(dst) =
              *reinterpret_cast<const uint4 *>(src);
      }
      if constexpr (V == Variant::NoInc) {
        cpAsyncMbarrierArriveNoInc(full(s));
      } else if constexpr (V == Variant::NoIncArrive) {
        cpAsyncMbarrierArriveNoInc(full(s));
        mbarrierArrive(full(s));
      } else {
        if constexpr (kCpAsync)
          cpAsyncMbarrierArrive(full(s));
        mbarrierArrive(full(s));
      }
      // full[s] cannot move past this phase before this thread arrives again,
      // so the parity is unambiguous.
      if constexpr (V == Variant::SelfWait)
        mbarrierWaitParity(full(s), phase);
    }
    if constexpr (V == Variant::Drain) {
      // The producer's wait of the S iterations that would follow: the last
      // round of each empty[s], which nobody waits for otherwise.
      for (int it = kIterations; it < kIterations + kStages; ++it)
        mbarrierWaitParity(empty(it % kStages), ((it / kStages) & 1) ^ 1);
    }
  } else {
    setMaxRegInc<kConsumerRegs>();
    const int row = t - kProducers;
    for (int it = 0; it < kIterations; ++it) {
      const int s = it % kStages;
      const uint32_t phase = (it / kStages) & 1;
      mbarrierWaitParity(full(s), phase);
#pragma unroll
      for (int p = 0; p < kChunksPerRow; ++p) {
        const uint4 a = *reinterpret_cast<const uint4 *>(&As[s][p * kChunk]);
        const uint4 b =
            *reinterpret_cast<const uint4 *>(&Bs[s][row][p * kChunk]);
        const __half2 *a2 = reinterpret_cast<const __half2 *>(&a);
        const __half2 *b2 = reinterpret_cast<const __half2 *>(&b);
#pragma unroll
        for (int e = 0; e < kChunk / 2; ++e) {
          const float2 af = __half22float2(a2[e]);
          const float2 bf = __half22float2(b2[e]);
          acc = fmaf(af.x, bf.x, acc);
          acc = fmaf(af.y, bf.y, acc);
        }
      }
      mbarrierArrive(empty(s));
      // As for the producer: empty[s] needs this thread again to move on.
      if constexpr (V == Variant::SelfWait)
        mbarrierWaitParity(empty(s), phase);
    }
  }
  __syncthreads();
  if (t >= kProducers)
    C[n0 + t - kProducers] = __float2half_rn(acc);
}

//===----------------------------------------------------------------------===//
// Host side.
//===----------------------------------------------------------------------===//

using Kernel = void (*)(const __half *, const __half *, __half *, uint32_t *);

Kernel kernelFor(Variant variant) {
  switch (variant) {
  case Variant::Ours:
    return gemvWarpSpecialized<Variant::Ours>;
  case Variant::Plain:
    return gemvWarpSpecialized<Variant::Plain>;
  case Variant::Drain:
    return gemvWarpSpecialized<Variant::Drain>;
  case Variant::SelfWait:
    return gemvWarpSpecialized<Variant::SelfWait>;
  case Variant::NoInc:
    return gemvWarpSpecialized<Variant::NoInc>;
  case Variant::NoIncArrive:
    return gemvWarpSpecialized<Variant::NoIncArrive>;
  }
  return nullptr;
}

[[noreturn]] void usage(const char *program) {
  std::fprintf(stderr, "usage: %s <variant> [--repeat R] [--seed S]\nvariants:",
               program);
  for (const VariantInfo &info : kVariants)
    std::fprintf(stderr, " %s", info.name);
  std::fprintf(stderr, "\n");
  std::exit(2);
}

} // namespace

int main(int argc, char **argv) {
  if (argc < 2)
    usage(argv[0]);
  const VariantInfo *selected = nullptr;
  for (const VariantInfo &info : kVariants)
    if (std::strcmp(argv[1], info.name) == 0)
      selected = &info;
  if (!selected)
    usage(argv[0]);
  int repeat = 1;
  uint64_t seed = std::random_device{}();
  for (int i = 2; i < argc; ++i) {
    if (std::strcmp(argv[i], "--repeat") == 0 && i + 1 < argc)
      repeat = std::atoi(argv[++i]);
    else if (std::strcmp(argv[i], "--seed") == 0 && i + 1 < argc)
      seed = std::strtoull(argv[++i], nullptr, 0);
    else
      usage(argv[0]);
  }
  if (repeat < 1)
    usage(argv[0]);

  cudaDeviceProp prop;
  int device = 0;
  CHECK_CUDA(cudaGetDevice(&device));
  CHECK_CUDA(cudaGetDeviceProperties(&prop, device));
  if (prop.major != 9 || prop.minor != 0) {
    // The binary holds sm_90a code only; anything else cannot run it.
    std::fprintf(stderr, "needs an sm_90 (Hopper) GPU, found %s (sm_%d%d)\n",
                 prop.name, prop.major, prop.minor);
    return 1;
  }

  // Fresh random inputs each run (the seed is printed to replay one).
  std::mt19937_64 generator(seed);
  std::uniform_real_distribution<float> distribution(-1.0f, 1.0f);
  std::vector<__half> hostA(kK), hostB(static_cast<size_t>(kN) * kK);
  for (__half &value : hostA)
    value = __float2half_rn(distribution(generator));
  for (__half &value : hostB)
    value = __float2half_rn(distribution(generator));
  std::vector<double> reference(kN);
  for (int n = 0; n < kN; ++n) {
    double sum = 0.0;
    for (int k = 0; k < kK; ++k)
      sum += static_cast<double>(__half2float(hostA[k])) *
             static_cast<double>(
                 __half2float(hostB[static_cast<size_t>(n) * kK + k]));
    reference[n] = sum;
  }

  __half *A = nullptr, *B = nullptr, *C = nullptr;
  uint32_t *offsets = nullptr;
  CHECK_CUDA(cudaMalloc(&A, hostA.size() * sizeof(__half)));
  CHECK_CUDA(cudaMalloc(&B, hostB.size() * sizeof(__half)));
  CHECK_CUDA(cudaMalloc(&C, kN * sizeof(__half)));
  CHECK_CUDA(cudaMalloc(&offsets, (2 * kStages + 1) * sizeof(uint32_t)));
  CHECK_CUDA(cudaMemcpy(A, hostA.data(), hostA.size() * sizeof(__half),
                        cudaMemcpyHostToDevice));
  CHECK_CUDA(cudaMemcpy(B, hostB.data(), hostB.size() * sizeof(__half),
                        cudaMemcpyHostToDevice));

  Kernel kernel = kernelFor(selected->variant);
  CHECK_CUDA(cudaFuncSetAttribute(kernel,
                                  cudaFuncAttributeMaxDynamicSharedMemorySize,
                                  kDynamicSharedBytes));
  cudaFuncAttributes attributes;
  CHECK_CUDA(cudaFuncGetAttributes(&attributes, kernel));
  std::printf("variant %s, seed %" PRIu64 ", %d launch(es); %s; kernel: %d "
              "registers, %zu B static + %d B dynamic shared memory\n",
              selected->name, seed, repeat, prop.name, attributes.numRegs,
              attributes.sharedSizeBytes, kDynamicSharedBytes);

  std::vector<__half> hostC(kN);
  double worst = 0.0;
  int worstRow = 0, failedLaunches = 0;
  // A stage mix-up or a read of a stage before its copies landed gives
  // errors of the order of the result itself; f16 rounding of the result
  // stays below 2^-11 of it.
  const double tolerance = 4e-3;
  for (int launch = 0; launch < repeat; ++launch) {
    // Poison C so that a row the kernel does not write cannot pass.
    CHECK_CUDA(cudaMemset(C, 0xff, kN * sizeof(__half)));
    CHECK_CUDA(
        cudaMemset(offsets, 0, (2 * kStages + 1) * sizeof(uint32_t)));
    kernel<<<kN / kBlockN, kThreads, kDynamicSharedBytes>>>(A, B, C, offsets);
    CHECK_CUDA(cudaGetLastError());
    CHECK_CUDA(cudaDeviceSynchronize());
    CHECK_CUDA(cudaMemcpy(hostC.data(), C, kN * sizeof(__half),
                          cudaMemcpyDeviceToHost));
    double launchWorst = 0.0;
    for (int n = 0; n < kN; ++n) {
      const double got = __half2float(hostC[n]);
      // Relative error, against 1 for the few results near 0.
      double error = std::fabs(got - reference[n]) /
                     std::fmax(std::fabs(reference[n]), 1.0);
      if (std::isnan(error))
        error = INFINITY;
      if (error > launchWorst)
        launchWorst = error;
      if (error > worst) {
        worst = error;
        worstRow = n;
      }
    }
    if (!(launchWorst <= tolerance))
      ++failedLaunches;
  }

  uint32_t hostOffsets[2 * kStages + 1];
  CHECK_CUDA(cudaMemcpy(hostOffsets, offsets, sizeof(hostOffsets),
                        cudaMemcpyDeviceToHost));
  // Names for the addresses in the sanitizers' reports.
  std::printf("shared addresses: full[0]=0x%x full[1]=0x%x empty[0]=0x%x "
              "empty[1]=0x%x As=0x%x..0x%x Bs=0x%x..0x%x (ends exclusive)\n",
              hostOffsets[0], hostOffsets[1], hostOffsets[2], hostOffsets[3],
              hostOffsets[4], hostOffsets[4] + kABytes,
              hostOffsets[4] + kABytes, hostOffsets[4] + kDynamicSharedBytes);

  CHECK_CUDA(cudaFree(A));
  CHECK_CUDA(cudaFree(B));
  CHECK_CUDA(cudaFree(C));
  CHECK_CUDA(cudaFree(offsets));

  const bool pass = failedLaunches == 0;
  std::printf("%s: max relative error %.3g (row %d, reference %.4f), "
              "%d/%d launch(es) above %.0e\n",
              pass ? "PASS" : "FAIL", worst, worstRow, reference[worstRow],
              failedLaunches, repeat, tolerance);
  return pass ? 0 : 1;
}
