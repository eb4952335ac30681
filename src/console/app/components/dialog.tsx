/** @jsxImportSource react */
import { type ReactNode, useEffect, useRef, useState } from 'react';
import { useWords } from '../context';
import { Icon } from './icons';

/**
 * A modal dialog: a <dialog> opened with showModal, so the browser keeps focus and the screen reader
 * inside it and Escape closes it. It is named by its title; focus starts at its first field and goes
 * back to whatever opened it when it closes.
 */
export function Dialog(props: { id: string; title: string; onClose: () => void; children: ReactNode }) {
  const t = useWords();
  const dialog = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const opener = document.activeElement instanceof HTMLElement ? document.activeElement : undefined;
    const d = dialog.current!;
    if (!d.open) d.showModal();
    // the first field rather than the close button, which showModal would pick
    d.querySelector<HTMLElement>('.dialog-body :is(input, select, textarea, button):not(:disabled)')?.focus();
    return () => {
      if (d.open) d.close();
      opener?.focus();
    };
  }, []);
  return (
    <dialog
      ref={dialog}
      className="dialog"
      aria-labelledby={`${props.id}-title`}
      onCancel={(e) => {
        // Escape: React decides, so that the dialog and its state leave together
        e.preventDefault();
        props.onClose();
      }}
    >
      <div className="dialog-head">
        <h2 id={`${props.id}-title`}>{props.title}</h2>
        <button type="button" className="icon-button" aria-label={t.close} onClick={props.onClose}>
          <span aria-hidden="true">×</span>
        </button>
      </div>
      <div className="dialog-body">{props.children}</div>
    </dialog>
  );
}

/**
 * A page's create action: a button that opens the form in a dialog. The form gets `close` for its
 * cancel button and for when it is done.
 */
export function CreateInDialog(props: { id: string; label: string; children: (close: () => void) => ReactNode }) {
  const [open, setOpen] = useState(false);
  const close = () => setOpen(false);
  return (
    <>
      <button type="button" className="primary" onClick={() => setOpen(true)}>
        <Icon name="plus" />
        {props.label}
      </button>
      {open && (
        <Dialog id={props.id} title={props.label} onClose={close}>
          {props.children(close)}
        </Dialog>
      )}
    </>
  );
}

/** A page's heading with its actions (a create button) beside it. */
export function PageHead(props: { id: string; title: string; children?: ReactNode }) {
  return (
    <div className="page-head">
      <h1 id={props.id}>{props.title}</h1>
      {props.children && <div className="page-actions">{props.children}</div>}
    </div>
  );
}

/** The end of a form in a dialog: cancel, and the submit button. */
export function DialogActions(props: { onCancel: () => void; submit: string; pending?: boolean }) {
  const t = useWords();
  return (
    <div className="actions">
      <button type="button" onClick={props.onCancel}>
        {t.cancel}
      </button>
      <button type="submit" className="primary" disabled={props.pending}>
        {props.submit}
      </button>
    </div>
  );
}
