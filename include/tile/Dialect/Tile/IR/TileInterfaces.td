//===- TileInterfaces.td - Interfaces of the tile dialect --*- tablegen -*-===//

#ifndef TILE_DIALECT_TILE_IR_TILEINTERFACES_TD
#define TILE_DIALECT_TILE_IR_TILEINTERFACES_TD

include "mlir/IR/OpBase.td"

def Tile_CollectiveOpInterface : OpInterface<"CollectiveOpInterface"> {
  let cppNamespace = "::mlir::tile";
  let description = [{
    An op whose work is shared by the threads of a block. Every thread of the
    block must reach it in uniform control flow: the lowering distributes its
    iterations over the threads and may synchronize them. The kernel verifier
    rejects such an op under thread-dependent control flow.
  }];
  let methods = [
    InterfaceMethod<[{
        Returns true when this instance must be reached by every thread of the
        block. An op that is collective only for some operands (a copy into a
        per-thread buffer is not) overrides it.
      }],
      "bool", "isCollective", (ins), [{}], [{ return true; }]>
  ];
}

#endif // TILE_DIALECT_TILE_IR_TILEINTERFACES_TD
