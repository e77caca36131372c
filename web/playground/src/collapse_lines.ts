// The collapse family's lines (docs/playground.md): the clearing line of a board generated with
// `clearable` and the par line of one generated with `par_nodes`, shown in the right panel and
// replayed tap by tap. A replay starts again from the generated board and plays each tap as a
// Tap call, animated by the page's tap (main.ts), so every score shown is the server's.
//
// DOM for tests: #clear-text (data-taps), #replay-clear, #par-text (data-par-score,
// data-par-stop), #show-par, and #replay-status with data-line ("clear" or "par"), data-done
// ("true" once the last tap is drawn), data-tiles-left and data-score.

import type { Board, Position } from "./gen/matchgrid/v1/board_pb.js";
import { ScoringRule, SolveStop } from "./gen/matchgrid/v1/collapse_pb.js";
import type { CollapseGenerateBoardResponse, TapResponse } from "./gen/matchgrid/v1/collapse_pb.js";

/** A generated collapse board with the lines its GenerateBoard answer carried. */
export interface Lines {
  /** The board the lines start on (GenerateBoard's). */
  board: Board;
  /** The request's min_group (as typed: 0 means 2). */
  minGroup: number;
  /** Taps that clear the board (with `clearable`); empty otherwise. */
  clearing: Position[];
  /** The par search's budget, 0 when none ran. */
  parNodes: bigint;
  /** The rule the par is scored by (`par_scoring`). */
  parScoring: ScoringRule;
  parScore: bigint;
  parLine: Position[];
  parStop: SolveStop;
}

/** What the page lends a replay. */
export interface Host {
  /** Runs `work` with the board locked, showing a failure in the message line. */
  run(work: () => Promise<void>): Promise<void>;
  /** A new game on `lines.board` (score and moves 0) with its min group and, if given, `scoring`. */
  restart(lines: Lines, scoring: ScoringRule | null): Promise<void>;
  /** One Tap through the server on the drawn board, animated, counted as a move and scored. */
  tap(at: Position): Promise<TapResponse>;
  /** Redraws the state panel (legal groups, tiles left) for the drawn board. */
  showState(): Promise<void>;
  /** The score shown. */
  score(): bigint;
  log(text: string): void;
}

export const RULE_NAME: Record<number, string> = {
  [ScoringRule.UNSPECIFIED]: "PopStar",
  [ScoringRule.POPSTAR]: "PopStar",
  [ScoringRule.SAMEGAME]: "SameGame",
  [ScoringRule.CLICKOMANIA]: "Clickomania",
  [ScoringRule.BUBBLE_BREAKER]: "Bubble Breaker",
};

let host: Host | null = null;
let current: Lines | null = null;

const el = (id: string): HTMLElement => {
  const found = document.getElementById(id);
  if (!found) throw new Error(`missing #${id}`);
  return found;
};

const taps = (n: number) => `${n} tap${n === 1 ? "" : "s"}`;

/** Wires the replay buttons to the page. */
export function initLines(page: Host) {
  host = page;
  el("replay-clear").addEventListener("click", () => void replay("clear"));
  el("show-par").addEventListener("click", () => void replay("par"));
  showLines(null);
}

/** The lines of a GenerateBoard answer, for the request's min group and par settings. */
export function linesOf(
  response: CollapseGenerateBoardResponse,
  minGroup: number,
  parNodes: bigint,
  parScoring: ScoringRule,
): Lines | null {
  if (!response.board) return null;
  return {
    board: response.board,
    minGroup,
    clearing: response.clearingLine,
    parNodes,
    parScoring,
    parScore: response.parScore,
    parLine: response.parLine,
    parStop: response.parStop,
  };
}

/** The generation log's note on the lines: `, clears in 12 taps, par 1520`. */
export function linesNote(lines: Lines | null): string {
  if (!lines) return "";
  const parts: string[] = [];
  if (lines.clearing.length > 0) parts.push(`clears in ${taps(lines.clearing.length)}`);
  if (lines.parNodes > 0n) parts.push(`par ${lines.parScore} (${SolveStop[lines.parStop] ?? lines.parStop})`);
  return parts.map((part) => `, ${part}`).join("");
}

/** Shows the lines of the drawn board (null: a board with none, e.g. pasted or swap family). */
export function showLines(lines: Lines | null) {
  current = lines;
  const clearing = lines?.clearing ?? [];
  const clearText = el("clear-text");
  el("clear-info").hidden = clearing.length === 0;
  clearText.textContent = `guaranteed to clear: clears in ${taps(clearing.length)}`;
  clearText.dataset.taps = String(clearing.length);
  const parText = el("par-text");
  const hasPar = lines !== null && lines.parNodes > 0n;
  el("par-info").hidden = !hasPar;
  if (lines && hasPar) {
    const stopped =
      lines.parStop === SolveStop.DEADLINE ? "; the search stopped at the deadline, so an easier par" : "";
    parText.textContent = `par ${lines.parScore} (best known)`;
    el("par-detail").textContent =
      `${RULE_NAME[lines.parScoring]} scoring, ${lines.parNodes} nodes searched, ${taps(lines.parLine.length)}${stopped}`;
    parText.dataset.parScore = String(lines.parScore);
    parText.dataset.parStop = SolveStop[lines.parStop] ?? String(lines.parStop);
    (el("show-par") as HTMLButtonElement).disabled = lines.parLine.length === 0;
  } else {
    delete parText.dataset.parScore;
    delete parText.dataset.parStop;
  }
  el("lines").hidden = clearing.length === 0 && !hasPar;
  setStatus("", null);
}

function setStatus(text: string, line: "clear" | "par" | null, done = false) {
  const status = el("replay-status");
  status.textContent = text;
  if (line) status.dataset.line = line;
  else delete status.dataset.line;
  status.dataset.done = String(done);
  delete status.dataset.tilesLeft;
  delete status.dataset.score;
}

/**
 * Replays the clearing line or the par line from the generated board: each tap a Tap call,
 * animated. The par line is played under its own rule (the scoring control is set to it).
 */
async function replay(line: "clear" | "par") {
  const lines = current;
  if (!host || !lines) return;
  const page = host;
  const moves = line === "clear" ? lines.clearing : lines.parLine;
  const name = line === "clear" ? "clearing line" : "par line";
  await page.run(async () => {
    await page.restart(lines, line === "par" ? lines.parScoring : null);
    page.log(`${name}: ${taps(moves.length)} from the generated board, each a Tap`);
    let last: TapResponse | null = null;
    try {
      for (const [i, at] of moves.entries()) {
        setStatus(`${name}: tap ${i + 1} of ${moves.length}`, line);
        last = await page.tap(at);
        await page.showState();
      }
    } catch (error) {
      setStatus(`${name}: stopped`, line);
      throw error;
    }
    const tilesLeft = last?.tilesLeft ?? 0;
    const score = page.score();
    const text =
      line === "clear"
        ? tilesLeft === 0
          ? `cleared in ${taps(moves.length)}: no tiles left`
          : `not cleared: ${tilesLeft} tiles left after ${taps(moves.length)}`
        : score === lines.parScore
          ? `par line played: ${taps(moves.length)}, score ${score} = par ${lines.parScore}`
          : `par line played: ${taps(moves.length)}, score ${score}, but the par is ${lines.parScore}`;
    setStatus(text, line, true);
    const status = el("replay-status");
    status.dataset.tilesLeft = String(tilesLeft);
    status.dataset.score = String(score);
    page.log(text);
  });
}
