//===- TileAttrs.td - Attributes of the tile dialect -------*- tablegen -*-===//

#ifndef TILE_DIALECT_TILE_IR_TILEATTRS_TD
#define TILE_DIALECT_TILE_IR_TILEATTRS_TD

include "tile/Dialect/Tile/IR/TileDialect.td"
include "mlir/IR/EnumAttr.td"

def Tile_DimX : I32EnumAttrCase<"x", 0>;
def Tile_DimY : I32EnumAttrCase<"y", 1>;
def Tile_DimZ : I32EnumAttrCase<"z", 2>;
def Tile_Dim : I32EnumAttr<"Dim", "a dimension of the grid or thread block",
                           [Tile_DimX, Tile_DimY, Tile_DimZ]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::mlir::tile";
}
def Tile_DimAttr : EnumAttr<Tile_Dialect, Tile_Dim, "dim"> {
  let assemblyFormat = "$value";
}

def Tile_ReduceAdd : I32EnumAttrCase<"add", 0>;
def Tile_ReduceMul : I32EnumAttrCase<"mul", 1>;
def Tile_ReduceMax : I32EnumAttrCase<"max", 2>;
def Tile_ReduceMin : I32EnumAttrCase<"min", 3>;
def Tile_ReduceAnd : I32EnumAttrCase<"and_", 4, "and">;
def Tile_ReduceOr : I32EnumAttrCase<"or_", 5, "or">;
def Tile_ReduceXor : I32EnumAttrCase<"xor_", 6, "xor">;
def Tile_ReduceKind : I32EnumAttr<"ReduceKind", "a reduction operator",
    [Tile_ReduceAdd, Tile_ReduceMul, Tile_ReduceMax, Tile_ReduceMin,
     Tile_ReduceAnd, Tile_ReduceOr, Tile_ReduceXor]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::mlir::tile";
}
def Tile_ReduceKindAttr : EnumAttr<Tile_Dialect, Tile_ReduceKind, "reduce"> {
  let assemblyFormat = "$value";
}

/// A list of thread-block dimensions, printed as `x, y`.
def Tile_DimArrayAttr : TypedArrayAttrBase<Tile_DimAttr,
                                           "list of thread-block dimensions">;

#endif // TILE_DIALECT_TILE_IR_TILEATTRS_TD
