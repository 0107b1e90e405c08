// RUN: tile-opt %s -split-input-file -tile-gpu-to-host | FileCheck %s
// RUN: tile-opt %s -split-input-file -tile-gpu-to-host=race-check | FileCheck %s --check-prefix=RACE

// A kernel becomes a host function of one thread: context and arena first,
// indices are context loads, the launcher and the gpu.module are gone, a
// workgroup global is a view of the arena, the barrier a runtime call.

// CHECK-LABEL: module attributes {tile.cpu_sites = [
// CHECK-SAME: "{{.*}}tile-gpu-to-host.mlir:{{[0-9]+}}:{{[0-9]+}}: memref.store on memref<64xf32>"
// CHECK-SAME: "{{.*}}: gpu.barrier (placed by tile-insert-barriers)"
// CHECK-NOT: gpu.module
// CHECK-NOT: gpu.launch_func
// CHECK: func.func @reverse(%[[CTX:.+]]: memref<16xi64>, %[[ARENA:.+]]: memref<?xi8>, %[[OUT:.+]]: memref<64xf32>)
// CHECK-SAME: tile.cpu_shared_bytes = 256
// CHECK: %[[BUF:.+]] = memref.view %[[ARENA]][%{{.+}}][] : memref<?xi8> to memref<64xf32>
// CHECK: %[[TX:.+]] = memref.load %[[CTX]][%c0{{.*}}] : memref<16xi64>
// CHECK: %[[T:.+]] = arith.index_cast %[[TX]] : i64 to index
// CHECK: memref.store %{{.+}}, %[[BUF]][%[[T]]] : memref<64xf32>
// CHECK: call @tile_rt_barrier(%{{.+}}) : (i32) -> ()
// Dynamic indices are bounds-checked: out of bounds, the runtime hears of it
// instead, and a load reads 0.
// CHECK: %[[R:.+]] = arith.subi
// CHECK: %[[INR:.+]] = arith.cmpi ult, %[[R]], %c64
// CHECK: %[[W:.+]] = scf.if %[[INR]] -> (f32) {
// CHECK-NEXT: memref.load %[[BUF]][%[[R]]]
// CHECK: call @tile_rt_out_of_bounds
// CHECK: scf.yield %cst : f32
// CHECK: %[[IN:.+]] = arith.cmpi ult, %[[T]], %c64
// CHECK: scf.if %[[IN]] {
// CHECK-NEXT: memref.store %[[W]], %[[OUT]][%[[T]]]
// CHECK-NEXT: } else {
// CHECK: call @tile_rt_out_of_bounds
// CHECK: return
// CHECK: func.func private @tile_rt_barrier(i32)

// In race-check mode, each shared access reports its address: reads before,
// writes after (the runtime compares what two racing writes wrote).
// RACE-LABEL: func.func @reverse
// RACE: memref.store
// RACE: %[[ADDR:.+]] = arith.index_cast %{{.+}} : index to i64
// RACE: call @tile_rt_shared_access(%[[ADDR]], %c4_i64, %{{.+}}, %c1_i32)
// RACE: call @tile_rt_barrier
// RACE: call @tile_rt_shared_access(%{{.+}}, %c4_i64, %{{.+}}, %c0_i32)
// RACE-NEXT: memref.load
module attributes {gpu.container_module} {
  func.func @reverse(%out: memref<64xf32>) attributes {tile.launcher} {
    %c1 = arith.constant 1 : index
    %c64 = arith.constant 64 : index
    gpu.launch_func @reverse_module::@reverse blocks in (%c1, %c1, %c1) threads in (%c64, %c1, %c1) args(%out : memref<64xf32>)
    return
  }
  gpu.module @reverse_module {
    memref.global "private" @__shared_reverse_0 : memref<64xf32, #gpu.address_space<workgroup>> {alignment = 16 : i64}
    gpu.func @reverse(%out: memref<64xf32>) kernel {
      %c63 = arith.constant 63 : index
      %buf = memref.get_global @__shared_reverse_0 : memref<64xf32, #gpu.address_space<workgroup>>
      %t = gpu.thread_id x
      %ti = arith.index_cast %t : index to i32
      %v = arith.sitofp %ti : i32 to f32
      memref.store %v, %buf[%t] : memref<64xf32, #gpu.address_space<workgroup>>
      gpu.barrier {tile.inserted_by = "tile-insert-barriers"}
      %r = arith.subi %c63, %t : index
      %w = memref.load %buf[%r] : memref<64xf32, #gpu.address_space<workgroup>>
      memref.store %w, %out[%t] : memref<64xf32>
      gpu.return
    }
  }
}

// -----

// Shuffles move 64 bits through the runtime, in its mode numbering (down is
// 2); validity is a second call.

// CHECK-LABEL: func.func @warp_sum
// CHECK: %[[BITS:.+]] = arith.bitcast %{{.+}} : f32 to i32
// CHECK: %[[WIDE:.+]] = arith.extui %[[BITS]] : i32 to i64
// CHECK: %[[OUT:.+]] = call @tile_rt_shuffle(%[[WIDE]], %{{.+}}, %{{.+}}, %c2_i32, %{{.+}}) : (i64, i32, i32, i32, i32) -> i64
// CHECK: %[[NARROW:.+]] = arith.trunci %[[OUT]] : i64 to i32
// CHECK: arith.bitcast %[[NARROW]] : i32 to f32
// CHECK: %[[VALID:.+]] = call @tile_rt_shuffle_valid() : () -> i32
// CHECK: arith.cmpi ne, %[[VALID]]
module attributes {gpu.container_module} {
  gpu.module @warp_sum_module {
    gpu.func @warp_sum(%out: memref<32xf32>) kernel {
      %c1 = arith.constant 1 : i32
      %c32 = arith.constant 32 : i32
      %zero = arith.constant 0.0 : f32
      %t = gpu.thread_id x
      %ti = arith.index_cast %t : index to i32
      %v = arith.sitofp %ti : i32 to f32
      %s, %ok = gpu.shuffle down %v, %c1, %c32 : f32
      %r = arith.select %ok, %s, %zero : f32
      memref.store %r, %out[%t] : memref<32xf32>
      gpu.return
    }
  }
}

// -----

// Asynchronous copies are done when issued; the group ops and the proxy
// fence (the host has one proxy) vanish. The
// mbarriers live in the arena after the dynamic shared memory, 8 bytes each,
// and their ops call the runtime with the barrier's arena offset.

// CHECK-LABEL: func.func @pipeline
// CHECK-SAME: tile.cpu_shared_bytes = 80
// CHECK-NOT: nvgpu.
// CHECK-NOT: nvvm.
// CHECK: memref.view %{{.+}}[%c0{{.*}}][%c64{{.*}}] : memref<?xi8> to memref<?xi8>
// CHECK: call @tile_rt_mbarrier_init(%{{.+}}, %{{.+}}, %{{.+}}) : (i32, i32, i32) -> ()
// CHECK: %[[V:.+]] = scf.if %{{.+}} -> (vector<4xf32>) {
// CHECK-NEXT: vector.load %{{.+}} : memref<256xf32>, vector<4xf32>
// CHECK: vector.store %[[V]], %{{.+}} : memref<16xf32>, vector<4xf32>
// CHECK: call @tile_rt_cp_async_mbarrier_arrive(%{{.+}}, %c0_i32{{.*}}, %{{.+}}) : (i32, i32, i32) -> ()
// CHECK: call @tile_rt_mbarrier_arrive(%{{.+}}, %{{.+}}) : (i32, i32) -> ()
// CHECK: call @tile_rt_mbarrier_wait_parity(%{{.+}}, %{{.+}}, %{{.+}}) : (i32, i32, i32) -> ()
module attributes {gpu.container_module} {
  gpu.module @pipeline_module {
    gpu.func @pipeline(%in: memref<256xf32>) kernel attributes {tile.dynamic_shared_memory = 64 : i64} {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c4 = arith.constant 4 : index
      %c32 = arith.constant 32 : index
      %false = arith.constant false
      %smem = gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>
      %buf = memref.view %smem[%c0][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<16xf32, #gpu.address_space<workgroup>>
      %bars = nvgpu.mbarrier.create -> !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 2>
      nvgpu.mbarrier.init %bars[%c1], %c32 : !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 2>
      %t = gpu.thread_id x
      %src = arith.muli %t, %c4 : index
      %token = nvgpu.device_async_copy %in[%src], %buf[%c0], 4 : memref<256xf32> to memref<16xf32, #gpu.address_space<workgroup>>
      %group = nvgpu.device_async_create_group %token
      nvgpu.device_async_wait %group
      nvvm.cp.async.commit.group
      nvvm.cp.async.wait.group 0
      nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
      %i = nvgpu.mbarrier.get %bars[%c1] : !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 2> -> i32
      %p = llvm.inttoptr %i : i32 to !llvm.ptr<3>
      nvvm.cp.async.mbarrier.arrive %p : !llvm.ptr<3>
      %tok = nvgpu.mbarrier.arrive %bars[%c1] : !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 2> -> !nvgpu.mbarrier.token
      nvgpu.mbarrier.try_wait.parity %bars[%c1], %false, %c32 : !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 2>
      gpu.return
    }
  }
}


// -----

// Regression (found in review): a 2-D vector covers two rows and four
// columns, so both dimensions are checked against what the vector spans:
// row <= 4 - 2 and column <= 8 - 4.
// CHECK-LABEL: func.func @vector_2d
// CHECK: %[[ROWS:.+]] = arith.subi %c4{{.*}}, %c2{{.*}} : index
// CHECK: arith.cmpi ule, %{{.+}}, %[[ROWS]] : index
// CHECK: %[[COLS:.+]] = arith.subi %c8{{.*}}, %c4{{.*}} : index
// CHECK: arith.cmpi ule, %{{.+}}, %[[COLS]] : index
// CHECK: scf.if %{{.+}} -> (vector<2x4xf32>)
module attributes {gpu.container_module} {
  gpu.module @vector_2d_module {
    gpu.func @vector_2d(%in: memref<4x8xf32>, %out: memref<2x4xf32>) kernel {
      %c0 = arith.constant 0 : index
      %t = gpu.thread_id x
      %v = vector.load %in[%t, %t] : memref<4x8xf32>, vector<2x4xf32>
      vector.store %v, %out[%c0, %c0] : memref<2x4xf32>, vector<2x4xf32>
      gpu.return
    }
  }
}

// -----

// gpu.printf calls printf with C's promotions: i1 zero-extended (found in
// review: it printed -1 for true), narrower integers sign-extended, floats
// as double, index as i64.
// CHECK-LABEL: func.func @print
// CHECK: %[[FLAG:.+]] = arith.extui %{{.+}} : i1 to i32
// CHECK: %[[F:.+]] = arith.extf %{{.+}} : f32 to f64
// CHECK: llvm.call @printf(%{{.+}}, %[[FLAG]], %[[F]]) vararg(!llvm.func<i32 (ptr, ...)>)
module attributes {gpu.container_module} {
  gpu.module @print_module {
    gpu.func @print(%x: f32) kernel {
      %true = arith.constant true
      gpu.printf "flag=%d x=%f\n", %true, %x : i1, f32
      gpu.return
    }
  }
}

// -----

// The lane is the linear thread index x + dim.x * (y + dim.y * z) modulo
// 32, read from the context (thread ids at slots 0-2, block extents from
// slot 6: tile::cpu::ContextSlot); gpu.lane_id's result is reused, each
// nvvm laneid computes its own; the warp size is 32, of the op's type.
// CHECK-LABEL: func.func @lanes
// CHECK-SAME: (%[[CTX:[^:]+]]: memref<16xi64>
// CHECK: %[[X:.+]] = memref.load %[[CTX]][%c0{{.*}}]
// CHECK: %[[Y:.+]] = memref.load %[[CTX]][%c1{{.*}}]
// CHECK: %[[Z:.+]] = memref.load %[[CTX]][%c2{{.*}}]
// CHECK: %[[DX:.+]] = memref.load %[[CTX]][%c6{{.*}}]
// CHECK: %[[DY:.+]] = memref.load %[[CTX]][%c7{{.*}}]
// CHECK: %[[ZDY:.+]] = arith.muli %{{.+}}, %{{.+}} : index
// CHECK: %[[ZY:.+]] = arith.addi %[[ZDY]], %{{.+}} : index
// CHECK: %[[ZYDX:.+]] = arith.muli %[[ZY]], %{{.+}} : index
// CHECK: %[[LINEAR:.+]] = arith.addi %[[ZYDX]], %{{.+}} : index
// CHECK: %[[LANE:.+]] = arith.remui %[[LINEAR]], %c32{{.*}} : index
// CHECK: %[[LANE32:.+]] = arith.index_cast %[[LANE]] : index to i32
// CHECK: memref.store %[[LANE32]], %{{.+}}[%c0{{.*}}]
// CHECK: memref.store %{{.+}}, %{{.+}}[%c1{{.*}}]
// CHECK: %[[NVLANE:.+]] = arith.remui %{{.+}}, %c32{{.*}} : index
// CHECK: %[[NVLANE32:.+]] = arith.index_cast %[[NVLANE]] : index to i32
// CHECK: memref.store %[[NVLANE32]], %{{.+}}[%c2{{.*}}]
// CHECK: memref.store %c32_i32, %{{.+}}[%c3{{.*}}]
// CHECK-NOT: nvvm.read
// CHECK-NOT: gpu.lane_id
module attributes {gpu.container_module} {
  gpu.module @lanes_module {
    gpu.func @lanes(%out: memref<4xi32>) kernel {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c2 = arith.constant 2 : index
      %c3 = arith.constant 3 : index
      %lane = gpu.lane_id
      %lane32 = arith.index_cast %lane : index to i32
      memref.store %lane32, %out[%c0] : memref<4xi32>
      %same = arith.index_cast %lane : index to i32
      memref.store %same, %out[%c1] : memref<4xi32>
      %nvlane = nvvm.read.ptx.sreg.laneid : i32
      memref.store %nvlane, %out[%c2] : memref<4xi32>
      %size = nvvm.read.ptx.sreg.warpsize : i32
      memref.store %size, %out[%c3] : memref<4xi32>
      gpu.return
    }
  }
}

// -----

// A view whose bytes leave its source is reported, and made to fit: a view
// that starts too late gets shift 0; one larger than its whole source (only
// known at run time here) views a private buffer of its size, freed at the
// end of its block. A view that statically fits needs no private buffer.
// CHECK-LABEL: func.func @views
// CHECK: %[[FITS:.+]] = arith.andi
// CHECK: scf.if %{{.+}} {
// CHECK: call @tile_rt_out_of_bounds
// CHECK: %[[SHIFT:.+]] = arith.select %[[FITS]], %{{.+}}, %c0{{.*}} : index
// CHECK: %[[LARGE:.+]] = arith.cmpi slt, %{{.+}}, %c0{{.*}} : index
// CHECK: %[[BASE:.+]] = scf.if %[[LARGE]] -> (memref<?xi8>) {
// CHECK-NEXT: %[[PRIVATE:.+]] = memref.alloc(%{{.+}}) {alignment = 16 : i64} : memref<?xi8>
// CHECK-NEXT: scf.yield %[[PRIVATE]] : memref<?xi8>
// CHECK-NEXT: } else {
// CHECK-NEXT: scf.yield %{{.+}} : memref<?xi8>
// CHECK: %[[VIEW:.+]] = memref.view %[[BASE]][%[[SHIFT]]][] : memref<?xi8> to memref<16xf32>
// CHECK: scf.for
// CHECK: memref.store %{{.+}}, %[[VIEW]]
// CHECK: }
// CHECK: memref.view %{{.+}}[%{{.+}}][] : memref<64xi8> to memref<8xf32>
// CHECK-NOT: memref.alloc
// CHECK: scf.if %[[LARGE]] {
// CHECK-NEXT: memref.dealloc %[[BASE]] : memref<?xi8>
// CHECK-NEXT: }
// CHECK-NEXT: return
module attributes {gpu.container_module} {
  gpu.module @views_module {
    gpu.func @views(%x: f32) kernel attributes {tile.dynamic_shared_memory = 32 : i64} {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c16 = arith.constant 16 : index
      %smem = gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>
      %t = gpu.thread_id x
      %big = memref.view %smem[%t][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<16xf32, #gpu.address_space<workgroup>>
      scf.for %i = %c0 to %c16 step %c1 {
        memref.store %x, %big[%i] : memref<16xf32, #gpu.address_space<workgroup>>
      }
      %raw = memref.alloca() : memref<64xi8, #gpu.address_space<workgroup>>
      %small = memref.view %raw[%t][] : memref<64xi8, #gpu.address_space<workgroup>> to memref<8xf32, #gpu.address_space<workgroup>>
      memref.store %x, %small[%c0] : memref<8xf32, #gpu.address_space<workgroup>>
      gpu.return
    }
  }
}

// -----

// A view that leaves its block (yielded by an scf.if) keeps its private
// buffer: the buffer is not visible where the view's last use is (freeing
// it before the return did not dominate; found in review). The run fails
// with the report anyway.
// CHECK-LABEL: func.func @escaping_view
// CHECK: scf.if %{{.+}} -> (memref<16xf32>) {
// CHECK: %[[LARGE:.+]] = arith.cmpi slt
// CHECK: %[[BASE:.+]] = scf.if %[[LARGE]] -> (memref<?xi8>) {
// CHECK: memref.view %[[BASE]]
// CHECK-NOT: memref.dealloc
// CHECK: scf.yield %{{.+}} : memref<16xf32>
// CHECK: memref.store
// CHECK-NOT: memref.dealloc
// CHECK: return
module attributes {gpu.container_module} {
  gpu.module @escaping_view_module {
    gpu.func @escaping_view(%x: f32, %c: i1) kernel attributes {tile.dynamic_shared_memory = 32 : i64} {
      %c0 = arith.constant 0 : index
      %smem = gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>
      %t = gpu.thread_id x
      %v = scf.if %c -> memref<16xf32, #gpu.address_space<workgroup>> {
        %big = memref.view %smem[%t][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<16xf32, #gpu.address_space<workgroup>>
        scf.yield %big : memref<16xf32, #gpu.address_space<workgroup>>
      } else {
        %other = memref.view %smem[%c0][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<16xf32, #gpu.address_space<workgroup>>
        scf.yield %other : memref<16xf32, #gpu.address_space<workgroup>>
      }
      memref.store %x, %v[%c0] : memref<16xf32, #gpu.address_space<workgroup>>
      gpu.return
    }
  }
}
