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

  async list(boxId: string): Promise<ListenerRow[]> {
    return (await this.db.all('SELECT * FROM listeners WHERE box_id = ? ORDER BY created_at, guest_port', [boxId])) as ListenerRow[];
  }

  async get(boxId: string, guestPort: number): Promise<ListenerRow | undefined> {
    return (await this.db.get('SELECT * FROM listeners WHERE box_id = ? AND guest_port = ?', [boxId, guestPort])) as ListenerRow | undefined;
  }

  /** Host ports held by any listener (a box's port stays reserved while it sleeps). */
  async hostPorts(): Promise<Set<number>> {
    return new Set(((await this.db.all('SELECT host_port FROM listeners WHERE host_port IS NOT NULL')) as { host_port: number }[]).map((r) => r.host_port));
  }

  async all(): Promise<ListenerRow[]> {
    return (await this.db.all('SELECT * FROM listeners')) as ListenerRow[];
  }

  async setHostPort(boxId: string, guestPort: number, hostPort: number) {
    await this.db.run('UPDATE listeners SET host_port = ? WHERE box_id = ? AND guest_port = ?', [hostPort, boxId, guestPort]);
  }

  async insert(r: ListenerRow) {
    await this.db.run(
      'INSERT INTO listeners (box_id, guest_port, protocol, host_port, created_at) VALUES (@box_id, @guest_port, @protocol, @host_port, @created_at)',
      r,
    );
  }

  async delete(boxId: string, guestPort: number) {
    await this.db.run('DELETE FROM listeners WHERE box_id = ? AND guest_port = ?', [boxId, guestPort]);
  }

  async domains(boxId: string): Promise<DomainRow[]> {
    return (await this.db.all('SELECT domain, box_id, org_id, guest_port, created_at FROM box_domains WHERE box_id = ? ORDER BY created_at, domain', [
      boxId,
    ])) as DomainRow[];
  }

  async domain(domain: string): Promise<DomainRow | undefined> {
    return (await this.db.get('SELECT domain, box_id, org_id, guest_port, created_at FROM box_domains WHERE domain = ?', [domain])) as DomainRow | undefined;
  }

  async insertDomain(r: DomainRow) {
    await this.db.run(
      'INSERT INTO box_domains (domain, box_id, org_id, guest_port, created_at) VALUES (@domain, @box_id, @org_id, @guest_port, @created_at)',
      r,
    );
  }

  async deleteDomain(domain: string) {
    await this.db.run('DELETE FROM box_domains WHERE domain = ?', [domain]);
  }

  async deleteBox(boxId: string) {
    await this.db.run('DELETE FROM listeners WHERE box_id = ?', [boxId]);
    await this.db.run('DELETE FROM box_domains WHERE box_id = ?', [boxId]);
  }
}
