import { useEffect, useState } from 'react';

/**
 * Paths below the app's base (/ui/console/…) through the History API: links are real links (open in a
 * new tab, keyboard, screen readers), clicks on them are taken over here.
 */
export function usePath(base: string): [string, (to: string) => void] {
  const current = () => location.pathname.slice(base.length).replace(/^\/+|\/+$/g, '');
  const [path, setPath] = useState(current);
  useEffect(() => {
    const onPop = () => setPath(current());
    addEventListener('popstate', onPop);
    return () => removeEventListener('popstate', onPop);
  });
  const go = (to: string) => {
    history.pushState(null, '', `${base}/${to}`);
    setPath(to);
  };
  return [path, go];
}
