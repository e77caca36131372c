// The matchgrid playground: generate or paste a board, click two tiles to swap (swap family)
// or one to tap (collapse family), and watch the server's answer step by step.
//
// Every rule lives in the server; this page only draws what the API returns (over gRPC-Web,
// to the origin that served it).
//
// The board is a DOM grid that tests can read: #board carries data-width, data-height,
// data-board (the text form, rows joined by "/") and data-busy ("true" while a call or an
// animation runs); each tile is #cell-ROW-COL with data-row, data-col and data-color (0 for an
// empty cell). Holes are drawn hatched, empty cells as dashed outlines, striped pieces with
// stripes around a badge with their letter, wrapped ones framed, colour bombs as rainbow balls.
//
// Level mode (docs/rules.md section 8, docs/levels.md): a level file (one of the examples in
// examples/levels/, bundled, or pasted JSON) is started with StartLevel and played move by move
// with PlayMove, the state of the last answer sent back each time. Level cells carry
// data-jelly, data-blocker (hit points), data-lock, data-ingredient and data-exit; jelly is a
// tinted square under the tile (darker for two layers), exits a green marker over it.
//
// Collapse lines (collapse_lines.ts): with "clearable" and "par nodes" set, GenerateBoard's
// clearing line and par line are shown and can be replayed tap by tap through Tap.

import { Code, ConnectError, createClient } from "@connectrpc/connect";
import { createGrpcWebTransport } from "@connectrpc/connect-web";
import type { Board, Position, Special } from "./gen/matchgrid/v1/board_pb.js";
import { PieceKind } from "./gen/matchgrid/v1/board_pb.js";
import { CollapsePuzzle, ScoringRule } from "./gen/matchgrid/v1/collapse_pb.js";
import type { TapResponse } from "./gen/matchgrid/v1/collapse_pb.js";
import { Combination, RefillMode, SwapPuzzle, SwapVerdict } from "./gen/matchgrid/v1/swap_pb.js";
import type { CascadeStep, ResolveCascadeResponse } from "./gen/matchgrid/v1/swap_pb.js";
import { GoalKind, LevelPolicy, LevelStatus } from "./gen/matchgrid/v1/level_pb.js";
import type { Level, LevelState } from "./gen/matchgrid/v1/level_pb.js";
import { goalKindName, parseLevel } from "./level_file.js";
import { fallOrigins, key } from "./falls.js";
import { initLines, linesNote, linesOf, showLines } from "./collapse_lines.js";
import cherryDrop from "../../../examples/levels/cherry_drop.json";
import iceWall from "../../../examples/levels/ice_wall.json";
import jellyRows from "../../../examples/levels/jelly_rows.json";
import redHarvest from "../../../examples/levels/red_harvest.json";
import scoreRush from "../../../examples/levels/score_rush.json";

const transport = createGrpcWebTransport({ baseUrl: window.location.origin });
const swapApi = createClient(SwapPuzzle, transport);
const collapseApi = createClient(CollapsePuzzle, transport);

/** Letters of colours 1 to 16 in the text form (the CLI's). */
const LETTERS = "RGBYPOCWKMADEFHI";
/** Tile colours 1 to 16. */
const PALETTE = [
  "#e53935", "#43a047", "#1e88e5", "#fdd835", "#8e24aa", "#fb8c00", "#00acc1", "#eeeeee",
  "#546e7a", "#d81b60", "#7cb342", "#5e35b1", "#6d4c41", "#c0ca33", "#26a69a", "#ec407a",
];

type Family = "swap" | "collapse" | "level";

/** The example levels of examples/levels/, by file stem (bundled: the repo's files are the source). */
const EXAMPLES: Record<string, unknown> = {
  cherry_drop: cherryDrop,
  ice_wall: iceWall,
  jelly_rows: jellyRows,
  red_harvest: redHarvest,
  score_rush: scoreRush,
};

/**
 * A board as the page holds it: row-major cells, 0 empty. A level board (swap family,
 * docs/rules.md section 6) also has holes and piece kinds (PieceKind numbers, 0 or 1 normal).
 */
interface Grid {
  width: number;
  height: number;
  cells: number[];
  holes?: boolean[];
  kinds?: number[];
  /** Level layers (docs/rules.md section 8), all present or all absent. */
  jelly?: number[];
  blockers?: number[];
  locks?: boolean[];
  exits?: boolean[];
}

/** Text suffix of a special piece kind (the CLI's: `R-`, `R|`, `R+`; a bomb is `*`). */
const KIND_SUFFIX: Record<number, string> = {
  [PieceKind.STRIPED_H]: "-",
  [PieceKind.STRIPED_V]: "|",
  [PieceKind.WRAPPED]: "+",
};

function isLevel(g: Grid): boolean {
  return (
    hasLayers(g) || (g.holes ?? []).some((h) => h) || (g.kinds ?? []).some((k) => k > PieceKind.NORMAL)
  );
}

/** True when the board carries the level layers of section 8 (jelly, blockers, locks, exits). */
function hasLayers(g: Grid): boolean {
  return g.jelly !== undefined;
}

const jellyAt = (g: Grid, index: number) => g.jelly?.[index] ?? 0;
const blockerAt = (g: Grid, index: number) => g.blockers?.[index] ?? 0;
const lockAt = (g: Grid, index: number) => g.locks?.[index] ?? false;
const exitAt = (g: Grid, index: number) => g.exits?.[index] ?? false;

function holeAt(g: Grid, index: number): boolean {
  return g.holes?.[index] ?? false;
}

function kindAt(g: Grid, index: number): number {
  return g.kinds?.[index] ?? PieceKind.UNSPECIFIED;
}

const $ = <T extends HTMLElement>(id: string): T => {
  const element = document.getElementById(id);
  if (!element) throw new Error(`missing #${id}`);
  return element as T;
};

const boardEl = $<HTMLDivElement>("board");
const messageEl = $("message");
const logEl = $<HTMLOListElement>("log");
const movesEl = $<HTMLOListElement>("moves");
const stateEl = $("state");
const scoreEl = $("score");
const lastScoreEl = $("last-score");

let grid: Grid | null = null;
let selected: Position | null = null;
let totalScore = 0n;
let busy = false;
let moveCount = 0;

/** What undo goes back to: the board, score and move count before each move, newest last. */
interface Snapshot {
  grid: Grid;
  totalScore: bigint;
  moveCount: number;
  lastScore: string;
  levelState: LevelState | null;
}
let history: Snapshot[] = [];

/** Level mode: the level being played (as the wire takes it) and the last state answered. */
let level: Level | null = null;
let levelState: LevelState | null = null;

function setMoves(n: number) {
  moveCount = n;
  $("move-count").textContent = String(n);
}

/** Starts a new game on the drawn board: score, moves, history and log cleared. */
function resetGame() {
  logEl.replaceChildren();
  totalScore = 0n;
  addScore(0n, "");
  setMoves(0);
  history = [];
  $<HTMLButtonElement>("undo").disabled = true;
}

/** Remembers the current board before a move, for undo. */
function remember() {
  if (!grid) return;
  history.push({ grid, totalScore, moveCount, lastScore: lastScoreEl.textContent ?? "", levelState });
  $<HTMLButtonElement>("undo").disabled = false;
}

async function undo() {
  await run(async () => {
    const last = history.pop();
    $<HTMLButtonElement>("undo").disabled = history.length === 0;
    if (!last) return;
    totalScore = last.totalScore;
    addScore(0n, last.lastScore);
    setMoves(last.moveCount);
    if (family() === "level") {
      levelState = last.levelState;
      showLevel();
    }
    await draw(last.grid);
    log(`undo: back to move ${last.moveCount}, score ${last.totalScore}`);
    await showState();
  });
}

/** Marks the top swap of Hint (the highest certain score) on the board. */
async function hint() {
  await run(async () => {
    if (!grid || family() === "collapse") return;
    const response = await swapApi.hint({ board: toApi(grid), topN: 1 });
    const top = response.hints[0];
    if (!top?.swap?.a || !top.swap.b) {
      say("no hint: no valid swap");
      return;
    }
    const { a, b } = top.swap;
    mark([a, b], "hinted");
    const combination = COMBINATION_NAME[top.combination];
    say(
      `hint: swap (${a.row},${a.col}) <-> (${b.row},${b.col})${combination ? `, ${combination}` : ""}: ` +
        `+${top.score} certain, ${count(top.cleared, "tile")} cleared`,
      true,
    );
  });
}

function family(): Family {
  return $<HTMLSelectElement>("family").value as Family;
}

function numberInput(id: string): number {
  const value = Number($<HTMLInputElement>(id).value);
  return Number.isFinite(value) ? Math.max(0, Math.floor(value)) : 0;
}

/** Milliseconds of one animation phase. */
function phaseMs(): number {
  return { slow: 700, normal: 320, fast: 60 }[$<HTMLSelectElement>("speed").value] ?? 320;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Sets the tile size (--cell) so that `g` fills the middle column and the window's height. */
function fitCells(g: Grid) {
  const panel = $("board-panel");
  const gap = 3;
  const width = panel.clientWidth - 24;
  const height = window.innerHeight - panel.getBoundingClientRect().top - window.scrollY - 60;
  const fit = Math.floor(Math.min(width / g.width, height / g.height)) - gap;
  const cell = Math.max(22, Math.min(72, fit));
  document.documentElement.style.setProperty("--cell", `${cell}px`);
}

function cellSize(): number {
  return Number.parseFloat(getComputedStyle(document.documentElement).getPropertyValue("--cell")) + 3;
}

// ---- text form ---------------------------------------------------------------------------

function cellChar(value: number): string {
  if (value === 0) return ".";
  return value <= LETTERS.length ? LETTERS[value - 1] : String(value);
}

/** One cell in the text form: `#` hole, `*` colour bomb, a colour with its kind's suffix. */
function pieceText(g: Grid, index: number): string {
  if (holeAt(g, index)) return "#";
  const kind = kindAt(g, index);
  if (kind === PieceKind.COLOR_BOMB) return "*";
  if (kind === PieceKind.INGREDIENT) return "@";
  if (blockerAt(g, index) > 0) return `X${blockerAt(g, index)}`;
  return cellChar(g.cells[index]) + (KIND_SUFFIX[kind] ?? "");
}

/** A cell with its level layers (docs/levels.md): the piece, then `~` lock, `'`/`"` jelly, `_` exit. */
function cellText(g: Grid, index: number): string {
  const jelly = jellyAt(g, index);
  return (
    pieceText(g, index) +
    (lockAt(g, index) ? "~" : "") +
    (jelly === 1 ? "'" : jelly === 2 ? '"' : "") +
    (exitAt(g, index) ? "_" : "")
  );
}

export function toText(g: Grid): string {
  const rows: string[] = [];
  for (let r = 0; r < g.height; r++) {
    const row: string[] = [];
    for (let c = 0; c < g.width; c++) row.push(cellText(g, r * g.width + c));
    rows.push(row.join(""));
  }
  return rows.join("/");
}

export function parseText(text: string): Grid {
  const rows = text
    .trim()
    .split(/[/\n]/)
    .map((row) => row.replace(/\s+/g, ""))
    .filter((row) => row.length > 0);
  if (rows.length === 0) throw new Error("empty board");
  const cells: number[] = [];
  const holes: boolean[] = [];
  const kinds: number[] = [];
  let width = -1;
  rows.forEach((row, r) => {
    let count = 0;
    const chars = [...row.toUpperCase()];
    for (let i = 0; i < chars.length; i++) {
      const ch = chars[i];
      let [cell, hole, kind] = [0, false, PieceKind.UNSPECIFIED as number];
      if (ch === ".") cell = 0;
      else if (ch === "#") hole = true;
      else if (ch === "*") kind = PieceKind.COLOR_BOMB;
      else if (LETTERS.includes(ch)) cell = LETTERS.indexOf(ch) + 1;
      else if (ch >= "1" && ch <= "9") cell = Number(ch);
      else throw new Error(`unknown cell '${ch}' in row ${r}`);
      const suffix = chars[i + 1];
      if (cell > 0 && suffix !== undefined && "-|+".includes(suffix)) {
        kind = { "-": PieceKind.STRIPED_H, "|": PieceKind.STRIPED_V, "+": PieceKind.WRAPPED }[
          suffix
        ] as number;
        i++;
      }
      cells.push(cell);
      holes.push(hole);
      kinds.push(kind);
      count++;
    }
    if (width < 0) width = count;
    if (count !== width) throw new Error(`row ${r} has ${count} cells, row 0 has ${width}`);
  });
  const g: Grid = { width, height: rows.length, cells };
  if (isLevel({ ...g, holes, kinds })) Object.assign(g, { holes, kinds });
  return g;
}

function fromApi(board: Board | undefined): Grid {
  if (!board) throw new Error("the server sent no board");
  const g: Grid = { width: board.width, height: board.height, cells: [...board.cells] };
  if (board.holes.length > 0 || board.kinds.length > 0) {
    const size = board.width * board.height;
    g.holes = board.holes.length > 0 ? [...board.holes] : new Array(size).fill(false);
    g.kinds = board.kinds.length > 0 ? board.kinds.map(Number) : new Array(size).fill(0);
  }
  if (board.jelly.length > 0 || board.blockers.length > 0 || board.locks.length > 0 || board.exits.length > 0) {
    const size = board.width * board.height;
    g.jelly = board.jelly.length > 0 ? [...board.jelly] : new Array(size).fill(0);
    g.blockers = board.blockers.length > 0 ? [...board.blockers] : new Array(size).fill(0);
    g.locks = board.locks.length > 0 ? [...board.locks] : new Array(size).fill(false);
    g.exits = board.exits.length > 0 ? [...board.exits] : [];
  }
  return g;
}

/** The wire board: holes and kinds only for a level board, so plain requests stay as before. */
function toApi(g: Grid) {
  if (!isLevel(g)) return { width: g.width, height: g.height, cells: g.cells };
  const board = { width: g.width, height: g.height, cells: g.cells, holes: g.holes, kinds: g.kinds };
  if (!hasLayers(g)) return board;
  return { ...board, jelly: g.jelly, blockers: g.blockers, locks: g.locks, exits: g.exits };
}

// ---- drawing -----------------------------------------------------------------------------


function place(el: HTMLElement, row: number, col: number) {
  const size = cellSize();
  el.style.transform = `translate(${col * size + 3}px, ${row * size + 3}px)`;
}

/**
 * Draws `g`. Tiles listed in `from` start at that (row, col), possibly above the board, and
 * move to their place; with no `from`, the board is drawn as it is.
 */
async function draw(g: Grid, from?: Map<string, [number, number]>) {
  grid = g;
  fitCells(g);
  const size = cellSize();
  boardEl.style.width = `${g.width * size + 3}px`;
  boardEl.style.height = `${g.height * size + 3}px`;
  boardEl.dataset.width = String(g.width);
  boardEl.dataset.height = String(g.height);
  boardEl.dataset.board = toText(g);
  $<HTMLTextAreaElement>("board-text").value = toText(g);
  boardEl.replaceChildren();
  if (hasLayers(g)) drawLayers(g);
  const moving: Array<[HTMLElement, number, number]> = [];
  for (let row = 0; row < g.height; row++) {
    for (let col = 0; col < g.width; col++) {
      const value = g.cells[row * g.width + col];
      const el = document.createElement("div");
      el.className = "cell still";
      el.id = `cell-${row}-${col}`;
      el.dataset.row = String(row);
      el.dataset.col = String(col);
      el.dataset.color = String(value);
      const index = row * g.width + col;
      const kind = kindAt(g, index);
      if (kind > PieceKind.NORMAL) el.dataset.kind = String(kind);
      const jelly = jellyAt(g, index);
      if (jelly > 0) el.dataset.jelly = String(jelly);
      if (lockAt(g, index)) {
        el.dataset.lock = "true";
        el.classList.add("locked");
      }
      if (exitAt(g, index)) el.dataset.exit = "true";
      if (holeAt(g, index)) {
        el.classList.add("hole");
        el.dataset.hole = "true";
        el.title = "hole (no tile ever)";
      } else if (blockerAt(g, index) > 0) {
        const hp = blockerAt(g, index);
        el.classList.add("blocker", `hp-${Math.min(hp, 5)}`);
        el.dataset.blocker = String(hp);
        el.textContent = String(hp);
        el.title = `blocker: ${hp} hit point${hp === 1 ? "" : "s"} left`;
      } else if (kind === PieceKind.INGREDIENT) {
        el.classList.add("ingredient");
        el.dataset.ingredient = "true";
        el.textContent = "@";
        el.title = "ingredient: bring it down to an exit";
      } else if (kind === PieceKind.COLOR_BOMB) {
        el.classList.add("bomb");
        el.textContent = "*";
        el.title = "colour bomb";
      } else if (value === 0) {
        el.classList.add("empty");
        el.title = "empty cell";
      }
      else if (kind > PieceKind.NORMAL) {
        // The letter and its kind's mark on a badge of the tile's colour, so the stripes
        // around it do not run through the text.
        el.classList.add("piece", `kind-${kind}`);
        el.style.background = PALETTE[value - 1] ?? "#888";
        el.style.setProperty("--tile", PALETTE[value - 1] ?? "#888");
        const glyph = document.createElement("span");
        glyph.className = "glyph";
        glyph.textContent = cellText(g, index);
        el.appendChild(glyph);
        el.title = { [PieceKind.STRIPED_H]: "striped (clears its row)", [PieceKind.STRIPED_V]: "striped (clears its column)", [PieceKind.WRAPPED]: "wrapped (clears the 3x3 around it)" }[kind] ?? "";
      } else if (value > PALETTE.length) {
        el.classList.add("special");
        el.textContent = String(value);
      } else {
        el.style.background = PALETTE[value - 1];
        el.textContent = cellChar(value);
      }
      if (lockAt(g, index)) el.title = "locked: matches, but cannot be swapped or fall; a hit removes the lock";
      const start = from?.get(key(row, col));
      if (start) {
        place(el, start[0], start[1]);
        moving.push([el, row, col]);
      } else {
        place(el, row, col);
      }
      el.addEventListener("click", () => void clicked(row, col));
      boardEl.appendChild(el);
    }
  }
  if (moving.length > 0) {
    void boardEl.offsetHeight; // lay out the start positions before moving
    for (const [el, row, col] of moving) {
      el.classList.remove("still");
      place(el, row, col);
    }
    await sleep(phaseMs());
  }
  for (const el of boardEl.querySelectorAll(".cell")) el.classList.remove("still");
}

/**
 * The layers that stay in place under and over the moving tiles: jelly (a tinted square under
 * the cell, darker for two layers) and exits (a green marker at the cell's foot).
 */
function drawLayers(g: Grid) {
  const size = cellSize();
  for (let row = 0; row < g.height; row++) {
    for (let col = 0; col < g.width; col++) {
      const index = row * g.width + col;
      const jelly = jellyAt(g, index);
      if (jelly > 0) {
        const under = document.createElement("div");
        under.className = `jelly jelly-${jelly}`;
        under.id = `jelly-${row}-${col}`;
        under.style.transform = `translate(${col * size + 0.5}px, ${row * size + 0.5}px)`;
        boardEl.appendChild(under);
      }
      if (exitAt(g, index) && showExits(g)) {
        const exit = document.createElement("div");
        exit.className = "exit";
        exit.id = `exit-${row}-${col}`;
        exit.title = "exit: an ingredient here is collected";
        exit.style.transform = `translate(${col * size + 3}px, ${row * size + 3}px)`;
        exit.textContent = "\u25bc";
        boardEl.appendChild(exit);
      }
    }
  }
}

/** Exits are drawn where they matter: a board with an ingredient, or a level that brings some down. */
function showExits(g: Grid): boolean {
  return (
    (g.kinds ?? []).some((k) => k === PieceKind.INGREDIENT) ||
    (family() === "level" && (level?.goals ?? []).some((goal) => goal.kind === GoalKind.BRING_DOWN))
  );
}

function cellEl(p: { row: number; col: number }): HTMLElement | null {
  return document.getElementById(`cell-${p.row}-${p.col}`);
}

function mark(cells: Array<{ row: number; col: number }>, cls: string, on = true) {
  for (const p of cells) cellEl(p)?.classList.toggle(cls, on);
}

function setBusy(value: boolean) {
  busy = value;
  boardEl.dataset.busy = String(value);
}

/** The line under the board: an error (default) or, with `info`, a hint. */
function say(text: string, info = false) {
  messageEl.textContent = text;
  messageEl.classList.toggle("info", info);
}

function log(text: string) {
  const li = document.createElement("li");
  li.textContent = text;
  logEl.appendChild(li);
  li.scrollIntoView({ block: "nearest" });
}

function addScore(points: bigint, label: string) {
  totalScore += points;
  scoreEl.textContent = String(totalScore);
  scoreEl.dataset.score = String(totalScore);
  lastScoreEl.textContent = label;
}

function errorText(error: unknown): string {
  if (error instanceof ConnectError) return `${Code[error.code]}: ${error.rawMessage}`;
  return error instanceof Error ? error.message : String(error);
}

/** Runs `work` with the board locked, showing a failure in the message line. */
async function run(work: () => Promise<void>) {
  if (busy) return;
  setBusy(true);
  say("");
  try {
    await work();
  } catch (error) {
    say(errorText(error));
  } finally {
    setBusy(false);
  }
}

// ---- state after a move --------------------------------------------------------------------

async function showState() {
  movesEl.replaceChildren();
  if (!grid) return;
  const g = grid;
  if (family() !== "collapse") {
    $("moves-title").textContent = "Valid swaps";
    const hasEmpty = g.cells.some(
      (v, i) =>
        v === 0 &&
        !holeAt(g, i) &&
        kindAt(g, i) !== PieceKind.COLOR_BOMB &&
        kindAt(g, i) !== PieceKind.INGREDIENT &&
        blockerAt(g, i) === 0,
    );
    if (hasEmpty) {
      stateEl.textContent = "The board has empty cells: no dead-state check until it is settled. ";
      stateEl.appendChild(settleButton());
      return;
    }
    try {
      const dead = await swapApi.checkDeadState({ board: toApi(g) });
      stateEl.innerHTML = dead.dead
        ? '<span class="dead" id="dead" data-dead="true">dead: no valid swap</span>'
        : `<span class="alive" id="dead" data-dead="false">alive: ${dead.validSwaps.length} valid swaps</span>`;
      for (const s of dead.validSwaps) {
        const a = s.a ?? { row: 0, col: 0 };
        const b = s.b ?? { row: 0, col: 0 };
        const li = document.createElement("li");
        li.textContent = `(${a.row},${a.col}) <-> (${b.row},${b.col})`;
        li.dataset.a = key(a.row, a.col);
        li.dataset.b = key(b.row, b.col);
        li.addEventListener("mouseenter", () => mark([a, b], "hint"));
        li.addEventListener("mouseleave", () => mark([a, b], "hint", false));
        li.addEventListener("click", () => void swapTiles(a, b));
        movesEl.appendChild(li);
      }
    } catch (error) {
      if (!(error instanceof ConnectError) || error.code !== Code.FailedPrecondition) throw error;
      stateEl.textContent = unstableText(error.rawMessage);
      stateEl.appendChild(settleButton());
    }
  } else {
    $("moves-title").textContent = "Legal groups";
    const dead = await collapseApi.checkDeadState({
      board: toApi(g),
      scoring: scoring(),
      minGroup: numberInput("min-group"),
    });
    stateEl.innerHTML = dead.gameOver
      ? `<span class="dead" id="dead" data-dead="true">game over: ${dead.tilesLeft} tiles left, end bonus ${dead.endBonus}</span>`
      : `<span class="alive" id="dead" data-dead="false">${dead.groups.length} legal groups, ${dead.tilesLeft} tiles left</span>`;
    for (const group of dead.groups) {
      const at = group.representative ?? { row: 0, col: 0 };
      const li = document.createElement("li");
      li.textContent = `${cellChar(group.color)} x${group.size} at (${at.row},${at.col}): ${group.score} points`;
      li.addEventListener("click", () => void tap(at));
      movesEl.appendChild(li);
    }
  }
}

/** A readable account of CheckDeadState's "board is not stable: E empty cell(s), M matched cell(s)". */
function unstableText(raw: string): string {
  const found = /(\d+) empty cell\(s\), (\d+) matched cell\(s\)/.exec(raw);
  const [empty, matched] = found ? [Number(found[1]), Number(found[2])] : [0, 0];
  const why: string[] = [];
  if (matched > 0) why.push(`${count(matched, "tile")} already in runs of 3 or more`);
  if (empty > 0) why.push(`${count(empty, "empty cell")}`);
  const reason = why.length > 0 ? ` (${why.join(", ")})` : "";
  return `Not stable${reason}: it would clear by itself before any swap, so it has no valid swaps yet. Settle it to play: `;
}

function settleButton(): HTMLButtonElement {
  const button = document.createElement("button");
  button.id = "settle";
  button.textContent = "Settle";
  button.title = "ResolveCascade without a swap: clear the runs, refill, until stable";
  button.addEventListener("click", () => void settle());
  return button;
}

/** Resolves the board as given (ResolveCascade without a swap), animated like a swap's cascade. */
async function settle() {
  await run(async () => {
    if (!grid) return;
    const start = grid;
    const response = await swapApi.resolveCascade({ board: toApi(start), ...cascadeOptions() });
    remember();
    log("settle (no swap)");
    await animateCascade(start, null, response);
    await showState();
  });
}

function cascadeOptions() {
  return {
    colors: numberInput("colors"),
    seed: BigInt(numberInput("cascade-seed")),
    refill: $<HTMLSelectElement>("refill").value === "none" ? RefillMode.NONE : RefillMode.RANDOM,
    autoShuffle: $<HTMLInputElement>("auto-shuffle").checked,
    includeStepBoards: true,
  };
}

/** The scoring control's values. */
const SCORING: Record<string, ScoringRule> = {
  popstar: ScoringRule.POPSTAR,
  samegame: ScoringRule.SAMEGAME,
  clickomania: ScoringRule.CLICKOMANIA,
  bubble_breaker: ScoringRule.BUBBLE_BREAKER,
};

function scoring(): ScoringRule {
  return SCORING[$<HTMLSelectElement>("scoring").value] ?? ScoringRule.POPSTAR;
}

// ---- actions -----------------------------------------------------------------------------

async function generate() {
  await run(async () => {
    const request = {
      width: numberInput("width"),
      height: numberInput("height"),
      colors: numberInput("colors"),
      seed: BigInt(numberInput("seed")),
    };
    resetGame();
    showLines(null);
    if (family() === "swap") {
      const response = await swapApi.generateBoard({ ...request, minMoves: numberInput("min-moves") });
      await draw(fromApi(response.board));
      log(`generated: ${response.validSwapCount} valid swaps`);
    } else {
      // Clearable: a board built to clear, with its clearing line. Par nodes: a par search
      // under the scoring control's rule, with its line (both replayed by collapse_lines.ts).
      const minGroup = numberInput("min-group");
      const clearable = $<HTMLInputElement>("clearable").checked;
      const parNodes = BigInt(numberInput("par-nodes"));
      const parScoring = scoring();
      if (parNodes > 0n) say(`searching for a par (${parNodes} nodes)...`, true);
      const response = await collapseApi.generateBoard({
        ...request,
        minGroup,
        clearable,
        ...(parNodes > 0n ? { parNodes, parScoring } : {}),
      });
      say("");
      const lines = linesOf(response, minGroup, parNodes, parScoring);
      await draw(fromApi(response.board));
      showLines(lines);
      log(`generated: ${response.legalGroupCount} legal groups${linesNote(lines)}`);
    }
    $<HTMLInputElement>("cascade-seed").value = String(numberInput("seed"));
    await showState();
  });
}

async function load() {
  await run(async () => {
    const g = parseText($<HTMLTextAreaElement>("board-text").value);
    resetGame();
    showLines(null);
    $<HTMLInputElement>("width").value = String(g.width);
    $<HTMLInputElement>("height").value = String(g.height);
    await draw(g);
    log(`loaded: ${g.width}x${g.height} board`);
    await showState();
  });
}

async function clicked(row: number, col: number) {
  if (busy || !grid) return;
  if (family() === "collapse") {
    await tap({ row, col });
    return;
  }
  if (!selected) {
    selected = { row, col } as Position;
    mark([selected], "selected");
    return;
  }
  const a = selected;
  selected = null;
  mark([a], "selected", false);
  if (a.row === row && a.col === col) return;
  await swapTiles(a, { row, col });
}

/** Swaps a and b: ValidateSwap, then ResolveCascade (PlayMove in level mode), animated step by step. */
async function swapTiles(a: { row: number; col: number }, b: { row: number; col: number }) {
  if (family() === "level") {
    await levelMove(a, b);
    return;
  }
  await run(async () => {
    if (!grid) return;
    const start = grid;
    const swap = { a, b };
    const verdict = await swapApi.validateSwap({ board: toApi(start), swap });
    if (verdict.verdict !== SwapVerdict.OK) {
      say(`swap refused: ${SwapVerdict[verdict.verdict]}`);
      return;
    }
    const response = await swapApi.resolveCascade({ board: toApi(start), swap, ...cascadeOptions() });
    remember();
    setMoves(moveCount + 1);
    movesEl.replaceChildren(); // the old board's swaps no longer apply
    stateEl.textContent = "cascade running...";
    const combination = COMBINATION_NAME[verdict.combination];
    log(`swap (${a.row},${a.col}) <-> (${b.row},${b.col})${combination ? `: ${combination}` : ""}`);
    await animateCascade(start, swap, response);
    await showState();
  });
}

/** "1 group", "2 groups". */
function count(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? "" : "s"}`;
}

/** A special piece as the text form writes it, with where it is: `R- at (2,1)`, `* at (0,3)`. */
function specialText(special: Special): string {
  const p = special.position ?? { row: 0, col: 0 };
  const piece =
    special.kind === PieceKind.COLOR_BOMB ? "*" : cellChar(special.color) + (KIND_SUFFIX[special.kind] ?? "");
  return `${piece} at (${p.row},${p.col})`;
}

/** The log line of one cascade step: its groups, fired and created specials, falls, spawns, score. */
function stepText(step: CascadeStep): string {
  const parts: string[] = [];
  const sizes = step.groups.map((group) => `${cellChar(group.color)}x${group.cells.length}`);
  parts.push(sizes.length > 0 ? `${count(sizes.length, "group")} ${sizes.join(" ")}` : "0 groups");
  if (step.fired.length > 0) parts.push(`fired ${step.fired.map(specialText).join(" ")}`);
  if (step.effectCleared.length > 0) parts.push(`${step.effectCleared.length} cleared by effects`);
  if (step.created.length > 0) parts.push(`created ${step.created.map(specialText).join(" ")}`);
  if (step.hits.length > 0) parts.push(count(step.hits.length, "hit"));
  const slides = step.falls.filter((fall) => fall.from && fall.to && fall.from.col !== fall.to.col).length;
  parts.push(count(step.falls.length, "fall"));
  if (slides > 0) parts.push(count(slides, "slide"));
  parts.push(count(step.spawns.length, "spawn"));
  if (step.collected.length > 0) parts.push(`${count(step.collected.length, "ingredient")} collected`);
  return `step ${step.index}: ${parts.join(", ")}, +${step.score}`;
}

/** Names of the combinations (docs/rules.md section 6). */
const COMBINATION_NAME: Record<number, string> = {
  [Combination.BOMB_NORMAL]: "colour bomb + tile",
  [Combination.BOMB_STRIPED]: "colour bomb + striped",
  [Combination.BOMB_WRAPPED]: "colour bomb + wrapped",
  [Combination.BOMB_BOMB]: "colour bomb + colour bomb",
  [Combination.STRIPED_STRIPED]: "striped + striped",
  [Combination.STRIPED_WRAPPED]: "striped + wrapped",
  [Combination.WRAPPED_WRAPPED]: "wrapped + wrapped",
};

/** What animateCascade draws: ResolveCascade's answer, or PlayMove's in its shape. */
type Cascade = Pick<ResolveCascadeResponse, "steps" | "board" | "totalScore" | "shuffled" | "dead">;

async function animateCascade(
  start: Grid,
  swap: { a: { row: number; col: number }; b: { row: number; col: number } } | null,
  response: Cascade,
) {
  // The swap itself (none when settling a board as given).
  if (swap) {
    const { a, b } = swap;
    const swapped = { ...start, cells: [...start.cells], kinds: start.kinds ? [...start.kinds] : undefined };
    if (!swapped.kinds) delete swapped.kinds;
    const ia = a.row * start.width + a.col;
    const ib = b.row * start.width + b.col;
    [swapped.cells[ia], swapped.cells[ib]] = [swapped.cells[ib], swapped.cells[ia]];
    if (swapped.kinds) [swapped.kinds[ia], swapped.kinds[ib]] = [swapped.kinds[ib], swapped.kinds[ia]];
    // Jelly, blockers, locks and exits stay with their cells (a swap never moves a fixed cell).
    await draw(swapped, new Map([[key(a.row, a.col), [b.row, b.col]], [key(b.row, b.col), [a.row, a.col]]]));
  }
  let moveScore = 0n;
  for (const step of response.steps) {
    // The groups' cells, then what specials and combinations cleared besides (level boards):
    // outlined, the fired specials flashed, then all of them cleared, and the step's score
    // counted as they vanish.
    const grouped = step.groups.flatMap((group) => group.cells);
    const fired = step.fired.flatMap((special) => (special.position ? [special.position] : []));
    const cleared = [...grouped, ...step.effectCleared];
    // Hit cells with a layer (jelly, blocker, lock): flashed with the step's groups.
    const hits = step.hits.flatMap((hit) => (hit.position ? [hit.position] : []));
    if (cleared.length > 0 || hits.length > 0) {
      mark(grouped, "group");
      mark(fired, "fired");
      mark(step.effectCleared, "blast");
      mark(hits, "hit");
      for (const p of hits) document.getElementById(`jelly-${p.row}-${p.col}`)?.classList.add("hit");
      await sleep(phaseMs());
      mark(cleared, "cleared");
    }
    moveScore += step.score;
    boardEl.dataset.step = String(step.index);
    addScore(step.score, `step ${step.index}: +${step.score}`);
    if (cleared.length > 0) await sleep(phaseMs());
    // Where each tile of the board after the step comes from: a fall's source, or above the
    // board for a spawned tile (its column's new tiles stacked above row 0).
    const from = fallOrigins(step, start.width);
    const spawnsPerColumn = new Map<number, number>();
    for (const spawn of step.spawns) {
      const col = spawn.position?.col ?? 0;
      spawnsPerColumn.set(col, (spawnsPerColumn.get(col) ?? 0) + 1);
    }
    for (const spawn of step.spawns) {
      const p = spawn.position;
      if (p) from.set(key(p.row, p.col), [p.row - (spawnsPerColumn.get(p.col) ?? 0), p.col]);
    }
    const after = step.board ? fromApi(step.board) : null;
    if (after) await draw(after, from);
    if (step.collected.length > 0) {
      mark(step.collected, "collected");
      for (const p of step.collected) document.getElementById(`exit-${p.row}-${p.col}`)?.classList.add("collected");
    }
    log(stepText(step));
  }
  delete boardEl.dataset.step;
  if (response.shuffled) log("no valid swap left: shuffled");
  await draw(fromApi(response.board));
  lastScoreEl.textContent = `move: +${moveScore}`;
  log(`total +${response.totalScore}${response.dead ? ", dead" : ""}`);
}

/** Taps a tile of a collapse board, animated: the group, its clearing, falls and column shifts. */
async function tap(at: { row: number; col: number }) {
  await run(async () => {
    if (!grid) return;
    await tapMove(at);
    await showState();
  });
}

/**
 * One Tap on the drawn board with the page's rules, animated and counted (a move, its score
 * and at game over the end bonus); the state panel is left to the caller. Replays of the
 * clearing and par lines (collapse_lines.ts) play their taps through it.
 */
async function tapMove(at: { row: number; col: number }): Promise<TapResponse> {
  if (!grid) throw new Error("no board");
  const start = grid;
  const response: TapResponse = await collapseApi.tap({
    board: toApi(start),
    position: at,
    scoring: scoring(),
    minGroup: numberInput("min-group"),
  });
  remember();
  setMoves(moveCount + 1);
  mark(response.cleared, "group");
  await sleep(phaseMs());
  mark(response.cleared, "cleared");
  await sleep(phaseMs());
  // A tile's final place is its fall's target moved by its column's shift; go back from it.
  const unshift = new Map<number, number>();
  for (const shift of response.columnShifts) unshift.set(shift.toCol, shift.fromCol);
  const unfall = new Map<string, [number, number]>();
  for (const fall of response.falls) {
    if (fall.from && fall.to) unfall.set(key(fall.to.row, fall.to.col), [fall.from.row, fall.from.col]);
  }
  const after = fromApi(response.board);
  const from = new Map<string, [number, number]>();
  for (let row = 0; row < after.height; row++) {
    for (let col = 0; col < after.width; col++) {
      const beforeShift = unshift.get(col) ?? col;
      const source = unfall.get(key(row, beforeShift)) ?? [row, beforeShift];
      if (source[0] !== row || source[1] !== col) from.set(key(row, col), source);
    }
  }
  await draw(after, from);
  addScore(response.moveScore, `tap: +${response.moveScore}`);
  log(
    `tap (${at.row},${at.col}): ${cellChar(response.color)}x${response.cleared.length}, ` +
      `${count(response.falls.length, "fall")}, ${count(response.columnShifts.length, "column shift")}, +${response.moveScore}`,
  );
  if (response.gameOver) {
    addScore(BigInt(response.endBonus), `end bonus ${response.endBonus}`);
    log(`game over: end bonus ${response.endBonus}, total ${response.totalScore}`);
  }
  return response;
}

// ---- level mode ----------------------------------------------------------------------------

const STATUS_NAME: Record<number, string> = {
  [LevelStatus.PLAYING]: "PLAYING",
  [LevelStatus.WON]: "WON",
  [LevelStatus.LOST_OUT_OF_MOVES]: "LOST_OUT_OF_MOVES",
  [LevelStatus.LOST_DEAD]: "LOST_DEAD",
};

/** Fills the level text with the chosen example, as JSON (the file's content). */
function showExample() {
  const name = $<HTMLSelectElement>("level-example").value;
  const example = EXAMPLES[name];
  if (example) $<HTMLTextAreaElement>("level-text").value = JSON.stringify(example, null, 2);
}

/** The level in the text box, as the wire takes it; a bad file throws, naming the field. */
function readLevel(): { name: string; description: string; layout: boolean; level: Level } {
  const file = parseLevel($<HTMLTextAreaElement>("level-text").value, $<HTMLSelectElement>("level-example").value || "pasted");
  const wire = {
    board: file.board,
    colors: file.colors,
    moveLimit: file.moveLimit,
    goals: file.goals,
  } as unknown as Level;
  return { name: file.name, description: file.description, layout: file.layout, level: wire };
}

/** Reads the level text and starts it (StartLevel with the seed field). */
async function startLevel() {
  await run(async () => {
    resetGame();
    level = null;
    levelState = null;
    showLevel();
    $("level-sim").textContent = "";
    let file;
    try {
      file = readLevel();
    } catch (error) {
      boardEl.replaceChildren();
      grid = null;
      movesEl.replaceChildren();
      stateEl.textContent = "";
      throw new Error(`level: ${(error as Error).message}`);
    }
    const seed = BigInt(numberInput("level-seed"));
    const response = await swapApi.startLevel({ level: file.level, seed });
    if (!response.state) throw new Error("the server sent no state");
    level = file.level;
    levelState = response.state;
    $("level-name").textContent = file.name;
    $("level-description").textContent = file.description;
    showLevel();
    await draw(fromApi(levelState.board));
    log(`level ${file.name}: ${file.layout ? `start generated on its layout (seed ${seed})` : "its start board"}`);
    await showState();
  });
}

/** One move of the level: PlayMove on the last state, animated as a swap's cascade. */
async function levelMove(a: { row: number; col: number }, b: { row: number; col: number }) {
  await run(async () => {
    if (!grid || !level || !levelState) return;
    const start = grid;
    const swap = { a, b };
    const verdict = await swapApi.validateSwap({ board: toApi(start), swap });
    if (verdict.verdict !== SwapVerdict.OK) {
      say(`swap refused: ${SwapVerdict[verdict.verdict]}`);
      return;
    }
    // Move i (0-based) of a game is played with seed `level seed + i`.
    const seed = BigInt(numberInput("level-seed")) + BigInt(moveCount);
    const response = await swapApi.playMove({ level, state: levelState, swap, seed, includeStepBoards: true });
    const state = response.state;
    if (!state) throw new Error("the server sent no state");
    remember();
    setMoves(moveCount + 1);
    movesEl.replaceChildren();
    stateEl.textContent = "cascade running...";
    const combination = COMBINATION_NAME[verdict.combination];
    log(`move ${moveCount}: swap (${a.row},${a.col}) <-> (${b.row},${b.col})${combination ? `: ${combination}` : ""}`);
    const gained = response.steps.reduce((sum, step) => sum + step.score, 0n);
    await animateCascade(start, swap, {
      steps: response.steps,
      board: state.board,
      totalScore: gained,
      shuffled: response.shuffled,
      dead: state.status === LevelStatus.LOST_DEAD,
    });
    levelState = state;
    totalScore = state.score;
    addScore(0n, lastScoreEl.textContent ?? "");
    showLevel();
    if (state.status !== LevelStatus.PLAYING) log(`level over: ${STATUS_NAME[state.status] ?? state.status}`);
    await showState();
  });
}

/** One goal's line: what it asks for and how far it has got. */
function goalText(index: number): string {
  const goal = level?.goals[index];
  if (!goal) return "";
  const progress = levelState?.progress[index];
  const value = progress?.value ?? 0n;
  const name = goalKindName(goal.kind);
  switch (goal.kind) {
    case GoalKind.SCORE:
      return `${name}: ${value} / ${goal.target} points`;
    case GoalKind.CLEAR_JELLY:
      return `${name}: ${count(Number(value), "jelly layer")} left`;
    case GoalKind.COLLECT:
      return `${name} ${cellChar(goal.color)}: ${value} / ${goal.target} tiles`;
    case GoalKind.CLEAR_BLOCKERS:
      return `${name}: ${count(Number(value), "blocker")} left`;
    case GoalKind.BRING_DOWN:
      return `${name}: ${value} / ${goal.target} ingredients`;
    default:
      return `${name}: ${value}`;
  }
}

/** The level panel: status, moves left, score and each goal's progress. */
function showLevel() {
  const statusEl = $("level-status");
  const movesLeftEl = $("level-moves-left");
  const goalsEl = $("level-goals");
  goalsEl.replaceChildren();
  if (!level || !levelState) {
    statusEl.textContent = "-";
    statusEl.dataset.status = "";
    movesLeftEl.textContent = "-";
    movesLeftEl.dataset.movesLeft = "";
    $("level-score").textContent = "-";
    return;
  }
  const status = STATUS_NAME[levelState.status] ?? String(levelState.status);
  statusEl.textContent = status;
  statusEl.dataset.status = status;
  statusEl.className = `status-${status.toLowerCase()}`;
  movesLeftEl.textContent = `${levelState.movesLeft} / ${level.moveLimit}`;
  movesLeftEl.dataset.movesLeft = String(levelState.movesLeft);
  $("level-score").textContent = String(levelState.score);
  level.goals.forEach((goal, i) => {
    const li = document.createElement("li");
    const progress = levelState?.progress[i];
    li.textContent = goalText(i) + (progress?.met ? " \u2713" : "");
    li.dataset.kind = goalKindName(goal.kind);
    li.dataset.value = String(progress?.value ?? 0n);
    li.dataset.met = String(progress?.met ?? false);
    li.classList.toggle("met", progress?.met ?? false);
    goalsEl.appendChild(li);
  });
}

const percent = (x: number) => `${(x * 100).toFixed(1)}%`;

/** Simulate with `level`: 200 greedy games from the seed field; the pass rate and its interval. */
async function simulateLevel() {
  await run(async () => {
    const out = $("level-sim");
    out.textContent = "simulating 200 greedy games...";
    let wire: Level;
    try {
      wire = level ?? readLevel().level;
    } catch (error) {
      out.textContent = "";
      throw new Error(`level: ${(error as Error).message}`);
    }
    const games = 200;
    try {
      const response = await swapApi.simulate({
        level: wire,
        games,
        seed: BigInt(numberInput("level-seed")),
        levelPolicy: LevelPolicy.GREEDY,
      });
      const sim = response.level;
      if (!sim) throw new Error("the server sent no level simulation");
      out.replaceChildren();
      const line = document.createElement("div");
      line.id = "pass-rate";
      line.dataset.passRate = String(sim.passRate);
      line.dataset.low = String(sim.passRateLow);
      line.dataset.high = String(sim.passRateHigh);
      line.dataset.attempts = String(sim.attemptsPerSuccess);
      line.innerHTML =
        `pass rate <b>${percent(sim.passRate)}</b> (95% interval ${percent(sim.passRateLow)} to ${percent(sim.passRateHigh)}), ` +
        (sim.wins > 0 ? `${sim.attemptsPerSuccess.toFixed(2)} attempts per success` : "no game won");
      const detail = document.createElement("div");
      detail.className = "detail";
      detail.textContent =
        `${sim.wins} of ${sim.games} greedy games won; lost ${sim.lostOutOfMoves} out of moves, ${sim.lostDead} dead` +
        (sim.wins > 0 ? `; moves left when won: mean ${sim.movesLeftMean.toFixed(1)}, p50 ${sim.movesLeftP50}` : "");
      out.append(line, detail);
    } catch (error) {
      out.textContent = "";
      throw error;
    }
  });
}

// ---- wiring ------------------------------------------------------------------------------

$("generate").addEventListener("click", () => void generate());
$("load").addEventListener("click", () => void load());
$("undo").addEventListener("click", () => void undo());
$("hint").addEventListener("click", () => void hint());
$("family").addEventListener("change", () => {
  document.body.dataset.family = family();
  if (family() === "level") void startLevel();
  else void generate();
});
$("level-example").addEventListener("change", () => {
  showExample();
  void startLevel();
});
$("level-start").addEventListener("click", () => void startLevel());
$("level-simulate").addEventListener("click", () => void simulateLevel());
showExample();
$("scoring").addEventListener("change", () => void run(showState));
$("clearable").addEventListener("change", () => void generate());
initLines({
  run,
  restart: async (lines, rule) => {
    resetGame();
    $<HTMLInputElement>("min-group").value = String(lines.minGroup);
    const value = Object.keys(SCORING).find((name) => SCORING[name] === rule);
    if (value) $<HTMLSelectElement>("scoring").value = value;
    await draw(fromApi(lines.board));
    await showState();
  },
  tap: tapMove,
  showState,
  score: () => totalScore,
  log,
});
$("speed").addEventListener("change", () => {
  document.documentElement.style.setProperty("--ms", `${Math.round(phaseMs() * 0.8)}ms`);
});
document.documentElement.style.setProperty("--ms", `${Math.round(phaseMs() * 0.8)}ms`);
window.addEventListener("resize", () => {
  if (!grid || busy) return;
  selected = null;
  void draw(grid);
});
void generate();
