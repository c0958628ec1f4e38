#!/usr/bin/env bash
# Builds the libFuzzer target test/fuzz_native/api_fuzzer.cc with clang
# (Debian's clang and libclang-rt-14-dev, see DEPS) and
# -fsanitize=fuzzer,address,undefined, outside of GN: the library's sources
# are compiled again with coverage instrumentation, against the unpacked
# libnode (tools/bootstrap). GN's own targets stay g++-only.
#
#   test/fuzz_native/build.sh            # -> out/fuzz_native/api_fuzzer
#   out/fuzz_native/api_fuzzer -max_total_time=300 -jobs=2 \
#       out/fuzz_native/corpus test/fuzz_native/corpus
#
# OUT=dir changes the output folder; CXX=clang++-NN another clang.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
OUT=${OUT:-out/fuzz_native}
CXX=${CXX:-clang++}
DIST=third_party/libnode/dist/usr
LIBDIR=$PWD/$DIST/lib/x86_64-linux-gnu
if [[ ! -f $DIST/include/node/v8.h ]]; then
  echo "build.sh: $DIST is missing; run tools/bootstrap first" >&2
  exit 1
fi
mkdir -p "$OUT/obj" "$OUT/gen/src" "$OUT/corpus"
# The JavaScript layer's modules, as BUILD.gn's js_sources lists them.
js_files=$(sed -n '/^action("js_sources")/,/^}/p' BUILD.gn |
  grep -o '"src/js/[a-z_]*\.js"' | tr -d '"')
python3 tools/js2c.py --contract src/layer_contract.h \
  "$OUT/gen/src/js_sources.cc" Asyncctx $js_files
# Abseil, as third_party/absl/BUILD.gn links it.
ABSL_LIBS=$(pkg-config --libs absl_status absl_statusor absl_strings \
  absl_str_format absl_flat_hash_map absl_synchronization)

SANITIZE="-fsanitize=address,undefined -fno-sanitize=vptr \
  -fno-sanitize-recover=undefined -fno-omit-frame-pointer"
CXXFLAGS="-std=c++17 -O1 -g -pthread -fPIC $SANITIZE -DASYNCCTX_ASAN=1 \
  -I. -Iinclude -isystem $DIST/include/node"

# As many compilers at once as there are cores (JOBS=N to change).
JOBS=${JOBS:-$(nproc 2>/dev/null || echo 2)}
objects=()
pids=()
for src in src/*.cc "$OUT/gen/src/js_sources.cc" \
           test/fuzz_native/api_fuzzer.cc; do
  obj="$OUT/obj/$(echo "$src" | tr / _).o"
  objects+=("$obj")
  if [[ ! -f $obj || $src -nt $obj || $0 -nt $obj || \
        -n $(find include src -newer "$obj" -name '*.h' -print -quit) ]]; then
    while (( $(jobs -rp | wc -l) >= JOBS )); do wait -n || true; done
    echo "build.sh: $CXX -c $src"
    # Coverage for libFuzzer on our code only (libnode is not rebuilt). A
    # failed compile leaves no object behind.
    ( $CXX $CXXFLAGS -fsanitize=fuzzer-no-link -c "$src" -o "$obj.tmp" &&
      mv "$obj.tmp" "$obj" ) &
    pids+=($!)
  fi
done
for pid in "${pids[@]}"; do
  wait "$pid" || { echo "build.sh: a compile failed" >&2; exit 1; }
done
echo "build.sh: link $OUT/api_fuzzer"
$CXX $SANITIZE -fsanitize=fuzzer -pthread "${objects[@]}" \
  -L"$LIBDIR" -lnode -Wl,-rpath,"$LIBDIR" $ABSL_LIBS -o "$OUT/api_fuzzer"
