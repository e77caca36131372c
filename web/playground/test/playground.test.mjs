// The playground in a real browser (headless Chromium driven by puppeteer-core) against the
// real server: load the page, generate a seeded board, play a valid swap (and a collapse tap),
// and check that the drawn board is the one the API gives for the same request, asked here
// independently over gRPC-Web.
//
// Environment:
//   MATCHGRID_BIN   the matchgrid binary (required; .ci/playground-check builds it)
//   CHROMIUM        the browser (default /usr/bin/chromium, Debian's chromium package)
//   SCREENSHOT      where to save a screenshot after the swap (optional)
//   PAGE_FROM_DISK  when 1, the page (index.html) and dist/playground.js are served to the
//                   browser from this folder instead of the binary's embedded copies (to test
//                   a new bundle with an older binary; gRPC-Web still goes to the server)
//
// Run: npm test (from web/playground, after npm ci).

import { execFile, spawn } from "node:child_process";
import { once } from "node:events";
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { createInterface } from "node:readline";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

import { createClient } from "@connectrpc/connect";
import { createGrpcWebTransport } from "@connectrpc/connect-web";
import puppeteer from "puppeteer-core";
import { build } from "esbuild";

import { CollapsePuzzle, ScoringRule, SolveStop } from "../src/gen/matchgrid/v1/collapse_pb.js";
import { RefillMode, SwapPuzzle } from "../src/gen/matchgrid/v1/swap_pb.js";
import { LevelPolicy, LevelStatus } from "../src/gen/matchgrid/v1/level_pb.js";

const BIN = process.env.MATCHGRID_BIN;
const CHROMIUM = process.env.CHROMIUM ?? "/usr/bin/chromium";
const LETTERS = "RGBYPOCWKMADEFHI";
const STEP_MS = 30_000;

/** The text form of an API board. */
function text(board) {
  const rows = [];
  for (let r = 0; r < board.height; r++) {
    const row = [...board.cells.slice(r * board.width, (r + 1) * board.width)];
    rows.push(row.map((v) => (v === 0 ? "." : LETTERS[v - 1])).join(""));
  }
  return rows.join("/");
}

/** The level text form of a wire board (`#` hole, `*` bomb, `R-` / `R|` / `R+` specials). */
function levelText(board) {
  const suffix = { 2: "-", 3: "|", 4: "+" };
  const rows = [];
  for (let r = 0; r < board.height; r++) {
    let row = "";
    for (let c = 0; c < board.width; c++) {
      const i = r * board.width + c;
      const kind = Number(board.kinds[i] ?? 0);
      if (board.holes[i]) row += "#";
      else if (kind === 5) row += "*";
      else row += (board.cells[i] === 0 ? "." : LETTERS[board.cells[i] - 1]) + (suffix[kind] ?? "");
    }
    rows.push(row);
  }
  return rows.join("/");
}

/** A wire level board from its text form. */
function levelBoard(textForm) {
  const kindOf = { "-": 2, "|": 3, "+": 4 };
  const cells = [];
  const holes = [];
  const kinds = [];
  const rows = textForm.split("/");
  let width = 0;
  for (const row of rows) {
    const chars = [...row];
    let count = 0;
    for (let i = 0; i < chars.length; i++) {
      const ch = chars[i];
      let [cell, hole, kind] = [0, false, 0];
      if (ch === "#") hole = true;
      else if (ch === "*") kind = 5;
      else if (ch !== ".") cell = LETTERS.indexOf(ch) + 1;
      if (cell > 0 && kindOf[chars[i + 1]]) {
        kind = kindOf[chars[i + 1]];
        i++;
      }
      cells.push(cell);
      holes.push(hole);
      kinds.push(kind);
      count++;
    }
    width = count;
  }
  return { width, height: rows.length, cells, holes, kinds };
}

let server;
let origin;
let browser;
let page;
let swapApi;
let collapseApi;

/** Starts `matchgrid serve` on free loopback ports; resolves with its origin. */
async function startServer() {
  assert.ok(BIN, "set MATCHGRID_BIN to the matchgrid binary");
  server = spawn(BIN, ["serve", "--listen", "127.0.0.1:0", "--metrics-listen", "127.0.0.1:0"], {
    stdio: ["ignore", "ignore", "pipe"],
  });
  const lines = createInterface({ input: server.stderr });
  const seen = [];
  const timer = setTimeout(() => server.kill("SIGKILL"), STEP_MS);
  for await (const line of lines) {
    seen.push(line);
    const listen = /matchgrid serving.*listen=(\S+)/.exec(line);
    if (listen) {
      clearTimeout(timer);
      lines.on("line", () => {}); // keep draining the log
      return `http://${listen[1]}`;
    }
  }
  throw new Error(`the server did not start:\n${seen.join("\n")}`);
}

/** The board the page has drawn, read from its cells' data attributes. */
async function drawnBoard() {
  return page.$eval("#board", (board) => {
    const width = Number(board.dataset.width);
    const height = Number(board.dataset.height);
    const cells = [];
    for (let r = 0; r < height; r++) {
      for (let c = 0; c < width; c++) {
        cells.push(Number(document.getElementById(`cell-${r}-${c}`).dataset.color));
      }
    }
    return { width, height, cells, text: board.dataset.board };
  });
}

/** Waits until the page has no call or animation running. */
async function idle() {
  await page.waitForFunction(() => document.getElementById("board").dataset.busy === "false", {
    timeout: STEP_MS,
  });
}

async function setInput(selector, value) {
  await page.$eval(selector, (el, v) => {
    el.value = v;
  }, String(value));
}

async function clickCell(row, col) {
  await page.click(`#cell-${row}-${col}`);
}

before(async () => {
  origin = await startServer();
  const transport = createGrpcWebTransport({ baseUrl: origin });
  swapApi = createClient(SwapPuzzle, transport);
  collapseApi = createClient(CollapsePuzzle, transport);
  browser = await puppeteer.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"],
  });
  page = await browser.newPage();
  await page.setViewport({ width: 1200, height: 760 });
  page.on("pageerror", (error) => console.error("page error:", error));
  if (process.env.PAGE_FROM_DISK === "1") {
    const here = new URL("..", import.meta.url);
    const files = {
      "/": ["index.html", "text/html; charset=utf-8"],
      "/playground.js": ["dist/playground.js", "text/javascript; charset=utf-8"],
    };
    await page.setRequestInterception(true);
    page.on("request", (request) => {
      const url = new URL(request.url());
      const file = url.origin === origin ? files[url.pathname] : undefined;
      if (!file) return void request.continue();
      request.respond({ status: 200, contentType: file[1], body: readFileSync(new URL(file[0], here)) });
    });
  }
  await page.goto(`${origin}/`, { waitUntil: "load" });
  await page.waitForSelector("#cell-0-0", { timeout: STEP_MS });
  await idle();
});

after(async () => {
  await browser?.close();
  if (server && server.exitCode === null) {
    server.kill("SIGTERM");
    await once(server, "exit");
  }
});

test("a seeded swap board, a valid swap, and the drawn board is ResolveCascade's final board", async () => {
  const params = { width: 8, height: 8, colors: 5, seed: 42 };
  await page.select("#family", "swap");
  await idle();
  await setInput("#width", params.width);
  await setInput("#height", params.height);
  await setInput("#colors", params.colors);
  await setInput("#seed", params.seed);
  await page.select("#speed", "fast");
  await page.click("#generate");
  await idle();

  const generated = await swapApi.generateBoard({
    width: params.width,
    height: params.height,
    colors: params.colors,
    seed: BigInt(params.seed),
    minMoves: 1,
  });
  const start = await drawnBoard();
  assert.equal(start.text, text(generated.board), "the page draws GenerateBoard's board");
  assert.equal(text(start), start.text, "cells and data-board agree");

  const dead = await swapApi.checkDeadState({ board: generated.board });
  assert.ok(dead.validSwaps.length > 0);
  const listed = await page.$$eval("#moves li", (items) => items.length);
  assert.equal(listed, dead.validSwaps.length, "every valid swap is listed");

  // Record the score each time it changes, with the step being animated then.
  await page.$eval("#score", (score) => {
    window.scoreTrail = [];
    window.scoreObserver?.disconnect(); // one recorder at a time (the page lives across tests)
    window.scoreObserver = new MutationObserver(() => {
      window.scoreTrail.push([document.getElementById("board").dataset.step ?? "", score.textContent]);
    });
    window.scoreObserver.observe(score, { childList: true, characterData: true, subtree: true });
  });
  const infoWidth = await page.$eval("#info", (el) => el.getBoundingClientRect().width);
  const { a, b } = dead.validSwaps[0];
  await clickCell(a.row, a.col);
  await clickCell(b.row, b.col);
  await idle();

  const cascadeSeed = Number(await page.$eval("#cascade-seed", (el) => el.value));
  const resolved = await swapApi.resolveCascade({
    board: generated.board,
    swap: { a, b },
    colors: params.colors,
    seed: BigInt(cascadeSeed),
    refill: RefillMode.RANDOM,
  });
  const drawn = await drawnBoard();
  assert.equal(drawn.text, text(resolved.board), "the drawn board is the cascade's final board");
  assert.equal(text(drawn), text(resolved.board));
  const steps = await page.$$eval("#log li", (items) => items.map((li) => li.textContent));
  assert.ok(
    steps.filter((s) => /^step \d+:/.test(s)).length === resolved.steps.length,
    `one log line per step: ${steps.join(" | ")}`,
  );
  assert.equal(
    await page.$eval("#score", (el) => el.textContent),
    String(resolved.totalScore),
    "the score is the cascade's total",
  );
  // The right panel keeps its width as the log grows; the board fills the middle column.
  assert.equal(await page.$eval("#info", (el) => el.getBoundingClientRect().width), infoWidth);
  assert.equal(infoWidth, 360, "the right panel is 360 px wide");
  const fill = await page.$eval("#board", (board) => {
    const panel = board.closest(".panel").getBoundingClientRect();
    const box = board.getBoundingClientRect();
    return Math.max(box.width / (panel.width - 24), box.height / (window.innerHeight - panel.top - 40));
  });
  assert.ok(fill > 0.85, `the board fills its column (${fill.toFixed(2)})`);
  // The score counts up step by step during the cascade, not only at the end.
  const trail = await page.evaluate(() => window.scoreTrail);
  let sum = 0n;
  const expected = resolved.steps.map((step) => {
    sum += step.score;
    return [String(step.index), String(sum)];
  });
  assert.ok(resolved.steps.length >= 1);
  assert.deepEqual(trail[0], ["1", String(resolved.steps[0].score)], "after step 1: its score");
  assert.deepEqual(trail, expected, "the score after each step is the running total");
  if (process.env.SCREENSHOT) {
    await page.screenshot({ path: process.env.SCREENSHOT });
  }
});

test("a level board: a striped + striped combination around a hole draws ResolveCascade's final board", async () => {
  await page.select("#family", "swap");
  await idle();
  await page.select("#speed", "fast");
  const start = "RG#YB/YBRGY/GR-G|BR/BYBRG/RGYBY";
  await setInput("#board-text", start);
  await page.click("#load");
  await idle();
  const loaded = await drawnBoard();
  assert.equal(loaded.text, start, "the page draws the pasted level board");
  assert.deepEqual(
    [await page.$eval("#width", (el) => el.value), await page.$eval("#height", (el) => el.value)],
    ["5", "5"],
    "width and height follow the pasted board",
  );
  assert.deepEqual(
    await page.$$eval("#log li", (items) => items.map((li) => li.textContent)),
    ["loaded: 5x5 board"],
    "the previous board's steps are gone",
  );
  assert.equal(
    await page.$eval("#cell-0-2", (el) => el.dataset.hole),
    "true",
    "the hole is drawn as a hole",
  );
  assert.equal(await page.$eval("#cell-2-1", (el) => el.dataset.kind), "2", "R- is STRIPED_H");
  assert.match(
    await page.$eval("#cell-0-2", (el) => getComputedStyle(el).backgroundImage),
    /repeating-linear-gradient/,
    "a hole is drawn hatched (an empty cell is a dashed outline)",
  );
  assert.equal(
    await page.$eval("#cell-2-1 .glyph", (el) => el.textContent),
    "R-",
    "a striped piece's text sits on its own badge, not on the stripes",
  );
  // Record the cells drawn as fired or blasted during the animation.
  await page.$eval("#board", (board) => {
    window.effects = { fired: new Set(), blast: new Set() };
    new MutationObserver((records) => {
      for (const r of records) {
        for (const cls of ["fired", "blast"]) {
          if (r.target.classList?.contains(cls)) window.effects[cls].add(r.target.id);
        }
      }
    }).observe(board, { attributes: true, attributeFilter: ["class"], subtree: true });
  });
  await clickCell(2, 1);
  await clickCell(2, 2);
  await idle();
  const cascadeSeed = Number(await page.$eval("#cascade-seed", (el) => el.value));
  const colors = Number(await page.$eval("#colors", (el) => el.value));
  const resolved = await swapApi.resolveCascade({
    board: levelBoard(start),
    swap: { a: { row: 2, col: 1 }, b: { row: 2, col: 2 } },
    colors,
    seed: BigInt(cascadeSeed),
    refill: RefillMode.RANDOM,
  });
  assert.equal(resolved.steps[0].effectCleared.length, 8, "row 2 and column 2, the hole excluded");
  const effects = await page.evaluate(() => ({
    fired: [...window.effects.fired].sort(),
    blast: [...window.effects.blast].sort(),
  }));
  const ids = (cells) => cells.map((p) => `cell-${p.row}-${p.col}`).sort();
  assert.deepEqual(effects.blast, ids(resolved.steps[0].effectCleared), "the combination's area is animated");
  const lines = await page.$$eval("#log li", (items) => items.map((li) => li.textContent));
  assert.ok(lines.includes("swap (2,1) <-> (2,2): striped + striped"), `the combination is named: ${lines.join(" | ")}`);
  const step1 = lines.find((line) => line.startsWith("step 1:"));
  const fired = resolved.steps[0].fired.map((f) => {
    const piece = f.kind === 5 ? "*" : LETTERS[f.color - 1] + ({ 2: "-", 3: "|", 4: "+" }[f.kind] ?? "");
    return `${piece} at (${f.position.row},${f.position.col})`;
  });
  // The two swapped stripes are consumed, not fired; specials in the area would fire.
  if (fired.length > 0) assert.ok(step1.includes(`fired ${fired.join(" ")}`), `step 1 names the fired specials: ${step1}`);
  else assert.doesNotMatch(step1, /fired/);
  assert.ok(step1.startsWith("step 1: 0 groups, 8 cleared by effects, "), step1);
  assert.ok(step1.includes(`, +${resolved.steps[0].score}`), step1);
  for (const line of lines) assert.doesNotMatch(line, / ,|\(s\)/, `no stray space or (s): ${line}`);
  const drawn = await drawnBoard();
  assert.equal(drawn.text, levelText(resolved.board), "the drawn board is the cascade's final board");
});

test("a collapse tap draws Tap's board", async () => {
  await page.select("#family", "collapse");
  await idle();
  await page.select("#scoring", "samegame");
  await idle();
  await setInput("#width", 6);
  await setInput("#height", 5);
  await setInput("#colors", 3);
  await setInput("#seed", 3);
  await page.click("#generate");
  await idle();
  const generated = await collapseApi.generateBoard({
    width: 6,
    height: 5,
    colors: 3,
    seed: 3n,
    minGroup: 2,
  });
  assert.equal((await drawnBoard()).text, text(generated.board));
  const groups = await collapseApi.checkDeadState({
    board: generated.board,
    scoring: ScoringRule.SAMEGAME,
    minGroup: 2,
  });
  const at = groups.groups[0].representative;
  await clickCell(at.row, at.col);
  await idle();
  const tapped = await collapseApi.tap({
    board: generated.board,
    position: at,
    scoring: ScoringRule.SAMEGAME,
    minGroup: 2,
  });
  assert.equal((await drawnBoard()).text, text(tapped.board));
  assert.equal(await page.$eval("#move-count", (el) => el.textContent), "1");
  assert.equal(await page.$eval("#score", (el) => el.textContent), String(tapped.totalScore));
  assert.equal(await page.$eval("#hint", (el) => el.offsetParent), null, "no Hint button in the collapse family");
  await page.click("#undo");
  await idle();
  assert.equal((await drawnBoard()).text, text(generated.board), "undo brings the tapped group back");
  assert.equal(await page.$eval("#move-count", (el) => el.textContent), "0");
  assert.equal(await page.$eval("#score", (el) => el.textContent), "0");
});

/** Tiles the page draws on the board (cells that are not empty). */
async function drawnTiles() {
  return page.$$eval("#board .cell", (cells) => cells.filter((el) => el.dataset.color !== "0").length);
}

test("clearable: the page asks for a clearable board and its clearing line, replayed through Tap, empties the board", async () => {
  await page.select("#family", "collapse");
  await idle();
  await page.select("#speed", "fast");
  await page.select("#scoring", "popstar");
  await idle();
  const params = { width: 8, height: 8, colors: 5, seed: 11 };
  await setInput("#width", params.width);
  await setInput("#height", params.height);
  await setInput("#colors", params.colors);
  await setInput("#seed", params.seed);
  await setInput("#min-group", 2);
  await setInput("#par-nodes", 0);
  assert.equal(await page.$eval("#clearable", (el) => el.checked), false, "clearable is off by default");
  assert.equal(await page.$eval("#lines", (el) => el.hidden), true, "no lines without clearable or par nodes");
  await page.click("#clearable"); // the switch regenerates the board
  await idle();
  const request = { ...params, seed: BigInt(params.seed), minGroup: 2, clearable: true };
  const generated = await collapseApi.generateBoard(request);
  const line = generated.clearingLine;
  assert.ok(line.length > 0, "GenerateBoard with clearable sends a clearing line");
  assert.equal((await drawnBoard()).text, text(generated.board), "the page draws the clearable board");
  assert.equal(await page.$eval("#clear-text", (el) => el.dataset.taps), String(line.length));
  assert.match(await page.$eval("#clear-text", (el) => el.textContent), new RegExp(`clears in ${line.length} taps`));
  assert.equal(await page.$eval("#par-info", (el) => el.hidden), true, "no par without par nodes");

  // A tap first: the replay starts again from the generated board.
  const first = (await collapseApi.checkDeadState({ board: generated.board, minGroup: 2 })).groups.at(-1).representative;
  await clickCell(first.row, first.col);
  await idle();
  assert.equal(await page.$eval("#move-count", (el) => el.textContent), "1");

  await page.click("#replay-clear");
  await idle();
  const replayed = await collapseApi.replayGame({
    start: { case: "generate", value: request },
    taps: line,
    scoring: ScoringRule.POPSTAR,
    minGroup: 2,
  });
  assert.equal(replayed.rejected, undefined);
  assert.equal(replayed.tilesLeft, 0, "ReplayGame of the clearing line empties the board");
  const drawn = await drawnBoard();
  assert.ok(drawn.cells.every((v) => v === 0), `no tile left on the drawn board: ${drawn.text}`);
  assert.equal(await drawnTiles(), 0, "no tile drawn");
  assert.equal(drawn.text, text(replayed.board));
  const status = await page.$eval("#replay-status", (el) => ({ ...el.dataset, text: el.textContent }));
  assert.equal(status.line, "clear");
  assert.equal(status.done, "true");
  assert.equal(status.tilesLeft, "0");
  assert.equal(status.text, `cleared in ${line.length} taps: no tiles left`);
  assert.match(await page.$eval("#dead", (el) => el.textContent), /^game over: 0 tiles left/);
  assert.equal(await page.$eval("#move-count", (el) => el.textContent), String(line.length), "one move per tap");
  assert.equal(await page.$eval("#score", (el) => el.textContent), String(replayed.totalScore), "ReplayGame's total");
});

test("par nodes: the page shows GenerateBoard's par, and show par line plays it to the par score", async () => {
  await page.select("#family", "collapse");
  await idle();
  await page.select("#speed", "fast");
  await page.select("#scoring", "popstar");
  await idle();
  const params = { width: 8, height: 8, colors: 4, seed: 5 };
  await setInput("#width", params.width);
  await setInput("#height", params.height);
  await setInput("#colors", params.colors);
  await setInput("#seed", params.seed);
  await setInput("#min-group", 2);
  if (await page.$eval("#clearable", (el) => el.checked)) {
    await page.click("#clearable");
    await idle();
  }
  await setInput("#par-nodes", 20000);
  await page.click("#generate");
  await idle();
  const request = { ...params, seed: BigInt(params.seed), minGroup: 2, parNodes: 20000n, parScoring: ScoringRule.POPSTAR };
  const generated = await collapseApi.generateBoard(request);
  assert.equal(generated.parStop, SolveStop.NODE_BUDGET, "the par search spent its budget");
  assert.ok(generated.parLine.length > 0 && generated.parScore > 0n);
  assert.equal((await drawnBoard()).text, text(generated.board), "the par fields leave the board as it is");
  assert.equal(await page.$eval("#clear-info", (el) => el.hidden), true, "no clearing line without clearable");
  const par = await page.$eval("#par-text", (el) => ({ ...el.dataset, text: el.textContent }));
  assert.equal(par.parScore, String(generated.parScore));
  assert.equal(par.parStop, "NODE_BUDGET");
  assert.equal(par.text, `par ${generated.parScore} (best known)`);

  // Under another rule the par line is still played under the par's (PopStar).
  await page.select("#scoring", "clickomania");
  await idle();
  await page.$eval("#score", (score) => {
    window.scoreTrail = [];
    window.scoreObserver?.disconnect();
    // Every value set, also two in one task (the last tap's score, then its end bonus).
    window.scoreObserver = new MutationObserver((records) => {
      for (const r of records) for (const node of r.addedNodes) window.scoreTrail.push(node.textContent);
    });
    window.scoreObserver.observe(score, { childList: true, characterData: true, subtree: true });
  });
  await page.click("#show-par");
  await idle();
  await page.evaluate(() => window.scoreObserver.disconnect());
  assert.equal(await page.$eval("#scoring", (el) => el.value), "popstar", "the par line plays under the par's rule");
  const replayed = await collapseApi.replayGame({
    start: { case: "generate", value: request },
    taps: generated.parLine,
    scoring: ScoringRule.POPSTAR,
    minGroup: 2,
  });
  assert.equal(replayed.rejected, undefined);
  assert.equal(replayed.totalScore, generated.parScore, "ReplayGame of the par line totals the par");
  const score = await page.$eval("#score", (el) => el.textContent);
  assert.equal(score, String(generated.parScore), "the shown score ends at the par score");
  assert.equal((await drawnBoard()).text, text(replayed.board), "the drawn board is ReplayGame's final board");
  assert.equal(await page.$eval("#move-count", (el) => el.textContent), String(generated.parLine.length));
  // The score counted up tap by tap, not set at the end.
  const trail = await page.evaluate(() => window.scoreTrail);
  let sum = 0n;
  const expected = ["0"];
  for (const move of replayed.moves) expected.push(String((sum += move.moveScore)));
  if (replayed.endBonus !== 0n) expected.push(String(sum + BigInt(replayed.endBonus)));
  assert.deepEqual(trail.filter((v, i) => i === 0 || v !== trail[i - 1]), expected, "the score after each tap");
  const status = await page.$eval("#replay-status", (el) => ({ ...el.dataset, text: el.textContent }));
  assert.equal(status.line, "par");
  assert.equal(status.done, "true");
  assert.equal(status.score, String(generated.parScore));
  assert.equal(status.text, `par line played: ${generated.parLine.length} taps, score ${score} = par ${generated.parScore}`);
  assert.equal(await page.$eval("#dead", (el) => el.dataset.dead), "true", "the par line ends the game");
  await setInput("#par-nodes", 0);
});

test("an unstable pasted board: a readable message and Settle, which draws ResolveCascade's board without a swap", async () => {
  await page.select("#family", "swap");
  await idle();
  await page.select("#speed", "fast");
  const start = "RRRG/GBGB/BGBG/GBGB";
  await setInput("#board-text", start);
  await page.click("#load");
  await idle();
  const state = await page.$eval("#state", (el) => el.textContent);
  assert.match(state, /^Not stable \(3 tiles already in runs of 3 or more\)/, state);
  assert.doesNotMatch(state, /FailedPrecondition/);
  assert.equal(await page.$eval("#message", (el) => el.textContent), "", "no raw error either");
  await page.click("#settle");
  await idle();
  const colors = Number(await page.$eval("#colors", (el) => el.value));
  const cascadeSeed = Number(await page.$eval("#cascade-seed", (el) => el.value));
  const resolved = await swapApi.resolveCascade({
    board: levelBoard(start),
    colors,
    seed: BigInt(cascadeSeed),
    refill: RefillMode.RANDOM,
    autoShuffle: true,
  });
  assert.ok(resolved.steps.length >= 1 && resolved.stable);
  assert.equal((await drawnBoard()).text, text(resolved.board), "the settled board is ResolveCascade's");
  assert.equal(await page.$eval("#score", (el) => el.textContent), String(resolved.totalScore));
  assert.equal(await page.$("#settle"), null, "a stable board offers no Settle");
});

test("hint marks Hint's top swap; playing it counts a move; undo restores board, score and count", async () => {
  await page.select("#family", "swap");
  await idle();
  await page.select("#speed", "fast");
  await setInput("#width", 7);
  await setInput("#height", 7);
  await setInput("#colors", 5);
  await setInput("#seed", 11);
  await page.click("#generate");
  await idle();
  const generated = await swapApi.generateBoard({ width: 7, height: 7, colors: 5, seed: 11n, minMoves: 1 });
  assert.equal(await page.$eval("#move-count", (el) => el.textContent), "0");
  assert.equal(await page.$eval("#undo", (el) => el.disabled), true, "nothing to undo yet");

  await page.click("#hint");
  await idle();
  const top = (await swapApi.hint({ board: generated.board, topN: 1 })).hints[0];
  const { a, b } = top.swap;
  const hinted = await page.$$eval(".cell.hinted", (cells) => cells.map((el) => el.id).sort());
  assert.deepEqual(hinted, [`cell-${a.row}-${a.col}`, `cell-${b.row}-${b.col}`].sort(), "Hint's top swap is marked");
  const message = await page.$eval("#message", (el) => el.textContent);
  assert.ok(message.startsWith(`hint: swap (${a.row},${a.col}) <-> (${b.row},${b.col})`), message);
  assert.ok(message.includes(`+${top.score} certain`), message);

  await clickCell(a.row, a.col);
  await clickCell(b.row, b.col);
  await idle();
  assert.equal(await page.$eval("#move-count", (el) => el.textContent), "1", "one move played");
  const cascadeSeed = Number(await page.$eval("#cascade-seed", (el) => el.value));
  const played = await swapApi.resolveCascade({
    board: generated.board,
    swap: { a, b },
    colors: 5,
    seed: BigInt(cascadeSeed),
    refill: RefillMode.RANDOM,
    autoShuffle: true,
  });
  assert.equal(await page.$eval("#score", (el) => el.textContent), String(played.totalScore));
  assert.ok(played.totalScore >= top.score, "at least the hint's certain score");
  assert.equal((await drawnBoard()).text, text(played.board));
  assert.notEqual((await drawnBoard()).text, text(generated.board));

  await page.click("#undo");
  await idle();
  assert.equal((await drawnBoard()).text, text(generated.board), "undo draws the board before the move");
  assert.equal(await page.$eval("#score", (el) => el.textContent), "0");
  assert.equal(await page.$eval("#move-count", (el) => el.textContent), "0");
  assert.equal(await page.$eval("#undo", (el) => el.disabled), true);
  const listed = await page.$$eval("#moves li", (items) => items.length);
  assert.equal(listed, (await swapApi.checkDeadState({ board: generated.board })).validSwaps.length);
});

test("a colour bomb in a striped + striped area fires: the log names it and it is drawn firing", async () => {
  await page.select("#family", "swap");
  await idle();
  await page.select("#speed", "fast");
  const start = "RG#YBGR/YBRGYBG/GR-G|BRYG/BYBRGYB/RGYB+GRB/GB*YRBY/YRGBYGB";
  await setInput("#board-text", start);
  await page.click("#load");
  await idle();
  assert.equal((await drawnBoard()).text, start);
  await page.$eval("#board", (board) => {
    window.firedCells = new Set();
    new MutationObserver((records) => {
      for (const r of records) if (r.target.classList?.contains("fired")) window.firedCells.add(r.target.id);
    }).observe(board, { attributes: true, attributeFilter: ["class"], subtree: true });
  });
  await page.$eval("#score", (score) => {
    window.scoreTrail = [];
    window.scoreObserver?.disconnect(); // one recorder at a time (the page lives across tests)
    window.scoreObserver = new MutationObserver(() => {
      window.scoreTrail.push([document.getElementById("board").dataset.step ?? "", score.textContent]);
    });
    window.scoreObserver.observe(score, { childList: true, characterData: true, subtree: true });
  });
  await clickCell(2, 1);
  await clickCell(2, 2);
  await idle();
  const colors = Number(await page.$eval("#colors", (el) => el.value));
  const cascadeSeed = Number(await page.$eval("#cascade-seed", (el) => el.value));
  const resolved = await swapApi.resolveCascade({
    board: levelBoard(start),
    swap: { a: { row: 2, col: 1 }, b: { row: 2, col: 2 } },
    colors,
    seed: BigInt(cascadeSeed),
    refill: RefillMode.RANDOM,
    autoShuffle: true,
  });
  // A cascade of several steps: the score is each step's running total as it is animated.
  assert.ok(resolved.steps.length >= 2, `a multi-step cascade (${resolved.steps.length})`);
  let sum = 0n;
  const expected = resolved.steps.map((step) => [String(step.index), String((sum += step.score))]);
  const trail = await page.evaluate(() => window.scoreTrail);
  assert.deepEqual(trail[0], ["1", String(resolved.steps[0].score)], "after step 1: step 1's score only");
  assert.deepEqual(trail, expected);
  const fired = resolved.steps[0].fired;
  assert.deepEqual(
    fired.map((f) => [f.kind, f.position.row, f.position.col]),
    [[5, 5, 2]],
    "the bomb at (5,2) fires in step 1",
  );
  const lines = await page.$$eval("#log li", (items) => items.map((li) => li.textContent));
  const step1 = lines.find((line) => line.startsWith("step 1:"));
  assert.ok(step1.includes("fired * at (5,2)"), step1);
  assert.ok(step1.includes(`${resolved.steps[0].effectCleared.length} cleared by effects`), step1);
  assert.ok(await page.evaluate(() => window.firedCells.has("cell-5-2")), "the bomb is drawn firing");
  assert.equal((await drawnBoard()).text, levelText(resolved.board));
  assert.equal(await page.$eval("#score", (el) => el.textContent), String(resolved.totalScore));
});

// ---- level mode ------------------------------------------------------------------------------

const LEVELS = new URL("../../../examples/levels/", import.meta.url);
const SIMULATE_MS = 180_000;

/** A module of the page's source (src/NAME.ts), bundled for node. */
async function pageModule(name) {
  const out = await build({
    entryPoints: [fileURLToPath(new URL(`../src/${name}.ts`, import.meta.url))],
    bundle: true,
    format: "esm",
    platform: "node",
    write: false,
    logLevel: "silent",
  });
  return import(`data:text/javascript;base64,${Buffer.from(out.outputFiles[0].text).toString("base64")}`);
}

/** The page's level file reader (src/level_file.ts), to build the same wire level. */
let levelReader;
async function reader() {
  levelReader ??= await pageModule("level_file");
  return levelReader;
}

/** An example level (examples/levels/NAME.json) as the wire takes it. */
async function exampleLevel(name) {
  const file = (await reader()).parseLevel(readFileSync(new URL(`${name}.json`, LEVELS), "utf8"), name);
  return { board: file.board, colors: file.colors, moveLimit: file.moveLimit, goals: file.goals };
}

/** Each drawn cell's level data attributes, row-major. */
async function drawnLayers() {
  return page.$$eval("#board .cell", (cells) =>
    cells.map((el) => ({
      id: el.id,
      color: Number(el.dataset.color),
      jelly: Number(el.dataset.jelly ?? 0),
      blocker: Number(el.dataset.blocker ?? 0),
      lock: el.dataset.lock === "true",
      ingredient: el.dataset.ingredient === "true",
      exit: el.dataset.exit === "true",
    })),
  );
}

/** What the page should draw for a wire board, in drawnLayers' shape. */
function expectedLayers(board) {
  return board.cells.map((color, i) => ({
    id: `cell-${Math.floor(i / board.width)}-${i % board.width}`,
    color,
    jelly: board.jelly[i] ?? 0,
    blocker: board.blockers[i] ?? 0,
    lock: board.locks[i] ?? false,
    ingredient: Number(board.kinds[i]) === 6,
    exit: board.exits[i] ?? false,
  }));
}

async function chooseExample(name) {
  await page.select("#level-example", name);
  await idle();
  assert.equal(await page.$eval("#message", (el) => el.textContent), "", `${name} starts without an error`);
}

test("level mode: the examples start as StartLevel answers, their jelly, blockers, locks, ingredients and exits drawn", async () => {
  await page.select("#speed", "fast");
  await page.select("#family", "level");
  await idle();
  const seed = BigInt(await page.$eval("#level-seed", (el) => el.value));
  const seen = { jelly: 0, jelly2: 0, blocker: 0, lock: 0, ingredient: 0, exit: 0 };
  for (const name of ["jelly_rows", "ice_wall", "red_harvest", "cherry_drop", "score_rush"]) {
    await chooseExample(name);
    const level = await exampleLevel(name);
    const { state } = await swapApi.startLevel({ level, seed });
    const drawn = await drawnLayers();
    assert.deepEqual(drawn, expectedLayers(state.board), `${name}: the drawn cells are StartLevel's board`);
    for (const cell of drawn) {
      if (cell.jelly > 0) seen.jelly++;
      if (cell.jelly === 2) seen.jelly2++;
      if (cell.blocker > 0) seen.blocker++;
      if (cell.lock) seen.lock++;
      if (cell.ingredient) seen.ingredient++;
    }
    // Jelly is drawn as a square under the cell, darker for two layers; blockers show their hit
    // points; exits are drawn where ingredients are (Cherry drop).
    const under = await page.$$eval(".jelly", (els) => els.map((el) => `${el.id}:${el.className}`).sort());
    const expectedUnder = state.board.jelly
      .map((j, i) => (j > 0 ? `jelly-${Math.floor(i / state.board.width)}-${i % state.board.width}:jelly jelly-${j}` : null))
      .filter(Boolean)
      .sort();
    assert.deepEqual(under, expectedUnder, `${name}: one jelly square per jelly cell`);
    for (const cell of drawn.filter((c) => c.blocker > 0)) {
      assert.equal(await page.$eval(`#${cell.id}`, (el) => el.textContent), String(cell.blocker));
    }
    const exits = await page.$$eval(".exit", (els) => els.length);
    if (name === "cherry_drop") {
      assert.equal(exits, state.board.exits.filter(Boolean).length, "Cherry drop's exits are drawn");
      seen.exit += exits;
    }
    assert.equal(await page.$eval("#level-status", (el) => el.dataset.status), "PLAYING");
    assert.equal(await page.$eval("#level-moves-left", (el) => el.dataset.movesLeft), String(level.moveLimit));
    const goals = await page.$$eval("#level-goals li", (items) => items.map((li) => li.dataset.value));
    assert.deepEqual(goals, state.progress.map((p) => String(p.value)), `${name}: the goals' progress`);
  }
  assert.ok(seen.jelly > 0 && seen.jelly2 > 0 && seen.blocker > 0 && seen.lock > 0 && seen.ingredient > 0 && seen.exit > 0, JSON.stringify(seen));
});

test("level mode: a move is PlayMove's: moves left go down, the goal's progress, score and board follow, hits flash", async () => {
  await page.select("#speed", "fast");
  await page.select("#family", "level");
  await idle();
  await chooseExample("jelly_rows");
  const seed = BigInt(await page.$eval("#level-seed", (el) => el.value));
  const level = await exampleLevel("jelly_rows");
  const { state } = await swapApi.startLevel({ level, seed });
  // A valid swap whose move clears some jelly (move 0 is played with the level seed).
  const { validSwaps } = await swapApi.checkDeadState({ board: state.board });
  let chosen;
  for (const swap of validSwaps) {
    const played = await swapApi.playMove({ level, state, swap, seed });
    if (played.state.progress[0].value < state.progress[0].value) {
      chosen = { swap, played };
      break;
    }
  }
  assert.ok(chosen, "some valid swap clears jelly");
  const before = await page.$eval("#level-goals li", (li) => li.textContent);
  assert.equal(before, `CLEAR_JELLY: ${state.progress[0].value} jelly layers left`);
  await page.$eval("#board", (board) => {
    window.hitCells = new Set();
    window.hitObserver?.disconnect();
    window.hitObserver = new MutationObserver((records) => {
      for (const r of records) if (r.target.classList?.contains("hit") && r.target.classList.contains("cell")) window.hitCells.add(r.target.id);
    });
    window.hitObserver.observe(board, { attributes: true, attributeFilter: ["class"], subtree: true });
  });
  const { a, b } = chosen.swap;
  await clickCell(a.row, a.col);
  await clickCell(b.row, b.col);
  await idle();
  assert.equal(await page.$eval("#message", (el) => el.textContent), "");
  const after = chosen.played.state;
  assert.equal(await page.$eval("#level-moves-left", (el) => el.dataset.movesLeft), String(level.moveLimit - 1));
  assert.equal(after.movesLeft, level.moveLimit - 1);
  const goal = await page.$eval("#level-goals li", (li) => ({ text: li.textContent, value: li.dataset.value }));
  assert.equal(goal.value, String(after.progress[0].value), "the goal's progress is PlayMove's");
  assert.equal(goal.text, `CLEAR_JELLY: ${after.progress[0].value} jelly layers left`);
  assert.notEqual(goal.text, before, "the progress text changed");
  assert.equal(await page.$eval("#level-score", (el) => el.textContent), String(after.score));
  assert.equal(await page.$eval("#score", (el) => el.textContent), String(after.score));
  assert.equal(await page.$eval("#level-status", (el) => el.dataset.status), LevelStatus[after.status]);
  assert.deepEqual(await drawnLayers(), expectedLayers(after.board), "the drawn board is PlayMove's state board");
  const hits = new Set(chosen.played.steps.flatMap((step) => step.hits.map((h) => `cell-${h.position.row}-${h.position.col}`)));
  assert.ok(hits.size > 0, "the move hit jelly");
  assert.deepEqual([...(await page.evaluate(() => [...window.hitCells]))].sort(), [...hits].sort(), "every hit cell flashed");
  const lines = await page.$$eval("#log li", (items) => items.map((li) => li.textContent));
  assert.ok(lines.includes(`move 1: swap (${a.row},${a.col}) <-> (${b.row},${b.col})`), lines.join(" | "));
  assert.ok(lines.some((line) => /^step 1: .*\d+ hits?,/.test(line)), lines.join(" | "));

  // A second move plays on from the state the first answered (seed: level seed + 1).
  const next = (await swapApi.checkDeadState({ board: after.board })).validSwaps[0];
  await clickCell(next.a.row, next.a.col);
  await clickCell(next.b.row, next.b.col);
  await idle();
  const second = await swapApi.playMove({ level, state: after, swap: next, seed: seed + 1n });
  assert.equal(await page.$eval("#level-moves-left", (el) => el.dataset.movesLeft), String(level.moveLimit - 2));
  assert.deepEqual(await drawnLayers(), expectedLayers(second.state.board));
  // Undo goes back to the first move's state: board, moves left, goals and score.
  await page.click("#undo");
  await idle();
  assert.deepEqual(await drawnLayers(), expectedLayers(after.board), "undo draws the state before the move");
  assert.equal(await page.$eval("#level-moves-left", (el) => el.dataset.movesLeft), String(level.moveLimit - 1));
  assert.equal(await page.$eval("#level-goals li", (li) => li.dataset.value), String(after.progress[0].value));
  assert.equal(await page.$eval("#level-score", (el) => el.textContent), String(after.score));
  assert.equal(await page.$eval("#score", (el) => el.textContent), String(after.score));
  // Hint works on level boards too (the top swap by certain score).
  await page.click("#hint");
  await idle();
  assert.match(await page.$eval("#message", (el) => el.textContent), /^hint: swap \(\d+,\d+\) <-> \(\d+,\d+\)/);
  // A swap touching a blocker is refused with its verdict (Ice wall's row 5 is all blockers).
  await chooseExample("ice_wall");
  await clickCell(5, 0);
  await clickCell(4, 0);
  await idle();
  assert.equal(await page.$eval("#message", (el) => el.textContent), "swap refused: BLOCKED");
  assert.equal(await page.$eval("#level-moves-left", (el) => el.dataset.movesLeft), "10", "a refused swap costs no move");
  if (process.env.LEVEL_SCREENSHOT) await page.screenshot({ path: process.env.LEVEL_SCREENSHOT });
});

test("level mode: Simulate shows the pass rate of 200 greedy games with its 95% interval and attempts per success", async () => {
  await page.select("#family", "level");
  await idle();
  await chooseExample("red_harvest");
  const seed = BigInt(await page.$eval("#level-seed", (el) => el.value));
  await page.click("#level-simulate");
  await page.waitForFunction(() => document.getElementById("board").dataset.busy === "false", { timeout: SIMULATE_MS });
  assert.equal(await page.$eval("#message", (el) => el.textContent), "");
  const shown = await page.$eval("#pass-rate", (el) => ({ text: el.textContent, ...el.dataset }));
  assert.match(shown.text, /^pass rate \d+\.\d% \(95% interval \d+\.\d% to \d+\.\d%\), (\d+\.\d\d attempts per success|no game won)$/, shown.text);
  const { level: sim } = await swapApi.simulate({
    level: await exampleLevel("red_harvest"),
    games: 200,
    seed,
    levelPolicy: LevelPolicy.GREEDY,
  });
  assert.equal(sim.games, 200);
  assert.equal(Number(shown.passRate), sim.passRate, "Simulate's pass rate");
  assert.equal(Number(shown.low), sim.passRateLow);
  assert.equal(Number(shown.high), sim.passRateHigh);
  assert.ok(sim.passRateLow <= sim.passRate && sim.passRate <= sim.passRateHigh);
  const pct = (x) => `${(x * 100).toFixed(1)}%`;
  assert.ok(shown.text.includes(`${pct(sim.passRate)} (95% interval ${pct(sim.passRateLow)} to ${pct(sim.passRateHigh)})`), shown.text);
  if (sim.wins > 0) assert.ok(shown.text.endsWith(`${sim.attemptsPerSuccess.toFixed(2)} attempts per success`), shown.text);
});

test("level mode: a pasted bad level shows a clear error naming the field, row and column", async () => {
  await page.select("#family", "level");
  await idle();
  const paste = async (level) => {
    await setInput("#level-text", JSON.stringify(level));
    await page.click("#level-start");
    await idle();
    return page.$eval("#message", (el) => el.textContent);
  };
  const goals = [{ kind: "SCORE", target: 100 }];
  let message = await paste({ colors: 5, move_limit: 10, board: ["...", "..Z"], goals });
  assert.ok(message.startsWith("level: board: row 1, col 2: unknown character 'Z'"), message);
  assert.equal(await page.$$eval("#board .cell", (cells) => cells.length), 0, "no board is left drawn");
  assert.equal(await page.$eval("#level-status", (el) => el.textContent), "-");
  message = await paste({ colours: 5, move_limit: 10, board: ["..."], goals });
  assert.ok(message.startsWith("level: unknown field `colours`"), message);
  message = await paste({ colors: 5, move_limit: 10, board: ["..."], goals: [{ kind: "COLLECT", color: "I", target: 3 }] });
  assert.ok(message.startsWith("level: goals[0]: color: must be one of the level's colours RGBYP"), message);
  message = await paste({ colors: 5, move_limit: 10, board: ["RG.", "GBR", "BRG"], goals });
  assert.ok(message.startsWith("level: board: row 0, col 2: empty ('.') on a start board"), message);
  // What only the server knows: a start board that is not stable.
  message = await paste({ colors: 5, move_limit: 10, board: ["RRR", "GBR", "BRG"], goals });
  assert.match(message, /^FailedPrecondition: /, message);
  // A good pasted level (a start board with a lock and jelly) plays.
  message = await paste({ name: "tiny", colors: 4, move_limit: 3, board: ["RGBY", "GBY~R'", "RGBY", "GBYR"], goals });
  assert.equal(message, "");
  assert.equal(await page.$eval("#level-name", (el) => el.textContent), "tiny");
  assert.equal(await page.$eval("#cell-1-2", (el) => el.dataset.lock), "true");
  assert.equal(await page.$eval("#cell-1-3", (el) => el.dataset.jelly), "1");
});

/** Runs the CLI; resolves with its exit code, stdout and stderr. */
function cli(args) {
  return new Promise((resolve) => {
    execFile(BIN, args, { timeout: STEP_MS }, (error, stdout, stderr) => {
      resolve({ code: error ? (error.code ?? 1) : 0, stdout, stderr });
    });
  });
}

test("the page's level reader reads level files as the CLI does (same start boards, same messages)", async () => {
  const { parseLevel } = await reader();
  const dir = mkdtempSync(join(tmpdir(), "levels-"));
  const goals = [{ kind: "SCORE", target: 100 }];
  const good = {
    ...Object.fromEntries(
      ["cherry_drop", "ice_wall", "jelly_rows", "red_harvest", "score_rush"].map((name) => [
        name,
        JSON.parse(readFileSync(new URL(`${name}.json`, LEVELS), "utf8")),
      ]),
    ),
    start_with_layers: { colors: 4, move_limit: 3, board: ["RGBY", "G@Y~R'", "RGX2Y", "GBYR_"], goals },
    plain_start: { colors: 4, move_limit: 3, board: ["rgby", "gbyr", "1234"], goals },
    specials_start: { colors: 4, move_limit: 3, board: ["R-GB#", "G*BY", "BYR+G"], goals },
    plain_layout: { colors: 4, move_limit: 3, board: ["...", "0.."], goals },
    layout_exits: { colors: 4, move_limit: 3, board: ["x3....\"", ".~...._", ".....", "#@..._"], goals: [{ kind: "bring_down", target: 1 }] },
  };
  try {
    for (const [name, level] of Object.entries(good)) {
      const path = join(dir, `${name}.json`);
      writeFileSync(path, JSON.stringify(level));
      const run = await cli(["level", "--json", "generate", "--server", origin, "--seed", "3", path]);
      assert.equal(run.code, 0, `${name}: ${run.stderr}`);
      const expected = JSON.parse(run.stdout).state.board;
      const file = parseLevel(JSON.stringify(level), name);
      const wire = { board: file.board, colors: file.colors, moveLimit: file.moveLimit, goals: file.goals };
      const { state } = await swapApi.startLevel({ level: wire, seed: 3n });
      const b = state.board;
      assert.deepEqual(
        { width: b.width, height: b.height, cells: b.cells, holes: b.holes, kinds: b.kinds.map(Number), jelly: b.jelly, blockers: b.blockers, locks: b.locks, exits: b.exits },
        { ...expected, holes: expected.holes ?? [], kinds: expected.kinds ?? [], jelly: expected.jelly ?? [], blockers: expected.blockers ?? [], locks: expected.locks ?? [], exits: expected.exits ?? [] },
        `${name}: the same start as \`matchgrid level generate\``,
      );
    }
    const bad = {
      unknown_cell: { colors: 5, move_limit: 10, board: ["...", "..Z"], goals },
      ragged: { colors: 5, move_limit: 10, board: ["...", "...."], goals },
      blocker_hp: { colors: 5, move_limit: 10, board: ["...", "X9.."], goals },
      mark_twice: { colors: 5, move_limit: 10, board: ["R~~GB"], goals },
      empty_on_start: { colors: 5, move_limit: 10, board: ["RG.", "GBR", "BRG"], goals },
      colors: { colors: 17, move_limit: 10, board: ["..."], goals },
      move_limit: { colors: 5, move_limit: 0, board: ["..."], goals },
      no_goals: { colors: 5, move_limit: 10, board: ["..."], goals: [] },
      goal_kind: { colors: 5, move_limit: 10, board: ["..."], goals: [{ kind: "WIN" }] },
      goal_target: { colors: 5, move_limit: 10, board: ["..."], goals: [{ kind: "SCORE" }] },
      goal_zero: { colors: 5, move_limit: 10, board: ["..."], goals: [{ kind: "SCORE", target: 0 }] },
      goal_extra_target: { colors: 5, move_limit: 10, board: ["..."], goals: [{ kind: "CLEAR_JELLY", target: 3 }] },
      goal_color: { colors: 5, move_limit: 10, board: ["..."], goals: [{ kind: "COLLECT", color: "I", target: 3 }] },
      goal_no_color: { colors: 5, move_limit: 10, board: ["..."], goals: [{ kind: "COLLECT", target: 3 }] },
      goal_extra_color: { colors: 5, move_limit: 10, board: ["..."], goals: [{ kind: "SCORE", target: 3, color: 1 }] },
      // serde's messages end with where in the text: the page's stop before that.
      unknown_field: { colours: 5, move_limit: 10, board: ["..."], goals },
      goal_unknown_field: { colors: 17, move_limit: 10, board: ["..."], goals: [{ kind: "SCORE", target: 3, colour: 1 }] },
      missing_field: { colors: 5, board: ["..."], goals },
    };
    for (const [name, level] of Object.entries(bad)) {
      const path = join(dir, `${name}.json`);
      writeFileSync(path, JSON.stringify(level));
      const run = await cli(["level", "generate", "--server", origin, path]);
      assert.notEqual(run.code, 0, `${name}: the CLI refuses it`);
      let message = "";
      try {
        parseLevel(JSON.stringify(level), name);
      } catch (error) {
        message = error.message;
      }
      assert.ok(message !== "", `${name}: the page's reader refuses it`);
      const stderr = run.stderr.trim();
      if (/field/.test(name)) assert.ok(stderr.startsWith(`matchgrid: ${path}: ${message} at line 1 column `), `${name}: ${stderr} / ${message}`);
      else assert.equal(stderr, `matchgrid: ${path}: ${message}`, `${name}: the CLI's message`);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("the cascade animation moves each piece from where it was: falls chained across settling rounds, diagonal slides included", async () => {
  const { fallOrigins } = await pageModule("falls");
  let [checked, slides] = [0, 0];
  for (const name of ["ice_wall", "cherry_drop"]) {
    const level = await exampleLevel(name);
    for (const seed of [1n, 2n, 3n]) {
      let { state } = await swapApi.startLevel({ level, seed });
      for (let m = 0; m < 8 && state.status === LevelStatus.PLAYING; m++) {
        const { validSwaps } = await swapApi.checkDeadState({ board: state.board });
        const swap = validSwaps[(m * 7) % validSwaps.length];
        const played = await swapApi.playMove({ level, state, swap, seed: seed * 100n + BigInt(m), includeStepBoards: true });
        const w = state.board.width;
        // The board each step starts from: the swapped board, then each step's board.
        let before = { cells: [...state.board.cells], kinds: state.board.kinds.map(Number) };
        const [ia, ib] = [swap.a.row * w + swap.a.col, swap.b.row * w + swap.b.col];
        [before.cells[ia], before.cells[ib]] = [before.cells[ib], before.cells[ia]];
        [before.kinds[ia], before.kinds[ib]] = [before.kinds[ib], before.kinds[ia]];
        for (const step of played.steps) {
          slides += step.falls.filter((fall) => fall.from.col !== fall.to.col).length;
          const fresh = new Set([...step.spawns, ...step.created].map((s) => `${s.position.row},${s.position.col}`));
          for (const [to, [row, col]] of fallOrigins(step, w)) {
            if (fresh.has(`${row},${col}`)) continue; // a piece spawned or created in this step
            const [r, c] = to.split(",").map(Number);
            const [o, d] = [row * w + col, r * w + c];
            assert.deepEqual(
              [step.board.cells[d], Number(step.board.kinds[d])],
              [before.cells[o], before.kinds[o]],
              `${name} seed ${seed} move ${m} step ${step.index}: the piece at (${r},${c}) came from (${row},${col})`,
            );
            checked++;
          }
          before = { cells: [...step.board.cells], kinds: step.board.kinds.map(Number) };
        }
        state = played.state;
      }
    }
  }
  assert.ok(checked > 100 && slides > 0, `${checked} paths checked, ${slides} slides`);
});
