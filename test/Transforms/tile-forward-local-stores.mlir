// RUN: tile-opt %s -split-input-file --pass-pipeline='builtin.module(tile.kernel(tile-forward-local-stores))' | FileCheck %s

// A load of an element stored earlier in the block takes the stored value;
// a store overwritten before any read is dropped; the last store stays (the
// buffer may be read after the block).
// CHECK-LABEL: tile.kernel @scalar
// CHECK-SAME: (%[[X:.+]]: memref<64xf32>)
// CHECK: %[[ACC:.+]] = tile.alloc_local : memref<2xf32>
// CHECK-NOT: memref.store
// CHECK: %[[V:.+]] = memref.load %[[X]]
// CHECK: %[[S:.+]] = arith.addf %[[V]], %[[V]]
// CHECK-NEXT: memref.store %[[S]], %[[ACC]][%c0]
// CHECK-NEXT: memref.store %[[S]], %[[X]]
// CHECK-NOT: memref.load %[[ACC]]
tile.kernel @scalar(%X: memref<64xf32>) grid [1] threads [64] {
  %c0 = arith.constant 0 : index
  %tx = tile.thread_id x
  %acc = tile.alloc_local : memref<2xf32>
  %v = memref.load %X[%tx] : memref<64xf32>
  memref.store %v, %acc[%c0] : memref<2xf32>
  %a = memref.load %acc[%c0] : memref<2xf32>
  %b = memref.load %acc[%c0] : memref<2xf32>
  %s = arith.addf %a, %b : f32
  memref.store %s, %acc[%c0] : memref<2xf32>
  %r = memref.load %acc[%c0] : memref<2xf32>
  memref.store %r, %X[%tx] : memref<64xf32>
}

// -----

// A store whose element is read first is kept; a repeated load of an element
// never stored in the block reuses the first load.
// CHECK-LABEL: tile.kernel @read_then_overwritten
// CHECK: %[[ACC:.+]] = tile.alloc_local : memref<2xf32>
// CHECK: memref.store %{{.*}}, %[[ACC]][%c0]
// CHECK: scf.for
// CHECK: %[[L:.+]] = memref.load %[[ACC]][%c1]
// CHECK-NOT: memref.load %[[ACC]]
// CHECK: arith.mulf %[[L]], %[[L]]
// CHECK: memref.store %{{.*}}, %[[ACC]][%c1]
tile.kernel @read_then_overwritten(%X: memref<64xf32>) grid [1] threads [64] {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %tx = tile.thread_id x
  %acc = tile.alloc_local : memref<2xf32>
  %v = memref.load %X[%tx] : memref<64xf32>
  memref.store %v, %acc[%c0] : memref<2xf32>
  scf.for %i = %c0 to %c4 step %c1 {
    %a = memref.load %acc[%c1] : memref<2xf32>
    %b = memref.load %acc[%c1] : memref<2xf32>
    %p = arith.mulf %a, %b : f32
    memref.store %p, %acc[%c1] : memref<2xf32>
  }
  %r = memref.load %acc[%c0] : memref<2xf32>
  memref.store %r, %X[%tx] : memref<64xf32>
}

// -----

// A loop that reads the buffer keeps the store before it, and a loop that
// writes it forgets what was known: the load after it stays.
// CHECK-LABEL: tile.kernel @nested_regions
// CHECK: %[[ACC:.+]] = tile.alloc_local : memref<4xf32>
// CHECK: memref.store %{{.*}}, %[[ACC]][%c0]
// CHECK: scf.for
// CHECK:   memref.load %[[ACC]][%c0]
// CHECK:   memref.store %{{.*}}, %[[ACC]][%{{.*}}]
// CHECK: }
// CHECK: memref.load %[[ACC]][%c0]
tile.kernel @nested_regions(%X: memref<64xf32>) grid [1] threads [64] {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %tx = tile.thread_id x
  %acc = tile.alloc_local : memref<4xf32>
  %v = memref.load %X[%tx] : memref<64xf32>
  memref.store %v, %acc[%c0] : memref<4xf32>
  scf.for %i = %c0 to %c4 step %c1 {
    %a = memref.load %acc[%c0] : memref<4xf32>
    memref.store %a, %acc[%i] : memref<4xf32>
  }
  %r = memref.load %acc[%c0] : memref<4xf32>
  memref.store %r, %X[%tx] : memref<64xf32>
}

// -----

// A store at an unknown index forgets every element (it may overwrite any)
// but does not make earlier stores needed; a load at an unknown index makes
// every pending store needed.
// CHECK-LABEL: tile.kernel @dynamic_indices
// CHECK: %[[ACC:.+]] = tile.alloc_local : memref<4xf32>
// CHECK-NEXT: memref.store %{{.*}}, %[[ACC]][%c1]
// CHECK-NEXT: memref.store %{{.*}}, %[[ACC]][%[[TX:[0-9a-z_]+]]]
// CHECK-NEXT: %[[A:.+]] = memref.load %[[ACC]][%c1]
// CHECK-NEXT: memref.store %[[A]], %[[ACC]][%c2]
// CHECK-NEXT: %[[B:.+]] = memref.load %[[ACC]][%[[TX]]]
tile.kernel @dynamic_indices(%X: memref<64xf32>) grid [1] threads [4] {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %cst = arith.constant 1.0 : f32
  %tx = tile.thread_id x
  %acc = tile.alloc_local : memref<4xf32>
  memref.store %cst, %acc[%c1] : memref<4xf32>
  memref.store %cst, %acc[%tx] : memref<4xf32>
  %a = memref.load %acc[%c1] : memref<4xf32>
  memref.store %a, %acc[%c2] : memref<4xf32>
  %b = memref.load %acc[%tx] : memref<4xf32>
  memref.store %b, %X[%tx] : memref<64xf32>
  memref.store %cst, %acc[%c2] : memref<4xf32>
}

// -----

// Vector stores forward lanes to scalar loads (vector.extract) and whole
// vectors to vector loads; a vector store all of whose lanes are overwritten
// before a read is dropped.
// CHECK-LABEL: tile.kernel @vectors
// CHECK-SAME: (%[[X:.+]]: memref<64xf32>)
// CHECK: %[[BUF:.+]] = tile.alloc_local : memref<8xf32>
// CHECK: %[[V:.+]] = vector.load %[[X]][%c0]
// CHECK-NOT: vector.store %[[V]], %[[BUF]]
// CHECK: %[[E:.+]] = vector.extract %[[V]][2] : f32 from vector<4xf32>
// CHECK: memref.store %[[E]], %[[X]][%c4]
// CHECK: %[[W:.+]] = vector.load %[[X]][%c8]
// CHECK: vector.store %[[W]], %[[BUF]][%c4]
// CHECK: vector.store %[[W]], %[[X]][%c12]
// CHECK: %[[F:.+]] = vector.from_elements %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : vector<4xf32>
// CHECK: vector.store %[[F]], %[[X]][%c16]
tile.kernel @vectors(%X: memref<64xf32>) grid [1] threads [1] {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %c12 = arith.constant 12 : index
  %c16 = arith.constant 16 : index
  %buf = tile.alloc_local : memref<8xf32>
  %v = vector.load %X[%c0] : memref<64xf32>, vector<4xf32>
  vector.store %v, %buf[%c0] : memref<8xf32>, vector<4xf32>
  %e = memref.load %buf[%c2] : memref<8xf32>
  memref.store %e, %X[%c4] : memref<64xf32>
  %w = vector.load %X[%c8] : memref<64xf32>, vector<4xf32>
  vector.store %w, %buf[%c4] : memref<8xf32>, vector<4xf32>
  %w2 = vector.load %buf[%c4] : memref<8xf32>, vector<4xf32>
  vector.store %w2, %X[%c12] : memref<64xf32>, vector<4xf32>
  // Lanes 2..5 straddle both stores.
  %m = vector.load %buf[%c2] : memref<8xf32>, vector<4xf32>
  vector.store %m, %X[%c16] : memref<64xf32>, vector<4xf32>
  // Overwrites lanes 0..3 of the first store, whose lane 2 and 3 were read
  // only through forwarding: the first store is dead.
  %z = vector.load %X[%c16] : memref<64xf32>, vector<4xf32>
  vector.store %z, %buf[%c0] : memref<8xf32>, vector<4xf32>
}

// -----

// A buffer with any other use (a subview, a tile op, a call) is left alone:
// its elements may be reached in ways the pass does not follow.
// CHECK-LABEL: tile.kernel @escaping
// CHECK: memref.store %{{.*}}, %[[BUF:.+]][%c0]
// CHECK: memref.subview %[[BUF]]
// CHECK: memref.load %[[BUF]][%c0]
tile.kernel @escaping(%X: memref<64xf32>) grid [1] threads [1] {
  %c0 = arith.constant 0 : index
  %cst = arith.constant 1.0 : f32
  %buf = tile.alloc_local : memref<8xf32>
  memref.store %cst, %buf[%c0] : memref<8xf32>
  %sv = memref.subview %buf[0] [4] [1] : memref<8xf32> to memref<4xf32, strided<[1]>>
  memref.store %cst, %sv[%c0] : memref<4xf32, strided<[1]>>
  %a = memref.load %buf[%c0] : memref<8xf32>
  memref.store %a, %X[%c0] : memref<64xf32>
}

// -----

// Shared buffers are visible to other threads: never forwarded.
// CHECK-LABEL: tile.kernel @shared_untouched
// CHECK: memref.store
// CHECK: memref.load
tile.kernel @shared_untouched(%X: memref<64xf32>) grid [1] threads [64] {
  %c0 = arith.constant 0 : index
  %cst = arith.constant 1.0 : f32
  %tx = tile.thread_id x
  %s = tile.alloc_shared : memref<8xf32, #gpu.address_space<workgroup>>
  memref.store %cst, %s[%c0] : memref<8xf32, #gpu.address_space<workgroup>>
  %a = memref.load %s[%c0] : memref<8xf32, #gpu.address_space<workgroup>>
  memref.store %a, %X[%tx] : memref<64xf32>
}

// -----

// Regression: a layout where two indices name the same element, and vector
// elements (one load or store moves one vector): left alone.
// CHECK-LABEL: tile.kernel @untracked_buffers
// CHECK-COUNT-2: memref.load
tile.kernel @untracked_buffers(%X: memref<64xf32>, %Y: memref<8xvector<4xf32>>) grid [1] threads [1] {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %v = arith.constant 1.0 : f32
  %w = arith.constant 2.0 : f32
  %s = tile.alloc_local : memref<2xf32, strided<[0]>>
  memref.store %v, %s[%c0] : memref<2xf32, strided<[0]>>
  memref.store %w, %s[%c1] : memref<2xf32, strided<[0]>>
  %a = memref.load %s[%c0] : memref<2xf32, strided<[0]>>
  memref.store %a, %X[%c0] : memref<64xf32>
  %vv = arith.constant dense<1.0> : vector<4xf32>
  %ww = arith.constant dense<2.0> : vector<4xf32>
  %e = tile.alloc_local : memref<8xvector<4xf32>>
  memref.store %ww, %e[%c1] : memref<8xvector<4xf32>>
  memref.store %vv, %e[%c0] : memref<8xvector<4xf32>>
  %b = memref.load %e[%c1] : memref<8xvector<4xf32>>
  memref.store %b, %Y[%c0] : memref<8xvector<4xf32>>
}

// -----

// A constant index past the buffer (here 2^63 - 1, where index + 1
// overflows) is not an access the pass can forward: it stays a load
// (found by scripts/fuzz.py; it crashed building a vector.extract).
// CHECK-LABEL: tile.kernel @index_past_the_end
// CHECK: memref.load %{{.*}}[%{{.*}}] : memref<1xf32>
tile.kernel @index_past_the_end(%y: memref<1xf32>) grid [1] threads [32] {
  %c0 = arith.constant 0 : index
  %big = arith.constant 9223372036854775807 : index
  %zero = arith.constant 0.0 : f32
  %acc = tile.alloc_local : memref<1xf32>
  memref.store %zero, %acc[%c0] : memref<1xf32>
  %r = memref.load %acc[%big] : memref<1xf32>
  memref.store %r, %y[%c0] : memref<1xf32>
}
