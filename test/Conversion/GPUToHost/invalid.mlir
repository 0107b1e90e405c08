// RUN: tile-opt %s -split-input-file -tile-gpu-to-host="test-skip-barrier=1 test-skip-barrier-kernel=k" -verify-diagnostics

// Ops without a CPU meaning are errors naming the op.
module attributes {gpu.container_module} {
  gpu.module @unsupported_module {
    gpu.func @unsupported(%out: memref<32xi32>) kernel {
      // expected-error @+1 {{'gpu.subgroup_size' op is not supported by the CPU target}}
      %n = gpu.subgroup_size : index
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
