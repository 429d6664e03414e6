#!/usr/bin/env bash
# Builds the libFuzzer targets into .build/fuzz (again only when a source changed):
#   image     CFaceShim's image decoders (C: libjpeg, libpng, EXIF), with ASan and UBSan
#   parsers   CustosAPI, CustosCore, CustosCrypto, CustosCryptoServices and CustosHTTP compiled with coverage and
#             ASan, and Tests/Fuzz/ParserFuzzer.swift (CUSTOS_FUZZ_TARGET=json|form|webauthn|jose|http)
# With the Swift toolchain's clang and swiftc, which ship libFuzzer.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$root"
out=.build/fuzz
mkdir -p "$out"

# Newer than the target: any of the sources given.
stale() {
  local target=$1
  shift
  [[ ! -e $target ]] && return 0
  [[ -n $(find "$@" -newer "$target" -print -quit) ]]
}

shim=(Sources/CFaceShim/cfs_image.c Sources/CFaceShim/cfs_jpeg.c Sources/CFaceShim/cfs_png.c
      Sources/CFaceShim/cfs_exif.c Sources/CFaceShim/cfs_orientation.c)
if stale "$out/image" Tests/Fuzz/image_fuzzer.c "${shim[@]}" Sources/CFaceShim/include Sources/CFaceShim/cfs_decode.h; then
  echo "fuzz-build: image" >&2
  clang -g -O1 -fuse-ld=lld -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
    -I Sources/CFaceShim/include -I Sources/CFaceShim Tests/Fuzz/image_fuzzer.c "${shim[@]}" -ljpeg -lpng -o "$out/image"
fi

# One module at a time, as SwiftPM builds them, each instrumented for coverage; a module is
# built again when its sources changed or a module it imports was.
swift_flags=(-O -wmo -parse-as-library -sanitize=fuzzer,address -enable-testing -package-name custos -I "$out" -I Sources/COpenSSL -I Sources/CArgon2
             -I Sources/CMicroHTTPD)
rebuilt=0
module() {
  local name=$1
  if [[ $rebuilt -eq 0 ]] && ! stale "$out/lib$name.a" "Sources/$name" Tests/Fuzz/build.sh; then return; fi
  rebuilt=1
  echo "fuzz-build: $name" >&2
  # shellcheck disable=SC2046
  swiftc "${swift_flags[@]}" -module-name "$name" -emit-module -emit-module-path "$out/$name.swiftmodule" \
    -emit-library -static -o "$out/lib$name.a" $(find "Sources/$name" -name '*.swift' | sort)
}
module CustosAPI
module CustosCore
module CustosCrypto
module CustosCryptoServices
module CustosHTTP
if [[ $rebuilt -eq 1 ]] || stale "$out/parsers" Tests/Fuzz/ParserFuzzer.swift; then
  echo "fuzz-build: parsers" >&2
  swiftc "${swift_flags[@]}" -module-name ParserFuzzer Tests/Fuzz/ParserFuzzer.swift \
    "$out/libCustosHTTP.a" "$out/libCustosCryptoServices.a" "$out/libCustosCrypto.a" "$out/libCustosCore.a" "$out/libCustosAPI.a" -lcrypto -largon2 -lmicrohttpd \
    -o "$out/parsers"
fi
