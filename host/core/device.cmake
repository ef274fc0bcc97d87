# host/core/device.cmake: the device API's host side (the per-module state
# registry and its construction at init). include()d from
# host/core/CMakeLists.txt; builds in every configuration (without CUDA the
# setup is a no-op for host heaps).
target_sources(gshmem PRIVATE ${CMAKE_CURRENT_LIST_DIR}/device_state.c)
