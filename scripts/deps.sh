#!/usr/bin/env bash
# Install the Debian 12 packages Cairn builds and tests with, when any is missing.
# Runs apt-get as root, or through sudo for a normal user.
#   bash scripts/deps.sh          the packages below
#   bash scripts/deps.sh peers    and Bullet and ODE (libbullet-dev, libode-dev) for the peer drivers of
#                                 tests/bench/peers and bench_peers.py (docs/benchmarks.md)
#   bash scripts/deps.sh petsc    and PETSc with Open MPI (petsc-dev, openmpi-bin) for the tao solver
#                                 (-DCN_WITH_PETSC=ON; docs/solvers.md, docs/scale-out.md)
set -euo pipefail

# libsuitesparse-dev: CHOLMOD and AMD, the sparse factorisation of pgs_sm and the Newton methods
# (optional at build time: -DCN_WITH_CHOLMOD=OFF; its supernodal module is GPL-2.0+, see README)
# libhdf5-dev: cairn lcp reads fclib HDF5 problem files with it (optional: without it they are refused)
# the viewer (second line): GLFW, cglm, OpenGL headers, stb, the glad generator, and Xvfb with Mesa's
# software renderer (llvmpipe) for headless screenshots and the viewer tests
packages="build-essential cmake pkg-config libccd-dev libcjson-dev check libhdf5-dev libsuitesparse-dev
    libglfw3-dev libcglm-dev libgl-dev libstb-dev python3-glad xvfb xauth libgl1-mesa-dri libglx-mesa0"

for argument in "$@"; do
    case "$argument" in
        peers) packages="$packages libbullet-dev libode-dev" ;;
        petsc) packages="$packages petsc-dev openmpi-bin" ;;
        *)
            echo "usage: bash scripts/deps.sh [peers] [petsc]" >&2
            exit 2
            ;;
    esac
done

missing=""
for package in $packages; do
    if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed"; then
        missing="$missing $package"
    fi
done

if [ -n "$missing" ]; then
    echo "installing:$missing"
    sudo=""
    if [ "$(id -u)" -ne 0 ]; then
        sudo="sudo"
    fi
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends $missing
fi
