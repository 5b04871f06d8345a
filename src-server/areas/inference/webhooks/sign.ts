import { Webhook } from 'standardwebhooks';

/**
 * Standard Webhooks headers (https://www.standardwebhooks.com), signed by the
 * `standardwebhooks` library: `webhook-signature` is `v1,<base64 HMAC-SHA256 of
 * "<id>.<timestamp>.<body>">` keyed with the base64 bytes after `whsec_` of the
 * organization's webhook secret (an empty key is refused). `webhook-id` is the same on
 * every retry of one message, so receivers can deduplicate.
 */
export function signatureHeaders(secret: string, msgId: string, body: string, nowMs = Date.now()): Record<string, string> {
  const at = new Date(Math.floor(nowMs / 1000) * 1000);
  const signature = new Webhook(secret).sign(msgId, at, body);
  return { 'webhook-id': msgId, 'webhook-timestamp': String(at.getTime() / 1000), 'webhook-signature': signature };
}

export const webhookMessageId = (responseId: string) => `whmsg_${responseId}`;
