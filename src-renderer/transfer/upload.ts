import { ApiError } from '../api/client.js';

export interface UploadHandle {
  promise: Promise<void>;
  cancel(): void;
}

/**
 * PUTs raw bytes with progress. XMLHttpRequest because fetch has no upload progress;
 * same-origin, so the session cookie goes along. Cancel aborts the request; the server
 * then discards the partial write.
 */
export function uploadFile(url: string, file: Blob, onProgress: (loaded: number, total: number) => void): UploadHandle {
  const xhr = new XMLHttpRequest();
  const promise = new Promise<void>((resolve, reject) => {
    xhr.open('PUT', url);
    xhr.withCredentials = true;
    xhr.setRequestHeader('Content-Type', 'application/octet-stream');
    xhr.upload.onprogress = (e) => onProgress(e.loaded, e.lengthComputable ? e.total : file.size);
    xhr.onload = () => {
      if (xhr.status >= 200 && xhr.status < 300) {
        onProgress(file.size, file.size);
        resolve();
      } else reject(ApiError.fromText(xhr.status, xhr.responseText));
    };
    xhr.onerror = () => reject(new Error('Network error during upload.'));
    xhr.onabort = () => reject(new DOMException('Upload cancelled', 'AbortError'));
    xhr.send(file);
  });
  return { promise, cancel: () => xhr.abort() };
}
