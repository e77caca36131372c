// matchgrid from TypeScript: Connect for Node.js speaking the gRPC protocol (HTTP/2), with
// messages and service descriptors generated from proto/ by buf and protoc-gen-es.
//
// Usage: npm run example -- [URL]   (default $MATCHGRID_SERVER or http://127.0.0.1:50051)
//
// 1. SwapPuzzle: generate a seeded board, list its valid swaps, validate the first one,
//    resolve the cascade it starts and print every step;
// 2. CollapsePuzzle: generate a PopStar board and play it to the end, always tapping the
//    largest group, then print the score;
// 3. an off-board tap is refused with INVALID_ARGUMENT.
//
// Exits 0 when every answer is as expected, 1 otherwise.

import { Code, ConnectError, createClient, type Client } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";

import type { Board, Position } from "./gen/matchgrid/v1/board_pb.js";
import { CollapsePuzzle, ScoringRule } from "./gen/matchgrid/v1/collapse_pb.js";
import { RefillMode, SwapPuzzle, SwapVerdict } from "./gen/matchgrid/v1/swap_pb.js";

const COLOR_LETTERS = "RGBYPOCWKMADEFHI"; // the CLI's letters for colours 1..=16
const TIMEOUT_MS = 20_000; // per RPC
const MAX_MOVES = 500; // a 10x10 board has at most 50 moves; more is a bug

function rows(board: Board): string[] {
  const out: string[] = [];
  for (let r = 0; r < board.height; r++) {
    const row = board.cells.slice(r * board.width, (r + 1) * board.width);
    out.push(row.map((c) => (c === 0 ? "." : COLOR_LETTERS[(c - 1) % 16])).join(" "));
  }
  return out;
}

function show(board: Board | undefined): void {
  for (const row of board ? rows(board) : []) {
    console.log(`    ${row}`);
  }
}

const pos = (p: Position | undefined) => `(${p?.row ?? "?"},${p?.col ?? "?"})`;

function expect(condition: boolean, message: string): asserts condition {
  if (!condition) {
    throw new Error(message);
  }
}

async function swapFlow(swap: Client<typeof SwapPuzzle>): Promise<void> {
  const generated = await swap.generateBoard(
    { width: 8, height: 8, colors: 5, seed: 7n, minMoves: 3 },
    { timeoutMs: TIMEOUT_MS },
  );
  const board = generated.board;
  expect(board !== undefined, "GenerateBoard returned no board");
  console.log(`GenerateBoard 8x8, 5 colours, seed 7: ${generated.validSwapCount} valid swaps`);
  show(board);

  const dead = await swap.checkDeadState({ board }, { timeoutMs: TIMEOUT_MS });
  expect(
    !dead.dead && dead.validSwaps.length === generated.validSwapCount,
    `CheckDeadState lists ${dead.validSwaps.length} swaps`,
  );
  const move = dead.validSwaps[dead.validSwaps.length - 1]; // low on the board: tiles fall

  const verdict = await swap.validateSwap({ board, swap: move }, { timeoutMs: TIMEOUT_MS });
  const groups = verdict.groups.map((g) => `colour ${g.color} x${g.cells.length}`).join(", ");
  console.log(
    `ValidateSwap ${pos(move.a)}-${pos(move.b)}: ${SwapVerdict[verdict.verdict]}, ${groups}`,
  );
  expect(verdict.verdict === SwapVerdict.OK, `verdict ${SwapVerdict[verdict.verdict]}`);

  const resolved = await swap.resolveCascade(
    { board, swap: move, colors: 5, seed: 7n, refill: RefillMode.RANDOM },
    { timeoutMs: TIMEOUT_MS },
  );
  console.log(`ResolveCascade: ${resolved.steps.length} step(s)`);
  let sum = 0n;
  resolved.steps.forEach((step, i) => {
    const cleared = step.groups.reduce((n, g) => n + g.cells.length, 0);
    const what = step.groups
      .map((g) => `colour ${g.color} x${g.cells.length} at ${pos(g.cells[0])}`)
      .join(", ");
    console.log(
      `  step ${step.index}: ${cleared} cleared (${what}); ${step.falls.length} fell, ` +
        `${step.spawns.length} spawned; score ${step.score}`,
    );
    expect(step.index === i + 1, `step ${i + 1} is numbered ${step.index}`);
    expect(step.board === undefined, "per-step board sent although not asked for");
    sum += step.score;
  });
  console.log(
    `final board (total score ${resolved.totalScore}, stable ${resolved.stable}, ` +
      `valid swaps ${resolved.validSwapCount}, shuffled ${resolved.shuffled})`,
  );
  show(resolved.board);
  expect(resolved.steps.length > 0, "no cascade step");
  expect(resolved.totalScore === sum, `total ${resolved.totalScore} != sum of steps ${sum}`);
}

async function collapseGame(collapse: Client<typeof CollapsePuzzle>): Promise<void> {
  const scoring = ScoringRule.POPSTAR;
  const generated = await collapse.generateBoard(
    { width: 10, height: 10, colors: 4, seed: 3n },
    { timeoutMs: TIMEOUT_MS },
  );
  let board = generated.board;
  expect(board !== undefined, "GenerateBoard returned no board");
  console.log(`CollapsePuzzle GenerateBoard 10x10, 4 colours, seed 3: ${generated.legalGroupCount} legal groups`);
  show(board);

  let total = 0n;
  let moves = 0;
  let lastTapOver = false;
  for (;;) {
    const state = await collapse.checkDeadState({ board, scoring }, { timeoutMs: TIMEOUT_MS });
    if (state.gameOver) {
      expect(moves > 0, "a generated board is over before the first move");
      expect(lastTapOver, "CheckDeadState says game over, the last Tap did not");
      break;
    }
    expect(moves < MAX_MOVES, `no game over after ${MAX_MOVES} moves`);
    // The largest group; the first one in row-major order on a tie.
    const group = state.groups.reduce((best, g) => (g.size > best.size ? g : best));
    const tap = await collapse.tap(
      { board, position: group.representative, scoring },
      { timeoutMs: TIMEOUT_MS },
    );
    moves++;
    expect(tap.cleared.length === group.size, `tap cleared ${tap.cleared.length}, expected ${group.size}`);
    expect(tap.moveScore === group.score, `move score ${tap.moveScore}, listed ${group.score}`);
    total += tap.totalScore;
    console.log(
      `  move ${moves}: tap ${pos(group.representative)} clears ${tap.cleared.length} ` +
        `of colour ${tap.color}, +${tap.moveScore}; ${tap.tilesLeft} left` +
        (tap.gameOver ? `; game over, end bonus ${tap.endBonus}` : ""),
    );
    board = tap.board;
    lastTapOver = tap.gameOver;
  }
  console.log(`game over after ${moves} moves: score ${total}`);
  show(board);
}

async function offBoardTap(collapse: Client<typeof CollapsePuzzle>): Promise<void> {
  try {
    await collapse.tap(
      { board: { width: 2, height: 1, cells: [1, 1] }, position: { row: 5, col: 0 } },
      { timeoutMs: TIMEOUT_MS },
    );
  } catch (error) {
    const e = ConnectError.from(error);
    console.log(`off-board tap: ${Code[e.code]}: ${e.rawMessage}`);
    expect(e.code === Code.InvalidArgument, `code ${Code[e.code]}`);
    return;
  }
  throw new Error("an off-board tap was accepted");
}

async function main(): Promise<number> {
  const baseUrl = process.argv[2] ?? process.env.MATCHGRID_SERVER ?? "http://127.0.0.1:50051";
  const transport = createGrpcTransport({ baseUrl });
  try {
    await swapFlow(createClient(SwapPuzzle, transport));
    const collapse = createClient(CollapsePuzzle, transport);
    await collapseGame(collapse);
    await offBoardTap(collapse);
  } catch (error) {
    const text = error instanceof ConnectError ? `RPC ${Code[error.code]}: ${error.rawMessage}` : String(error);
    console.log(`node example: FAILED: ${text}`);
    return 1;
  }
  console.log("node example: OK");
  return 0;
}

process.exitCode = await main();
