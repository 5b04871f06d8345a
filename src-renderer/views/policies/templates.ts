/** Starting points for a new policy document (the spec, "HTTP policy"). */
export const NEW_POLICY_DOCUMENT = {
  'api.openai.com': {
    rules: [
      {
        match: { method: ['GET', 'POST'], path: { prefix: '/v1/' } },
        request: { set: { headers: { authorization: 'Bearer ${secrets.OPENAI_API_KEY}' } } },
      },
    ],
  },
  '*.debian.org': { rules: [{ match: { method: 'GET' } }] },
  '*': { rules: [{ respond: { status: 403, body: 'blocked by policy' } }] },
};
