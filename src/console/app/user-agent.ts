/**
 * A browser and its system in a few words ("Firefox 133 on Windows") from a User-Agent header, for a list
 * of sessions: enough to tell one's phone from one's laptop. The first match wins, so the browsers that
 * also call themselves Chrome or Safari come first. Anything else is shown as it came.
 */
const BROWSERS: [RegExp, string][] = [
  [/Edg(?:e|A|iOS)?\/(\d+)/, 'Edge'],
  [/OPR\/(\d+)/, 'Opera'],
  [/SamsungBrowser\/(\d+)/, 'Samsung Internet'],
  [/Firefox\/(\d+)|FxiOS\/(\d+)/, 'Firefox'],
  [/CriOS\/(\d+)/, 'Chrome'],
  [/HeadlessChrome\/(\d+)/, 'Headless Chrome'],
  [/Chrome\/(\d+)/, 'Chrome'],
  [/Version\/(\d+)[\d.]* (?:Mobile\/\S+ )?Safari\//, 'Safari'],
];

const SYSTEMS: [RegExp, string][] = [
  [/iPhone|iPad|iPod/, 'iOS'],
  [/Android/, 'Android'],
  [/Windows/, 'Windows'],
  [/Mac OS X|Macintosh/, 'macOS'],
  [/CrOS/, 'ChromeOS'],
  [/Linux/, 'Linux'],
];

export function browserName(userAgent: string, on: (browser: string, system: string) => string): string {
  if (!userAgent) return '';
  const browser = BROWSERS.map(([re, name]) => {
    const m = re.exec(userAgent);
    return m ? `${name} ${m[1] ?? m[2]}` : undefined;
  }).find(Boolean);
  const system = SYSTEMS.find(([re]) => re.test(userAgent))?.[1];
  if (!browser) return system ? `${userAgent.split(/[ /]/)[0]} · ${system}` : userAgent.slice(0, 60);
  return system ? on(browser, system) : browser;
}
