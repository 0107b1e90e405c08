// Measures the error of the approximate PTX instructions math ops lower to
// (docs/Attention.md, "Accuracy of exp2" and "Accuracy of log2"):
// ex2.approx.f32 (math.exp2), ex2.approx.ftz.f32 (math.exp2 with afn),
// lg2.approx.ftz.f32 (math.log2 with afn), and libdevice's log2f (math.log2
// without afn) for comparison:
//   nvcc -arch=sm_90a -O2 -o approx-error scripts/approx-error.cu && ./approx-error
// Over every float in [lo, hi], against the function in double: the max
// relative and absolute error, and the max distance in ulps from the
// double result rounded to float.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>

enum Function { Ex2, Ex2Ftz, Lg2Ftz, Log2f };

__device__ float approximate(Function function, float x) {
  float y;
  switch (function) {
  case Ex2:
    asm("ex2.approx.f32 %0, %1;" : "=f"(y) : "f"(x));
    return y;
  case Ex2Ftz:
    asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
    return y;
  case Lg2Ftz:
    asm("lg2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
    return y;
  case Log2f:
    return log2f(x);
  }
  return 0;
}

__global__ void measure(uint32_t first, uint32_t count, Function function,
                        unsigned long long *maxRelBits,
                        unsigned long long *maxAbsBits, unsigned *maxUlp) {
  double worstRel = 0, worstAbs = 0;
  unsigned worstUlp = 0;
  for (uint32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < count;
       i += gridDim.x * blockDim.x) {
    uint32_t bits = first + i;
    float x;
    memcpy(&x, &bits, 4);
    float y = approximate(function, x);
    double exact = function <= Ex2Ftz ? exp2((double)x) : log2((double)x);
    float rounded = (float)exact;
    double error = fabs((double)y - exact);
    worstAbs = fmax(worstAbs, error);
    if (exact != 0)
      worstRel = fmax(worstRel, error / fabs(exact));
    int32_t a, b;
    memcpy(&a, &y, 4);
    memcpy(&b, &rounded, 4);
    // Across zero (log2 near 1) the bit patterns differ in sign: count the
    // ulps through zero.
    int64_t distance = (a < 0) == (b < 0)
                           ? llabs((int64_t)a - b)
                           : (int64_t)(a & 0x7fffffff) + (b & 0x7fffffff);
    if ((unsigned)distance > worstUlp)
      worstUlp = (unsigned)distance;
  }
  unsigned long long bits;
  memcpy(&bits, &worstRel, 8);
  atomicMax(maxRelBits, bits);
  memcpy(&bits, &worstAbs, 8);
  atomicMax(maxAbsBits, bits);
  atomicMax(maxUlp, worstUlp);
}

static void run(const char *label, float lo, float hi, Function function) {
  // Negative floats: bits grow as values decrease.
  uint32_t a, b;
  memcpy(&a, &lo, 4);
  memcpy(&b, &hi, 4);
  uint32_t first = a < b ? a : b, last = a < b ? b : a;
  unsigned long long *rel, *abs;
  unsigned *ulp;
  cudaMallocManaged(&rel, 8);
  cudaMallocManaged(&abs, 8);
  cudaMallocManaged(&ulp, 4);
  *rel = *abs = 0;
  *ulp = 0;
  measure<<<4096, 256>>>(first, last - first + 1, function, rel, abs, ulp);
  cudaDeviceSynchronize();
  double r, e;
  memcpy(&r, rel, 8);
  memcpy(&e, abs, 8);
  printf("%-40s floats %10u  max rel err %.3e (2^%.1f)  max abs err %.3e "
         "(2^%.1f)  max ulps %u\n",
         label, last - first + 1, r, log2(r), e, log2(e), *ulp);
}

int main() {
  run("ex2.approx.f32 x in [-126, -0]", -126.0f, -0.0f, Ex2);
  run("ex2.approx.f32 x in [-149, -126]", -149.0f, -126.0f, Ex2);
  run("ex2.approx.ftz.f32 x in [-126, -0]", -126.0f, -0.0f, Ex2Ftz);
  run("ex2.approx.f32 x in [0, 127]", 0.0f, 127.0f, Ex2);
  run("lg2.approx.ftz.f32 x in [0.5, 2]", 0.5f, 2.0f, Lg2Ftz);
  run("lg2.approx.ftz.f32 x in [2, 2^24]", 2.0f, 16777216.0f, Lg2Ftz);
  run("lg2.approx.ftz.f32 x in [2^-126, 0.5]", 0x1p-126f, 0.5f, Lg2Ftz);
  run("lg2.approx.ftz.f32 x in [2^24, max]", 16777216.0f, 3.4028235e38f,
      Lg2Ftz);
  run("libdevice log2f x in [0.5, 2]", 0.5f, 2.0f, Log2f);
  run("libdevice log2f x in [2, 2^24]", 2.0f, 16777216.0f, Log2f);
  return 0;
}
