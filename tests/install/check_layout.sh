#!/bin/sh
# check_layout.sh PREFIX SOURCE_DIR: the installed header layout.
#  - the public headers at PREFIX/include (gshmem.h, gshmem_device.h, ...)
#    with their inline parts beside them under PREFIX/include/gshmem/, i.e.
#    exactly the files of the source tree's include/, nothing else (no
#    PREFIX/include/gshmem/include, no PREFIX/include/include, no src/
#    internals);
#  - pkg-config's includedir is PREFIX/include and --cflags is just -I of it.
# Prints what is wrong and exits 1, or prints "layout OK".
set -u
prefix=$1 src=$2 bad=0
fail() { echo "layout: $*"; bad=1; }
[ -f "$prefix/include/gshmem.h" ] || fail "$prefix/include/gshmem.h is missing"
[ -f "$prefix/include/gshmem_device.h" ] || fail "$prefix/include/gshmem_device.h is missing"
[ ! -e "$prefix/include/gshmem/include" ] || fail "$prefix/include/gshmem/include exists"
[ ! -e "$prefix/include/include" ] || fail "$prefix/include/include exists"
want=$(cd "$src/include" && find . -type f | LC_ALL=C sort)
have=$(cd "$prefix/include" 2>/dev/null && find . -type f | LC_ALL=C sort)
if [ "$want" != "$have" ]; then
  fail "the files under $prefix/include differ from the source's include/:"
  printf '%s\n' "$want" >"$prefix/want.lst"
  printf '%s\n' "$have" >"$prefix/have.lst"
  diff "$prefix/want.lst" "$prefix/have.lst" | sed 's/^/  /'
fi
export PKG_CONFIG_PATH="$prefix/lib/pkgconfig"
inc=$(pkg-config --variable=includedir gshmem) || fail "pkg-config gshmem failed"
real=$(cd "$prefix/include" && pwd -P)
[ "$(cd "$inc" 2>/dev/null && pwd -P)" = "$real" ] ||
  fail "pkg-config includedir '$inc' is not $prefix/include"
cflags=$(echo $(pkg-config --cflags gshmem))
case $cflags in
  -I*" "* | "") fail "pkg-config --cflags is '$cflags', expected only -I$prefix/include" ;;
  -I*) [ "$(cd "${cflags#-I}" 2>/dev/null && pwd -P)" = "$real" ] ||
         fail "pkg-config --cflags is '$cflags', expected -I$prefix/include" ;;
  *) fail "pkg-config --cflags is '$cflags', expected -I$prefix/include" ;;
esac
[ "$bad" -eq 0 ] && echo "layout OK ($(printf '%s\n' "$have" | wc -l) headers under $prefix/include)"
exit "$bad"
