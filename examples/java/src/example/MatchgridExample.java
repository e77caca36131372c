// matchgrid from Java: grpc-java with stubs generated from proto/ by run.sh (protoc's java
// generator and grpc_java_plugin, into examples/java/generated/, not committed), compiled with
// javac against Debian's jars.
//
// Usage: java example.MatchgridExample [HOST:PORT]   (through run.sh; default 127.0.0.1:50051)
//
//  1. SwapPuzzle: generates a seeded board, validates one of its valid swaps and resolves the
//     cascade it starts;
//  2. CollapsePuzzle: generates a seeded board and taps its largest group;
//  3. sends a bad request (GenerateBoard with width 65) and reads the error's rich details the
//     way a Java user does: StatusProto.fromThrowable turns the grpc-status-details-bin trailer
//     into a com.google.rpc.Status, whose details (google.protobuf.Any) hold a
//     google.rpc.ErrorInfo and a google.rpc.BadRequest naming the field.
//
// Exits 0 when every answer is as expected, 1 otherwise.
package example;

import com.google.protobuf.Any;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.rpc.BadRequest;
import example.rpc.ErrorInfo;
import io.grpc.ManagedChannel;
import io.grpc.ManagedChannelBuilder;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.protobuf.StatusProto;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import matchgrid.v1.BoardOuterClass.Board;
import matchgrid.v1.BoardOuterClass.Position;
import matchgrid.v1.Collapse.CollapseCheckDeadStateRequest;
import matchgrid.v1.Collapse.CollapseCheckDeadStateResponse;
import matchgrid.v1.Collapse.CollapseGenerateBoardRequest;
import matchgrid.v1.Collapse.CollapseGenerateBoardResponse;
import matchgrid.v1.Collapse.CollapseGroup;
import matchgrid.v1.Collapse.TapRequest;
import matchgrid.v1.Collapse.TapResponse;
import matchgrid.v1.CollapsePuzzleGrpc;
import matchgrid.v1.SwapOuterClass.CascadeStep;
import matchgrid.v1.SwapOuterClass.Group;
import matchgrid.v1.SwapOuterClass.RefillMode;
import matchgrid.v1.SwapOuterClass.ResolveCascadeRequest;
import matchgrid.v1.SwapOuterClass.ResolveCascadeResponse;
import matchgrid.v1.SwapOuterClass.Swap;
import matchgrid.v1.SwapOuterClass.SwapCheckDeadStateRequest;
import matchgrid.v1.SwapOuterClass.SwapCheckDeadStateResponse;
import matchgrid.v1.SwapOuterClass.SwapGenerateBoardRequest;
import matchgrid.v1.SwapOuterClass.SwapGenerateBoardResponse;
import matchgrid.v1.SwapOuterClass.SwapVerdict;
import matchgrid.v1.SwapOuterClass.ValidateSwapRequest;
import matchgrid.v1.SwapOuterClass.ValidateSwapResponse;
import matchgrid.v1.SwapPuzzleGrpc;

public final class MatchgridExample {
  private static final long TIMEOUT_SECONDS = 20; // per RPC
  private static final String COLOR_LETTERS = "RGBYPOCWKMADEFHI"; // the CLI's colours 1..=16

  private static final class Failure extends RuntimeException {
    Failure(String message) {
      super(message);
    }
  }

  private static void expect(boolean ok, String message) {
    if (!ok) {
      throw new Failure(message);
    }
  }

  private static void show(Board board) {
    for (int r = 0; r < board.getHeight(); r++) {
      StringBuilder row = new StringBuilder("   ");
      for (int c = 0; c < board.getWidth(); c++) {
        int v = board.getCells(r * board.getWidth() + c);
        row.append(' ').append(v == 0 ? '.' : COLOR_LETTERS.charAt((v - 1) % 16));
      }
      System.out.println(row);
    }
  }

  private static String pos(Position p) {
    return "(" + p.getRow() + "," + p.getCol() + ")";
  }

  private static SwapPuzzleGrpc.SwapPuzzleBlockingStub swap(ManagedChannel channel) {
    return SwapPuzzleGrpc.newBlockingStub(channel).withDeadlineAfter(TIMEOUT_SECONDS, TimeUnit.SECONDS);
  }

  private static CollapsePuzzleGrpc.CollapsePuzzleBlockingStub collapse(ManagedChannel channel) {
    return CollapsePuzzleGrpc.newBlockingStub(channel)
        .withDeadlineAfter(TIMEOUT_SECONDS, TimeUnit.SECONDS);
  }

  private static void swapFlow(ManagedChannel channel) {
    SwapGenerateBoardResponse generated = swap(channel).generateBoard(
        SwapGenerateBoardRequest.newBuilder()
            .setWidth(8).setHeight(8).setColors(5).setSeed(7).setMinMoves(3).build());
    Board board = generated.getBoard();
    System.out.println("swap GenerateBoard 8x8, 5 colours, seed 7: "
        + generated.getValidSwapCount() + " valid swaps");
    show(board);
    expect(board.getWidth() == 8 && board.getHeight() == 8 && board.getCellsCount() == 64,
        "board " + board.getWidth() + "x" + board.getHeight() + " with " + board.getCellsCount() + " cells");
    expect(generated.getValidSwapCount() >= 3, "fewer valid swaps than min_moves");

    SwapCheckDeadStateResponse dead = swap(channel).checkDeadState(
        SwapCheckDeadStateRequest.newBuilder().setBoard(board).build());
    expect(!dead.getDead() && dead.getValidSwapsCount() == generated.getValidSwapCount(),
        "CheckDeadState lists " + dead.getValidSwapsCount() + " swaps");
    Swap move = dead.getValidSwaps(dead.getValidSwapsCount() - 1); // the last one, low on the board

    ValidateSwapResponse verdict = swap(channel).validateSwap(
        ValidateSwapRequest.newBuilder().setBoard(board).setSwap(move).build());
    List<String> groups = new ArrayList<>();
    for (Group g : verdict.getGroupsList()) {
      groups.add("colour " + g.getColor() + " x" + g.getCellsCount());
    }
    System.out.println("ValidateSwap " + pos(move.getA()) + "-" + pos(move.getB()) + ": "
        + verdict.getVerdict() + ", " + String.join(", ", groups));
    expect(verdict.getVerdict() == SwapVerdict.SWAP_VERDICT_OK, "verdict " + verdict.getVerdict());
    expect(verdict.getGroupsCount() > 0, "a valid swap with no group");

    ResolveCascadeResponse resolved = swap(channel).resolveCascade(
        ResolveCascadeRequest.newBuilder().setBoard(board).setSwap(move).setColors(5).setSeed(7)
            .setRefill(RefillMode.REFILL_MODE_RANDOM).build());
    System.out.println("ResolveCascade: " + resolved.getStepsCount() + " step(s), total score "
        + resolved.getTotalScore() + ", stable " + resolved.getStable());
    long sum = 0;
    for (int i = 0; i < resolved.getStepsCount(); i++) {
      CascadeStep step = resolved.getSteps(i);
      int cleared = 0;
      for (Group g : step.getGroupsList()) {
        cleared += g.getCellsCount();
      }
      System.out.println("  step " + step.getIndex() + ": " + cleared + " cleared, "
          + step.getFallsCount() + " fell, " + step.getSpawnsCount() + " spawned; score " + step.getScore());
      expect(step.getIndex() == i + 1, "step " + (i + 1) + " numbered " + step.getIndex());
      sum += step.getScore();
    }
    expect(resolved.getStepsCount() > 0, "no cascade step");
    expect(resolved.getTotalScore() == sum,
        "total_score " + resolved.getTotalScore() + " is not the sum of the steps' scores " + sum);
  }

  private static void collapseFlow(ManagedChannel channel) {
    CollapseGenerateBoardResponse generated = collapse(channel).generateBoard(
        CollapseGenerateBoardRequest.newBuilder().setWidth(6).setHeight(6).setColors(4).setSeed(11).build());
    Board board = generated.getBoard();
    System.out.println("collapse GenerateBoard 6x6, 4 colours, seed 11: "
        + generated.getLegalGroupCount() + " legal groups");
    show(board);
    expect(generated.getLegalGroupCount() >= 1, "no legal group");

    CollapseCheckDeadStateResponse state = collapse(channel).checkDeadState(
        CollapseCheckDeadStateRequest.newBuilder().setBoard(board).build());
    expect(state.getGroupsCount() == generated.getLegalGroupCount(),
        "CheckDeadState lists " + state.getGroupsCount() + " groups");
    CollapseGroup largest = state.getGroups(0);
    for (CollapseGroup g : state.getGroupsList()) {
      if (g.getSize() > largest.getSize()) {
        largest = g;
      }
    }

    TapResponse tap = collapse(channel).tap(
        TapRequest.newBuilder().setBoard(board).setPosition(largest.getRepresentative()).build());
    System.out.println("Tap " + pos(largest.getRepresentative()) + " (colour " + largest.getColor()
        + ", group of " + largest.getSize() + "): cleared " + tap.getClearedCount() + ", score "
        + tap.getMoveScore() + ", " + tap.getTilesLeft() + " tiles left, game over " + tap.getGameOver());
    show(tap.getBoard());
    long n = largest.getSize();
    expect(tap.getClearedCount() == n, "cleared " + tap.getClearedCount() + ", the group has " + n);
    expect(tap.getColor() == largest.getColor(), "cleared colour " + tap.getColor());
    expect(tap.getMoveScore() == 5 * n * n && tap.getMoveScore() == largest.getScore(),
        "POPSTAR move score " + tap.getMoveScore() + " for " + n + " tiles");
    expect(tap.getTilesLeft() == 36 - n, tap.getTilesLeft() + " tiles left");
  }

  private static void richError(ManagedChannel channel) throws InvalidProtocolBufferException {
    // Width 65: out of range (1..=64).
    SwapGenerateBoardRequest bad = SwapGenerateBoardRequest.newBuilder()
        .setWidth(65).setHeight(8).setColors(5).setSeed(7).build();
    try {
      swap(channel).generateBoard(bad);
      throw new Failure("a board 65 columns wide was generated");
    } catch (StatusRuntimeException error) {
      Status status = error.getStatus();
      System.out.println("bad request: " + status.getCode() + ": " + status.getDescription());
      expect(status.getCode() == Status.Code.INVALID_ARGUMENT, "code " + status.getCode());
      // com.google.rpc.Status from the grpc-status-details-bin trailer, or null.
      com.google.rpc.Status details = StatusProto.fromThrowable(error);
      expect(details != null, "no grpc-status-details-bin trailer");
      List<String> fields = new ArrayList<>();
      List<String> reasons = new ArrayList<>();
      for (Any detail : details.getDetailsList()) {
        if (detail.is(BadRequest.class)) {
          for (BadRequest.FieldViolation v : detail.unpack(BadRequest.class).getFieldViolationsList()) {
            System.out.println("  BadRequest field \"" + v.getField() + "\": " + v.getDescription());
            fields.add(v.getField());
          }
        } else if (detail.is(ErrorInfo.class)) {
          ErrorInfo info = detail.unpack(ErrorInfo.class);
          System.out.println("  ErrorInfo reason " + info.getReason() + " domain " + info.getDomain());
          reasons.add(info.getReason() + "@" + info.getDomain());
        } else {
          System.out.println("  other detail " + detail.getTypeUrl());
        }
      }
      expect(fields.equals(List.of("width")), "no BadRequest naming width: " + fields);
      expect(reasons.equals(List.of("INVALID_ARGUMENT@matchgrid.v1")), "ErrorInfo " + reasons);
    }
  }

  public static void main(String[] args) throws Exception {
    String target = args.length > 0 ? args[0] : "127.0.0.1:50051";
    ManagedChannel channel = ManagedChannelBuilder.forTarget(target).usePlaintext().build();
    int exit = 0;
    try {
      swapFlow(channel);
      collapseFlow(channel);
      richError(channel);
      System.out.println("java example: OK");
    } catch (Failure failure) {
      System.out.println("java example: FAILED: " + failure.getMessage());
      exit = 1;
    } catch (StatusRuntimeException error) {
      Status status = error.getStatus();
      System.out.println("java example: FAILED: RPC " + status.getCode() + ": " + status.getDescription());
      exit = 1;
    } finally {
      channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    }
    System.exit(exit);
  }
}
