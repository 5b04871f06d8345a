import type { Migration } from './migration.js';
import { m001 } from './001-core.js';
import { m002 } from './002-boxes.js';
import { m004 } from './004-cron.js';
import { m003 } from './003-inference.js';
import { m005 } from './005-network.js';
import { m007 } from './007-usage.js';
import { m011 } from './011-inference-boxes.js';
import { m013 } from './013-egress-tls.js';
import { m021 } from './021-box-start.js';
import { m113 } from './113-egress-ca-retired.js';
import { m129 } from './129-egress-reason.js';
import { m140 } from './140-inbox.js';
import { m141 } from './141-inbox-owner.js';
import { m150 } from './150-service-settings.js';
import { m270 } from './270-e2b.js';
import { m272 } from './272-e2b-features.js';
import { m276 } from './276-e2b-rest.js';
import { m277 } from './277-e2b-template-tags.js';
import { m278 } from './278-e2b-public-traffic.js';
import { m381 } from './381-egress-injected.js';
import { m382 } from './382-box-on-checkpoint.js';
import { m383 } from './383-e2b-mask-host.js';

/**
 * Numbered migrations, applied in order and locked by hash once applied.
 * Numbers are reserved per area so parallel work does not collide:
 * 001 core, 002 boxes runtime, 003 inference, 004 cron, 005 networking (egress ports, egress log, custom domains), 007 usage/metrics, 011 inference in boxes, 013 egress TLS, 021 box starts (templates), 113 egress CA rotation, 129 egress log reasons, 140 webhook inbox (141 its owners), 150 service settings, 270 E2B sandboxes (272 their network, memory and resume options; 276 E2B secrets, volumes and template builds; 277 their tags; 278 whether their getHost addresses are public), 381 egress log: injected headers and https upgrades, 382 the checkpoint a box stands on, 383 E2B's maskRequestHost.
 */
export const MIGRATIONS: Migration[] = [
  m001,
  m002,
  m003,
  m004,
  m005,
  m007,
  m011,
  m013,
  m021,
  m113,
  m129,
  m140,
  m141,
  m150,
  m270,
  m272,
  m276,
  m277,
  m278,
  m381,
  m382,
  m383,
];
