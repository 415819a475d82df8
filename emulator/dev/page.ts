import type { Router } from '../http/router.js';
import { html } from '../http/types.js';

/** `GET /emulator`: a small human page listing projects, users and the mailbox. */
export function registerDevPage(router: Router): void {
  router.add('GET', '/emulator', (req) => {
    const projects = req.env.store.projects();
    const rows = projects.map((p) => `<li>${escape(p.display_name)} <code>${escape(p.id)}</code> — ${Object.keys(p.users).length} users</li>`).join('');
    const mail = req.env.mailbox
      .list()
      .slice(-50)
      .reverse()
      .map((m) => `<li><b>${escape(m.to)}</b>: ${escape(m.subject)}${m.link ? ` — <a href="${escape(m.link)}">${escape(m.link)}</a>` : ''}</li>`)
      .join('');
    return html(`<!doctype html><meta charset="utf-8"><title>authbroker emulator</title><h1>authbroker emulator</h1><h2>Projects</h2><ul>${rows}</ul><h2>Mailbox</h2><ul>${mail || '<li>empty</li>'}</ul>`);
  });
}

export function escape(value: string): string {
  return value.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
