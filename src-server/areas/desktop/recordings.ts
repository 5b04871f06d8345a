/**
 * Recordings of a desktop box's screen (issue 37: "a recording of the session that can be
 * played back"): a screenshot every `interval_ms` at `scale`, stored only when the screen
 * changed (a hash of the PNG), with every tick's time, so the Screen tab plays the session
 * back with its timing. On disk, per recording, under `<data dir>/desktop-recordings/<box>/<id>/`:
 * `recording.json` (the record, rewritten as frames come) and `<n>.png` (the images).
 * One recording at a time per box; it stops when asked, after `max_seconds`, or when the box
 * goes. Recordings outlive the box (until deleted), like checkpoints' files do not.
 */
import { createHash, randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { BoxRecord } from '../boxes/ports.js';
import type { DesktopRecording, StartRecordingBody } from '@box/contract/desktop';
import { conflict, notFound } from '../../kernel/domain-errors.js';

interface Active {
  rec: DesktopRecording;
  timer: NodeJS.Timeout | null;
  stopped: boolean;
  lastHash: string;
  running: Promise<void>;
}

type Shoot = (box: BoxRecord, scale: number) => Promise<Buffer>;

export class DesktopRecordings {
  private active = new Map<string, Active>();

  constructor(
    private root: string,
    private shoot: Shoot,
  ) {}

  private dir(boxId: string, id?: string) {
    return id ? path.join(this.root, boxId, id) : path.join(this.root, boxId);
  }

  private save(rec: DesktopRecording) {
    const file = path.join(this.dir(rec.box_id, rec.recording_id), 'recording.json');
    fs.writeFileSync(`${file}.tmp`, JSON.stringify(rec));
    fs.renameSync(`${file}.tmp`, file);
  }

  start(box: BoxRecord, body: StartRecordingBody): DesktopRecording {
    const cur = [...this.active.values()].find((a) => a.rec.box_id === box.box_id && !a.stopped);
    if (cur) throw conflict(`Box ${box.name} is being recorded already (${cur.rec.recording_id}).`, 'already_recording', 'box_id');
    const rec: DesktopRecording = {
      recording_id: `rec_${randomUUID().replaceAll('-', '')}`,
      box_id: box.box_id,
      status: 'recording',
      started_at: new Date().toISOString(),
      ended_at: null,
      interval_ms: body.interval_ms ?? 1000,
      scale: body.scale ?? 0.5,
      frames: [],
      images: 0,
      bytes: 0,
      stop_reason: null,
    };
    fs.mkdirSync(this.dir(box.box_id, rec.recording_id), { recursive: true });
    this.save(rec);
    const a: Active = { rec, timer: null, stopped: false, lastHash: '', running: Promise.resolve() };
    this.active.set(rec.recording_id, a);
    const t0 = Date.now();
    const until = t0 + (body.max_seconds ?? 3600) * 1000;
    // One frame at a time: the next tick is scheduled when this one is stored (a slow
    // screenshot under load stretches the interval instead of piling requests up).
    const tick = async () => {
      if (a.stopped) return;
      if (Date.now() >= until) return void this.finish(a, 'max_seconds');
      const at = Date.now() - t0;
      try {
        const png = await this.shoot(box, rec.scale);
        if (a.stopped) return;
        const hash = createHash('sha256').update(png).digest('hex');
        if (hash !== a.lastHash) {
          fs.writeFileSync(path.join(this.dir(box.box_id, rec.recording_id), `${rec.images}.png`), png);
          rec.images++;
          rec.bytes += png.length;
          a.lastHash = hash;
        }
        rec.frames.push({ at_ms: at, image: rec.images - 1 });
        this.save(rec);
      } catch (e) {
        if (!a.stopped) return void this.finish(a, `error: ${(e as Error).message.slice(0, 300)}`);
      }
      if (!a.stopped) a.timer = setTimeout(() => (a.running = tick()), Math.max(0, rec.interval_ms - (Date.now() - t0 - at)));
    };
    a.running = tick();
    return structuredClone(rec);
  }

  private finish(a: Active, reason: string) {
    if (a.stopped) return;
    a.stopped = true;
    if (a.timer) clearTimeout(a.timer);
    a.rec.status = 'stopped';
    a.rec.ended_at = new Date().toISOString();
    a.rec.stop_reason = reason;
    this.active.delete(a.rec.recording_id);
    try {
      this.save(a.rec);
    } catch {
      // deleted meanwhile
    }
  }

  async stop(box: BoxRecord, id: string): Promise<DesktopRecording> {
    const a = this.active.get(id);
    if (a && a.rec.box_id === box.box_id) {
      this.finish(a, 'stopped');
      await a.running.catch(() => {});
      return structuredClone(a.rec);
    }
    return this.get(box, id);
  }

  /** A box went away: its recording ends (its files stay until deleted). */
  boxGone(boxId: string) {
    for (const a of [...this.active.values()]) if (a.rec.box_id === boxId) this.finish(a, 'box_gone');
  }

  get(box: BoxRecord, id: string): DesktopRecording {
    const a = this.active.get(id);
    if (a && a.rec.box_id === box.box_id) return structuredClone(a.rec);
    const file = path.join(this.dir(box.box_id, id), 'recording.json');
    if (!fs.existsSync(file)) throw notFound(`Box ${box.name} has no recording ${id}.`, null, 'recording_id');
    return JSON.parse(fs.readFileSync(file, 'utf8')) as DesktopRecording;
  }

  list(box: BoxRecord): DesktopRecording[] {
    const dir = this.dir(box.box_id);
    if (!fs.existsSync(dir)) return [];
    return fs
      .readdirSync(dir)
      .filter((id) => fs.existsSync(path.join(dir, id, 'recording.json')))
      .map((id) => this.get(box, id))
      .sort((x, y) => y.started_at.localeCompare(x.started_at));
  }

  frame(box: BoxRecord, id: string, image: number): Buffer {
    const rec = this.get(box, id);
    if (image >= rec.images) throw notFound(`Recording ${id} has ${rec.images} images; there is no image ${image}.`, null, 'image');
    return fs.readFileSync(path.join(this.dir(box.box_id, id), `${image}.png`));
  }

  async remove(box: BoxRecord, id: string): Promise<DesktopRecording> {
    const rec = await this.stop(box, id);
    fs.rmSync(this.dir(box.box_id, id), { recursive: true, force: true });
    return rec;
  }

  close() {
    for (const a of [...this.active.values()]) this.finish(a, 'service stopped');
  }
}
