// Measures the error of ex2.approx.f32 on the GPU (docs/Attention.md):
//   nvcc -arch=sm_90a -O2 -o ex2-error scripts/ex2-error.cu && ./ex2-error
// Error of ex2.approx.f32 (what math.exp2 lowers to) against exp2 in
// double, over every float in [lo, hi]: max relative error, max ulps.
#include <cstdio>
#include <cstdint>
#include <cmath>
#include <cstring>
__device__ float ex2approx(float x) { float y; asm("ex2.approx.f32 %0, %1;" : "=f"(y) : "f"(x)); return y; }
__device__ float ex2ftz(float x) { float y; asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x)); return y; }
__global__ void measure(uint32_t first, uint32_t count, int ftz, unsigned long long *maxRelBits, unsigned int *maxUlp) {
  double worst = 0; unsigned worstUlp = 0;
  for (uint32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < count; i += gridDim.x * blockDim.x) {
    uint32_t bits = first + i; float x; memcpy(&x, &bits, 4);
    float y = ftz ? ex2ftz(x) : ex2approx(x);
    double exact = exp2((double)x);
    float rounded = (float)exact;
    double rel = fabs((double)y - exact) / exact;
    if (rel > worst) worst = rel;
    int32_t a, b; memcpy(&a, &y, 4); memcpy(&b, &rounded, 4);
    if ((unsigned)abs(a - b) > worstUlp) worstUlp = abs(a - b);
  }
  unsigned long long rb; memcpy(&rb, &worst, 8); atomicMax(maxRelBits, rb);
  atomicMax(maxUlp, worstUlp);
}
static void run(const char *label, float lo, float hi, int ftz) {
  // Negative floats: bits grow as values decrease; count from hi (closer to 0) down to lo.
  uint32_t a, b; memcpy(&a, &hi, 4); memcpy(&b, &lo, 4);
  uint32_t first = a < b ? a : b, last = a < b ? b : a;
  unsigned long long *rel; unsigned *ulp;
  cudaMallocManaged(&rel, 8); cudaMallocManaged(&ulp, 4); *rel = 0; *ulp = 0;
  measure<<<4096, 256>>>(first, last - first + 1, ftz, rel, ulp);
  cudaDeviceSynchronize();
  double r; memcpy(&r, rel, 8);
  printf("%-34s floats %10u  max rel err %.3e (2^%.1f)  max ulps %u\n", label, last - first + 1, r, log2(r), *ulp);
}
int main() {
  run("ex2.approx.f32 x in [-126, -0]", -126.0f, -0.0f, 0);
  run("ex2.approx.f32 x in [-149, -126]", -149.0f, -126.0f, 0);
  run("ex2.approx.ftz.f32 x in [-126, -0]", -126.0f, -0.0f, 1);
  run("ex2.approx.f32 x in [0, 127]", 0.0f, 127.0f, 0);
  return 0;
}
