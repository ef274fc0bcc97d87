#!/bin/sh
# deb_unmet.sh DIR: prints each dependency of DIR/*.deb that no installed
# package satisfies (by name; one line per unmet "a | b" group), ignoring
# the packages' dependencies on one another. Empty: apt-get install ./*.deb
# can succeed without fetching anything.
# (test_package.c: the packages are made for the machine that built them;
# on another distribution, Ubuntu's libopenmpi3t64 for one, they cannot go.)
for d in "$1"/*.deb; do dpkg-deb -f "$d" Depends; done | tr ',' '\n' |
  sed -e 's/([^)]*)//g' -e 's/^ *//' -e 's/ *$//' | grep -v '^$' | sort -u |
  while read -r group; do
    ok=0
    for p in $(printf '%s' "$group" | tr '|' ' '); do
      case $p in
        libgshmem*|python3-gshmem*|gshmem-apps*) ok=1 ;;
        *) dpkg-query -W -f '${db:Status-Status}\n' "$p" 2>/dev/null | grep -q '^installed$' &&
             ok=1 ;;
      esac
    done
    [ "$ok" = 1 ] || printf '%s\n' "$group"
  done
