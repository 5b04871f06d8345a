import type { BoxDomain, ListenerProtocol } from '../../contract/network.js';
import type { Db } from '../../db/connection.js';

export interface ListenerRow {
  box_id: string;
  guest_port: number;
  protocol: ListenerProtocol;
  host_port: number;
  created_at: string;
}

export type DomainRow = Omit<BoxDomain, 'public_url'> & { org_id: string };

/** Published ports (table `listeners`, migration 002) and custom domains (`box_domains`, 005). */
export class ListenersRepo {
  constructor(private db: Db) {}

  list(boxId: string): ListenerRow[] {
    return this.db.prepare('SELECT * FROM listeners WHERE box_id = ? ORDER BY created_at, guest_port').all(boxId) as ListenerRow[];
  }

  get(boxId: string, guestPort: number): ListenerRow | undefined {
    return this.db.prepare('SELECT * FROM listeners WHERE box_id = ? AND guest_port = ?').get(boxId, guestPort) as ListenerRow | undefined;
  }

  /** Host ports held by any listener (a box's port stays reserved while it sleeps). */
  hostPorts(): Set<number> {
    return new Set((this.db.prepare('SELECT host_port FROM listeners WHERE host_port IS NOT NULL').all() as { host_port: number }[]).map((r) => r.host_port));
  }

  all(): ListenerRow[] {
    return this.db.prepare('SELECT * FROM listeners').all() as ListenerRow[];
  }

  setHostPort(boxId: string, guestPort: number, hostPort: number) {
    this.db.prepare('UPDATE listeners SET host_port = ? WHERE box_id = ? AND guest_port = ?').run(hostPort, boxId, guestPort);
  }

  insert(r: ListenerRow) {
    this.db
      .prepare('INSERT INTO listeners (box_id, guest_port, protocol, host_port, created_at) VALUES (@box_id, @guest_port, @protocol, @host_port, @created_at)')
      .run(r);
  }

  delete(boxId: string, guestPort: number) {
    this.db.prepare('DELETE FROM listeners WHERE box_id = ? AND guest_port = ?').run(boxId, guestPort);
  }

  domains(boxId: string): DomainRow[] {
    return this.db
      .prepare('SELECT domain, box_id, org_id, guest_port, created_at FROM box_domains WHERE box_id = ? ORDER BY created_at, domain')
      .all(boxId) as DomainRow[];
  }

  domain(domain: string): DomainRow | undefined {
    return this.db.prepare('SELECT domain, box_id, org_id, guest_port, created_at FROM box_domains WHERE domain = ?').get(domain) as DomainRow | undefined;
  }

  insertDomain(r: DomainRow) {
    this.db
      .prepare('INSERT INTO box_domains (domain, box_id, org_id, guest_port, created_at) VALUES (@domain, @box_id, @org_id, @guest_port, @created_at)')
      .run(r);
  }

  deleteDomain(domain: string) {
    this.db.prepare('DELETE FROM box_domains WHERE domain = ?').run(domain);
  }

  deleteBox(boxId: string) {
    this.db.prepare('DELETE FROM listeners WHERE box_id = ?').run(boxId);
    this.db.prepare('DELETE FROM box_domains WHERE box_id = ?').run(boxId);
  }
}
