# Makes every target link the static LLVM component archives rather than the
# shared libLLVM.so that Debian's MLIR libraries name in their link
# interfaces. The result needs only libc, libstdc++, libz and libzstd.

set(LLVM_LINK_LLVM_DYLIB OFF)

execute_process(
  COMMAND "${LLVM_TOOLS_BINARY_DIR}/llvm-config" --link-static --libs all
  OUTPUT_VARIABLE TILE_LLVM_STATIC_LIBS
  OUTPUT_STRIP_TRAILING_WHITESPACE
  RESULT_VARIABLE status)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "llvm-config --link-static --libs all failed")
endif()
separate_arguments(TILE_LLVM_STATIC_LIBS UNIX_COMMAND "${TILE_LLVM_STATIC_LIBS}")
# Debian does not ship Polly.
list(REMOVE_ITEM TILE_LLVM_STATIC_LIBS -lPolly -lPollyISL)

# The shared library targets (libLLVM.so, libMLIR.so): drop them from every
# imported MLIR library.
get_property(tile_mlir_libs GLOBAL PROPERTY MLIR_ALL_LIBS)
foreach(lib ${tile_mlir_libs} mlir_c_runner_utils mlir_float16_utils)
  if(TARGET ${lib})
    get_target_property(links ${lib} INTERFACE_LINK_LIBRARIES)
    if(links)
      list(REMOVE_ITEM links LLVM MLIR)
      set_target_properties(${lib} PROPERTIES INTERFACE_LINK_LIBRARIES "${links}")
    endif()
  endif()
endforeach()

# Every executable gets the archives at the end of its link line (the
# standard libraries' place), grouped so their order does not matter. Not
# link_libraries: that also gives them to our static libraries, whose link
# interfaces then put the group in the middle of an executable's line,
# before MLIR archives that need it (MLIRExecutionEngine needs OrcJIT).
string(JOIN " " tile_llvm_group ${TILE_LLVM_STATIC_LIBS})
string(APPEND CMAKE_CXX_STANDARD_LIBRARIES
  " -L${LLVM_LIBRARY_DIR} -Wl,--start-group ${tile_llvm_group} -Wl,--end-group"
  " -lz /usr/lib/x86_64-linux-gnu/libzstd.so.1 -lrt -ldl -lm -lpthread")

# LLVMSupport names zstd through a target of the zstd package, which Debian
# ships without its CMake files.
if(NOT TARGET zstd::libzstd_shared)
  add_library(zstd::libzstd_shared SHARED IMPORTED)
  set_target_properties(zstd::libzstd_shared PROPERTIES
    IMPORTED_LOCATION /usr/lib/x86_64-linux-gnu/libzstd.so.1)
endif()
