/** @jsxImportSource react */
import { type KeyboardEvent, type ReactNode, useRef } from 'react';

export interface Tab {
  id: string;
  label: string;
}

/**
 * Tabs after the WAI-ARIA pattern: one tab stop for the list, arrow keys (and Home, End) move between the
 * tabs and choose, the chosen tab's panel below. The caller keeps the choice (in the address, so that a
 * reload or a shared link opens the same tab).
 */
export function Tabs(props: {
  id: string;
  label: string;
  tabs: Tab[];
  current: string;
  onChoose: (id: string) => void;
  children: ReactNode;
}) {
  const list = useRef<HTMLDivElement>(null);
  const current = props.tabs.some((t) => t.id === props.current) ? props.current : props.tabs[0].id;
  const move = (e: KeyboardEvent) => {
    const at = props.tabs.findIndex((t) => t.id === current);
    const to =
      e.key === 'ArrowRight'
        ? (at + 1) % props.tabs.length
        : e.key === 'ArrowLeft'
          ? (at - 1 + props.tabs.length) % props.tabs.length
          : e.key === 'Home'
            ? 0
            : e.key === 'End'
              ? props.tabs.length - 1
              : -1;
    if (to < 0) return;
    e.preventDefault();
    props.onChoose(props.tabs[to].id);
    list.current?.querySelector<HTMLElement>(`#${props.id}-tab-${props.tabs[to].id}`)?.focus();
  };
  return (
    <>
      <div className="tabs" role="tablist" aria-label={props.label} ref={list} onKeyDown={move}>
        {props.tabs.map((t) => (
          <button
            key={t.id}
            type="button"
            role="tab"
            id={`${props.id}-tab-${t.id}`}
            aria-selected={t.id === current}
            aria-controls={`${props.id}-panel`}
            tabIndex={t.id === current ? 0 : -1}
            onClick={() => props.onChoose(t.id)}
          >
            {t.label}
          </button>
        ))}
      </div>
      <div
        className="tab-panel"
        role="tabpanel"
        id={`${props.id}-panel`}
        aria-labelledby={`${props.id}-tab-${current}`}
      >
        {props.children}
      </div>
    </>
  );
}
