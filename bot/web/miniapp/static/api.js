/* The page's calls to its server (bot/web/miniapp/api.py). Each carries the initData Telegram
 * signed for the page in its Authorization header, which the server checks before it reads
 * the body; each answer is the game as committed. A refusal is an ApiError whose
 * `reason` says what the page can do about it, so no caller reads a message's words. */

/* Why a call was refused: "throttled" (send again after `retryAfter` seconds), "expired"
 * (the initData proves nothing any more: only reopening the page helps), or "failed" (any
 * other status). A call that never reached the server rejects with fetch's own TypeError. */
export class ApiError extends Error {
  constructor(reason, message, retryAfter = 0) {
    super(message);
    this.name = "ApiError";
    this.reason = reason;
    this.retryAfter = retryAfter;
  }
}

export async function call(initData, name, body) {
  const response = await fetch(`api/${name}`, {
    method: "POST",
    headers: { "Content-Type": "application/json", Authorization: `tma ${initData}` },
    body: JSON.stringify({ ...body }),
  });
  if (response.status === 429) {
    const seconds = Number(response.headers.get("Retry-After")) || 1;
    throw new ApiError("throttled", "throttled", seconds);
  }
  if (response.status === 401) throw new ApiError("expired", "expired");
  if (!response.ok) throw new ApiError("failed", `status ${response.status}`);
  return response.json();
}
