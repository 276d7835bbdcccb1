/* The page's calls to its server (bot/web/miniapp/api.py). Each carries the initData Telegram
 * signed for the page in its Authorization header, which the server checks before it reads
 * the body; each answer is the game as committed. A refusal is an ApiError whose
 * `reason` says what the page can do about it, so no caller reads a message's words. */

// A call with no answer by then is taken as lost, as a dropped connection is.
const TIMEOUT_MS = 10_000;

/* Why a call failed: "throttled" (send again after `retryAfter` seconds; `budget` says which
 * ran out, "hints" or "taps", for the page to say which), "offline" (no answer: the network,
 * a timeout or a server that is down; the same call may be sent again), "expired" (the
 * initData proves nothing any more: only reopening the page helps), or "failed" (the server
 * refused the call itself). */
export class ApiError extends Error {
  constructor(reason, message, retryAfter = 0, budget = null) {
    super(message);
    this.name = "ApiError";
    this.reason = reason;
    this.retryAfter = retryAfter;
    this.budget = budget;
  }
}

/* The one place a request is built: where it goes and what proves who sends it. */
function request(initData, name, body) {
  return new Request(`api/${name}`, {
    method: "POST",
    headers: { "Content-Type": "application/json", Authorization: `tma ${initData}` },
    body: JSON.stringify({ ...body }),
    signal: AbortSignal.timeout(TIMEOUT_MS),
  });
}

export async function call(initData, name, body) {
  let response;
  try {
    response = await fetch(request(initData, name, body));
  } catch (error) {
    throw new ApiError("offline", error.message);
  }
  if (response.status === 429) {
    const seconds = Number(response.headers.get("Retry-After")) || 1;
    const refusal = await response.json().catch(() => ({}));
    const budget = refusal.error === "too_many_hints" ? "hints" : "taps";
    throw new ApiError("throttled", "throttled", seconds, budget);
  }
  if (response.status === 401) throw new ApiError("expired", "expired");
  if (response.status >= 500) throw new ApiError("offline", `status ${response.status}`);
  if (!response.ok) throw new ApiError("failed", `status ${response.status}`);
  try {
    return await response.json();
  } catch (error) {
    throw new ApiError("offline", error.message);
  }
}
