import { IMAGE_MEDIA_TYPES, imageInfo } from '../images/image-info.js';
import type { NativeImage } from '../native.js';
import { refuse } from './common.js';

/**
 * Image content parts of the three styles → NativeImage (beyond the spec: its limitation
 * "text only" is lifted for images). Bytes are checked here, once: a supported media type,
 * valid base64, and a header (PNG, JPEG, GIF, WebP) that matches the declared type; any
 * problem is a 400 naming the field. URLs must be http(s); Box never fetches them.
 */
type Part = Record<string, unknown>;

const TYPES = IMAGE_MEDIA_TYPES.join(', ');
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/** Checked base64 bytes of `mediaType`. */
function base64Image(mediaType: string, data: string, typeParam: string, dataParam: string): NativeImage {
  if (!(IMAGE_MEDIA_TYPES as readonly string[]).includes(mediaType))
    refuse(typeParam, `${typeParam}: "${mediaType}" is not a supported image type (${TYPES}).`);
  const clean = data.replace(/\s+/g, '');
  if (!clean || clean.length % 4 === 1 || !BASE64.test(clean)) refuse(dataParam, `${dataParam} is not valid base64 image data.`);
  const info = imageInfo(Buffer.from(clean, 'base64'));
  if (!info) refuse(dataParam, `${dataParam} is not a PNG, JPEG, GIF or WebP image.`);
  if (info.mediaType !== mediaType) refuse(typeParam, `${typeParam} says ${mediaType} but the data is ${info.mediaType}.`);
  return { kind: 'base64', mediaType, data: clean };
}

function httpUrl(url: string, param: string): NativeImage {
  let u: URL | undefined;
  try {
    u = new URL(url);
  } catch {
    u = undefined;
  }
  if (!u || (u.protocol !== 'http:' && u.protocol !== 'https:')) refuse(param, `${param} must be a data: URL (base64) or an http(s) URL.`);
  return { kind: 'url', url };
}

/** A data URL (`data:image/png;base64,...`) or an http(s) URL (OpenAI's image_url). */
function imageUrl(url: unknown, param: string): NativeImage {
  if (typeof url !== 'string' || !url) refuse(param, `${param} must be a data: URL or an http(s) URL.`);
  if (!url.startsWith('data:')) return httpUrl(url, param);
  const m = /^data:([^;,]*)((?:;[^;,]*)*),(.*)$/s.exec(url);
  if (!m) refuse(param, `${param} is a malformed data URL: send data:<image type>;base64,<data>.`);
  if (!m[2]!.split(';').includes('base64')) refuse(param, `${param}: the data URL must be base64-encoded (";base64,").`);
  return base64Image(m[1]!.toLowerCase(), m[3]!, param, param);
}

/** Responses' `input_image` ({image_url} or {file_id}; this service has no Files API). */
export function responsesImage(p: Part, where: string): NativeImage | null {
  if (p.type !== 'input_image') return null;
  if (p.file_id !== undefined && p.file_id !== null) refuse(`${where}.file_id`, `${where}.file_id is not supported (no Files API here): send image_url.`);
  return imageUrl(p.image_url, `${where}.image_url`);
}

/** Chat Completions' `image_url` part ({image_url: {url, detail}}). */
export function chatImage(p: Part, where: string): NativeImage | null {
  if (p.type !== 'image_url') return null;
  const iu = p.image_url as { url?: unknown } | null | undefined;
  return imageUrl(typeof iu === 'string' ? iu : iu?.url, `${where}.image_url.url`);
}

/** Anthropic's `image` block (source `base64` or `url`). */
export function messagesImage(p: Part, where: string): NativeImage | null {
  if (p.type !== 'image') return null;
  const s = p.source as Part | null | undefined;
  const at = `${where}.source`;
  if (s?.type === 'base64') {
    if (typeof s.media_type !== 'string') refuse(`${at}.media_type`, `${at}.media_type must be one of ${TYPES}.`);
    if (typeof s.data !== 'string') refuse(`${at}.data`, `${at}.data must be base64 image data.`);
    return base64Image(s.media_type, s.data, `${at}.media_type`, `${at}.data`);
  }
  if (s?.type === 'url') return httpUrl(typeof s.url === 'string' ? s.url : '', `${at}.url`);
  return refuse(`${at}.type`, `${at}.type must be "base64" or "url".`);
}
