//===- MemorySpaces.h - Where a kernel's buffers live -----------*- C++ -*-===//
//
// Classifies memrefs by the memory a kernel keeps them in. A memref type
// says global, shared, local or fragment by its memory space; a value also
// by how it was allocated (a `memref.alloca` is thread-private whatever its
// space) and what it views.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_DIALECT_TILE_IR_MEMORYSPACES_H
#define TILE_DIALECT_TILE_IR_MEMORYSPACES_H

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Value.h"

namespace mlir::tile {

/// Memory spaces a kernel distinguishes.
enum class MemorySpace { Global, Shared, Local, Fragment, Other };

/// Classifies the memory space of `type`: no memory space or
/// `#gpu.address_space<global>` is global, `workgroup` is shared,
/// `private` is local and `#tile.fragment` a fragment.
MemorySpace getMemorySpace(MemRefType type);

/// Returns true when `value` is a fragment (`#tile.fragment` memory space).
bool isFragment(Value value);

/// Returns true when `buffer` is private to a thread: allocated by
/// `tile.alloc_local` or `memref.alloca`, or in `private` memory.
bool isThreadPrivateBuffer(Value buffer);

/// Returns true when `value` is a memref of global memory: global memory
/// space (or none) and not a thread-private buffer.
bool isGlobalBuffer(Value value);

/// Whether `value` is shared (workgroup) memory, or a view or address-space
/// cast of it: a store through a generic-space cast of a shared buffer is a
/// shared store.
bool isSharedMemory(Value value);

/// Byte size of one element of a buffer: integers and floats rounded up to
/// whole bytes, `index` as 8 bytes, vectors as their element count times
/// the size of their element.
int64_t getBufferElementBytes(Type elementType);

} // namespace mlir::tile

#endif // TILE_DIALECT_TILE_IR_MEMORYSPACES_H
