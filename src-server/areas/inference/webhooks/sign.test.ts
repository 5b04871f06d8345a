import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { signatureHeaders } from './sign.js';

// The Standard Webhooks specification's own example (its reference libraries test it).
const SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
const MSG_ID = 'msg_p5jXN8AQM9LWM0D4loKWxJek';
const BODY = '{"test": 2432232314}';

describe('webhook signatures', () => {
  it("signs the specification's example exactly", () => {
    expect(signatureHeaders(SECRET, MSG_ID, BODY, 1614265330_999)).toEqual({
      'webhook-id': MSG_ID,
      'webhook-timestamp': '1614265330',
      'webhook-signature': 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=',
    });
  });

  it('is what a receiver verifies, and a changed body or another secret is not', () => {
    const h = signatureHeaders(SECRET, MSG_ID, BODY);
    expect(new Webhook(SECRET).verify(BODY, h)).toEqual({ test: 2432232314 });
    expect(() => new Webhook(SECRET).verify(BODY.replace('2', '3'), h)).toThrow(/signature/i);
    expect(() => new Webhook(`whsec_${Buffer.alloc(32, 1).toString('base64')}`).verify(BODY, h)).toThrow(/signature/i);
  });

  it('refuses to sign with an empty key', () => {
    expect(() => signatureHeaders('whsec_', MSG_ID, BODY)).toThrow(/empty/);
  });
});
