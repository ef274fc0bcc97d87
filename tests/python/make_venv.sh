#!/bin/sh
# make_venv.sh VENV PKG: a venv at VENV with the Python package at PKG (a
# folder holding pyproject.toml and gshmem/: <build>/python or the source
# tree's python/) pip-installed the way a user does offline:
#   pip install --no-index --no-build-isolation PKG
# from a copy of PKG (setuptools writes build/ and *.egg-info beside the
# sources). The base interpreter: GSHMEM_VENV_PYTHON, else the first of
# python3 (PATH) and /usr/bin/python3 with venv, pip, setuptools and wheel,
# one that also has NumPy and torch first. The venv sees the base's
# site-packages (Debian's setuptools, wheel, NumPy, torch; a .pth names
# them too where the base is itself a venv). Nothing is done while
# VENV/.installed is newer than every file of PKG. Tests run side by side:
# call it under flock. Exit 77 after a "SKIP: " line when no interpreter
# fits.
set -eu
venv=$1
pkg=$2
stamp=$venv/.installed
if [ -f "$stamp" ] && [ -z "$(find "$pkg/pyproject.toml" "$pkg/gshmem" -newer "$stamp" \
                                  -not -path '*/__pycache__*' | head -n 1)" ]; then
  exit 0
fi
base=
for mods in "setuptools, wheel, venv, pip, numpy, torch" "setuptools, wheel, venv, pip"; do
  for py in ${GSHMEM_VENV_PYTHON:-} python3 /usr/bin/python3; do
    if "$py" -c "import $mods" 2>/dev/null; then
      base=$py
      break 2
    fi
  done
done
if [ -z "$base" ]; then
  echo "SKIP: no python3 (PATH, /usr/bin) has venv, pip, setuptools and wheel" \
       "(Debian: python3-venv python3-pip python3-setuptools python3-wheel)"
  exit 77
fi
rm -rf "$venv"
# --without-pip: the base's pip, visible through its site-packages, installs
# into the venv (no ensurepip: seconds less).
"$base" -m venv --system-site-packages --without-pip "$venv"
site=$("$venv/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
"$base" -c 'import site; print("\n".join(site.getsitepackages()))' >"$site/gshmem-base.pth"
touch "$venv/.started"   # before the copy: a later edit of PKG makes it stale
mkdir "$venv/src"
cp -R "$pkg/pyproject.toml" "$pkg/gshmem" "$venv/src/"
rm -rf "$venv/src/gshmem/__pycache__"
"$venv/bin/python" -m pip install --quiet --no-index --no-build-isolation --no-cache-dir \
    --no-deps --disable-pip-version-check "$venv/src"
rm -rf "$venv/src"
mv "$venv/.started" "$stamp"
