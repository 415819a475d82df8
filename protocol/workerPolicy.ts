/**
 * The Content-Security-Policy to serve the broker's worker scripts with (a worker takes its policy
 * from its own script's response, not from the page). No eval or `new Function`, scripts only from
 * the origin: even a bug that let a page hand the broker a string could not make it run code.
 * Fetches to the API are left to the page's own `connect-src`, if it sets one here too.
 */
export const WORKER_CONTENT_SECURITY_POLICY = "script-src 'self'; object-src 'none'; base-uri 'none'";
