//===- LinkDefinitions.cpp - Functions defined in other files -------------===//
//
// Replaces `tile.defined_in` declarations by the definitions in the files
// they name, like a linker: each file is parsed once, the definition and the
// functions it calls (that the module lacks) are copied in.
//
//===----------------------------------------------------------------------===//

#include "tile/Runner/LinkDefinitions.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Support/FileUtilities.h"
#include "tile/Dialect/Tile/IR/TileDialect.h"
#include "tile/Tools/ParserWorkarounds.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"

using namespace mlir;
using namespace mlir::tile;

/// Returns `file` resolved against the directory of `modulePath`.
static std::string resolvePath(StringRef modulePath, StringRef file) {
  if (llvm::sys::path::is_absolute(file))
    return file.str();
  SmallString<256> path(llvm::sys::path::parent_path(modulePath));
  llvm::sys::path::append(path, file);
  return std::string(path);
}

/// Parses `path` into a module, or emits why not at `declaration`. The
/// buffer joins `sourceMgr` so that diagnostics can show its lines.
static OwningOpRef<ModuleOp> parseDefiningFile(func::FuncOp declaration,
                                               StringRef path,
                                               llvm::SourceMgr &sourceMgr) {
  std::string message;
  std::unique_ptr<llvm::MemoryBuffer> buffer = openInputFile(path, &message);
  if (!buffer) {
    declaration.emitError("'@")
        << declaration.getSymName() << "' is defined in '" << path
        << "', which cannot be read: " << message;
    return nullptr;
  }
  OwningOpRef<ModuleOp> parsed;
  if (succeeded(rejectParserCrashInputs(*buffer))) {
    unsigned id =
        sourceMgr.AddNewSourceBuffer(std::move(buffer), llvm::SMLoc());
    parsed = parseSourceString<ModuleOp>(
        sourceMgr.getMemoryBuffer(id)->getBuffer(),
        ParserConfig(declaration.getContext()), path);
  }
  if (!parsed)
    declaration.emitError("'@")
        << declaration.getSymName() << "' is defined in '" << path
        << "', which does not parse";
  return parsed;
}

LogicalResult tile::linkDeclaredDefinitions(ModuleOp module,
                                            StringRef modulePath,
                                            llvm::SourceMgr &sourceMgr) {
  SmallVector<func::FuncOp> declarations;
  for (func::FuncOp function : module.getOps<func::FuncOp>())
    if (function.isDeclaration() && function->hasAttr(kDefinedInAttr))
      declarations.push_back(function);
  if (declarations.empty())
    return success();

  SymbolTable symbols(module);
  llvm::StringMap<OwningOpRef<ModuleOp>> files;
  for (func::FuncOp declaration : declarations) {
    std::string path = resolvePath(
        modulePath,
        declaration->getAttrOfType<StringAttr>(kDefinedInAttr).getValue());
    OwningOpRef<ModuleOp> &file = files[path];
    if (!file) {
      file = parseDefiningFile(declaration, path, sourceMgr);
      if (!file)
        return failure();
    }
    StringRef name = declaration.getSymName();
    auto definition = SymbolTable::lookupNearestSymbolFrom<func::FuncOp>(
        file.get(), StringAttr::get(module.getContext(), name));
    if (!definition || definition.isDeclaration())
      return declaration.emitError("'@")
             << name << "' is declared as defined in '" << path
             << "', which does not define it";
    if (definition.getFunctionType() != declaration.getFunctionType())
      return declaration.emitError("'@")
             << name << "' is declared as " << declaration.getFunctionType()
             << " but '" << path << "' defines it as "
             << definition.getFunctionType();

    // The definition, then what it calls that the module lacks.
    SmallVector<func::FuncOp> worklist = {definition};
    symbols.erase(declaration);
    while (!worklist.empty()) {
      func::FuncOp next = worklist.pop_back_val();
      if (symbols.lookup(next.getSymNameAttr()))
        continue;
      Operation *copy = next->clone();
      symbols.insert(copy);
      std::optional<SymbolTable::UseRange> uses =
          SymbolTable::getSymbolUses(copy);
      if (!uses)
        continue;
      for (const SymbolTable::SymbolUse &use : *uses) {
        StringAttr callee = use.getSymbolRef().getRootReference();
        if (symbols.lookup(callee))
          continue;
        if (auto function = SymbolTable::lookupNearestSymbolFrom<func::FuncOp>(
                file.get(), callee))
          worklist.push_back(function);
      }
    }
  }
  return success();
}
