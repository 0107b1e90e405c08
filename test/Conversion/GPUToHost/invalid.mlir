// RUN: tile-opt %s -split-input-file -tile-gpu-to-host="test-skip-barrier=1 test-skip-barrier-kernel=k" -verify-diagnostics

// Ops without a CPU meaning are errors naming the op: the gpu, nvgpu and
// NVVM dialects are illegal after the conversion (ThreadOpsToRuntime.cpp).
module attributes {gpu.container_module} {
  gpu.module @unsupported_module {
    gpu.func @unsupported(%out: memref<32xi32>) kernel {
      // expected-error @+2 {{failed to legalize operation 'gpu.subgroup_size' that was explicitly marked illegal}}
      // expected-note @+1 {{the CPU target runs no such op: it lowers thread indices, barriers, shuffles, mbarriers, asynchronous copies and printf (docs/CPUTarget.md)}}
      %n = gpu.subgroup_size : index
      gpu.return
    }
  }
}

// -----

// A barrier of the NVVM dialect with a barrier number is not a block barrier.
module attributes {gpu.container_module} {
  gpu.module @named_barrier_module {
    gpu.func @named_barrier() kernel {
      %id = arith.constant 1 : i32
      // expected-error @+2 {{failed to legalize operation 'nvvm.barrier' that was explicitly marked illegal}}
      // expected-note @+1 {{the CPU target runs no such op}}
      nvvm.barrier id = %id
      gpu.return
    }
  }
}

// -----

// The runtime shuffles scalars of at most 64 bits.
module attributes {gpu.container_module} {
  gpu.module @wide_shuffle_module {
    gpu.func @wide_shuffle(%v: vector<2xf32>) kernel {
      %c1 = arith.constant 1 : i32
      %c32 = arith.constant 32 : i32
      // expected-error @+1 {{'gpu.shuffle' op of 'vector<2xf32>' is not supported by the CPU target}}
      %r, %ok = gpu.shuffle xor %v, %c1, %c32 : vector<2xf32>
      gpu.return
    }
  }
}

// -----

// Waits on an mbarrier token are not modelled: only waits by phase parity.
module attributes {gpu.container_module} {
  gpu.module @token_module {
    gpu.func @token() kernel {
      %c0 = arith.constant 0 : index
      %bars = nvgpu.mbarrier.create -> !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>>
      %tok = nvgpu.mbarrier.arrive %bars[%c0] : !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>> -> !nvgpu.mbarrier.token
      // expected-error @+1 {{'nvgpu.mbarrier.test.wait' op is not supported by the CPU target}}
      %done = nvgpu.mbarrier.test.wait %bars[%c0], %tok : !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>>, !nvgpu.mbarrier.token
      gpu.return
    }
  }
}

// -----

// The race check's test hook names a barrier that exists.
module attributes {gpu.container_module} {
  gpu.module @k_module {
    // expected-error @+1 {{test-skip-barrier=1: kernel 'k' has 1 block barriers}}
    gpu.func @k() kernel {
      gpu.barrier
      gpu.return
    }
  }
}
