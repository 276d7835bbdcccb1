/* Keys and swipes become moves: arrows and WASD, or one finger across the board. */

const KEYS = {
  ArrowUp: "up",
  ArrowDown: "down",
  ArrowLeft: "left",
  ArrowRight: "right",
  w: "up",
  s: "down",
  a: "left",
  d: "right",
  W: "up",
  S: "down",
  A: "left",
  D: "right",
};
const SWIPE_MIN = 24; // px a finger travels before it counts as a swipe

/* Calls move(direction) for every key press and swipe on `board`. */
export function listen(board, move) {
  document.addEventListener("keydown", (event) => {
    const direction = KEYS[event.key];
    if (direction && !event.ctrlKey && !event.metaKey && !event.altKey) {
      event.preventDefault();
      move(direction);
    }
  });
  /* A touch's events go to the element it started on, even once a slide or a merge has
   * taken that tile out of the page; listened to there, no swipe is lost. */
  board.addEventListener(
    "touchstart",
    (event) => {
      if (event.touches.length !== 1) return;
      const target = event.target;
      const start = [event.touches[0].clientX, event.touches[0].clientY];
      const hold = (touch) => touch.preventDefault();
      const end = (finish) => {
        target.removeEventListener("touchmove", hold);
        target.removeEventListener("touchend", end);
        target.removeEventListener("touchcancel", end);
        if (finish.type !== "touchend" || finish.changedTouches.length !== 1) return;
        const dx = finish.changedTouches[0].clientX - start[0];
        const dy = finish.changedTouches[0].clientY - start[1];
        if (Math.max(Math.abs(dx), Math.abs(dy)) < SWIPE_MIN) return;
        move(Math.abs(dx) > Math.abs(dy) ? (dx > 0 ? "right" : "left") : dy > 0 ? "down" : "up");
      };
      target.addEventListener("touchmove", hold, { passive: false });
      target.addEventListener("touchend", end);
      target.addEventListener("touchcancel", end);
    },
    { passive: true },
  );
}
