#!/usr/bin/env bash
# Generates the Go stubs from proto/, builds the example and runs it (Debian's packaged Go
# libraries, GOPATH mode: no module proxy needed).
#
# Usage: examples/go/run.sh [HOST:PORT]     (default 127.0.0.1:50051; a server must be running)
#
# Needs (Debian 12): golang-go protobuf-compiler protoc-gen-go protoc-gen-go-grpc
#   golang-google-grpc-dev golang-google-genproto-dev golang-github-golang-protobuf-1-5-dev
# The stubs and the binary go to examples/go/generated/ (not committed); GOPATH is
# examples/go/generated:/usr/share/gocode unless GOPATH_LIBS names another library tree.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
PROTO_ROOT="$HERE/../../proto"
GEN="$HERE/generated"
LIBS="${GOPATH_LIBS:-/usr/share/gocode}"
PROTO_FILES=(matchgrid/v1/board.proto matchgrid/v1/level.proto matchgrid/v1/swap.proto matchgrid/v1/collapse.proto)

# The protos set no go_package: map each file to the import path matchgrid/v1.
maps=()
for f in "${PROTO_FILES[@]}"; do maps+=("M$f=matchgrid/v1;matchgridv1"); done
go_opt="$(IFS=,; echo "${maps[*]}")"

rm -rf "$GEN"
mkdir -p "$GEN/src" "$GEN/bin"
protoc -I"$PROTO_ROOT" \
  --go_out="$GEN/src" --go_opt="$go_opt" \
  --go-grpc_out="$GEN/src" --go-grpc_opt="$go_opt" \
  "${PROTO_FILES[@]}"

export GO111MODULE=off GOPATH="$GEN:$LIBS" GOFLAGS=
(cd "$HERE" && go build -o "$GEN/bin/matchgrid-go-example" .)
exec "$GEN/bin/matchgrid-go-example" "$@"
