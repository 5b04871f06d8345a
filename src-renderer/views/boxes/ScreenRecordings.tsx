import { useEffect, useState } from 'react';
import type { Box } from '@box/contract/boxes';
import type { DesktopRecording } from '@box/contract/desktop';
import { call, errorMessage } from '../../api/client.js';

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
const frameUrl = (r: DesktopRecording, image: number) => `/v1/boxes/${encodeURIComponent(r.box_id)}/desktop/recordings/${r.recording_id}/frames/${image}`;

/**
 * Recordings of the screen (the service's desktop/recordings.ts): Record / Stop, the list,
 * and a player that shows the frames with their timing (play, pause, a scrubber).
 */
export function ScreenRecordings({ box }: { box: Box }) {
  const [list, setList] = useState<DesktopRecording[]>([]);
  const [error, setError] = useState<string | null>(null);
  const [open, setOpen] = useState<DesktopRecording | null>(null);
  const params = { box_id: box.box_id };
  const recording = list.find((r) => r.status === 'recording');

  const refresh = () =>
    call('GET /v1/boxes/:box_id/desktop/recordings', { params })
      .then((r) => setList(r.data))
      .catch((e: unknown) => setError(errorMessage(e)));
  useEffect(() => {
    void refresh();
    // while one records, its length grows: follow it
    const t = setInterval(() => void refresh(), 2000);
    return () => clearInterval(t);
  }, [box.box_id]);

  const act = async (fn: () => Promise<unknown>) => {
    setError(null);
    try {
      await fn();
    } catch (e) {
      setError(errorMessage(e));
    }
    await refresh();
  };

  return (
    <section className="space-y-2 text-xs" data-testid="screen-recordings">
      <div className="flex items-center gap-2">
        {recording ? (
          <button
            type="button"
            data-testid="screen-record-stop"
            onClick={() =>
              void act(() =>
                call('POST /v1/boxes/:box_id/desktop/recordings/:recording_id/stop', { params: { ...params, recording_id: recording.recording_id } }),
              )
            }
            className="rounded bg-red-800 px-2 py-1 hover:bg-red-700"
          >
            Stop recording ({seconds(recording.frames.at(-1)?.at_ms ?? 0)})
          </button>
        ) : (
          <button
            type="button"
            data-testid="screen-record"
            onClick={() => void act(() => call('POST /v1/boxes/:box_id/desktop/recordings', { params, body: {} }))}
            className="rounded bg-ink-700 px-2 py-1 hover:bg-ink-600"
          >
            Record
          </button>
        )}
        {error && <span className="text-red-400">{error}</span>}
      </div>
      {list.length > 0 && (
        <ul className="space-y-1" data-testid="screen-recording-list">
          {list.map((r) => (
            <li key={r.recording_id} className="flex items-center gap-2">
              <span className="text-ink-300">
                {new Date(r.started_at).toLocaleTimeString()} · {seconds(r.frames.at(-1)?.at_ms ?? 0)} · {r.frames.length} frames
                {r.status === 'recording' ? ' · recording' : ''}
              </span>
              <button
                type="button"
                data-testid="screen-recording-play"
                disabled={!r.images}
                onClick={() => setOpen(r)}
                className="rounded bg-ink-700 px-2 py-0.5 hover:bg-ink-600 disabled:opacity-50"
              >
                Play
              </button>
              <button
                type="button"
                onClick={() =>
                  void act(async () => {
                    await call('DELETE /v1/boxes/:box_id/desktop/recordings/:recording_id', { params: { ...params, recording_id: r.recording_id } });
                    if (open?.recording_id === r.recording_id) setOpen(null);
                  })
                }
                className="rounded px-2 py-0.5 text-ink-400 hover:text-red-300"
              >
                Delete
              </button>
            </li>
          ))}
        </ul>
      )}
      {open && <Player key={open.recording_id} rec={list.find((r) => r.recording_id === open.recording_id) ?? open} onClose={() => setOpen(null)} />}
    </section>
  );
}

/** Plays a recording's frames at their recorded times (the image of the last frame at or before the playhead). */
function Player({ rec, onClose }: { rec: DesktopRecording; onClose: () => void }) {
  const end = rec.frames.at(-1)?.at_ms ?? 0;
  const [at, setAt] = useState(0);
  const [playing, setPlaying] = useState(true);
  useEffect(() => {
    if (!playing) return;
    const started = performance.now() - at;
    const t = setInterval(() => {
      const now = performance.now() - started;
      if (now >= end) {
        setAt(end);
        setPlaying(false);
      } else setAt(now);
    }, 100);
    return () => clearInterval(t);
  }, [playing, end]);
  let i = 0;
  while (i + 1 < rec.frames.length && rec.frames[i + 1]!.at_ms <= at) i++;
  const frame = rec.frames[i];
  return (
    <div className="space-y-1" data-testid="screen-player">
      <div className="flex items-center gap-2">
        <button
          type="button"
          data-testid="screen-player-toggle"
          onClick={() => {
            if (!playing && at >= end) setAt(0);
            setPlaying(!playing);
          }}
          className="rounded bg-ink-700 px-2 py-0.5 hover:bg-ink-600"
        >
          {playing ? 'Pause' : 'Play'}
        </button>
        <input
          type="range"
          aria-label="Playback position"
          min={0}
          max={end}
          value={Math.round(at)}
          onChange={(e) => (setPlaying(false), setAt(Number(e.target.value)))}
          className="w-64"
        />
        <span data-testid="screen-player-time">
          {seconds(at)} / {seconds(end)}
        </span>
        <button type="button" onClick={onClose} className="rounded px-2 py-0.5 text-ink-400 hover:text-ink-200">
          Close
        </button>
      </div>
      {frame && (
        <img
          src={frameUrl(rec, frame.image)}
          data-testid="screen-player-frame"
          data-image={frame.image}
          alt={`Recorded screen at ${seconds(frame.at_ms)}`}
          className="w-full max-w-5xl rounded border border-ink-800 bg-black"
        />
      )}
    </div>
  );
}
