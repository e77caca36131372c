#!/usr/bin/env python3
"""Checks a running matchgrid server with stock gRPC tooling that is not ours (grpcio).

Usage: stock_client_check.py HOST:PORT

Checks, each printed as PASS/FAIL:
  1. grpc.health.v1.Health/Check is SERVING for "", matchgrid.v1.SwapPuzzle and
     matchgrid.v1.CollapsePuzzle (grpcio-health-checking's generated stub);
  2. grpc.reflection.v1.ServerReflection lists both puzzle services and the health service;
  3. reflection serves matchgrid.v1.SwapPuzzle's file descriptor (and its imports), from which
     google.protobuf builds the message classes at run time (no generated matchgrid code);
  4. SwapPuzzle/ValidateSwap, called with those dynamic classes on the spec example RRG/GGR,
     swap (0,2)-(1,2), answers SWAP_VERDICT_OK with 2 groups.

The server serves reflection v1 only. grpcio-reflection ships client stubs for v1alpha alone,
so requests go over a generic stream-stream call on the v1 method path, serialised with the
v1alpha message classes: the two packages' messages are wire-identical.
"""

import sys
import traceback

import grpc
from google.protobuf import descriptor_pb2, descriptor_pool, message_factory
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection_pb2

TIMEOUT = 20.0  # seconds per RPC
HEALTH_ENTRIES = ["", "matchgrid.v1.SwapPuzzle", "matchgrid.v1.CollapsePuzzle"]
EXPECTED_SERVICES = {
    "matchgrid.v1.SwapPuzzle",
    "matchgrid.v1.CollapsePuzzle",
    "grpc.health.v1.Health",
}
REFLECTION_V1 = "/grpc.reflection.v1.ServerReflection/ServerReflectionInfo"


class CheckFailed(Exception):
    pass


def expect(condition, message):
    if not condition:
        raise CheckFailed(message)


def reflect(channel, **request_fields):
    """Sends one ServerReflectionRequest over reflection v1; returns the one response."""
    call = channel.stream_stream(
        REFLECTION_V1,
        request_serializer=reflection_pb2.ServerReflectionRequest.SerializeToString,
        response_deserializer=reflection_pb2.ServerReflectionResponse.FromString,
    )
    request = reflection_pb2.ServerReflectionRequest(host="", **request_fields)
    responses = list(call(iter([request]), timeout=TIMEOUT))
    expect(len(responses) == 1, f"expected 1 reflection response, got {len(responses)}")
    response = responses[0]
    if response.WhichOneof("message_response") == "error_response":
        error = response.error_response
        raise CheckFailed(f"reflection error {error.error_code}: {error.error_message}")
    return response


def check_health(channel, state):
    stub = health_pb2_grpc.HealthStub(channel)
    serving = health_pb2.HealthCheckResponse.SERVING
    for service in HEALTH_ENTRIES:
        response = stub.Check(health_pb2.HealthCheckRequest(service=service), timeout=TIMEOUT)
        expect(
            response.status == serving,
            f"Check({service!r}) = "
            f"{health_pb2.HealthCheckResponse.ServingStatus.Name(response.status)}",
        )
    return "SERVING: " + ", ".join(repr(s) for s in HEALTH_ENTRIES)


def check_reflection_list(channel, state):
    response = reflect(channel, list_services="")
    names = {s.name for s in response.list_services_response.service}
    missing = EXPECTED_SERVICES - names
    expect(not missing, f"missing {sorted(missing)} in {sorted(names)}")
    return "services: " + ", ".join(sorted(names))


def check_reflection_descriptor(channel, state):
    files = {}  # name -> FileDescriptorProto

    def collect(response):
        for raw in response.file_descriptor_response.file_descriptor_proto:
            proto = descriptor_pb2.FileDescriptorProto.FromString(raw)
            files.setdefault(proto.name, proto)

    collect(reflect(channel, file_containing_symbol="matchgrid.v1.SwapPuzzle"))
    expect(files, "no file descriptor for matchgrid.v1.SwapPuzzle")
    # Fetch imports the server did not send along.
    pending = [dep for f in list(files.values()) for dep in f.dependency]
    while pending:
        name = pending.pop()
        if name not in files:
            collect(reflect(channel, file_by_filename=name))
            expect(name in files, f"reflection did not return {name}")
            pending.extend(files[name].dependency)

    pool = descriptor_pool.DescriptorPool()
    added = set()

    def add(name):
        if name in added:
            return
        for dep in files[name].dependency:
            add(dep)
        pool.Add(files[name])
        added.add(name)

    for name in files:
        add(name)

    service = pool.FindServiceByName("matchgrid.v1.SwapPuzzle")
    method = service.methods_by_name.get("ValidateSwap")
    expect(method is not None, f"no ValidateSwap in {[m.name for m in service.methods]}")
    state["path"] = f"/{service.full_name}/{method.name}"
    state["request_class"] = message_factory.GetMessageClass(method.input_type)
    state["response_class"] = message_factory.GetMessageClass(method.output_type)
    state["verdict_enum"] = pool.FindEnumTypeByName("matchgrid.v1.SwapVerdict")
    return (
        f"{len(files)} file(s) ({', '.join(sorted(files))}); "
        f"{service.full_name} has {', '.join(m.name for m in service.methods)}"
    )


def check_validate_swap(channel, state):
    expect("request_class" in state, "no dynamic classes (reflection descriptor check failed)")
    request = state["request_class"]()
    request.board.width = 3
    request.board.height = 2
    request.board.cells.extend([1, 1, 2, 2, 2, 1])  # RRG/GGR
    request.swap.a.row, request.swap.a.col = 0, 2
    request.swap.b.row, request.swap.b.col = 1, 2
    call = channel.unary_unary(
        state["path"],
        request_serializer=lambda m: m.SerializeToString(),
        response_deserializer=state["response_class"].FromString,
    )
    response = call(request, timeout=TIMEOUT)
    ok = state["verdict_enum"].values_by_name["SWAP_VERDICT_OK"].number
    expect(ok == 1, f"SWAP_VERDICT_OK is {ok}, expected 1")
    verdict = state["verdict_enum"].values_by_number[response.verdict].name
    expect(response.verdict == ok, f"verdict {verdict}, expected SWAP_VERDICT_OK")
    expect(len(response.groups) == 2, f"{len(response.groups)} groups, expected 2")
    sizes = [len(g.cells) for g in response.groups]
    return f"{state['path']} on RRG/GGR (0,2)-(1,2): {verdict}, {len(response.groups)} groups of sizes {sizes}"


CHECKS = [
    ("health Check (3 entries)", check_health),
    ("reflection v1 list services", check_reflection_list),
    ("reflection v1 file descriptor", check_reflection_descriptor),
    ("ValidateSwap via dynamic messages", check_validate_swap),
]


def main(argv):
    if len(argv) != 2:
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    target = argv[1]
    passed = failed = 0
    state = {}
    with grpc.insecure_channel(target) as channel:
        try:
            grpc.channel_ready_future(channel).result(timeout=TIMEOUT)
        except grpc.FutureTimeoutError:
            print(f"stock-client-check: cannot connect to {target}", file=sys.stderr)
            print("stock-client-check: 0 passed, 1 failed")
            return 1
        for name, check in CHECKS:
            try:
                detail = check(channel, state)
            except CheckFailed as error:
                failed += 1
                print(f"FAIL  {name}: {error}")
            except grpc.RpcError as error:
                failed += 1
                print(f"FAIL  {name}: RPC {error.code().name}: {error.details()}")
            except Exception:  # a bug in this script or an unexpected answer
                failed += 1
                print(f"FAIL  {name}:")
                traceback.print_exc(file=sys.stdout)
            else:
                passed += 1
                print(f"PASS  {name:<36} {detail}")
    print(f"stock-client-check: {passed} passed, {failed} failed")
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
