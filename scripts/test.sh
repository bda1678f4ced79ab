#!/usr/bin/env bash
# Set up, build and run the whole test suite, twice: a Debug build under AddressSanitizer and
# UndefinedBehaviorSanitizer, then an optimized build with asserts on. Warnings are errors. Then
# the threaded tests under ThreadSanitizer, the tao solver's tests in a build with PETSc (serially
# and on 2 MPI ranks; `scripts/deps.sh petsc` installs petsc-dev), and the build without CHOLMOD.
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/deps.sh
jobs="$(nproc)"

echo "== debug + AddressSanitizer + UndefinedBehaviorSanitizer"
cmake -S . -B build/asan -DCMAKE_BUILD_TYPE=Debug -DCN_SANITIZE=ON -DCN_WARNINGS_AS_ERRORS=ON > /dev/null
cmake --build build/asan -j"$jobs"
ctest --test-dir build/asan --output-on-failure -j"$jobs"

echo "== optimized (RelWithDebInfo, asserts on)"
cmake -S . -B build/rel -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCN_WARNINGS_AS_ERRORS=ON > /dev/null
cmake --build build/rel -j"$jobs"
ctest --test-dir build/rel --output-on-failure -j"$jobs"

echo "== ThreadSanitizer: the threaded tests (test_threads; without CHOLMOD, whose OpenMP TSan cannot see)"
cmake -S . -B build/tsan -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCN_TSAN=ON -DCN_WARNINGS_AS_ERRORS=ON \
    -DCN_WITH_CHOLMOD=OFF -DCN_BUILD_VIEWER=OFF > /dev/null
cmake --build build/tsan -j"$jobs" --target test_threads
TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1" \
    ctest --test-dir build/tsan -R '^test_threads$' --output-on-failure

echo "== PETSc (-DCN_WITH_PETSC=ON): the tao solver, serially and on 2 MPI ranks (test_tao, test_tao_ranks)"
bash scripts/deps.sh petsc
cmake -S . -B build/petsc -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCN_WARNINGS_AS_ERRORS=ON -DCN_WITH_PETSC=ON \
    -DCN_BUILD_VIEWER=OFF > /dev/null
cmake --build build/petsc -j"$jobs" --target cairn_cli test_tao
ctest --test-dir build/petsc -R '^test_tao' --output-on-failure

echo "== without CHOLMOD (-DCN_WITH_CHOLMOD=OFF: the MIT-only build; pgs_sm factorises densely)"
cmake -S . -B build/nocholmod -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCN_WARNINGS_AS_ERRORS=ON -DCN_WITH_CHOLMOD=OFF \
    -DCN_BUILD_TESTS=OFF -DCN_BUILD_VIEWER=OFF > /dev/null
cmake --build build/nocholmod -j"$jobs" --target cairn_cli
if nm -C build/nocholmod/engine/libcairn.a | grep -q "U cholmod_"; then
    echo "the build without CHOLMOD still calls it" >&2
    exit 1
fi
build/nocholmod/demos/cairn run assets/scenes/mass_ratio.json --steps 60 --solver pgs_sm --quiet
