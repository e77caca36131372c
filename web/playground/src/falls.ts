// Where the pieces of a cascade step come from, for the animation: kept apart from main.ts
// (no DOM) so the tests can check it against the server's steps.

import type { CascadeStep } from "./gen/matchgrid/v1/swap_pb.js";

/** A cell's key in the maps below: `row,col`. */
export const key = (row: number, col: number) => `${row},${col}`;

/**
 * Where each piece after a step's gravity started, keyed by where it ended. On level boards
 * a piece may move in several settling rounds (straight falls, then one diagonal slide past a
 * fixed cell, then again): falls come in time order, a round's straight falls by source
 * row-major (moving at once) and then its slide, so a fall out of a cell that an earlier
 * round filled continues that piece's path. On plain boards there is one round.
 */
export function fallOrigins(step: CascadeStep, width: number): Map<string, [number, number]> {
  const settled = new Map<string, [number, number]>();
  let round = new Map<string, [number, number]>();
  let previous = -1;
  const endRound = () => {
    for (const [k, v] of round) settled.set(k, v);
    round = new Map();
    previous = -1;
  };
  for (const fall of step.falls) {
    if (!fall.from || !fall.to) continue;
    const index = fall.from.row * width + fall.from.col;
    if (index <= previous) endRound(); // sources go back: a new pass (after ingredients left)
    const source = key(fall.from.row, fall.from.col);
    // A slide comes after its round's straight falls: the piece may have just fallen there.
    const slide = fall.from.col !== fall.to.col;
    const origin = (slide ? round.get(source) : undefined) ?? settled.get(source) ?? [fall.from.row, fall.from.col];
    if (slide) round.delete(source);
    settled.delete(source);
    round.set(key(fall.to.row, fall.to.col), origin);
    previous = index;
    if (slide) endRound(); // a slide ends its round
  }
  endRound();
  return settled;
}

