/**
 * A value the server shows once (an agent token, a webhook secret): the value in a read-only
 * field, a Copy button (with a fallback to selecting it where the clipboard is refused), and the
 * button that says it is saved. `intro` says what it is for and how long it is shown.
 */
import type { ComponentChildren } from 'preact';
import { useRef, useState } from 'preact/hooks';

export function ShownOnce(props: {
  readonly id: string;
  readonly title: string;
  readonly intro: ComponentChildren;
  /** The field's name for screen readers, e.g. `Agent token`. */
  readonly label: string;
  /** How the value is called in the copy message, e.g. `token`. */
  readonly noun: string;
  readonly value: string;
  readonly onDone: () => void;
}) {
  const [copied, setCopied] = useState<'yes' | 'failed' | null>(null);
  const inputRef = useRef<HTMLInputElement>(null);
  async function copy() {
    try {
      await navigator.clipboard.writeText(props.value);
      setCopied('yes');
    } catch {
      inputRef.current?.select();
      setCopied(document.execCommand?.('copy') ? 'yes' : 'failed');
    }
  }
  return (
    <section class="card issued" aria-labelledby={`${props.id}-heading`} role="region">
      <h2 id={`${props.id}-heading`}>{props.title}</h2>
      <p>{props.intro}</p>
      <div class="copy-row">
        <label class="sr-only" for={props.id}>
          {props.label}
        </label>
        <input id={props.id} ref={inputRef} class="mono" type="text" readOnly value={props.value} onFocus={(event) => event.currentTarget.select()} />
        <button type="button" class="btn btn-primary" onClick={() => void copy()}>
          {copied === 'yes' ? 'Copied' : 'Copy'}
        </button>
      </div>
      <p class="small" aria-live="polite">
        {copied === 'yes' ? `The ${props.noun} is on your clipboard.` : copied === 'failed' ? 'Could not copy; select the text and copy it yourself.' : ''}
      </p>
      <button type="button" class="btn" onClick={props.onDone}>
        Done, I have saved it
      </button>
    </section>
  );
}
