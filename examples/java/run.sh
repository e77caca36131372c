#!/usr/bin/env bash
# Generates the Java stubs from proto/, compiles the example with javac against Debian's jars
# (no Maven or Gradle) and runs it.
#
# Usage: examples/java/run.sh [HOST:PORT]     (default 127.0.0.1:50051; a server must be running)
#
# Needs (Debian 12): default-jdk-headless protobuf-compiler protobuf-compiler-grpc-java-plugin
#   libgrpc-java libprotobuf-java libgoogle-common-protos-java libguava-java libnetty-java
#   libperfmark-java libgeronimo-annotation-1.3-spec-java
# The stubs and the classes go to examples/java/generated/ (not committed). JAVA_LIBS names the
# folder of the jars (default /usr/share/java).
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
PROTO_ROOT="$HERE/../../proto"
GEN="$HERE/generated"
LIBS="${JAVA_LIBS:-/usr/share/java}"
PROTO_FILES=(matchgrid/v1/board.proto matchgrid/v1/level.proto matchgrid/v1/swap.proto matchgrid/v1/collapse.proto)
PLUGIN="$(command -v protoc-gen-grpc-java || command -v grpc_java_plugin || true)"
[[ -n "$PLUGIN" ]] || { echo "java example: grpc_java_plugin not found" >&2; exit 1; }

# The runtime: grpc-java over Netty, protobuf-java, the google.rpc details, and what they need
# (geronimo-annotation for the stubs' @javax.annotation.Generated, which JDK 11+ dropped).
JARS=(grpc-api grpc-context grpc-core grpc-netty grpc-protobuf grpc-protobuf-lite grpc-stub
  protobuf proto-google-common-protos guava perfmark-api geronimo-annotation-1.3-spec
  netty-buffer netty-codec netty-codec-http netty-codec-http2 netty-codec-socks netty-common
  netty-handler netty-handler-proxy netty-resolver netty-transport
  netty-transport-native-unix-common)
CLASSPATH=""
for jar in "${JARS[@]}"; do
  [[ -f "$LIBS/$jar.jar" ]] || { echo "java example: $LIBS/$jar.jar not found" >&2; exit 1; }
  CLASSPATH+="$LIBS/$jar.jar:"
done

rm -rf "$GEN"
mkdir -p "$GEN/java" "$GEN/classes"
protoc -I"$PROTO_ROOT" -I"$HERE/proto" \
  --java_out="$GEN/java" \
  --grpc-java_out="$GEN/java" --plugin=protoc-gen-grpc-java="$PLUGIN" \
  "${PROTO_FILES[@]}" google/rpc/error_info.proto

find "$GEN/java" "$HERE/src" -name '*.java' >"$GEN/sources.txt"
javac -nowarn -encoding UTF-8 -d "$GEN/classes" -cp "$CLASSPATH" @"$GEN/sources.txt"
exec java -cp "$GEN/classes:$CLASSPATH" example.MatchgridExample "$@"
