/** Modal dialogs on the native <dialog>: focus stays inside, Escape closes, focus returns after. */
import type { ComponentChildren } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { ApiError } from '../lib/api.ts';

let nextId = 0;

export function Modal({ title, onClose, children, wide = false }: { title: string; onClose: () => void; children: ComponentChildren; wide?: boolean }) {
  const ref = useRef<HTMLDialogElement>(null);
  const [headingId] = useState(() => `modal-title-${++nextId}`);
  useEffect(() => {
    const dialog = ref.current;
    const opener = document.activeElement as HTMLElement | null;
    if (dialog && !dialog.open) dialog.showModal();
    return () => {
      if (dialog?.open) dialog.close();
      opener?.focus?.();
    };
  }, []);
  return (
    <dialog
      ref={ref}
      class={wide ? 'modal modal-wide' : 'modal'}
      aria-labelledby={headingId}
      onCancel={(event) => {
        event.preventDefault();
        onClose();
      }}
    >
      <h2 id={headingId}>{title}</h2>
      {children}
    </dialog>
  );
}

export function ConfirmDialog(props: {
  title: string;
  message: ComponentChildren;
  confirmLabel: string;
  danger?: boolean;
  onConfirm: () => Promise<void>;
  onClose: () => void;
}) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  async function confirm() {
    setBusy(true);
    setError(null);
    try {
      await props.onConfirm();
    } catch (caught) {
      setError(caught instanceof ApiError ? caught.message : 'Something went wrong.');
      setBusy(false);
    }
  }
  return (
    <Modal title={props.title} onClose={props.onClose}>
      <div class="modal-body">{props.message}</div>
      {error && (
        <p class="alert alert-error" role="alert">
          {error}
        </p>
      )}
      <div class="modal-actions">
        <button type="button" class="btn" onClick={props.onClose} disabled={busy} autoFocus={props.danger === true}>
          Cancel
        </button>
        <button type="button" class={props.danger ? 'btn btn-danger' : 'btn btn-primary'} onClick={confirm} disabled={busy} autoFocus={props.danger !== true}>
          {busy ? 'Working…' : props.confirmLabel}
        </button>
      </div>
    </Modal>
  );
}
