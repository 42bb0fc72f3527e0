/**
 * A file field: its files (name, size, type, a thumbnail for raster images), each previewed in the
 * page (an image full size, a PDF in the browser's viewer) or, for any other type, downloaded; and
 * in a form, adding files by the picker or by dropping them, each upload with its progress and a
 * cancel, and removing files. Names are text (Preact escapes them): a name never becomes markup.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import type { ComponentChildren } from 'preact';
import { ApiError } from '../lib/api.ts';
import { fileObjectUrl, hasThumbnail, previewKind, saveFile, sizeText, uploadFile, type Upload } from '../lib/files.ts';
import type { FieldInfo, FileRef } from '../lib/types.ts';
import { Modal } from './modal.tsx';

/** The file's content as an object URL while the component shows it (none when `wanted` is false); revoked after. */
function useObjectUrl(file: FileRef, wanted: boolean): { url: string | null; error: string | null } {
  const [state, setState] = useState<{ url: string | null; error: string | null }>({ url: null, error: null });
  useEffect(() => {
    if (!wanted) return;
    let dropped = false;
    let made: string | null = null;
    fileObjectUrl(file)
      .then((objectUrl) => {
        made = objectUrl;
        if (dropped) URL.revokeObjectURL(objectUrl);
        else setState({ url: objectUrl, error: null });
      })
      .catch((problem: unknown) => {
        if (!dropped) setState({ url: null, error: problem instanceof ApiError ? problem.message : 'The file could not be read.' });
      });
    return () => {
      dropped = true;
      if (made) URL.revokeObjectURL(made);
    };
  }, [file.id, file.type, wanted]);
  return state;
}

function Thumbnail({ file, onOpen }: { file: FileRef; onOpen: (() => void) | undefined }) {
  const { url, error } = useObjectUrl(file, hasThumbnail(file.type));
  // The name is the control (keyboard, screen readers); the thumbnail is a larger target for a pointer.
  if (!hasThumbnail(file.type) || error) return <span class="file-icon" aria-hidden="true" onClick={onOpen}>{file.type === 'application/pdf' ? 'PDF' : hasThumbnail(file.type) ? 'IMG' : 'FILE'}</span>;
  return url ? <img class="file-thumb" src={url} alt="" width={48} height={48} aria-hidden="true" onClick={onOpen} /> : <span class="file-icon" aria-hidden="true" />;
}

/** A raster image full size, or a PDF in the browser's viewer, in a dialog, with a download. */
function FilePreview({ file, onClose }: { file: FileRef; onClose: () => void }) {
  const kind = previewKind(file.type);
  const { url, error } = useObjectUrl(file, kind !== undefined);
  const [saveError, setSaveError] = useState<string | null>(null);
  return (
    <Modal title={file.name} onClose={onClose} wide>
      <p class="file-meta">
        {sizeText(file.size)} · {file.type}
      </p>
      <div class={`file-preview file-preview-${kind ?? 'none'}`}>
        {error ? (
          <p class="alert alert-error" role="alert">
            {error}
          </p>
        ) : !url ? (
          <p class="muted">Loading…</p>
        ) : kind === 'image' ? (
          <img src={url} alt={file.name} />
        ) : (
          // A blob: URL of bytes typed application/pdf (fileObjectUrl): the browser's PDF viewer, nothing that runs in the page.
          <iframe src={url} title={file.name} />
        )}
      </div>
      {saveError && <p class="field-error">{saveError}</p>}
      <div class="modal-actions">
        <button type="button" class="btn" onClick={() => saveFile(file).catch((problem: unknown) => setSaveError(problem instanceof ApiError ? problem.message : 'Download failed.'))}>
          Download
        </button>
        <button type="button" class="btn btn-primary" onClick={onClose} autoFocus>
          Close
        </button>
      </div>
    </Modal>
  );
}

/** The files of a field, read-only or with a remove button each. */
export function FileList({ files, onRemove }: { files: readonly FileRef[]; onRemove?: (file: FileRef) => void }) {
  const [error, setError] = useState<string | null>(null);
  const [previewed, setPreviewed] = useState<FileRef | null>(null);
  const open = (file: FileRef) => {
    setError(null);
    if (previewKind(file.type)) setPreviewed(file);
    else saveFile(file).catch((problem: unknown) => setError(problem instanceof ApiError ? problem.message : 'Download failed.'));
  };
  return (
    <>
      <ul class="file-list">
        {files.map((file) => (
          <li class="file-item" key={file.id}>
            <Thumbnail file={file} onOpen={() => open(file)} />
            <span class="file-about">
              <button type="button" class="btn btn-link file-name" title={previewKind(file.type) ? `Preview ${file.name}` : `Download ${file.name}`} onClick={() => open(file)}>
                {file.name}
              </button>
              <span class="file-meta">
                {sizeText(file.size)} · {file.type}
              </span>
            </span>
            {onRemove && (
              <button type="button" class="btn btn-danger-quiet" aria-label={`Remove ${file.name}`} onClick={() => onRemove(file)}>
                Remove
              </button>
            )}
          </li>
        ))}
      </ul>
      {error && <p class="field-error">{error}</p>}
      {previewed && <FilePreview file={previewed} onClose={() => setPreviewed(null)} />}
    </>
  );
}

interface Pending {
  readonly key: number;
  readonly name: string;
  readonly upload: Upload;
  readonly sent: number;
}

let nextKey = 0;

/** A file field in a form: the files it holds, uploads in progress, a picker and a drop zone. */
export function FileFieldInput({
  id,
  field,
  files,
  onChange,
  label,
  help,
  invalid,
  describedBy,
}: {
  id: string;
  field: FieldInfo;
  files: readonly FileRef[];
  onChange: (files: readonly FileRef[]) => void;
  label: ComponentChildren;
  help: ComponentChildren;
  invalid: boolean;
  describedBy: string | undefined;
}) {
  const [pending, setPending] = useState<readonly Pending[]>([]);
  const [problem, setProblem] = useState<string | null>(null);
  const [dragging, setDragging] = useState(false);
  // The latest files: uploads end after renders that changed them.
  const current = useRef(files);
  current.current = files;
  const input = useRef<HTMLInputElement>(null);
  const multiple = field.multiple === true;

  function start(chosen: readonly File[]) {
    setProblem(null);
    const list = multiple ? chosen : chosen.slice(0, 1);
    for (const file of list) {
      if (field.maxSize !== undefined && file.size > field.maxSize) {
        setProblem(`${file.name} is ${sizeText(file.size)}, more than ${field.label} takes (${sizeText(field.maxSize)})`);
        continue;
      }
      const key = nextKey++;
      const upload = uploadFile(file, (sent) => setPending((all) => all.map((item) => (item.key === key ? { ...item, sent } : item))));
      setPending((all) => [...all, { key, name: file.name, upload, sent: 0 }]);
      upload.done
        .then((stored) => {
          // Several uploads may end before the next render: each adds to what the last one left.
          const next = multiple ? [...current.current.filter((kept) => kept.id !== stored.id), stored] : [stored];
          current.current = next;
          onChange(next);
        })
        .catch((error: unknown) => {
          if (error instanceof ApiError && error.message === 'Upload cancelled.') return;
          setProblem(`${file.name}: ${error instanceof ApiError ? error.message : 'upload failed'}`);
        })
        .finally(() => setPending((all) => all.filter((item) => item.key !== key)));
    }
  }

  return (
    <fieldset class={`field field-file${invalid ? ' has-error' : ''}`} id={id} aria-describedby={describedBy} aria-invalid={invalid ? 'true' : undefined}>
      <legend>{label}</legend>
      {files.length > 0 && (
        <FileList
          files={files}
          onRemove={(file) => {
            current.current = current.current.filter((kept) => kept.id !== file.id);
            onChange(current.current);
          }}
        />
      )}
      {pending.map((item) => (
        <div class="file-progress" key={item.key}>
          <span class="file-name">{item.name}</span>
          <progress max={1} value={item.sent} aria-label={`Uploading ${item.name}`} />
          <span class="file-meta">{Math.round(item.sent * 100)} %</span>
          <button type="button" class="btn" onClick={() => item.upload.cancel()}>
            Cancel
          </button>
        </div>
      ))}
      <div
        class={`file-drop${dragging ? ' dragging' : ''}`}
        onDragOver={(event) => {
          event.preventDefault();
          setDragging(true);
        }}
        onDragLeave={() => setDragging(false)}
        onDrop={(event) => {
          event.preventDefault();
          setDragging(false);
          start([...(event.dataTransfer?.files ?? [])]);
        }}
      >
        <input
          ref={input}
          id={`${id}-picker`}
          type="file"
          class="file-picker"
          multiple={multiple}
          accept={field.accept?.join(',')}
          onChange={(event) => {
            start([...(event.currentTarget.files ?? [])]);
            event.currentTarget.value = '';
          }}
        />
        <label for={`${id}-picker`} class="btn">
          {multiple ? 'Add files' : files.length > 0 ? 'Replace file' : 'Choose a file'}
        </label>
        <span class="file-meta"> or drop {multiple ? 'files' : 'a file'} here{field.accept ? ` (${field.accept.join(', ')})` : ''}{field.maxSize !== undefined ? `, at most ${sizeText(field.maxSize)}` : ''}</span>
      </div>
      {problem && (
        <p class="field-error" role="alert">
          {problem}
        </p>
      )}
      {help}
    </fieldset>
  );
}
