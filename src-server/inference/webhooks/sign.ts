import { createHmac } from 'node:crypto';

/**
 * Standard Webhooks headers (https://www.standardwebhooks.com): `webhook-signature` is
 * `v1,<base64 HMAC-SHA256 of "<id>.<timestamp>.<body>">` keyed with the base64 bytes
 * after `whsec_` of the organization's webhook secret. `webhook-id` is the same on
 * every retry of one message, so receivers can deduplicate.
 */
export function signatureHeaders(secret: string, msgId: string, body: string, nowMs = Date.now()): Record<string, string> {
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  const timestamp = String(Math.floor(nowMs / 1000));
  const sig = createHmac('sha256', key).update(`${msgId}.${timestamp}.${body}`).digest('base64');
  return { 'webhook-id': msgId, 'webhook-timestamp': timestamp, 'webhook-signature': `v1,${sig}` };
}

export const webhookMessageId = (responseId: string) => `whmsg_${responseId}`;
