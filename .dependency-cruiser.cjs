// Layer boundaries and import cycles; the reasons are in docs/architecture.md ("Guardrails").
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-cycles',
      severity: 'error',
      comment:
        'Import cycles make the build order and the wiring order implicit, and a type cycle hides which layer depends on which: type-only imports count too (issue 23).',
      from: {},
      to: { circular: true },
    },
    {
      name: 'clients-see-only-the-contract',
      severity: 'error',
      comment:
        'The renderer and the CLI import nothing from the service except src-server/contract/** (tests and src-cli/test-support/cli.ts may use test-support). Two exceptions: `box image` builds and imports images on this machine (spec item 6: image building is CLI/SDK-only) through src-server/images/index.ts, loaded lazily by src-cli/commands/image*.ts only; `box mcp` serves the MCP tools over stdio through src-server/mcp/server.ts, loaded lazily by src-cli/commands/mcp.ts only.',
      from: { path: '^src-(renderer|cli)/', pathNot: '[.]test[.]ts$|^src-cli/test-support/' },
      to: { path: '^src-server/', pathNot: '^src-server/contract/|^src-server/images/index[.]ts$|^src-server/mcp/server[.]ts$' },
    },
    {
      name: 'only-box-mcp-loads-the-mcp-server',
      severity: 'error',
      comment: 'The CLI loads src-server/mcp/server.ts (the MCP tools) from `box mcp` only.',
      from: { path: '^src-(renderer|cli)/', pathNot: '[.]test[.]ts$|^src-cli/test-support/|^src-cli/commands/mcp[.]ts$' },
      to: { path: '^src-server/mcp/server[.]ts$' },
    },
    {
      name: 'mcp-tools-see-only-the-contract',
      severity: 'error',
      comment:
        'The MCP tools (src-server/mcp/, but its module.ts, routes and HTTP service) run in the CLI too (`box mcp`): they reach the service only through the HTTP API (mcp/ports.ts), so they import nothing of it but the contract.',
      from: { path: '^src-server/mcp/', pathNot: '[.]test[.]ts$|^src-server/mcp/(module|mcp-routes|http-service)[.]ts$' },
      to: { path: '^src-', pathNot: '^src-server/(contract|mcp)/' },
    },
    {
      name: 'only-box-image-loads-the-image-builder',
      severity: 'error',
      comment: 'The CLI loads src-server/images/index.ts (the local image builder) from `box image` only.',
      from: { path: '^src-(renderer|cli)/', pathNot: '[.]test[.]ts$|^src-cli/test-support/|^src-cli/commands/image(-user)?[.]ts$' },
      to: { path: '^src-server/images/index[.]ts$' },
    },
    {
      name: 'contract-is-a-leaf',
      severity: 'error',
      comment: 'The contract is shared with the renderer and the CLI: it imports only libraries and itself.',
      from: { path: '^src-server/contract/' },
      to: { path: '^src-', pathNot: '^src-server/contract/' },
    },
    {
      name: 'server-does-not-import-clients',
      severity: 'error',
      comment: 'The service never depends on the desktop shell, the renderer or the CLI (its tests may drive the CLI against a real service).',
      from: { path: '^src-server/', pathNot: '[.]test[.]ts$' },
      to: { path: '^src-(main|renderer|cli)/' },
    },
    {
      name: 'routes-do-not-reach-the-runtime',
      severity: 'error',
      comment: 'Route handlers go through their area service; only the runtime port (boxes/runtime-port.ts) and services touch runtime/.',
      from: { path: '-routes\\.ts$|/routes\\.ts$|/routes/' },
      to: { path: '^src-server/runtime/' },
    },
    {
      name: 'routes-do-not-import-repositories',
      severity: 'error',
      comment:
        'Route handlers go through their area service, never a repository module: not even its type, so a repository cannot be handed to a routes function either. Every area, core included; no exemptions (eslint adds: no `.repo`, `.repos` or `.db` in a route file).',
      from: { path: '-routes\\.ts$|/routes\\.ts$|/routes/' },
      to: { path: '-repo\\.ts$' },
    },
    {
      name: 'domain-does-not-import-http',
      severity: 'error',
      comment:
        'Services, repositories and runtime adapters throw domain errors (core/domain-errors.ts) and know nothing of HTTP; the HTTP layer (http/, route files, module.ts wiring, the composition roots) maps them to statuses.',
      from: {
        path: '^src-server/',
        pathNot:
          '^src-server/(http|test-support)/|-routes\\.ts$|/routes\\.ts$|/routes/|/module\\.ts$|^src-server/(wiring|app|app-context|area|service|headless)\\.ts$|[.]test[.]ts$',
      },
      to: { path: '^src-server/http/' },
    },
    {
      name: 'test-helpers-stay-in-tests',
      severity: 'error',
      comment:
        'Test helpers live in a test-support/ folder of their area (src-server/test-support/ for the whole service, src-cli/test-support/) and only tests, other test helpers, e2e and bench import them; production code never does.',
      from: { path: '^src-', pathNot: '[.]test[.]ts$|/test-support/' },
      to: { path: '/test-support/' },
    },
    {
      name: 'test-helpers-are-in-test-support',
      severity: 'error',
      comment: 'One convention for test helpers: a test-support/ folder, not test-*.ts or *.test-support.ts beside production code.',
      from: { path: '^src-.*(/test-[^/]+|[.]test-support)[.]tsx?$', pathNot: '/test-support/' },
      to: { path: '.' },
    },
    {
      name: 'areas-meet-through-their-faces',
      severity: 'error',
      comment:
        "An area (a folder src-server/<a>/) imports another area <b> only through <b>/module.ts (what wiring and the other areas' modules and routes build on) or <b>/ports.ts (types and narrow ports), so each area shows one public face (issue 23). Exceptions, the bottom layers every area stands on: contract/ (the wire types, a leaf), core/ (domain errors, principals, the organization's keys, apps and audit log), db/ (the database and migrations), http/ (the HTTP pipeline's helpers, used by routes and modules), guest/ (the guest agent's wire protocol and client, a library the runtime stands on), util/ (small pure helpers) and test-support/ (tests only); top-level files (app-context, logger, settings, area, wiring) are not areas. Tests may reach into any area.",
      from: { path: '^src-server/([^/]+)/', pathNot: '[.]test[.]ts$|/test-support/' },
      to: {
        path: '^src-server/[^/]+/',
        pathNot: '^src-server/$1/|^src-server/[^/]+/(module|ports)[.]ts$|^src-server/(contract|core|db|guest|http|util|test-support)/',
      },
    },
    {
      name: 'not-to-unresolvable',
      severity: 'error',
      from: {},
      to: { couldNotResolve: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '(^|/)(out|node_modules|\\.data)/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      extensions: ['.ts', '.tsx', '.js', '.mjs', '.cjs', '.json', '.d.ts'],
    },
  },
};
