import type { BoxRecord } from '../../boxes/ports.js';
import { MAX_DOMAINS_PER_BOX, type BoxDomain, type CreateDomainBody } from '../../contract/network.js';
import { invalid, conflict, notFound } from '../../core/domain-errors.js';
import type { DomainRow, ListenersRepo } from './listeners-repo.js';

/**
 * Custom domains: extra host names the ingress routes to a box's http listener (a given
 * guest port, or the box's first http listener). A name belongs to one box at a time.
 */
export class DomainService {
  constructor(
    private repo: ListenersRepo,
    private ingressPort: () => number,
  ) {}

  view(d: DomainRow): BoxDomain {
    return { domain: d.domain, box_id: d.box_id, guest_port: d.guest_port, public_url: `http://${d.domain}:${this.ingressPort()}/`, created_at: d.created_at };
  }

  async list(box: BoxRecord): Promise<BoxDomain[]> {
    return (await this.repo.domains(box.box_id)).map((d) => this.view(d));
  }

  async add(box: BoxRecord, body: CreateDomainBody): Promise<BoxDomain> {
    const taken = await this.repo.domain(body.domain);
    if (taken)
      throw conflict(
        taken.box_id === box.box_id ? `${body.domain} already routes to this box.` : `${body.domain} already routes to another box.`,
        'already_exists',
        'domain',
      );
    if ((await this.repo.domains(box.box_id)).length >= MAX_DOMAINS_PER_BOX)
      throw invalid(`A box has at most ${MAX_DOMAINS_PER_BOX} custom domains.`, 'domain');
    if (body.guest_port !== undefined && (await this.repo.get(box.box_id, body.guest_port))?.protocol !== 'http') {
      throw invalid(
        `Box ${box.box_id} has no http listener on guest port ${body.guest_port}; publish it first (POST /v1/boxes/${box.box_id}/listeners).`,
        'guest_port',
      );
    }
    const row: DomainRow = {
      domain: body.domain,
      box_id: box.box_id,
      org_id: box.org_id,
      guest_port: body.guest_port ?? null,
      created_at: new Date().toISOString(),
    };
    await this.repo.insertDomain(row);
    return this.view(row);
  }

  async remove(box: BoxRecord, domain: string): Promise<BoxDomain> {
    const row = await this.repo.domain(domain);
    if (!row || row.box_id !== box.box_id) throw notFound(`${domain} is not a domain of box ${box.box_id}.`, null, 'domain');
    await this.repo.deleteDomain(domain);
    return this.view(row);
  }
}
