// The level file format of docs/levels.md, read in the browser: the rules of the CLI's reader
// (src/cli/level_file.rs), with its messages, so a pasted level fails here as
// `matchgrid level` fails on the same file. The board's finer checks (a lock on a bomb, a
// start board that is not stable, ...) are the server's: StartLevel names the cell.

import { GoalKind } from "./gen/matchgrid/v1/level_pb.js";

/** Letters of colours 1 to 16 in the text form (the CLI's). */
export const COLOR_LETTERS = "RGBYPOCWKMADEFHI";

/** PieceKind numbers (board.proto), kept here so this module needs no generated runtime. */
const KIND = { normal: 0, stripedH: 2, stripedV: 3, wrapped: 4, bomb: 5, ingredient: 6 } as const;

/** A level's board as the wire takes it (every list `width * height` long, or empty). */
export interface LevelBoard {
  width: number;
  height: number;
  cells: number[];
  holes: boolean[];
  kinds: number[];
  jelly: number[];
  blockers: number[];
  locks: boolean[];
  exits: boolean[];
}

export interface LevelGoal {
  kind: GoalKind;
  target: bigint;
  color: number;
}

/** A level read from a file's text. */
export interface LevelFile {
  name: string;
  description: string;
  /** True when the board is a layout (each game's start generated on it per seed). */
  layout: boolean;
  colors: number;
  moveLimit: number;
  board: LevelBoard;
  goals: LevelGoal[];
}

const FIELDS = ["name", "description", "colors", "move_limit", "board", "goals"];
const GOAL_FIELDS = ["kind", "target", "color"];
const GOAL_KINDS: Array<[string, GoalKind]> = [
  ["SCORE", GoalKind.SCORE],
  ["CLEAR_JELLY", GoalKind.CLEAR_JELLY],
  ["COLLECT", GoalKind.COLLECT],
  ["CLEAR_BLOCKERS", GoalKind.CLEAR_BLOCKERS],
  ["BRING_DOWN", GoalKind.BRING_DOWN],
];

/** The name a level file spells a goal kind with. */
export function goalKindName(kind: GoalKind): string {
  return GOAL_KINDS.find(([, k]) => k === kind)?.[0] ?? `GOAL_KIND_${kind}`;
}

function isUint(value: unknown): value is number {
  return typeof value === "number" && Number.isInteger(value) && value >= 0;
}

function checkFields(object: Record<string, unknown>, known: string[], where: string) {
  for (const field of Object.keys(object)) {
    if (!known.includes(field)) {
      throw new Error(`${where}unknown field \`${field}\`, expected one of ${known.map((f) => `\`${f}\``).join(", ")}`);
    }
  }
}

function uintField(object: Record<string, unknown>, field: string, where = ""): number {
  if (!(field in object)) throw new Error(`${where}missing field \`${field}\``);
  const value = object[field];
  if (!isUint(value)) throw new Error(`${where}${field}: must be a non-negative integer, got ${JSON.stringify(value)}`);
  return value;
}

/**
 * Parses a level file's text; `defaultName` names a level without `name`.
 * Throws an Error with a one-line message naming the field (`goals[i]`, or the board's row and
 * column) as the CLI does.
 */
export function parseLevel(text: string, defaultName = "pasted"): LevelFile {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    throw new Error(`not JSON: ${error instanceof Error ? error.message : String(error)}`);
  }
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) {
    throw new Error("a level file is one JSON object");
  }
  const object = raw as Record<string, unknown>;
  checkFields(object, FIELDS, "");
  if ("name" in object && object.name !== null && typeof object.name !== "string") throw new Error("name: must be a string");
  if ("description" in object && typeof object.description !== "string") throw new Error("description: must be a string");
  const colors = uintField(object, "colors");
  const moveLimit = uintField(object, "move_limit");
  if (!("board" in object)) throw new Error("missing field `board`");
  if (!("goals" in object)) throw new Error("missing field `goals`");
  const rows = object.board;
  if (!Array.isArray(rows) || !rows.every((row) => typeof row === "string")) {
    throw new Error("board: must be a list of strings, one a row");
  }
  const rawGoals = object.goals;
  if (!Array.isArray(rawGoals)) throw new Error("goals: must be a list");
  // The shape of every goal first, as serde reads the whole file before any value is checked.
  for (const goal of rawGoals) {
    if (typeof goal !== "object" || goal === null || Array.isArray(goal)) throw new Error("a goal is a JSON object");
    const fields = goal as Record<string, unknown>;
    checkFields(fields, GOAL_FIELDS, "");
    if (typeof fields.kind !== "string") throw new Error("missing field `kind`");
    const target = fields.target;
    if (target !== undefined && target !== null && !isUint(target)) throw new Error("target: must be a non-negative integer");
    const color = fields.color;
    if (color !== undefined && color !== null && !isUint(color) && typeof color !== "string") {
      throw new Error('color: a letter such as "R", or a number');
    }
  }
  if (colors < 2 || colors > 16) throw new Error(`colors: must be 2..=16, got ${colors}`);
  if (moveLimit < 1 || moveLimit > 1000) throw new Error(`move_limit: must be 1..=1000, got ${moveLimit}`);
  if (rawGoals.length === 0 || rawGoals.length > 8) {
    throw new Error(`goals: a level has 1..=8 goals, got ${rawGoals.length}`);
  }
  const goals = rawGoals.map((goal, i) => {
    try {
      return parseGoal(goal, colors);
    } catch (error) {
      throw new Error(`goals[${i}]: ${(error as Error).message}`);
    }
  });
  let parsed: { board: LevelBoard; layout: boolean };
  try {
    parsed = parseRows(rows as string[]);
  } catch (error) {
    throw new Error(`board: ${(error as Error).message}`);
  }
  return {
    name: typeof object.name === "string" ? object.name : defaultName,
    description: typeof object.description === "string" ? object.description : "",
    layout: parsed.layout,
    colors,
    moveLimit,
    board: parsed.board,
    goals,
  };
}

function parseGoal(goal: unknown, colors: number): LevelGoal {
  const object = goal as Record<string, unknown>;
  const name = object.kind as string;
  const found = GOAL_KINDS.find(([n]) => n.toLowerCase() === name.toLowerCase());
  if (!found) {
    throw new Error(`kind: unknown goal ${JSON.stringify(name)}; one of ${GOAL_KINDS.map(([n]) => n).join(", ")}`);
  }
  const kind = found[1];
  const counted = kind === GoalKind.SCORE || kind === GoalKind.COLLECT || kind === GoalKind.BRING_DOWN;
  const hasTarget = object.target !== undefined && object.target !== null;
  let target = 0n;
  if (counted) {
    if (!hasTarget) throw new Error(`target: ${name} needs a target`);
    if (object.target === 0) throw new Error("target: must be at least 1");
    target = BigInt(object.target as number);
  } else if (hasTarget) {
    throw new Error(`target: ${name} takes no target`);
  }
  const hasColor = object.color !== undefined && object.color !== null;
  let color = 0;
  if (kind === GoalKind.COLLECT) {
    if (!hasColor) throw new Error('color: COLLECT needs a color (a letter such as "R", or 1..=16)');
    color = parseColor(object.color, colors);
  } else if (hasColor) {
    throw new Error(`color: ${name} takes no color`);
  }
  return { kind, target, color };
}

function parseColor(color: unknown, colors: number): number {
  let number = 0;
  if (isUint(color)) number = color;
  else if (typeof color === "string" && [...color].length === 1) number = COLOR_LETTERS.indexOf(color.toUpperCase()) + 1;
  if (number === 0 || number > colors) {
    const shown = typeof color === "string" ? JSON.stringify(color) : String(color);
    throw new Error(`color: must be one of the level's colours ${COLOR_LETTERS.slice(0, colors)} (or 1..=${colors}), got ${shown}`);
  }
  return number;
}

/** A character as Rust's `{:?}` writes it (`'Z'`), so messages read as the CLI's. */
function charDebug(ch: string): string {
  return `'${ch === "'" || ch === "\\" ? `\\${ch}` : ch}'`;
}

/** What a cell holds, as far as telling a layout from a start board goes. */
type Slot = "fixed" | "empty" | "piece";

interface Cell {
  slot: Slot;
  color: number;
  hole: boolean;
  kind: number;
  blocker: number;
  lock: boolean;
  jelly: number;
  exit: boolean;
}

/** The cells of one row of the notation (src/cli/level_file.rs `tokenize_row`). */
function tokenizeRow(row: string, r: number): Cell[] {
  const cells: Cell[] = [];
  const chars = [...row];
  let i = 0;
  while (i < chars.length) {
    const ch = chars[i++];
    const at = `row ${r}, col ${cells.length}`;
    const cell: Cell = { slot: "piece", color: 0, hole: false, kind: KIND.normal, blocker: 0, lock: false, jelly: 0, exit: false };
    if (ch === "#") Object.assign(cell, { slot: "fixed", hole: true });
    else if (ch === "@") Object.assign(cell, { slot: "fixed", kind: KIND.ingredient });
    else if (ch === "." || ch === "0") cell.slot = "empty";
    else if (ch === "*") cell.kind = KIND.bomb;
    else if (ch === "X" || ch === "x") {
      const d = chars[i];
      if (d === undefined || d < "1" || d > "5") throw new Error(`${at}: a blocker is X1 to X5 (its hit points), got X${d ?? ""}`);
      i++;
      Object.assign(cell, { slot: "fixed", blocker: Number(d) });
    } else if ((ch >= "1" && ch <= "9") || COLOR_LETTERS.includes(ch.toUpperCase())) {
      cell.color = ch >= "1" && ch <= "9" ? Number(ch) : COLOR_LETTERS.indexOf(ch.toUpperCase()) + 1;
      const mark = chars[i];
      if (mark === "-" || mark === "|" || mark === "+") {
        cell.kind = { "-": KIND.stripedH, "|": KIND.stripedV, "+": KIND.wrapped }[mark];
        i++;
      }
    } else {
      throw new Error(
        `${at}: unknown character ${charDebug(ch)} (cells: '#' hole, '.' slot, '*' colour bomb, ` +
          `'@' ingredient, X1..X5 blocker, a colour letter of ${COLOR_LETTERS} optionally followed by ` +
          `'-', '|' or '+'; then '~' lock, ' or " jelly, '_' exit)`,
      );
    }
    if (chars[i] === "~") {
      cell.lock = true;
      i++;
    }
    if (chars[i] === "'" || chars[i] === '"') {
      cell.jelly = chars[i] === "'" ? 1 : 2;
      i++;
    }
    if (chars[i] === "_") {
      cell.exit = true;
      i++;
    }
    const next = chars[i];
    if (next !== undefined && "~'\"_-|+".includes(next)) {
      throw new Error(
        `${at}: mark ${charDebug(next)} out of place (after a cell: a special mark '-', '|' or '+' ` +
          `on a colour, then '~', then ' or ", then '_', each at most once)`,
      );
    }
    cells.push(cell);
  }
  return cells;
}

/** The board of a level file and whether it is a layout (src/cli/level_file.rs `parse_rows`). */
function parseRows(rows: string[]): { board: LevelBoard; layout: boolean } {
  if (rows.length === 0) throw new Error("needs at least one row");
  const grid: Cell[][] = [];
  rows.forEach((row, r) => {
    const cells = tokenizeRow(row, r);
    if (grid.length > 0 && cells.length !== grid[0].length) {
      throw new Error(`row ${r} has ${cells.length} cells, row 0 has ${grid[0].length}`);
    }
    grid.push(cells);
  });
  const width = grid[0].length;
  const height = grid.length;
  if (width < 1 || width > 64 || height > 64) throw new Error(`a board is 1..=64 by 1..=64 cells, got ${width}x${height}`);
  const all = grid.flat();
  const layout = !all.some((cell) => cell.slot === "piece");
  if (!layout) {
    const index = all.findIndex((cell) => cell.slot === "empty");
    if (index >= 0) {
      throw new Error(
        `row ${Math.floor(index / width)}, col ${index % width}: empty ('.') on a start board; a start board has a ` +
          "piece on every slot, a layout (every game's start generated on it) has '.' on every slot",
      );
    }
  }
  // The board's own rules that the engine's parser checks (level_layers.rs), named by cell.
  all.forEach((cell, index) => {
    const at = `row ${Math.floor(index / width)}, col ${index % width}`;
    if (cell.hole && (cell.lock || cell.jelly > 0 || cell.exit)) throw new Error(`${at}: no layer may stand on a hole`);
    if (cell.lock && (cell.blocker > 0 || cell.kind === KIND.bomb || cell.kind === KIND.ingredient)) {
      throw new Error(`${at}: a lock needs a coloured tile (not a blocker, a colour bomb or an ingredient)`);
    }
  });
  const layers = all.some((c) => c.blocker > 0 || c.lock || c.jelly > 0 || c.exit || c.kind === KIND.ingredient);
  const anyExit = all.some((c) => c.exit);
  const board: LevelBoard = {
    width,
    height,
    // A layout's cells are all 0; a start board's are its colours (0 for bombs, holes, ...).
    cells: all.map((c) => (layout ? 0 : c.color)),
    holes: all.map((c) => c.hole),
    kinds: all.map((c) => c.kind),
    jelly: [],
    blockers: [],
    locks: [],
    exits: [],
  };
  if (layers || layout) {
    board.jelly = all.map((c) => c.jelly);
    if (layers) {
      board.blockers = all.map((c) => c.blocker);
      board.locks = all.map((c) => c.lock);
      board.exits = anyExit ? all.map((c) => c.exit) : defaultExits(board);
    }
  }
  if (!layers && !board.holes.some((h) => h) && !board.kinds.some((k) => k !== KIND.normal)) {
    // No hole, special or level layer: sent without holes and kinds, as the CLI sends it.
    board.holes = [];
    board.kinds = [];
  }
  return { board, layout };
}

/** In each column with a non-hole cell, its lowest one. */
function defaultExits(board: LevelBoard): boolean[] {
  const exits = new Array<boolean>(board.width * board.height).fill(false);
  for (let col = 0; col < board.width; col++) {
    for (let row = board.height - 1; row >= 0; row--) {
      if (!board.holes[row * board.width + col]) {
        exits[row * board.width + col] = true;
        break;
      }
    }
  }
  return exits;
}
