//===- TmaCopies.h - Tensor maps of a kernel's TMA copies -------*- C++ -*-===//
//
// Private to tile-to-gpu (TileToGPU.cpp outlines kernels; TmaCopies.cpp
// lowers their TMA copies).
//
//===----------------------------------------------------------------------===//

#ifndef TILE_LIB_CONVERSION_TILETOGPU_TMACOPIES_H
#define TILE_LIB_CONVERSION_TILETOGPU_TMACOPIES_H

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "tile/Dialect/Tile/IR/TileOps.h"

namespace mlir::tile {

/// One tensor map: a kernel argument cut into boxes, swizzled or not, its
/// f32 elements rounded to tf32 on the way or copied as bits.
struct TensorMap {
  unsigned argument;
  SmallVector<int64_t> box;
  int64_t swizzle;
  bool roundTF32 = false;

  bool operator==(const TensorMap &other) const {
    return argument == other.argument && box == other.box &&
           swizzle == other.swizzle && roundTF32 == other.roundTF32;
  }
  /// `tf32` only where the map rounds, so that other maps read as before.
  DictionaryAttr toAttr(Builder &builder) const {
    SmallVector<NamedAttribute, 4> fields = {
        builder.getNamedAttr("argument", builder.getI64IntegerAttr(argument)),
        builder.getNamedAttr("box", builder.getDenseI64ArrayAttr(box)),
        builder.getNamedAttr("swizzle", builder.getI64IntegerAttr(swizzle))};
    if (roundTF32)
      fields.push_back(builder.getNamedAttr("tf32", builder.getUnitAttr()));
    return builder.getDictionaryAttr(fields);
  }
};

/// The distinct tensor maps the TMA copies of `kernel` read, in order of
/// first use.
SmallVector<TensorMap> collectTensorMaps(KernelOp kernel);

/// Appends a tensor-map parameter to `func` per entry of `maps`, records
/// them in `tile.tensor_maps`, fences each for the tensor-map proxy (the
/// launcher wrote it with a copy from the host) and lowers the TMA copies.
void addTensorMaps(gpu::GPUFuncOp func, ArrayRef<TensorMap> maps);

} // namespace mlir::tile

#endif // TILE_LIB_CONVERSION_TILETOGPU_TMACOPIES_H
