# -*- Python -*-
# lit configuration of the tile-mlir tests, shared by two suites: test/ and
# examples/ (every example kernel carries its own RUN lines).

import os

import lit.formats
from lit.llvm import llvm_config
from lit.llvm.subst import ToolSubst

config.name = "TILE-" + config.suite_name
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir"]

config.test_source_root = config.suite_source_root
config.test_exec_root = os.path.join(config.tile_obj_root, config.suite_name)
config.excludes = ["Inputs"]

config.substitutions.append(("%PATH%", config.environment["PATH"]))
config.substitutions.append(("%examples", os.path.join(config.tile_src_root,
                                                       "examples")))

llvm_config.with_system_environment(["HOME", "INCLUDE", "LIB", "TMP", "TEMP"])
llvm_config.use_default_substitutions()

tool_dirs = [config.tile_tools_dir, config.llvm_tools_dir]
tools = ["tile-opt"]
llvm_config.add_tool_substitutions(tools, tool_dirs)
