/**
 * How long an idle keep-alive connection is kept (Node's default: 5 s). A client reuses its
 * pooled connections; one whose event loop was busy for longer than this (a script that ran
 * `box image build` synchronously for a minute) cannot have seen the server's close and sends
 * its next request on a dead socket: "other side closed" / ECONNRESET on a POST, which no
 * client retries (issue 28). Idle connections cost the service next to nothing, so they are
 * kept for 10 minutes (undici closes its own a second before the advertised timeout). The same
 * holds for a box's egress proxy: a client in a box under TCG runs its timers late.
 */
export const KEEP_ALIVE_MS = 600_000;
