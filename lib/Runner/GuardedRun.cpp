//===- GuardedRun.cpp - Run user code on the CPU with checks --------------===//

#include "tile/Runner/GuardedRun.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/StringExtras.h"

#include <array>
#include <atomic>
#include <csetjmp>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <string>
#include <unistd.h>

using namespace mlir;

namespace tile::runner {

//===----------------------------------------------------------------------===//
// Checks as reports
//===----------------------------------------------------------------------===//

/// "FILE:LINE:COL: OP: WHAT" from a message of generate-runtime-verification
/// ("ERROR: Runtime op verification failed\nOP TEXT\n^ WHAT\nLocation:
/// loc(...)"); the message unchanged when it has another form.
static std::string formatCheckMessage(StringRef message) {
  SmallVector<StringRef> lines;
  message.split(lines, '\n');
  if (lines.size() < 4 || !lines[2].consume_front("^ ") ||
      !lines[3].consume_front("Location: loc(") || !lines[3].consume_back(")"))
    return message.str();
  StringRef opText = lines[1].trim();
  if (size_t equals = opText.find(" = "); equals != StringRef::npos)
    opText = opText.drop_front(equals + 3);
  StringRef opName =
      opText.take_until([](char c) { return c == ' ' || c == '('; });
  opName.consume_front("\"");
  opName.consume_back("\"");
  std::string location = lines[3].str();
  // "\"file\":12:3" -> file:12:3
  if (StringRef(location).starts_with("\"")) {
    size_t close = location.find('"', 1);
    if (close != std::string::npos)
      location = location.substr(1, close - 1) + location.substr(close + 1);
  }
  return location + ": '" + opName.str() + "': " + lines[2].str();
}

/// "FILE:LINE:COL" of `loc`, or its printed form when it has no file.
static std::string formatLocation(Location loc) {
  if (auto file = dyn_cast<FileLineColLoc>(loc))
    return (file.getFilename().getValue() + ":" + Twine(file.getLine()) + ":" +
            Twine(file.getColumn()))
        .str();
  std::string text;
  llvm::raw_string_ostream os(text);
  loc.print(os);
  return text;
}

void addLoopStepChecks(ModuleOp module) {
  module.walk([](scf::ForOp loop) {
    OpBuilder builder(loop);
    Location loc = loop.getLoc();
    Value step = loop.getStep();
    Value zero = arith::ConstantOp::create(builder, loc,
                                           builder.getZeroAttr(step.getType()));
    Value positive = arith::CmpIOp::create(
        builder, loc, arith::CmpIPredicate::sgt, step, zero);
    std::string what = "step is not positive: the loop would never end";
    if (std::optional<int64_t> constant = getConstantIntValue(step))
      what = "step is " + std::to_string(*constant) +
             ", not positive: the loop would never end";
    cf::AssertOp::create(builder, loc, positive,
                         formatLocation(loc) + ": 'scf.for': " + what);
  });
}

void lowerChecksToReports(ModuleOp module) {
  SmallVector<cf::AssertOp> asserts;
  module.walk([&](cf::AssertOp op) { asserts.push_back(op); });
  if (asserts.empty())
    return;
  MLIRContext *context = module.getContext();
  OpBuilder builder(context);
  builder.setInsertionPointToStart(module.getBody());
  auto pointerType = LLVM::LLVMPointerType::get(context);
  auto report =
      func::FuncOp::create(builder, module.getLoc(), kCheckFailedFunction,
                           builder.getFunctionType({pointerType}, {}));
  report.setPrivate();
  SymbolTable symbols(module);
  for (auto [index, op] : llvm::enumerate(asserts)) {
    std::string message = formatCheckMessage(op.getMsg());
    message.push_back('\0');
    builder.setInsertionPointToStart(module.getBody());
    auto type =
        LLVM::LLVMArrayType::get(IntegerType::get(context, 8), message.size());
    auto global = LLVM::GlobalOp::create(
        builder, op.getLoc(), type, /*isConstant=*/true,
        LLVM::Linkage::Internal, "tile_check_" + std::to_string(index),
        builder.getStringAttr(message));
    symbols.insert(global);

    builder.setInsertionPoint(op);
    Location loc = op.getLoc();
    Value failed = arith::XOrIOp::create(
        builder, loc, op.getArg(),
        arith::ConstantOp::create(builder, loc, builder.getBoolAttr(true)));
    auto ifOp = scf::IfOp::create(builder, loc, failed, /*withElse=*/false);
    builder.setInsertionPointToStart(ifOp.thenBlock());
    Value text = LLVM::AddressOfOp::create(builder, loc, global);
    func::CallOp::create(builder, loc, report, ValueRange{text});
    op.erase();
  }
}

//===----------------------------------------------------------------------===//
// Guarded calls
//===----------------------------------------------------------------------===//

namespace {
/// The guarded call in progress on this thread, where a check or a fault
/// jumps back to.
thread_local sigjmp_buf *activeGuard = nullptr;
thread_local const char *failedCheck = nullptr;
thread_local int caughtSignal = 0;
/// What runs, for faults on other threads (written before the call).
std::array<char, 256> runningWhat = {};
constexpr std::array<int, 4> kGuardedSignals = {SIGSEGV, SIGBUS, SIGFPE,
                                                SIGILL};
/// A stack for the handler, so that a stack overflow is caught too.
alignas(16) char alternateStack[64 * 1024];
} // namespace

static const char *describeSignal(int signal) {
  switch (signal) {
  case SIGSEGV:
    return "SIGSEGV, an invalid memory access";
  case SIGBUS:
    return "SIGBUS, a misaligned or invalid memory access";
  case SIGFPE:
    return "SIGFPE, an arithmetic fault such as an integer division by zero";
  case SIGILL:
    return "SIGILL, an illegal instruction (a trap)";
  }
  return "a signal";
}

/// Async-signal-safe write of a NUL-terminated string to stderr.
static void writeError(const char *text) {
  ssize_t ignored = ::write(STDERR_FILENO, text, std::strlen(text));
  (void)ignored;
}

/// Outside a guarded call (a CPU-target worker): "tile-run: WHAT HOW
/// DETAIL", then exit status 1. Async-signal-safe.
[[noreturn]] static void reportAndExit(const char *how, const char *detail) {
  writeError("tile-run: ");
  writeError(runningWhat.data());
  writeError(how);
  writeError(detail);
  writeError("\n");
  ::_exit(1);
}

static void onFault(int signal) {
  if (activeGuard) {
    caughtSignal = signal;
    siglongjmp(*activeGuard, 1);
  }
  reportAndExit(" crashed: ", describeSignal(signal));
}

namespace {
/// The handlers and the alternate stack replaced while a guard is installed.
struct InstalledHandlers {
  stack_t previousStack = {};
  std::array<struct sigaction, kGuardedSignals.size()> previous = {};
};
InstalledHandlers installed;
} // namespace

static void installHandlers(llvm::StringRef what) {
  std::snprintf(runningWhat.data(), runningWhat.size(), "%.*s",
                static_cast<int>(what.size()), what.data());
  stack_t stack = {};
  stack.ss_sp = alternateStack;
  stack.ss_size = sizeof(alternateStack);
  sigaltstack(&stack, &installed.previousStack);
  struct sigaction action = {};
  action.sa_handler = onFault;
  sigemptyset(&action.sa_mask);
  action.sa_flags = SA_NODEFER | SA_ONSTACK;
  for (auto [index, signal] : llvm::enumerate(kGuardedSignals))
    sigaction(signal, &action, &installed.previous[index]);
}

static void restoreHandlers() {
  for (auto [index, signal] : llvm::enumerate(kGuardedSignals))
    sigaction(signal, &installed.previous[index], nullptr);
  sigaltstack(&installed.previousStack, nullptr);
}

FaultReport::FaultReport(llvm::StringRef what) { installHandlers(what); }

FaultReport::~FaultReport() { restoreHandlers(); }

llvm::Error callGuarded(void (*function)(void **), void **arguments,
                        llvm::StringRef what) {
  installHandlers(what);
  sigjmp_buf buffer;
  failedCheck = nullptr;
  caughtSignal = 0;
  if (sigsetjmp(buffer, /*savemask=*/1) == 0) {
    activeGuard = &buffer;
    function(arguments);
  }
  activeGuard = nullptr;
  restoreHandlers();
  if (failedCheck)
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   what + " failed a runtime check at " +
                                       failedCheck);
  if (caughtSignal)
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        what + " crashed: " + describeSignal(caughtSignal));
  return llvm::Error::success();
}

} // namespace tile::runner

extern "C" void tile_runtime_check_failed(const char *message) {
  using namespace tile::runner;
  if (activeGuard) {
    failedCheck = message;
    siglongjmp(*activeGuard, 1);
  }
  reportAndExit(" failed a runtime check at ", message);
}
