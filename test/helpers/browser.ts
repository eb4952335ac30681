/** A tiny browser: a cookie jar and manual redirects, enough to drive the server-rendered login. */
export class Browser {
  cookies = new Map<string, string>();
  constructor(
    readonly base: string,
    readonly headers: Record<string, string> = {},
  ) {}

  private cookieHeader(): string {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  }

  async request(url: string, init: RequestInit = {}): Promise<Response> {
    const headers = new Headers(init.headers);
    for (const [k, v] of Object.entries(this.headers)) headers.set(k, v);
    if (this.cookies.size) headers.set('cookie', this.cookieHeader());
    const res = await fetch(new URL(url, this.base), { ...init, headers, redirect: 'manual' });
    for (const sc of res.headers.getSetCookie()) {
      const [pair] = sc.split(';');
      const i = pair.indexOf('=');
      const name = pair.slice(0, i).trim();
      const value = pair.slice(i + 1).trim();
      if (/max-age=0/i.test(sc) || value === '') this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    return res;
  }

  /** Follows redirects on our server; stops at a page (200/4xx) or a redirect to another origin. */
  async go(url: string, init: RequestInit = {}): Promise<{ url: string; res: Response; html: string }> {
    let current = new URL(url, this.base).toString();
    let res = await this.request(current, init);
    for (let i = 0; i < 20 && res.status >= 300 && res.status < 400; i++) {
      const next = new URL(res.headers.get('location')!, current).toString();
      if (new URL(next).origin !== new URL(this.base).origin) return { url: next, res, html: '' };
      current = next;
      res = await this.request(current);
    }
    return { url: current, res, html: await res.text() };
  }

  /** Submits the page's form whose action matches, with its hidden fields plus `fields`. */
  async submit(page: { html: string }, action: string, fields: Record<string, string>) {
    const formRe = new RegExp(`<form[^>]*action="${action.replace(/[/]/g, '\\/')}"[^>]*>([\\s\\S]*?)</form>`);
    const form = formRe.exec(page.html);
    if (!form) throw new Error(`no form ${action} in page: ${page.html.slice(0, 500)}`);
    const body = new URLSearchParams();
    for (const m of form[1].matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)"/g))
      body.set(m[1], decodeHtml(m[2]));
    for (const [k, v] of Object.entries(fields)) body.set(k, v);
    return this.go(action, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body });
  }

  /** Full password login from an authorization URL; returns the URL the browser lands on at the client. */
  async login(authUrl: string, loginName: string, password: string): Promise<string> {
    let page = await this.go(authUrl);
    if (page.url.includes('/ui/login/login')) page = await this.submit(page, '/ui/login/login', { loginName });
    if (page.url.includes('/ui/login/password')) page = await this.submit(page, '/ui/login/password', { password });
    if (!page.url.startsWith('https://rp.example.com') && !page.url.startsWith('http://127.0.0.1:1')) {
      throw new Error(`login did not reach the client: ${page.url} ${page.res.status} ${page.html.slice(0, 300)}`);
    }
    return page.url;
  }
}

export function decodeHtml(s: string): string {
  return s
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');
}
