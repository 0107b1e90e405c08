// RUN: tile-opt %s -split-input-file --tile-to-gpu -verify-diagnostics

// Dynamic shared memory (more than 48 KB) is aligned to at most 1024 bytes.
tile.kernel @big_shared_aligned() grid [1] threads [128] {
  %a = tile.alloc_shared : memref<16384xf32, #gpu.address_space<workgroup>>
  // expected-error @+1 {{'tile.alloc_shared' op alignment 2048 is not supported: the kernel's shared buffers take 65664 bytes, more than the 49152 of static shared memory, and dynamic shared memory is aligned to at most 1024 bytes}}
  %b = tile.alloc_shared {alignment = 2048} : memref<32xf32, #gpu.address_space<workgroup>>
}

// -----

// Below the static limit, any power-of-two alignment is kept.
tile.kernel @small_shared_aligned() grid [1] threads [128] {
  %b = tile.alloc_shared {alignment = 128} : memref<32xf32, #gpu.address_space<workgroup>>
}
