// Measures the error of lg2.approx.ftz.f32 on the GPU (docs/Attention.md),
// what f32 `math.log2 fastmath<afn>` lowers to, beside libdevice's log2f
// (what math.log2 lowers to without afn):
//   nvcc -arch=sm_90a -O2 -o lg2-error scripts/lg2-error.cu && ./lg2-error
// Over every float in [lo, hi] (positive, normal): the max absolute error
// against log2 in double, and the max distance in ulps from log2 rounded
// to float.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
__device__ float lg2ftz(float x) {
  float y;
  asm("lg2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
  return y;
}
__global__ void measure(uint32_t first, uint32_t count, int approx,
                        unsigned long long *maxAbsBits, unsigned *maxUlp) {
  double worst = 0;
  unsigned worstUlp = 0;
  for (uint32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < count;
       i += gridDim.x * blockDim.x) {
    uint32_t bits = first + i;
    float x;
    memcpy(&x, &bits, 4);
    float y = approx ? lg2ftz(x) : log2f(x);
    double exact = log2((double)x);
    float rounded = (float)exact;
    double error = fabs((double)y - exact);
    if (error > worst)
      worst = error;
    int32_t a, b;
    memcpy(&a, &y, 4);
    memcpy(&b, &rounded, 4);
    // Across zero (x near 1) the bit patterns of a result and the rounded
    // log2 differ in sign: count the ulps through zero.
    int64_t distance = (a < 0) == (b < 0)
                           ? llabs((int64_t)a - b)
                           : (int64_t)(a & 0x7fffffff) + (b & 0x7fffffff);
    if ((unsigned)distance > worstUlp)
      worstUlp = (unsigned)distance;
  }
  unsigned long long bits;
  memcpy(&bits, &worst, 8);
  atomicMax(maxAbsBits, bits);
  atomicMax(maxUlp, worstUlp);
}
static void run(const char *label, float lo, float hi, int approx) {
  uint32_t first, last;
  memcpy(&first, &lo, 4);
  memcpy(&last, &hi, 4);
  unsigned long long *error;
  unsigned *ulp;
  cudaMallocManaged(&error, 8);
  cudaMallocManaged(&ulp, 4);
  *error = 0;
  *ulp = 0;
  measure<<<4096, 256>>>(first, last - first + 1, approx, error, ulp);
  cudaDeviceSynchronize();
  double e;
  memcpy(&e, error, 8);
  printf("%-40s floats %10u  max abs err %.3e (2^%.1f)  max ulps %u\n", label,
         last - first + 1, e, log2(e), *ulp);
}
int main() {
  run("lg2.approx.ftz.f32 x in [0.5, 2]", 0.5f, 2.0f, 1);
  run("lg2.approx.ftz.f32 x in [2, 2^24]", 2.0f, 16777216.0f, 1);
  run("lg2.approx.ftz.f32 x in [2^-126, 0.5]", 0x1p-126f, 0.5f, 1);
  run("lg2.approx.ftz.f32 x in [2^24, max]", 16777216.0f, 3.4028235e38f, 1);
  run("libdevice log2f x in [0.5, 2]", 0.5f, 2.0f, 0);
  run("libdevice log2f x in [2, 2^24]", 2.0f, 16777216.0f, 0);
  return 0;
}
