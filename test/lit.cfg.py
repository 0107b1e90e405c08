# -*- Python -*-
# lit configuration of the tile-mlir tests, shared by two suites: test/ and
# examples/ (every example kernel carries its own RUN lines).

import os
import shutil

import lit.formats
from lit.llvm import llvm_config
from lit.llvm.subst import ToolSubst

config.name = "TILE-" + config.suite_name
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".test"]

config.test_source_root = config.suite_source_root
config.test_exec_root = os.path.join(config.tile_obj_root, config.suite_name)
config.excludes = ["Inputs"]

config.substitutions.append(("%PATH%", config.environment["PATH"]))
config.substitutions.append(("%tile_src_root", config.tile_src_root))
config.substitutions.append(("%tile_obj_root", config.tile_obj_root))
# The fuzzer's time budget (test/Tools/fuzz.test): short by default, longer
# with `lit --param fuzz_seconds=N` (scripts/test.sh: TILE_FUZZ_SECONDS).
config.substitutions.append(
    ("%fuzz_seconds", lit_config.params.get("fuzz_seconds", "60")))

llvm_config.with_system_environment(["HOME", "INCLUDE", "LIB", "TMP", "TEMP",
                                    "ASAN_OPTIONS", "UBSAN_OPTIONS",
                                    "LSAN_OPTIONS"])
llvm_config.use_default_substitutions()

tool_dirs = [config.tile_tools_dir, config.llvm_tools_dir]
tools = ["tile-opt", "tile-run", "not", "count"]
llvm_config.add_tool_substitutions(tools, tool_dirs)

# ptxas assembles the PTX of every example. CI must have it (CUDA is
# installed there); elsewhere, tests that need it are reported unsupported.
ptxas = shutil.which("ptxas") or shutil.which("ptxas", path="/usr/local/cuda/bin")
if ptxas:
    config.available_features.add("ptxas")
    # %ptxas-each PREFIX: PREFIX.ptx, or PREFIX.KERNEL.ptx of each kernel.
    config.substitutions.append(
        ("%ptxas-each", "bash %s %s" % (
            os.path.join(config.tile_src_root, "test", "Utils", "ptxas-each.sh"),
            ptxas)))
    config.substitutions.append(("%ptxas", ptxas))
elif os.environ.get("CI"):
    lit_config.fatal("ptxas not found: CI must assemble the generated PTX "
                     "(install CUDA under /usr/local/cuda)")

# A usable GPU: the CUDA driver loads and sees a device. GPU tests say
# `REQUIRES: cuda` and are reported unsupported elsewhere.
def has_cuda_device():
    import ctypes
    try:
        cuda = ctypes.CDLL("libcuda.so.1")
    except OSError:
        return False
    count = ctypes.c_int(0)
    return cuda.cuInit(0) == 0 and cuda.cuDeviceGetCount(ctypes.byref(count)) == 0 and count.value > 0


if has_cuda_device():
    config.available_features.add("cuda")
