// RUN: tile-opt %s -split-input-file -verify-diagnostics --tile-write-ptx=output=%t.ptx | FileCheck %s --check-prefix=IR
// RUN: FileCheck %s --check-prefix=PTX < %t.ptx
// RUN: FileCheck %s --check-prefix=FIRST < %t.first.ptx
// RUN: FileCheck %s --check-prefix=SECOND < %t.second.ptx
// RUN: tile-opt %s -split-input-file -verify-diagnostics --tile-write-ptx=output=- -o /dev/null | FileCheck %s --check-prefix=STDOUT

// The PTX of a gpu.binary goes to the file; the IR is unchanged.
// IR: gpu.binary @k_module
// PTX: .version 8.6
// PTX: .entry k(
gpu.binary @k_module [#gpu.object<#nvvm.target<chip = "sm_90a">, assembly = "//\0A.version 8.6\0A.target sm_90a\0A.address_size 64\0A.visible .entry k()\0A{\0A\09ret;\0A}\0A">]

// -----

// Several kernels: a file each, named after the kernel its launcher
// launches; on standard output, one after the other.
// FIRST: .entry first(
// FIRST-NOT: .entry
// SECOND: .entry second(
// SECOND-NOT: .entry
// STDOUT: .entry k(
// STDOUT: // ===== kernel first
// STDOUT-NEXT: //
// STDOUT: .entry first(
// STDOUT: // ===== kernel second
// STDOUT: .entry second(
module attributes {gpu.container_module} {
  func.func @first() {
    %c1 = arith.constant 1 : index
    gpu.launch_func @one::@first blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
    return
  }
  func.func @second() {
    %c1 = arith.constant 1 : index
    gpu.launch_func @two::@second blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
    return
  }
  gpu.binary @one [#gpu.object<#nvvm.target<chip = "sm_90a">, assembly = "//\0A.version 8.6\0A.target sm_90a\0A.address_size 64\0A.visible .entry first()\0A{\0A\09ret;\0A}\0A">]
  gpu.binary @two [#gpu.object<#nvvm.target<chip = "sm_90a">, assembly = "//\0A.version 8.6\0A.target sm_90a\0A.address_size 64\0A.visible .entry second()\0A{\0A\09ret;\0A}\0A">]
}

// -----

// Two binaries whose kernels have the same name: rejected.
// expected-error @below {{two gpu.binary ops hold a kernel named 'k': their PTX would go to the same place}}
module attributes {gpu.container_module} {
  func.func @one() {
    %c1 = arith.constant 1 : index
    gpu.launch_func @m1::@k blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
    gpu.launch_func @m2::@k blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
    return
  }
  gpu.binary @m1 [#gpu.object<#nvvm.target<chip = "sm_90a">, assembly = ".entry k()">]
  gpu.binary @m2 [#gpu.object<#nvvm.target<chip = "sm_90a">, assembly = ".entry k()">]
}

// -----

// expected-error @below {{no PTX to write: expected gpu.binary ops serialized with format=isa}}
module {
  func.func @host() {
    return
  }
}
