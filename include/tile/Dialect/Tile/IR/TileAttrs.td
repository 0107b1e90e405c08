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

//===----------------------------------------------------------------------===//
// Fragments
//===----------------------------------------------------------------------===//

class Tile_Attr<string name, string attrMnemonic, list<Trait> traits = []>
    : AttrDef<Tile_Dialect, name, traits> {
  let mnemonic = attrMnemonic;
}

def Tile_FragmentSpaceAttr : Tile_Attr<"FragmentSpace", "fragment"> {
  let summary = "The memory space of fragments: block-wide register tiles";
  let description = [{
    A memref in `#tile.fragment` is a tile held in the registers of the
    block's threads, each thread holding the elements the fragment's layout
    gives it (`tile.alloc_fragment`). It is accessed only by tile-level ops
    (`tile.copy`, `tile.fill`, `tile.clear`, `tile.gemm`) and by
    `tile.parallel` loops over its index space.

    ```mlir
    %acc = tile.alloc_fragment : memref<128x128xf32, #tile.fragment>
    ```
  }];
}

def Tile_LayoutAttr : Tile_Attr<"Layout", "layout"> {
  let summary = "Which thread and register hold each element of a fragment";
  let description = [{
    A fragment layout distributes a tile of `shape` over `threads` threads
    holding `registers` elements each. `map` sends (thread, register) to the
    element's coordinates, `(d0, d1) -> (i, j, ...)` with d0 the linear
    thread index and d1 the register: each thread computes the coordinates
    of the elements it owns, which is what code generation needs. The map
    is a bijection from `[0, threads) x [0, registers)` onto the tile (no
    element is held twice or missed); the verifier checks it.

    The layouts the compiler builds (docs/TensorCores.md) are the blocked
    layout (contiguous runs of 16 bytes dealt round-robin to the threads)
    and the `mma.sync` accumulator layout (m16n8 tiles, warps tiling the
    fragment). `tile-infer-layouts` attaches them to `tile.alloc_fragment`.

    ```mlir
    // 8x8 over 32 threads, 2 consecutive elements each (an m16n8 C quadrant).
    #tile.layout<shape = [8, 8], threads = 32, registers = 2,
                 map = (d0, d1) -> (d0 floordiv 4, (d0 mod 4) * 2 + d1)>
    ```
  }];
  let parameters = (ins ArrayRefParameter<"int64_t">:$shape,
                        "int64_t":$threads, "int64_t":$registers,
                        "::mlir::AffineMap":$map);
  let assemblyFormat = [{
    `<` `shape` `=` `[` $shape `]` `,` `threads` `=` $threads `,`
    `registers` `=` $registers `,` `map` `=` $map `>`
  }];
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// The coordinates of the element (thread, register) holds.
    ::llvm::SmallVector<int64_t> getCoordinates(int64_t thread,
                                                int64_t registerIndex) const;
    /// The number of elements of the tile.
    int64_t getNumElements() const;
    /// Whether some element is held more than once (by several threads or
    /// in several registers): more (thread, register) pairs than elements.
    bool isReplicated() const {
      return getThreads() * getRegisters() > getNumElements();
    }
  }];
}

/// A list of thread-block dimensions, printed as `x, y`.
def Tile_DimArrayAttr : TypedArrayAttrBase<Tile_DimAttr,
                                           "list of thread-block dimensions">;

#endif // TILE_DIALECT_TILE_IR_TILEATTRS_TD
