//===- Fiber.cpp - User-mode contexts for the CPU runtime -----------------===//
//
// The x86-64 switch saves what the SysV ABI says a callee must preserve
// (rsp, rbx, rbp, r12-r15, the MXCSR control bits and the x87 control word)
// on the suspended stack and keeps only the stack pointer in the Fiber: a
// switch is a dozen instructions and no syscall. Other architectures use
// ucontext, whose swapcontext also saves the signal mask with a syscall.
//
//===----------------------------------------------------------------------===//

#include "Fiber.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <sys/mman.h>
#include <unistd.h>
#include <vector>

#if defined(__SANITIZE_ADDRESS__)
#define TILE_CPU_FIBER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define TILE_CPU_FIBER_ASAN 1
#endif
#endif

#ifdef TILE_CPU_FIBER_ASAN
#include <sanitizer/asan_interface.h>
#include <sanitizer/common_interface_defs.h>

// Exported by the AddressSanitizer runtimes of GCC and LLVM (instrumented
// frames call it to unpoison their redzones) but not declared in
// asan_interface.h: zeroes `size` shadow bytes at shadow address `addr`.
extern "C" void __asan_set_shadow_00(uintptr_t addr, uintptr_t size);
#endif

using namespace tile::cpu;

#if defined(__x86_64__) && !defined(TILE_CPU_FIBER_UCONTEXT)
// tile_cpu_fiber_switch(void **saveStackPointer, void *resumeStackPointer):
// pushes the callee-saved registers and the FP control state, stores rsp, then
// pops the same layout from the resumed stack. A prepared stack holds that
// layout with tile_cpu_fiber_trampoline as the return address.
//
// tile_cpu_fiber_trampoline: entered by `ret` with r12 = the Fiber and
// r13 = Fiber::start, rsp 16-byte aligned, so the call below sees the ABI's
// alignment. Fiber::start never returns.
asm(R"(
  .pushsection .text
  .p2align 4
  .globl tile_cpu_fiber_switch
  .hidden tile_cpu_fiber_switch
  .type tile_cpu_fiber_switch, @function
tile_cpu_fiber_switch:
  pushq %rbp
  pushq %rbx
  pushq %r12
  pushq %r13
  pushq %r14
  pushq %r15
  subq $8, %rsp
  stmxcsr (%rsp)
  fnstcw 4(%rsp)
  movq %rsp, (%rdi)
  movq %rsi, %rsp
  ldmxcsr (%rsp)
  fldcw 4(%rsp)
  addq $8, %rsp
  popq %r15
  popq %r14
  popq %r13
  popq %r12
  popq %rbx
  popq %rbp
  ret
  .size tile_cpu_fiber_switch, .-tile_cpu_fiber_switch

  .p2align 4
  .globl tile_cpu_fiber_trampoline
  .hidden tile_cpu_fiber_trampoline
  .type tile_cpu_fiber_trampoline, @function
tile_cpu_fiber_trampoline:
  movq %r12, %rdi
  callq *%r13
  ud2
  .size tile_cpu_fiber_trampoline, .-tile_cpu_fiber_trampoline
  .popsection
)");

extern "C" void tile_cpu_fiber_switch(void **saveStackPointer,
                                      void *resumeStackPointer);
extern "C" void tile_cpu_fiber_trampoline();
#endif

namespace {

/// Stacks of destroyed fibers, kept for the next launch. Bounded so that a
/// burst of huge launches does not pin address space forever.
class StackPool {
public:
  static constexpr size_t kMaxPooled = 4096;

  static size_t getMappingBytes() {
    return Fiber::kStackBytes + static_cast<size_t>(sysconf(_SC_PAGESIZE));
  }

  char *acquire() {
    {
      std::lock_guard<std::mutex> lock(mutex);
      if (!stacks.empty()) {
        char *stack = stacks.back();
        stacks.pop_back();
        return stack;
      }
    }
    size_t bytes = getMappingBytes();
    void *mapping = mmap(nullptr, bytes, PROT_READ | PROT_WRITE,
                         MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (mapping == MAP_FAILED)
      return nullptr;
    // The guard page sits below the stack because stacks grow down.
    if (mprotect(mapping, bytes - Fiber::kStackBytes, PROT_NONE) != 0) {
      munmap(mapping, bytes);
      return nullptr;
    }
    return static_cast<char *>(mapping);
  }

  void release(char *stack) {
    {
      std::lock_guard<std::mutex> lock(mutex);
      if (stacks.size() < kMaxPooled) {
        stacks.push_back(stack);
        return;
      }
    }
    munmap(stack, getMappingBytes());
  }

private:
  std::mutex mutex;
  std::vector<char *> stacks;
};

/// Never destroyed: fibers owned by thread_local or static objects may give
/// their stacks back during exit, after function-local statics are gone.
StackPool &getStackPool() {
  static StackPool *pool = new StackPool;
  return *pool;
}

#ifdef TILE_CPU_FIBER_ASAN
/// The context that switched last on this OS thread, so the resumed side can
/// record a native stack's bounds, which only AddressSanitizer knows.
thread_local Fiber *switchingFrom = nullptr;

/// Marks a whole fiber stack addressable again. A fiber never returns from its
/// last frames: the one that switches away in Fiber::exitTo, and every frame of
/// a fiber abandoned on a deadlock, keep their redzones poisoned, and the next
/// fiber on the same stack would run into them (AddressSanitizer reports a
/// stack-buffer-overflow on its own locals in __asan_handle_no_return). The
/// shadow is written directly: __asan_unpoison_memory_region does nothing under
/// ASAN_OPTIONS=allow_user_poisoning=0, which scripts/sanitizer-test.sh sets.
void clearStackShadow(const void *bottom, size_t bytes) {
  size_t scale = 0, offset = 0;
  __asan_get_shadow_mapping(&scale, &offset);
  uintptr_t shadow = (reinterpret_cast<uintptr_t>(bottom) >> scale) + offset;
  __asan_set_shadow_00(shadow, bytes >> scale);
}
#endif

} // namespace

Fiber::~Fiber() {
  if (mapping)
    getStackPool().release(mapping);
}

bool Fiber::prepare(EntryFunction entry, void *argument) {
  if (!mapping) {
    mapping = getStackPool().acquire();
    if (!mapping)
      return false;
  }
  this->entry = entry;
  entryArgument = argument;
  char *top = mapping + StackPool::getMappingBytes();
  stackBottom = top - kStackBytes;
  stackSize = kStackBytes;
#ifdef TILE_CPU_FIBER_ASAN
  clearStackShadow(stackBottom, stackSize);
#endif

#if defined(__x86_64__) && !defined(TILE_CPU_FIBER_UCONTEXT)
  // The frame tile_cpu_fiber_switch pops, lowest address first: FP control,
  // r15, r14, r13, r12, rbx, rbp, return address. The return address sits at
  // top - 24 so that rsp is 16-byte aligned after the `ret` into the
  // trampoline.
  uint64_t *frame = reinterpret_cast<uint64_t *>(top - 24 - 7 * 8);
  uint32_t mxcsr;
  uint16_t fpuControl;
  asm volatile("stmxcsr %0" : "=m"(mxcsr));
  asm volatile("fnstcw %0" : "=m"(fpuControl));
  frame[0] = mxcsr | static_cast<uint64_t>(fpuControl) << 32;
  frame[1] = 0;                                         // r15
  frame[2] = 0;                                         // r14
  frame[3] = reinterpret_cast<uint64_t>(&Fiber::start); // r13
  frame[4] = reinterpret_cast<uint64_t>(this);          // r12
  frame[5] = 0;                                         // rbx
  frame[6] = 0;                                         // rbp
  frame[7] = reinterpret_cast<uint64_t>(&tile_cpu_fiber_trampoline);
  stackPointer = frame;
#else
  if (getcontext(&context) != 0)
    return false;
  context.uc_stack.ss_sp = const_cast<void *>(stackBottom);
  context.uc_stack.ss_size = stackSize;
  context.uc_link = nullptr;
  // makecontext passes int arguments only: split the pointer.
  auto bits = reinterpret_cast<uintptr_t>(this);
  makecontext(&context,
              reinterpret_cast<void (*)()>(+[](unsigned high, unsigned low) {
                start(reinterpret_cast<Fiber *>(
                    static_cast<uintptr_t>(high) << 32 | low));
              }),
              2, static_cast<unsigned>(static_cast<uint64_t>(bits) >> 32),
              static_cast<unsigned>(bits & 0xffffffffu));
#endif
  return true;
}

void Fiber::switchContexts(Fiber &from, Fiber &to, bool fromExits) {
#ifdef TILE_CPU_FIBER_ASAN
  void *fakeStack = nullptr;
  __sanitizer_start_switch_fiber(fromExits ? nullptr : &fakeStack,
                                 to.stackBottom, to.stackSize);
  switchingFrom = &from;
#else
  (void)fromExits;
#endif

#if defined(__x86_64__) && !defined(TILE_CPU_FIBER_UCONTEXT)
  tile_cpu_fiber_switch(&from.stackPointer, to.stackPointer);
#else
  swapcontext(&from.context, &to.context);
#endif

#ifdef TILE_CPU_FIBER_ASAN
  const void *previousBottom = nullptr;
  size_t previousSize = 0;
  __sanitizer_finish_switch_fiber(fakeStack, &previousBottom, &previousSize);
  if (!switchingFrom->mapping) {
    switchingFrom->stackBottom = previousBottom;
    switchingFrom->stackSize = previousSize;
  }
#endif
}

void Fiber::switchTo(Fiber &from, Fiber &to) {
  switchContexts(from, to, /*fromExits=*/false);
}

void Fiber::exitTo(Fiber &from, Fiber &to) {
  switchContexts(from, to, /*fromExits=*/true);
  // A finished fiber is only ever prepared again, never resumed.
  std::fprintf(stderr, "tile::cpu::Fiber: a finished fiber was resumed\n");
  std::abort();
}

void Fiber::start(Fiber *fiber) {
#ifdef TILE_CPU_FIBER_ASAN
  const void *previousBottom = nullptr;
  size_t previousSize = 0;
  __sanitizer_finish_switch_fiber(nullptr, &previousBottom, &previousSize);
  if (!switchingFrom->mapping) {
    switchingFrom->stackBottom = previousBottom;
    switchingFrom->stackSize = previousSize;
  }
#endif
  fiber->entry(fiber->entryArgument);
  std::fprintf(stderr, "tile::cpu::Fiber: a fiber entry function returned\n");
  std::abort();
}
