# cmake/deb/prebuild.cmake: a CPack pre-build script, run on the
# staged files of the .deb packages. They install into /usr, which the
# loader searches, so:
#  - their gshmem.pc gets an empty rpath variable: programs built against
#    it carry no RUNPATH;
#  - their programs and libraries keep only the $ORIGIN entries of their
#    RUNPATH: an absolute folder under /usr/lib (pmix.pc's
#    <triplet>/pmix2/lib, whose libpmix.so.2 Debian also links into
#    <triplet>) is a custom search path lintian rejects.
file(GLOB_RECURSE _pcs "${CPACK_TEMPORARY_DIRECTORY}/*/gshmem.pc")
foreach(_pc ${_pcs})
  file(READ ${_pc} _text)
  string(REGEX REPLACE "\nrpath=[^\n]*" "\nrpath=" _text "${_text}")
  file(WRITE ${_pc} "${_text}")
endforeach()

file(GLOB_RECURSE _files LIST_DIRECTORIES false "${CPACK_TEMPORARY_DIRECTORY}/*/usr/bin/*"
     "${CPACK_TEMPORARY_DIRECTORY}/*/usr/lib/*.so*")
foreach(_f ${_files})
  if(IS_SYMLINK ${_f})
    continue()
  endif()
  unset(_rp)         # READ_ELF leaves both as they were on success/failure
  unset(_not_elf)
  file(READ_ELF ${_f} RUNPATH _rp CAPTURE_ERROR _not_elf)
  if(_not_elf OR NOT _rp)
    continue()
  endif()
  set(_entries ${_rp})   # a list already
  list(FILTER _entries EXCLUDE REGEX "^/usr/lib(/|$)")
  list(JOIN _entries ":" _new)
  if(NOT _new STREQUAL "${_rp}")
    file(RPATH_SET FILE ${_f} NEW_RPATH "${_new}")
  endif()
endforeach()

# What Debian asks of every package: /usr/share/doc/<pkg>/copyright and
# changelog.Debian.gz, and the lintian overrides (with their reasons) in
# /usr/share/lintian/overrides/<pkg>. Added here, not by install rules, so
# a source install gets none of them.
string(TIMESTAMP _date "%a, %d %b %Y %H:%M:%S +0000" UTC)
foreach(_comp ${CPACK_COMPONENTS_ALL})
  string(TOUPPER ${_comp} _c)
  set(_pkg ${CPACK_DEBIAN_${_c}_PACKAGE_NAME})
  set(_root "${CPACK_TEMPORARY_DIRECTORY}/${_comp}/usr/share")
  file(MAKE_DIRECTORY "${_root}/doc/${_pkg}" "${_root}/lintian/overrides")
  file(COPY_FILE "${CPACK_GSHMEM_DEB_DIR}/copyright" "${_root}/doc/${_pkg}/copyright")
  file(WRITE "${_root}/doc/${_pkg}/changelog.Debian"
       "gshmem (${CPACK_PACKAGE_VERSION}-${CPACK_DEBIAN_PACKAGE_RELEASE}) unstable; urgency=medium\n\n"
       "  * gshmem ${CPACK_PACKAGE_VERSION}, packaged from its source tree with CPack.\n\n"
       " -- ${CPACK_PACKAGE_CONTACT}  ${_date}\n")
  execute_process(COMMAND gzip -9nf "${_root}/doc/${_pkg}/changelog.Debian"
                  RESULT_VARIABLE _rc)
  if(_rc)
    message(FATAL_ERROR "gzip of ${_pkg}'s changelog.Debian failed")
  endif()
  file(READ "${CPACK_GSHMEM_DEB_DIR}/overrides/common" _ov)
  # overrides/<comp>, then overrides/<comp><variant> (e.g. lib-cuda)
  set(_names ${_comp} ${_comp}${CPACK_GSHMEM_DEB_VARIANT})
  list(REMOVE_DUPLICATES _names)
  foreach(_name ${_names})
    if(EXISTS "${CPACK_GSHMEM_DEB_DIR}/overrides/${_name}")
      file(READ "${CPACK_GSHMEM_DEB_DIR}/overrides/${_name}" _more)
      string(APPEND _ov "${_more}")
    endif()
  endforeach()
  file(WRITE "${_root}/lintian/overrides/${_pkg}" "${_ov}")
endforeach()
