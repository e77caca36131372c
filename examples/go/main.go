// matchgrid from Go: grpc-go with stubs generated from proto/ by run.sh (protoc-gen-go and
// protoc-gen-go-grpc, into examples/go/generated/, not committed).
//
// Usage: go run . [HOST:PORT]     (through run.sh; default 127.0.0.1:50051; a server must be running)
//
//  1. SwapPuzzle: generates a seeded board, validates one of its valid swaps and resolves the
//     cascade it starts;
//  2. CollapsePuzzle: generates a seeded board and taps its largest group;
//  3. sends a bad request (GenerateBoard with width 65) and reads the error's rich details the
//     way a Go user does: status.FromError turns the grpc-status-details-bin trailer into a
//     google.rpc.Status, whose Details() hold a google.rpc.ErrorInfo and a google.rpc.BadRequest
//     naming the field.
//
// Exits 0 when every answer is as expected, 1 otherwise.
package main

import (
	"context"
	"fmt"
	"os"
	"strings"
	"time"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	pb "matchgrid/v1"
)

const timeout = 20 * time.Second // per RPC

// The CLI's letters for colours 1..=16.
const colorLetters = "RGBYPOCWKMADEFHI"

type failure string

func expect(ok bool, format string, args ...interface{}) {
	if !ok {
		panic(failure(fmt.Sprintf(format, args...)))
	}
}

func show(board *pb.Board) {
	for r := uint32(0); r < board.Height; r++ {
		letters := make([]string, board.Width)
		for c := uint32(0); c < board.Width; c++ {
			letters[c] = "."
			if v := board.Cells[r*board.Width+c]; v != 0 {
				letters[c] = string(colorLetters[(v-1)%16])
			}
		}
		fmt.Println("    " + strings.Join(letters, " "))
	}
}

func pos(p *pb.Position) string { return fmt.Sprintf("(%d,%d)", p.Row, p.Col) }

func call() (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.Background(), timeout)
}

func swapFlow(swap pb.SwapPuzzleClient) {
	ctx, cancel := call()
	defer cancel()
	minMoves := uint32(3)
	generated, err := swap.GenerateBoard(ctx, &pb.SwapGenerateBoardRequest{
		Width: 8, Height: 8, Colors: 5, Seed: 7, MinMoves: &minMoves,
	})
	expect(err == nil, "SwapPuzzle.GenerateBoard: %v", err)
	board := generated.Board
	fmt.Printf("swap GenerateBoard 8x8, 5 colours, seed 7: %d valid swaps\n", generated.ValidSwapCount)
	show(board)
	expect(board.Width == 8 && board.Height == 8 && len(board.Cells) == 64,
		"board %dx%d with %d cells", board.Width, board.Height, len(board.Cells))
	expect(generated.ValidSwapCount >= 3, "fewer valid swaps than min_moves: %d", generated.ValidSwapCount)

	dead, err := swap.CheckDeadState(ctx, &pb.SwapCheckDeadStateRequest{Board: board})
	expect(err == nil, "SwapPuzzle.CheckDeadState: %v", err)
	expect(!dead.Dead && uint32(len(dead.ValidSwaps)) == generated.ValidSwapCount,
		"CheckDeadState lists %d swaps", len(dead.ValidSwaps))
	move := dead.ValidSwaps[len(dead.ValidSwaps)-1] // the last one, low on the board

	verdict, err := swap.ValidateSwap(ctx, &pb.ValidateSwapRequest{Board: board, Swap: move})
	expect(err == nil, "SwapPuzzle.ValidateSwap: %v", err)
	groups := make([]string, len(verdict.Groups))
	for i, g := range verdict.Groups {
		groups[i] = fmt.Sprintf("colour %d x%d", g.Color, len(g.Cells))
	}
	fmt.Printf("ValidateSwap %s-%s: %s, %s\n", pos(move.A), pos(move.B), verdict.Verdict, strings.Join(groups, ", "))
	expect(verdict.Verdict == pb.SwapVerdict_SWAP_VERDICT_OK, "verdict %s", verdict.Verdict)
	expect(len(verdict.Groups) > 0, "a valid swap with no group")

	resolved, err := swap.ResolveCascade(ctx, &pb.ResolveCascadeRequest{
		Board: board, Swap: move, Colors: 5, Seed: 7, Refill: pb.RefillMode_REFILL_MODE_RANDOM,
	})
	expect(err == nil, "SwapPuzzle.ResolveCascade: %v", err)
	fmt.Printf("ResolveCascade: %d step(s), total score %d, stable %v\n",
		len(resolved.Steps), resolved.TotalScore, resolved.Stable)
	var sum uint64
	for i, step := range resolved.Steps {
		cleared := 0
		for _, g := range step.Groups {
			cleared += len(g.Cells)
		}
		fmt.Printf("  step %d: %d cleared, %d fell, %d spawned; score %d\n",
			step.Index, cleared, len(step.Falls), len(step.Spawns), step.Score)
		expect(step.Index == uint32(i+1), "step %d numbered %d", i+1, step.Index)
		sum += uint64(step.Score)
	}
	expect(len(resolved.Steps) > 0, "no cascade step")
	expect(uint64(resolved.TotalScore) == sum, "total_score %d is not the sum of the steps' scores %d",
		resolved.TotalScore, sum)
}

func collapseFlow(collapse pb.CollapsePuzzleClient) {
	ctx, cancel := call()
	defer cancel()
	generated, err := collapse.GenerateBoard(ctx, &pb.CollapseGenerateBoardRequest{
		Width: 6, Height: 6, Colors: 4, Seed: 11,
	})
	expect(err == nil, "CollapsePuzzle.GenerateBoard: %v", err)
	board := generated.Board
	fmt.Printf("collapse GenerateBoard 6x6, 4 colours, seed 11: %d legal groups\n", generated.LegalGroupCount)
	show(board)
	expect(generated.LegalGroupCount >= 1, "no legal group")

	state, err := collapse.CheckDeadState(ctx, &pb.CollapseCheckDeadStateRequest{Board: board})
	expect(err == nil, "CollapsePuzzle.CheckDeadState: %v", err)
	expect(uint32(len(state.Groups)) == generated.LegalGroupCount, "CheckDeadState lists %d groups", len(state.Groups))
	largest := state.Groups[0]
	for _, g := range state.Groups {
		if g.Size > largest.Size {
			largest = g
		}
	}

	tap, err := collapse.Tap(ctx, &pb.TapRequest{Board: board, Position: largest.Representative})
	expect(err == nil, "CollapsePuzzle.Tap: %v", err)
	fmt.Printf("Tap %s (colour %d, group of %d): cleared %d, score %d, %d tiles left, game over %v\n",
		pos(largest.Representative), largest.Color, largest.Size, len(tap.Cleared), tap.MoveScore,
		tap.TilesLeft, tap.GameOver)
	show(tap.Board)
	expect(uint32(len(tap.Cleared)) == largest.Size, "cleared %d, the group has %d", len(tap.Cleared), largest.Size)
	expect(tap.Color == largest.Color, "cleared colour %d, the group's is %d", tap.Color, largest.Color)
	n := uint64(largest.Size)
	expect(tap.MoveScore == 5*n*n && tap.MoveScore == largest.Score, "POPSTAR move score %d for %d tiles", tap.MoveScore, n)
	expect(tap.TilesLeft == 36-largest.Size, "%d tiles left", tap.TilesLeft)
}

func richError(swap pb.SwapPuzzleClient) {
	ctx, cancel := call()
	defer cancel()
	// Width 65: out of range (1..=64).
	_, err := swap.GenerateBoard(ctx, &pb.SwapGenerateBoardRequest{Width: 65, Height: 8, Colors: 5, Seed: 7})
	expect(err != nil, "a board 65 columns wide was generated")
	st, ok := status.FromError(err)
	expect(ok, "not a gRPC status: %v", err)
	fmt.Printf("bad request: %s: %s\n", strings.ToUpper(codeName(st.Code())), st.Message())
	expect(st.Code() == codes.InvalidArgument, "code %s", st.Code())
	var fields, reasons []string
	for _, detail := range st.Details() { // decoded google.protobuf.Any, or an error
		switch d := detail.(type) {
		case *errdetails.BadRequest:
			for _, v := range d.FieldViolations {
				fmt.Printf("  BadRequest field %q: %s\n", v.Field, v.Description)
				fields = append(fields, v.Field)
			}
		case *errdetails.ErrorInfo:
			fmt.Printf("  ErrorInfo reason %s domain %s\n", d.Reason, d.Domain)
			reasons = append(reasons, d.Reason+"@"+d.Domain)
		case error:
			fmt.Printf("  undecodable detail: %v\n", d)
		default:
			fmt.Printf("  other detail %T\n", d)
		}
	}
	expect(len(fields) == 1 && fields[0] == "width", "no BadRequest naming width: %v", fields)
	expect(len(reasons) == 1 && reasons[0] == "INVALID_ARGUMENT@matchgrid.v1", "ErrorInfo %v", reasons)
}

// codeName spells a code the way the protocol does: InvalidArgument -> INVALID_ARGUMENT.
func codeName(c codes.Code) string {
	var b strings.Builder
	for i, r := range c.String() {
		if i > 0 && r >= 'A' && r <= 'Z' {
			b.WriteByte('_')
		}
		b.WriteRune(r)
	}
	return b.String()
}

func run(target string) (err error) {
	defer func() {
		if r := recover(); r != nil {
			f, ok := r.(failure)
			if !ok {
				panic(r)
			}
			err = fmt.Errorf("%s", string(f))
		}
	}()
	conn, err := grpc.Dial(target, grpc.WithInsecure()) // connects lazily, on the first call
	if err != nil {
		return fmt.Errorf("dial %s: %v", target, err)
	}
	defer conn.Close()
	swapFlow(pb.NewSwapPuzzleClient(conn))
	collapseFlow(pb.NewCollapsePuzzleClient(conn))
	richError(pb.NewSwapPuzzleClient(conn))
	return nil
}

func main() {
	target := "127.0.0.1:50051"
	if len(os.Args) > 1 {
		target = os.Args[1]
	}
	if err := run(target); err != nil {
		fmt.Printf("go example: FAILED: %v\n", err)
		os.Exit(1)
	}
	fmt.Println("go example: OK")
}
