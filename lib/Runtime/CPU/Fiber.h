//===- Fiber.h - User-mode contexts for the CPU runtime ---------*- C++ -*-===//
//
// A fiber is a user-mode execution context with its own stack. The CPU
// runtime runs every GPU thread of a block as a fiber on one OS thread, so a
// switch between GPU threads must cost a few nanoseconds, not a syscall: on
// x86-64 the switch is hand-written assembly that saves only the callee-saved
// state of the SysV ABI; elsewhere it falls back to ucontext.
//
// Stacks are mmap'ed with a PROT_NONE guard page below them (a GPU thread
// that overflows its stack faults instead of corrupting its neighbour) and
// are returned to a process-wide pool when a fiber is destroyed, so repeated
// launches do not map and unmap thousands of stacks.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_RUNTIME_FIBER_H
#define TILE_RUNTIME_FIBER_H

#include <cstddef>

#if !defined(__x86_64__) || defined(TILE_CPU_FIBER_UCONTEXT)
#include <ucontext.h>
#endif

namespace tile::cpu {

/// A suspendable execution context. A default-constructed fiber has no stack
/// of its own: it stands for the OS thread's native context, which the first
/// switchTo saves into it.
class Fiber {
public:
  using EntryFunction = void (*)(void *argument);

  /// Usable stack bytes of every fiber (the guard page comes on top).
  static constexpr size_t kStackBytes = 256 * 1024;

  Fiber() = default;
  Fiber(const Fiber &) = delete;
  Fiber &operator=(const Fiber &) = delete;
  ~Fiber();

  /// Arranges for the next switch to this fiber to call `entry(argument)` at
  /// the top of its stack, discarding whatever it was doing. Maps the stack on
  /// first use; returns false when that fails. `entry` must never return: it
  /// ends with exitTo.
  bool prepare(EntryFunction entry, void *argument);

  /// Saves the running context into `from` and resumes `to`; returns when
  /// some context switches back to `from`.
  static void switchTo(Fiber &from, Fiber &to);

  /// Leaves `from` for good (it will be prepared again, never resumed) and
  /// resumes `to`. Lets AddressSanitizer release the fiber's fake stack.
  [[noreturn]] static void exitTo(Fiber &from, Fiber &to);

private:
  /// The first function run on a prepared stack.
  [[noreturn]] static void start(Fiber *fiber);
  static void switchContexts(Fiber &from, Fiber &to, bool fromExits);

  EntryFunction entry = nullptr;
  void *entryArgument = nullptr;
  /// The whole mapping: the guard page, then kStackBytes of stack.
  char *mapping = nullptr;
  /// The bounds of the stack this context runs on, for AddressSanitizer's
  /// fiber annotations; learned on the first switch for a native context.
  const void *stackBottom = nullptr;
  size_t stackSize = 0;
#if defined(__x86_64__) && !defined(TILE_CPU_FIBER_UCONTEXT)
  /// The saved stack pointer; everything else is pushed below it.
  void *stackPointer = nullptr;
#else
  ucontext_t context;
#endif
};

} // namespace tile::cpu

#endif // TILE_RUNTIME_FIBER_H
