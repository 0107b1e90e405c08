//===- ParserWorkarounds.cpp - Inputs that crash MLIR 22.1's parser -------===//

#include "tile/Tools/ParserWorkarounds.h"

#include "llvm/Support/Regex.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;

LogicalResult tile::rejectParserCrashInputs(const llvm::MemoryBuffer &buffer) {
  StringRef source = buffer.getBuffer();
  // `array<index` with any blanks, outside comments and strings is rare
  // enough that a textual scan is exact in practice.
  llvm::Regex denseIndexArray("array[ \t\r\n]*<[ \t\r\n]*index[ \t\r\n]*[:>]");
  SmallVector<StringRef> match;
  size_t offset = 0;
  while (offset < source.size() &&
         denseIndexArray.match(source.drop_front(offset), &match)) {
    size_t at = match[0].data() - source.data();
    offset = at + match[0].size();
    size_t lineStart = source.rfind('\n', at);
    lineStart = lineStart == StringRef::npos ? 0 : lineStart + 1;
    StringRef line = source.slice(lineStart, source.find('\n', at));
    // Skip comments (`//` before the match on its line).
    if (line.take_front(at - lineStart).contains("//"))
      continue;
    size_t lineNumber = source.take_front(at).count('\n') + 1;
    llvm::errs() << buffer.getBufferIdentifier() << ":" << lineNumber << ":"
                 << (at - lineStart + 1)
                 << ": error: a dense array of 'index' is not supported: "
                    "write array<i64: ...> (MLIR 22.1's parser crashes on "
                    "it, fixed upstream by llvm-project PR 179075)\n";
    return failure();
  }
  return success();
}
