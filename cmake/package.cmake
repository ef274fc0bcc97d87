# cmake/package.cmake: the Debian packages of a build folder, made by
# `cpack` there (files in <build>/deb). CPack's DEB generator is
# used, not a debian/ tree, so the packages are made from the very install
# rules `cmake --install` runs and cannot drift from them. Components:
#   lib      libgshmem0      libgshmem.so.0, gshmemrun, gshmem-oshrun, gshmem-info
#   dev      libgshmem-dev   headers, libgshmem.so, gshmem.pc, the CMake
#                            package, gshmem-oshcc, -oshc++ (, -oshnvcc)
#   python   python3-gshmem  the Python package and libgshmem_dlrm_op.so
#   apps     gshmem-apps     the reference apps and benchmarks
# A CUDA build's packages are the CUDA variant, "-cuda" in every name
# (libgshmem0-cuda, libgshmem-cuda-dev, python3-gshmem-cuda,
# gshmem-apps-cuda, and so their .deb files); each provides, conflicts with
# and replaces the CPU package's name, so either satisfies a dependency on
# it. The shared-library dependencies (libfabric1, libhwloc15, libopenmpi3,
# libpmix2, libc6) come from dpkg-shlibdeps; the CUDA runtime is not a
# Debian 12 package and is left to the machine (NVIDIA's packages).
# The short names (oshcc, oshrun, ...) are offered by update-alternatives
# in the lib and dev packages' postinst (cmake/deb/postinst.in).
if(GSHMEM_ENABLE_CUDA)
  set(gshmem_deb_variant "-cuda")
else()
  set(gshmem_deb_variant "")
endif()
set(gshmem_deb_lib libgshmem0${gshmem_deb_variant})
set(gshmem_deb_dev libgshmem${gshmem_deb_variant}-dev)
set(gshmem_deb_python python3-gshmem${gshmem_deb_variant})
set(gshmem_deb_apps gshmem-apps${gshmem_deb_variant})

set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME gshmem)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(GSHMEM_DEB_MAINTAINER "gshmem developers <gshmem@example.org>" CACHE STRING
    "The Maintainer field of the .deb packages")
set(CPACK_PACKAGE_CONTACT "${GSHMEM_DEB_MAINTAINER}")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_PACKAGE_DIRECTORY ${PROJECT_BINARY_DIR}/deb)
set(CPACK_STRIP_FILES ON)
set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_COMPONENTS_ALL lib dev python apps)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)            # <name>_<version>_<arch>.deb
set(CPACK_DEBIAN_PACKAGE_RELEASE 1)
set(CPACK_DEBIAN_PACKAGE_SECTION libs)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS_PRIVATE_DIRS ${PROJECT_BINARY_DIR})
# CUDA builds: programs that use the driver API need libcuda.so.1, which the
# NVIDIA driver installs (no Debian 12 package to depend on). On a build
# machine without the driver, dpkg-shlibdeps finds it as the toolkit's stub
# (a libcuda.so.1 link to stubs/libcuda.so in the build folder) and, the
# stub belonging to no package, adds no dependency for it.
if(GSHMEM_ENABLE_CUDA AND EXISTS "${CUDAToolkit_LIBRARY_DIR}/stubs/libcuda.so")
  file(MAKE_DIRECTORY ${PROJECT_BINARY_DIR}/deb-driver-stub)
  file(CREATE_LINK "${CUDAToolkit_LIBRARY_DIR}/stubs/libcuda.so"
       ${PROJECT_BINARY_DIR}/deb-driver-stub/libcuda.so.1 SYMBOLIC)
  list(APPEND CPACK_DEBIAN_PACKAGE_SHLIBDEPS_PRIVATE_DIRS ${PROJECT_BINARY_DIR}/deb-driver-stub)
endif()
set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION ON)
# cmake/deb/prebuild.cmake: no rpath in the packaged gshmem.pc and
# binaries (in /usr the loader needs none); copyright, changelog and
# lintian overrides (cmake/deb/overrides: each with its reason).
set(CPACK_PRE_BUILD_SCRIPTS ${CMAKE_CURRENT_LIST_DIR}/deb/prebuild.cmake)
set(CPACK_GSHMEM_DEB_DIR ${CMAKE_CURRENT_LIST_DIR}/deb)
set(CPACK_GSHMEM_DEB_VARIANT "${gshmem_deb_variant}")
set(CPACK_DEBIAN_PACKAGE_SOURCE gshmem)
set(gshmem_deb_same "(= ${PROJECT_VERSION}-1)")

# gshmem_deb(comp name section summary lines...): one package's fields.
macro(gshmem_deb comp name section summary)
  string(TOUPPER ${comp} _c)
  set(CPACK_DEBIAN_${_c}_PACKAGE_NAME ${name})
  set(CPACK_DEBIAN_${_c}_PACKAGE_SECTION ${section})
  set(_d ${ARGN})
  list(JOIN _d "\n" _d)
  set(CPACK_COMPONENT_${_c}_DESCRIPTION "${summary}\n${_d}")
  if(gshmem_deb_variant)
    string(REPLACE "${gshmem_deb_variant}" "" _base ${name})
    set(CPACK_DEBIAN_${_c}_PACKAGE_PROVIDES "${_base} ${gshmem_deb_same}")
    set(CPACK_DEBIAN_${_c}_PACKAGE_CONFLICTS ${_base})
    set(CPACK_DEBIAN_${_c}_PACKAGE_REPLACES ${_base})
  endif()
endmacro()
gshmem_deb(lib ${gshmem_deb_lib} libs "OpenSHMEM-style PGAS runtime for GPU and CPU PEs"
  "gshmem's shared library, its launcher gshmemrun (also as gshmem-oshrun)"
  "and gshmem-info.")
gshmem_deb(dev ${gshmem_deb_dev} libdevel "OpenSHMEM-style PGAS runtime (development files)"
  "Headers (gshmem.h, shmem.h, the device API), pkg-config and CMake files,"
  "and the compiler wrappers gshmem-oshcc, gshmem-oshc++ and, in the CUDA"
  "variant, gshmem-oshnvcc.")
gshmem_deb(python ${gshmem_deb_python} python "OpenSHMEM-style PGAS runtime (Python 3 package)"
  "The gshmem Python package (ctypes over libgshmem) and its DLRM op library.")
gshmem_deb(apps ${gshmem_deb_apps} science "OpenSHMEM-style PGAS runtime (reference apps)"
  "The fused DLRM embedding + all-to-all app, sparse All-Reduce, the demo"
  "and the benchmarks.")

set(CPACK_DEBIAN_PACKAGE_GENERATE_SHLIBS ON)     # libgshmem0's DEBIAN/shlibs
set(CPACK_DEBIAN_PACKAGE_GENERATE_SHLIBS_POLICY ">=")
set(CPACK_DEBIAN_DEV_PACKAGE_DEPENDS "${gshmem_deb_lib} ${gshmem_deb_same}, gcc | c-compiler")
if(GSHMEM_ENABLE_MPI)
  # libgshmem's CMake target carries MPI::MPI_C in its link interface.
  string(APPEND CPACK_DEBIAN_DEV_PACKAGE_DEPENDS ", libopenmpi-dev")
endif()
set(CPACK_DEBIAN_DEV_PACKAGE_RECOMMENDS "pkgconf, g++")
set(CPACK_DEBIAN_PYTHON_PACKAGE_DEPENDS "${gshmem_deb_lib} ${gshmem_deb_same}, python3")
set(CPACK_DEBIAN_PYTHON_PACKAGE_RECOMMENDS "python3-numpy")
set(CPACK_DEBIAN_APPS_PACKAGE_DEPENDS "${gshmem_deb_lib} ${gshmem_deb_same}")

# Maintainer scripts. lib and dev: postinst/prerm register and withdraw the
# alternatives of the short names of their gshmem-<name> commands
# (gshmem_wrapper_names, tools/wrappers). lib and python: the ldconfig
# trigger, and plain postinst/postrm where CPack would add ldconfig calls.
set(DEB_LIBBIN /usr/${CMAKE_INSTALL_LIBDIR}/gshmem/bin)
set(gshmem_deb_dev_alts ${gshmem_wrapper_names})
list(REMOVE_ITEM gshmem_deb_dev_alts oshrun)
set(gshmem_deb_exec OWNER_READ OWNER_WRITE OWNER_EXECUTE GROUP_READ GROUP_EXECUTE
    WORLD_READ WORLD_EXECUTE)
foreach(comp lib dev python)
  string(TOUPPER ${comp} _c)
  set(DEB_PKG ${CPACK_DEBIAN_${_c}_PACKAGE_NAME})
  set(_dir ${PROJECT_BINARY_DIR}/deb-control/${comp})
  set(_scripts)
  if(comp STREQUAL python)
    foreach(DEB_SCRIPT postinst postrm)
      configure_file(${CMAKE_CURRENT_LIST_DIR}/deb/plain.sh.in ${_dir}/${DEB_SCRIPT} @ONLY
                     FILE_PERMISSIONS ${gshmem_deb_exec})
      list(APPEND _scripts ${_dir}/${DEB_SCRIPT})
    endforeach()
  else()
    if(comp STREQUAL lib)
      set(DEB_ALT_NAMES oshrun)
    else()
      list(JOIN gshmem_deb_dev_alts " " DEB_ALT_NAMES)
    endif()
    foreach(script postinst prerm)
      configure_file(${CMAKE_CURRENT_LIST_DIR}/deb/${script}.in ${_dir}/${script} @ONLY
                     FILE_PERMISSIONS ${gshmem_deb_exec})
      list(APPEND _scripts ${_dir}/${script})
    endforeach()
  endif()
  if(NOT comp STREQUAL dev)
    if(comp STREQUAL lib)
      set(DEB_SCRIPT postrm)
      configure_file(${CMAKE_CURRENT_LIST_DIR}/deb/plain.sh.in ${_dir}/postrm @ONLY
                     FILE_PERMISSIONS ${gshmem_deb_exec})
      list(APPEND _scripts ${_dir}/postrm)
    endif()
    configure_file(${CMAKE_CURRENT_LIST_DIR}/deb/triggers ${_dir}/triggers COPYONLY)
    list(APPEND _scripts ${_dir}/triggers)
  endif()
  set(CPACK_DEBIAN_${_c}_PACKAGE_CONTROL_EXTRA "${_scripts}")
endforeach()
include(CPack)
