// RUN: tile-opt %s -split-input-file -verify-diagnostics --tile-write-ptx=output=%t.ptx | FileCheck %s --check-prefix=IR
// RUN: FileCheck %s --check-prefix=PTX < %t.ptx

// The PTX of a gpu.binary goes to the file; the IR is unchanged.
// IR: gpu.binary @tile_kernels
// PTX: .version 8.6
// PTX: .entry k(
gpu.binary @tile_kernels [#gpu.object<#nvvm.target<chip = "sm_90a">, assembly = "//\0A.version 8.6\0A.target sm_90a\0A.address_size 64\0A.visible .entry k()\0A{\0A\09ret;\0A}\0A">]

// -----

// expected-error @below {{no PTX to write: expected gpu.binary ops serialized with format=isa}}
module {
  func.func @host() {
    return
  }
}
