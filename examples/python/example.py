#!/usr/bin/env python3
"""matchgrid from Python: grpcio with stubs generated from proto/ when the example runs.

Usage: python example.py [HOST:PORT]     (default 127.0.0.1:50051; a server must be running)

1. generates the stubs (grpc_tools.protoc, into examples/python/generated/, not committed);
2. SwapPuzzle: generates a seeded board, lists its valid swaps, validates the first one,
   resolves the cascade it starts and prints every step;
3. sends a bad request (a board with a missing cell) and reads the error's rich details the
   way a Python user does: grpcio-status turns the `grpc-status-details-bin` trailer into a
   `google.rpc.Status`, whose details hold a `google.rpc.BadRequest` naming the field.

Exits 0 when every answer is as expected, 1 otherwise.
"""

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
PROTO_ROOT = HERE.parent.parent / "proto"
GENERATED = HERE / "generated"
PROTO_FILES = [
    "matchgrid/v1/board.proto",
    "matchgrid/v1/level.proto",
    "matchgrid/v1/swap.proto",
    "matchgrid/v1/collapse.proto",
]
TIMEOUT = 20.0  # seconds per RPC
COLOR_LETTERS = "RGBYPOCWKMADEFHI"  # the CLI's letters for colours 1..=16


def generate_stubs():
    """Runs protoc (bundled with grpcio-tools) on the API: messages, type hints and stubs."""
    from grpc_tools import protoc

    GENERATED.mkdir(exist_ok=True)
    include = Path(protoc.__file__).resolve().parent / "_proto"  # google/protobuf/*.proto
    args = [
        "protoc",
        f"-I{PROTO_ROOT}",
        f"-I{include}",
        f"--python_out={GENERATED}",
        f"--pyi_out={GENERATED}",
        f"--grpc_python_out={GENERATED}",
        *PROTO_FILES,
    ]
    if protoc.main(args) != 0:
        raise SystemExit(f"protoc failed on {PROTO_FILES}")
    sys.path.insert(0, str(GENERATED))


generate_stubs()

import grpc  # noqa: E402
from google.rpc import error_details_pb2  # noqa: E402
from grpc_status import rpc_status  # noqa: E402
from matchgrid.v1 import board_pb2, swap_pb2, swap_pb2_grpc  # noqa: E402


def board_rows(board):
    """The board as letter rows (`.` empty), top row first."""
    letters = [COLOR_LETTERS[(c - 1) % 16] if c else "." for c in board.cells]
    return ["".join(letters[r * board.width:(r + 1) * board.width]) for r in range(board.height)]


def show(board, indent="    "):
    for row in board_rows(board):
        print(indent + " ".join(row))


def pos(p):
    return f"({p.row},{p.col})"


def expect(condition, message):
    if not condition:
        raise AssertionError(message)


def swap_flow(stub):
    generated = stub.GenerateBoard(
        swap_pb2.SwapGenerateBoardRequest(width=8, height=8, colors=5, seed=7, min_moves=3),
        timeout=TIMEOUT,
    )
    board = generated.board
    print(f"GenerateBoard 8x8, 5 colours, seed 7: {generated.valid_swap_count} valid swaps")
    show(board)
    expect(generated.valid_swap_count >= 3, "fewer valid swaps than min_moves")

    dead = stub.CheckDeadState(swap_pb2.SwapCheckDeadStateRequest(board=board), timeout=TIMEOUT)
    expect(not dead.dead and len(dead.valid_swaps) == generated.valid_swap_count,
           f"CheckDeadState lists {len(dead.valid_swaps)} swaps")
    swap = dead.valid_swaps[-1]  # the last one, low on the board: tiles fall

    verdict = stub.ValidateSwap(swap_pb2.ValidateSwapRequest(board=board, swap=swap),
                                timeout=TIMEOUT)
    name = swap_pb2.SwapVerdict.Name(verdict.verdict)
    print(f"ValidateSwap {pos(swap.a)}-{pos(swap.b)}: {name}, "
          + ", ".join(f"colour {g.color} x{len(g.cells)}" for g in verdict.groups))
    expect(verdict.verdict == swap_pb2.SWAP_VERDICT_OK, f"verdict {name}")

    resolved = stub.ResolveCascade(
        swap_pb2.ResolveCascadeRequest(board=board, swap=swap, colors=5, seed=7,
                                       refill=swap_pb2.REFILL_MODE_RANDOM),
        timeout=TIMEOUT,
    )
    print(f"ResolveCascade: {len(resolved.steps)} step(s)")
    for step in resolved.steps:
        cleared = sum(len(g.cells) for g in step.groups)
        groups = ", ".join(f"colour {g.color} x{len(g.cells)} at {pos(g.cells[0])}"
                           for g in step.groups)
        print(f"  step {step.index}: {cleared} cleared ({groups}); {len(step.falls)} fell, "
              f"{len(step.spawns)} spawned; score {step.score}")
    print(f"final board (total score {resolved.total_score}, stable {resolved.stable}, "
          f"valid swaps {resolved.valid_swap_count}, shuffled {resolved.shuffled})")
    show(resolved.board)
    expect(resolved.steps, "no cascade step")
    expect([s.index for s in resolved.steps] == list(range(1, len(resolved.steps) + 1)),
           "steps are not numbered 1..n")
    expect(resolved.total_score == sum(s.score for s in resolved.steps),
           "total_score is not the sum of the steps' scores")
    expect(all(not s.HasField("board") for s in resolved.steps),
           "per-step boards sent although include_step_boards was not set")


def rich_error(stub):
    # 3x2 board with five cells instead of six.
    bad = swap_pb2.ValidateSwapRequest(
        board=board_pb2.Board(width=3, height=2, cells=[1, 1, 2, 2, 2]),
        swap=swap_pb2.Swap(a=board_pb2.Position(row=0, col=2), b=board_pb2.Position(row=1, col=2)),
    )
    try:
        stub.ValidateSwap(bad, timeout=TIMEOUT)
    except grpc.RpcError as error:
        print(f"bad request: {error.code().name}: {error.details()}")
        expect(error.code() == grpc.StatusCode.INVALID_ARGUMENT, f"code {error.code().name}")
        status = rpc_status.from_call(error)  # google.rpc.Status from grpc-status-details-bin
        expect(status is not None, "no grpc-status-details-bin trailer")
        fields, reasons = [], []
        for detail in status.details:  # google.protobuf.Any
            if detail.Is(error_details_pb2.BadRequest.DESCRIPTOR):
                bad_request = error_details_pb2.BadRequest()
                detail.Unpack(bad_request)
                for violation in bad_request.field_violations:
                    print(f"  BadRequest field {violation.field!r}: {violation.description}")
                    fields.append(violation.field)
            elif detail.Is(error_details_pb2.ErrorInfo.DESCRIPTOR):
                info = error_details_pb2.ErrorInfo()
                detail.Unpack(info)
                print(f"  ErrorInfo reason {info.reason} domain {info.domain}")
                reasons.append(info.reason)
            else:
                print(f"  other detail {detail.type_url}")
        expect("board.cells" in fields, f"no BadRequest naming board.cells: {fields}")
        expect("INVALID_BOARD" in reasons, f"no ErrorInfo INVALID_BOARD: {reasons}")
    else:
        raise AssertionError("a board with a missing cell was accepted")


def main(argv):
    target = argv[1] if len(argv) > 1 else "127.0.0.1:50051"
    with grpc.insecure_channel(target) as channel:
        stub = swap_pb2_grpc.SwapPuzzleStub(channel)
        try:
            swap_flow(stub)
            rich_error(stub)
        except AssertionError as failure:
            print(f"python example: FAILED: {failure}")
            return 1
        except grpc.RpcError as error:
            print(f"python example: FAILED: RPC {error.code().name}: {error.details()}")
            return 1
    print("python example: OK")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
