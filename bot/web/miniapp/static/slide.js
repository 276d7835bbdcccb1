/* The slide of 2048, as the engine does it (engine/board.py), with where every tile goes.
 * No randomness: the page animates this at once and places the new tile when the server,
 * which decides it, answers. Lines are read from the edge the tiles move toward; gaps
 * close, then pairs form from that edge outward and each tile merges at most once. */

export const DIRECTIONS = ["up", "down", "left", "right"];

function lineIndices(size, direction) {
  const lines = [];
  for (let a = 0; a < size; a++) {
    const line = [];
    for (let b = 0; b < size; b++) {
      const c = direction === "right" || direction === "down" ? size - 1 - b : b;
      line.push(direction === "left" || direction === "right" ? a * size + c : c * size + a);
    }
    lines.push(line);
  }
  return lines;
}

/* board: row-major array of values (0 = empty). Returns the board after the slide, the
 * points scored, and every tile's journey {from, to, value, merged}. */
export function slide(board, size, direction) {
  if (!DIRECTIONS.includes(direction)) {
    throw new Error(`unknown direction ${direction}`);
  }
  const after = board.slice();
  const moves = [];
  let gained = 0;
  for (const line of lineIndices(size, direction)) {
    const tiles = line.filter((index) => board[index] !== 0);
    let target = 0;
    for (const index of line) after[index] = 0;
    for (let i = 0; i < tiles.length; i++) {
      const to = line[target];
      const value = board[tiles[i]];
      if (i + 1 < tiles.length && board[tiles[i + 1]] === value) {
        after[to] = value * 2;
        gained += value * 2;
        moves.push({ from: tiles[i], to, value, merged: true });
        moves.push({ from: tiles[i + 1], to, value, merged: true });
        i++;
      } else {
        after[to] = value;
        moves.push({ from: tiles[i], to, value, merged: false });
      }
      target++;
    }
  }
  const changed = after.some((value, index) => value !== board[index]);
  return { board: after, gained, moves, changed };
}
