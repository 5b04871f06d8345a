import type { Http } from './http.js';
import { op } from './ops.js';
import type { DesktopAction, DesktopActionResult, DesktopInfo, DesktopRecording, DesktopWindow, StartRecordingBody } from './types.js';

type Button = 'left' | 'right' | 'middle';

/**
 * The screen of a desktop box (one created with `image: 'desktop'`): screenshots, mouse,
 * keyboard, apps and windows. Coordinates are screen pixels from the top left.
 */
export class BoxDesktop {
  /** @internal */
  constructor(
    private readonly http: Http,
    private readonly boxId: string,
  ) {}

  private get params() {
    return { box_id: this.boxId };
  }

  /** Screen size, cursor, focused window, and the WebSocket paths of the live view and the browser's CDP. */
  info(): Promise<DesktopInfo> {
    return op(this.http, 'GET /v1/boxes/:box_id/desktop', { params: this.params });
  }

  /** A PNG of the screen (with the pointer); `scale` 0.1–1 shrinks it. */
  async screenshot(o: { scale?: number } = {}): Promise<Uint8Array> {
    const res = await this.http.request('GET', `/v1/boxes/${encodeURIComponent(this.boxId)}/desktop/screenshot`, {
      query: o.scale === undefined ? undefined : { scale: String(o.scale) },
    });
    return new Uint8Array(await res.arrayBuffer());
  }

  async getScreenSize(): Promise<{ width: number; height: number }> {
    const i = await this.info();
    return { width: i.width, height: i.height };
  }

  async getCursorPosition(): Promise<{ x: number; y: number }> {
    return (await this.info()).cursor;
  }

  /** Any action of the API (move, click, drag, scroll, type, key). */
  act(action: DesktopAction): Promise<DesktopActionResult> {
    return op(this.http, 'POST /v1/boxes/:box_id/desktop/actions', { params: this.params, body: action });
  }

  moveMouse(x: number, y: number) {
    return this.act({ type: 'move', x, y });
  }
  click(x?: number, y?: number, o: { button?: Button; double?: boolean } = {}) {
    return this.act({ type: 'click', x, y, ...o });
  }
  leftClick(x?: number, y?: number) {
    return this.click(x, y);
  }
  rightClick(x?: number, y?: number) {
    return this.click(x, y, { button: 'right' });
  }
  middleClick(x?: number, y?: number) {
    return this.click(x, y, { button: 'middle' });
  }
  doubleClick(x?: number, y?: number) {
    return this.click(x, y, { double: true });
  }
  drag(from: { x: number; y: number }, to: { x: number; y: number }) {
    return this.act({ type: 'drag', from, to });
  }
  scroll(direction: 'up' | 'down' | 'left' | 'right' = 'down', amount = 3, at?: { x: number; y: number }) {
    return this.act({ type: 'scroll', direction, amount, ...at });
  }
  /** Types text into the focused window. */
  write(text: string) {
    return this.act({ type: 'type', text });
  }
  /** Presses keys: "Return", "ctrl+l", or several combos ["ctrl+a", "Delete"]. */
  press(keys: string | string[]) {
    return this.act({ type: 'key', keys: Array.isArray(keys) ? keys.join(' ') : keys });
  }

  /** Starts a desktop entry ("box-browser", "xterm") or a program. */
  launch(app: string, args: string[] = []): Promise<{ app: string; pid: number | null }> {
    return op(this.http, 'POST /v1/boxes/:box_id/desktop/launch', { params: this.params, body: { app, args } });
  }
  /** Opens a URL or a file with the default application. */
  open(target: string): Promise<{ target: string }> {
    return op(this.http, 'POST /v1/boxes/:box_id/desktop/open', { params: this.params, body: { target } });
  }
  async windows(): Promise<DesktopWindow[]> {
    return (await op(this.http, 'GET /v1/boxes/:box_id/desktop/windows', { params: this.params })).data;
  }
  async focusedWindow(): Promise<DesktopWindow | null> {
    return (await this.info()).focused_window;
  }

  /** Starts recording the screen: a frame every `interval_ms` (default 1000) at `scale` (default 0.5), kept when it changed. */
  startRecording(o: StartRecordingBody = {}): Promise<DesktopRecording> {
    return op(this.http, 'POST /v1/boxes/:box_id/desktop/recordings', { params: this.params, body: o });
  }
  stopRecording(recordingId: string): Promise<DesktopRecording> {
    return op(this.http, 'POST /v1/boxes/:box_id/desktop/recordings/:recording_id/stop', { params: { ...this.params, recording_id: recordingId } });
  }
  /** A recording with its frames (`at_ms`, `image`) for playback. */
  recording(recordingId: string): Promise<DesktopRecording> {
    return op(this.http, 'GET /v1/boxes/:box_id/desktop/recordings/:recording_id', { params: { ...this.params, recording_id: recordingId } });
  }
  async recordings(): Promise<DesktopRecording[]> {
    return (await op(this.http, 'GET /v1/boxes/:box_id/desktop/recordings', { params: this.params })).data;
  }
  /** One image of a recording (PNG). */
  async recordingFrame(recordingId: string, image: number): Promise<Uint8Array> {
    const res = await this.http.request(
      'GET',
      `/v1/boxes/${encodeURIComponent(this.boxId)}/desktop/recordings/${encodeURIComponent(recordingId)}/frames/${image}`,
    );
    return new Uint8Array(await res.arrayBuffer());
  }
  deleteRecording(recordingId: string): Promise<DesktopRecording> {
    return op(this.http, 'DELETE /v1/boxes/:box_id/desktop/recordings/:recording_id', { params: { ...this.params, recording_id: recordingId } });
  }
}
