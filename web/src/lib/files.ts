/**
 * Files over the API: an upload (`POST /api/files`, the raw file, with its progress and a way to
 * cancel it) and a download (`GET /api/files/<id>`, which takes the session token like every
 * call: so the content comes as a blob, shown or saved through an object URL, never a link that
 * would need a cookie).
 */
import { ApiError, sessionToken } from './api.ts';
import type { FileRef } from './types.ts';

export interface Upload {
  /** The file as the server keeps it, once uploaded; an ApiError when refused (or cancelled: status 0). */
  readonly done: Promise<FileRef>;
  cancel(): void;
}

/** Uploads a file; `onProgress` gets the share sent, 0 to 1. */
export function uploadFile(file: File, onProgress: (sent: number) => void): Upload {
  const xhr = new XMLHttpRequest();
  const done = new Promise<FileRef>((resolve, reject) => {
    xhr.open('POST', '/api/files');
    const token = sessionToken();
    if (token) xhr.setRequestHeader('Authorization', `Bearer ${token}`);
    xhr.setRequestHeader('Content-Type', file.type || 'application/octet-stream');
    // Percent-encoded UTF-8: a header carries no other characters safely.
    xhr.setRequestHeader('X-File-Name', encodeURIComponent(file.name));
    xhr.upload.onprogress = (event) => {
      if (event.lengthComputable) onProgress(event.loaded / event.total);
    };
    xhr.onload = () => {
      let body: unknown;
      try {
        body = JSON.parse(xhr.responseText);
      } catch {
        body = undefined;
      }
      if (xhr.status === 201) {
        // No record holds a new upload yet, so the server gives it to no one: its uploader has the bytes.
        uploadedHere.set((body as FileRef).id, file);
        resolve(body as FileRef);
      }
      else reject(new ApiError(xhr.status, typeof (body as { error?: unknown })?.error === 'string' ? (body as { error: string }).error : `Upload failed (${xhr.status}).`, body));
    };
    xhr.onerror = () => reject(new ApiError(0, 'Cannot reach the server. Check your connection and try again.'));
    xhr.onabort = () => reject(new ApiError(0, 'Upload cancelled.'));
    xhr.send(file);
  });
  return { done, cancel: () => xhr.abort() };
}

/** The files uploaded from this page, by id: shown and saved from here until a record holds them. */
const uploadedHere = new Map<string, Blob>();

/**
 * The file's content as an object URL (revoke it when done), typed as the server detected it
 * (whatever the picker or the response said): the preview frames only what `previewKind` names,
 * and a blob: document is of the page's origin, so its type must never be one that runs a script.
 */
export async function fileObjectUrl(file: FileRef): Promise<string> {
  const local = uploadedHere.get(file.id);
  if (local) return URL.createObjectURL(new Blob([local], { type: file.type }));
  const token = sessionToken();
  const res = await fetch(`/api/files/${encodeURIComponent(file.id)}`, { headers: token ? { authorization: `Bearer ${token}` } : {}, credentials: 'omit' });
  if (!res.ok) throw new ApiError(res.status, res.status === 404 ? 'File not found, or you may not read it.' : `Download failed (${res.status}).`);
  return URL.createObjectURL(new Blob([await res.blob()], { type: file.type }));
}

/** Saves the file under its name. */
export async function saveFile(file: FileRef): Promise<void> {
  const url = await fileObjectUrl(file);
  const link = document.createElement('a');
  link.href = url;
  link.download = file.name;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}

/** Raster images, which get a thumbnail (never SVG, which could run a script). */
export function hasThumbnail(type: string): boolean {
  return ['image/png', 'image/jpeg', 'image/gif', 'image/webp'].includes(type);
}

/**
 * How the page previews a file: a raster image full size, a PDF in a frame (the browser's viewer);
 * anything else (SVG and HTML included) only downloads. The same types the server serves inline.
 */
export function previewKind(type: string): 'image' | 'pdf' | undefined {
  if (hasThumbnail(type)) return 'image';
  return type === 'application/pdf' ? 'pdf' : undefined;
}

/** `1.2 MB`, `340 KB`, `12 B`. */
export function sizeText(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  const units = ['KB', 'MB', 'GB'];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${value < 10 ? value.toFixed(1) : Math.round(value)} ${units[unit]}`;
}

/** Whether a value is a file (or a list of them) as records hold it; a masked field's token is not. */
export function filesOf(value: unknown): FileRef[] {
  const isFile = (item: unknown): item is FileRef => typeof item === 'object' && item !== null && typeof (item as FileRef).id === 'string' && typeof (item as FileRef).sha256 === 'string';
  if (Array.isArray(value)) return value.filter(isFile);
  return isFile(value) ? [value] : [];
}
