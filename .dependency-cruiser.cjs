// Layer boundaries and import cycles; the reasons are in docs/architecture.md ("Guardrails").
// The layers are folders of src-server/: kernel/ < platform/ < identity/ < areas/<area>/ <
// the composition roots (src-server/*.ts). Each rule below names one folder and what it may
// import; there is no list of which folders are layers besides the folders themselves.
/** Tests and test helpers may reach anywhere (their own rules are below). */
const NOT_TESTS = '[.]test[.]ts$|/test-support/';

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
      name: 'clients-see-only-packages',
      severity: 'error',
      comment:
        'The renderer and the CLI reach the service only through packages: the contract (@box/contract, a workspace package) and the entry points the root package.json names in "imports" (#image-builder: `box image` builds images on this machine, spec item 6; #mcp-stdio: `box mcp` serves the MCP tools over stdio). Never a path into src-server/ or packages/ (tests and src-cli/test-support/ may use test-support).',
      from: { path: '^src-(renderer|cli)/', pathNot: '[.]test[.]ts$|^src-cli/test-support/' },
      to: { path: '^(src-server|packages)/', dependencyTypesNot: ['aliased-workspace', 'aliased-tsconfig-paths', 'aliased-subpath-import'] },
    },
    {
      name: 'only-box-image-loads-the-image-builder',
      severity: 'error',
      comment: 'The CLI loads #image-builder (the local image builder) from `box image` only.',
      from: { path: '^src-(renderer|cli)/', pathNot: '[.]test[.]ts$|^src-cli/test-support/|^src-cli/commands/image(-user)?[.]ts$' },
      to: { path: '^src-server/areas/images/' },
    },
    {
      name: 'only-box-mcp-loads-the-mcp-server',
      severity: 'error',
      comment: 'The CLI loads #mcp-stdio (the MCP tools) from `box mcp` only.',
      from: { path: '^src-(renderer|cli)/', pathNot: '[.]test[.]ts$|^src-cli/test-support/|^src-cli/commands/mcp[.]ts$' },
      to: { path: '^src-server/areas/mcp/' },
    },
    {
      name: 'mcp-tools-see-only-the-contract',
      severity: 'error',
      comment:
        'The MCP tools (src-server/areas/mcp/, but its module.ts, routes, HTTP service and test support) run in the CLI too (`box mcp`): they reach the service only through the HTTP API (mcp/ports.ts), so they import nothing of it but the contract.',
      from: {
        path: '^src-server/areas/mcp/',
        pathNot: '[.]test[.]ts$|^src-server/areas/mcp/test-support/|^src-server/areas/mcp/(module|mcp-routes|http-service)[.]ts$',
      },
      to: { path: '^(src-|packages/)', pathNot: '^src-server/areas/mcp/|^packages/contract/' },
    },
    {
      name: 'contract-is-a-leaf',
      severity: 'error',
      comment: 'The contract package is shared with the renderer and the CLI: it imports only libraries and itself.',
      from: { path: '^packages/contract/' },
      to: { path: '^(src-|packages/)', pathNot: '^packages/contract/' },
    },
    {
      name: 'server-does-not-import-clients',
      severity: 'error',
      comment: 'The service never depends on the desktop shell, the renderer or the CLI (its tests may drive the CLI against a real service).',
      from: { path: '^src-server/', pathNot: '[.]test[.]ts$' },
      to: { path: '^src-(main|renderer|cli)/' },
    },
    {
      name: 'kernel-is-the-bottom',
      severity: 'error',
      comment: 'src-server/kernel/ (domain errors, principal, logger, service log, disk space, small helpers) imports only itself and the contract.',
      from: { path: '^src-server/kernel/', pathNot: NOT_TESTS },
      to: { path: '^src-server/', pathNot: '^src-server/kernel/' },
    },
    {
      name: 'platform-stands-on-the-kernel',
      severity: 'error',
      comment:
        'src-server/platform/ (the database, the HTTP pipeline, serving, the guest protocol, settings, the context every area is built from) imports only the kernel and itself.',
      from: { path: '^src-server/platform/', pathNot: NOT_TESTS },
      to: { path: '^src-server/', pathNot: '^src-server/(kernel|platform)/' },
    },
    {
      name: 'identity-stands-on-the-platform',
      severity: 'error',
      comment: 'src-server/identity/ (organizations, keys, apps, invites, sign-in, audit) imports the kernel, the platform and itself: no area.',
      from: { path: '^src-server/identity/', pathNot: NOT_TESTS },
      to: { path: '^src-server/', pathNot: '^src-server/(kernel|platform|identity)/' },
    },
    {
      name: 'areas-meet-through-their-faces',
      severity: 'error',
      comment:
        "An area (src-server/areas/<a>/) imports the kernel, the platform, its own files, and of identity and the other areas only their faces: module.ts (what wiring and the other areas' modules and routes build on) and ports.ts (types and narrow ports), so each shows one public face (issue 23).",
      from: { path: '^src-server/areas/([^/]+)/', pathNot: NOT_TESTS },
      to: {
        path: '^src-server/',
        pathNot: '^src-server/(kernel|platform)/|^src-server/areas/$1/|^src-server/(identity|areas/[^/]+)/(module|ports)[.]ts$',
      },
    },
    {
      name: 'wiring-meets-faces',
      severity: 'error',
      comment:
        'The composition roots (src-server/*.ts) build identity and the areas from their faces (module.ts, ports.ts), never from their internal files. Except headless.ts, which Node runs before tsx is registered: it imports the one small file it needs (areas/runtime/qemu/vm-priority.ts) directly, not the runtime.',
      from: { path: '^src-server/[^/]+[.]ts$', pathNot: '[.]test[.]ts$|^src-server/headless[.]ts$' },
      to: { path: '^src-server/(identity|areas/[^/]+)/', pathNot: '^src-server/(identity|areas/[^/]+)/(module|ports)[.]ts$' },
    },
    {
      name: 'routes-do-not-reach-the-runtime',
      severity: 'error',
      comment: 'Route handlers go through their area service; only the runtime port (areas/boxes/runtime-port.ts) and services touch areas/runtime/.',
      from: { path: '-routes\\.ts$|/routes\\.ts$|/routes/' },
      to: { path: '^src-server/areas/runtime/' },
    },
    {
      name: 'routes-do-not-import-repositories',
      severity: 'error',
      comment:
        'Route handlers go through their area service, never a repository module: not even its type, so a repository cannot be handed to a routes function either. Every area, identity included; no exemptions (eslint adds: no `.repo`, `.repos` or `.db` in a route file).',
      from: { path: '-routes\\.ts$|/routes\\.ts$|/routes/' },
      to: { path: '-repo\\.ts$' },
    },
    {
      name: 'domain-does-not-import-http',
      severity: 'error',
      comment:
        'Services, repositories and runtime adapters throw domain errors (kernel/domain-errors.ts) and know nothing of HTTP; the HTTP layer (platform/http/, route files, module.ts wiring, the composition roots) maps them to statuses.',
      from: {
        path: '^src-server/',
        pathNot:
          '^src-server/(platform/http|test-support)/|-routes\\.ts$|/routes\\.ts$|/routes/|/module\\.ts$|^src-server/[^/]+[.]ts$|^src-server/platform/area[.]ts$|[.]test[.]ts$',
      },
      to: { path: '^src-server/platform/http/' },
    },
    {
      name: 'test-helpers-stay-in-tests',
      severity: 'error',
      comment:
        'Test helpers live in a test-support/ folder of their area (src-server/test-support/ for the whole service, src-cli/test-support/) and only tests, other test helpers, e2e and bench import them; production code never does.',
      from: { path: '^(src-|packages/)', pathNot: '[.]test[.]ts$|/test-support/' },
      to: { path: '/test-support/' },
    },
    {
      name: 'test-helpers-are-in-test-support',
      severity: 'error',
      comment: 'One convention for test helpers: a test-support/ folder, not test-*.ts or *.test-support.ts beside production code.',
      from: { path: '^(src-|packages/).*(/test-[^/]+|[.]test-support)[.]tsx?$', pathNot: '/test-support/' },
      to: { path: '.' },
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
