/** @jsxImportSource react */
import { useEffect, useRef } from 'react';
import { useWords } from '../context';

/**
 * Every destructive action asks first, in a modal dialog (focus moves into it, Escape cancels) that
 * names what will happen.
 */
export function Confirm(props: { question: string; action: string; onConfirm: () => void; onCancel: () => void }) {
  const t = useWords();
  const dialog = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    dialog.current?.showModal();
  }, []);
  return (
    <dialog ref={dialog} className="confirm" onCancel={props.onCancel} aria-labelledby="confirm-question">
      <p id="confirm-question">{props.question}</p>
      <div className="actions">
        <button type="button" onClick={props.onCancel}>
          {t.cancel}
        </button>
        <button type="button" className="danger" onClick={props.onConfirm}>
          {props.action}
        </button>
      </div>
    </dialog>
  );
}
