import { isTrustedRedirectUrl } from '../../protocol/validation.js';
import { errorReply } from '../server.js';
import type { Router } from '../http/router.js';
import { html, type ApiRequest, type Reply } from '../http/types.js';
import { purchaseDetails } from '../routes/purchases.js';
import { trustPolicy } from '../routes/password.js';
import type { PriceConfig } from '../state/paymentsModel.js';
import { completeTestModePurchase, findPurchaseCode } from '../state/purchaseCodes.js';
import { escape } from './page.js';

/**
 * The checkout page of a purchase URL (`/emulator/purchase/{code}`), where the service has its dashboard's: the
 * product and its prices, and, the project's payments being in test mode, one button that completes the purchase
 * without payment (what the service's page calls "bypass with test mode") and goes back to the app's return URL.
 * Plain HTML, no script; it posts only to itself.
 */
const STYLE = `body{font:15px/1.5 system-ui,sans-serif;max-width:34rem;margin:3rem auto;padding:0 1rem;color:#1d232b}
.mode{background:#fff4d6;border:1px solid #e8c66a;border-radius:6px;padding:.5rem .8rem}
label{display:block;margin:.4rem 0}button{font:inherit;padding:.5rem 1rem;margin-top:1rem}.problem{color:#a11}`;

function priceLabel(id: string, price: PriceConfig): string {
  const amounts = Object.entries(price)
    .filter(([key, value]) => /^[A-Z]{3}$/.test(key) && typeof value === 'string')
    .map(([currency, amount]) => `${currency} ${String(amount)}`)
    .join(' / ');
  const every = price.interval === undefined ? 'once' : `every ${price.interval[0]} ${price.interval[1]}(s)`;
  return `${escape(amounts || id)} · ${every}`;
}

/** A trusted return URL of the code's project, or null (an untrusted one is never followed). */
function returnUrlOf(
  req: ApiRequest,
  field: string | undefined,
  projectTrusts: (url: string) => boolean,
): string | null {
  const value = field ?? req.query.return_url;
  return value !== undefined && URL.canParse(value) && projectTrusts(value) ? value : null;
}

function page(title: string, body: string, returnUrl: string | null, status = 200): Reply {
  const formTargets = returnUrl === null ? "'self'" : `'self' ${new URL(returnUrl).origin}`;
  return html(
    `<!doctype html><html lang="en"><meta charset="utf-8"><link rel="icon" href="data:,"><title>${escape(title)}</title><style>${STYLE}</style>${body}</html>`,
    status,
    {
      // A completed purchase redirects to the app (a form's redirect is held to form-action too).
      'content-security-policy': `default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action ${formTargets}`,
    },
  );
}

function checkout(req: ApiRequest, problem: string | null, status = 200): Reply {
  const fullCode = req.params.code ?? '';
  const { project, code } = findPurchaseCode(req.env.store, fullCode, req.now);
  const returnUrl = returnUrlOf(req, undefined, (url) => isTrustedRedirectUrl(url, trustPolicy(project)));
  const details = purchaseDetails(project, code, req.now);
  const prices = code.product.prices === 'include-by-default' ? {} : code.product.prices;
  const choices = Object.entries(prices)
    .map(
      ([id, price], i) =>
        `<label><input type="radio" name="price_id" value="${escape(id)}"${i === 0 ? ' checked' : ''}> ${priceLabel(id, price)}</label>`,
    )
    .join('');
  const quantity = code.product.stackable
    ? '<label>Quantity <input type="number" name="quantity" value="1" min="1" step="1"></label>'
    : '<input type="hidden" name="quantity" value="1">';
  const back = returnUrl === null ? '' : `<p><a href="${escape(returnUrl)}">Back without buying</a></p>`;
  const action = details.test_mode
    ? `<form method="post"><input type="hidden" name="return_url" value="${escape(returnUrl ?? '')}">${choices}${quantity}<button type="submit">Complete the test purchase (no payment)</button></form>`
    : "<p>This project's payments are not in test mode: the emulator takes no payments, so a purchase cannot complete here.</p>";
  const owned = details.already_bought_non_stackable
    ? '<p class="problem">The customer owns this product already.</p>'
    : '';
  return page(
    `Buy ${code.product.displayName}`,
    `<h1>${escape(code.product.displayName)}</h1><p class="mode">Test mode: ${escape(project.display_name)} on the authbroker emulator. Nothing is charged.</p>${owned}${problem === null ? '' : `<p class="problem">${escape(problem)}</p>`}${action}${back}`,
    returnUrl,
    status,
  );
}

function formOf(req: ApiRequest): Record<string, string | undefined> {
  return typeof req.body === 'object' && req.body !== null ? (req.body as Record<string, string | undefined>) : {};
}

function failure(req: ApiRequest, error: unknown): Reply {
  const reply = errorReply(error, req.env.log);
  const message =
    reply.kind === 'text' ? reply.body : reply.kind === 'json' ? String((reply.body as { error?: unknown }).error) : '';
  try {
    return checkout(req, message, reply.status);
  } catch {
    // The code itself is gone (used, expired, unknown): nothing left to show but why.
    return page(
      'Purchase',
      `<h1>This purchase link cannot be used</h1><p class="problem">${escape(message)}</p>`,
      null,
      reply.status,
    );
  }
}

export function registerCheckoutPage(router: Router): void {
  router.add('GET', '/emulator/purchase/:code', (req) => {
    try {
      return checkout(req, null);
    } catch (error) {
      return failure(req, error);
    }
  });
  router.add('POST', '/emulator/purchase/:code', (req) => {
    const form = formOf(req);
    try {
      const project = completeTestModePurchase(
        req.env.store,
        { fullCode: req.params.code ?? '', priceId: form.price_id ?? '', quantity: Number(form.quantity ?? '1') || 1 },
        req.now,
      );
      const returnUrl = returnUrlOf(req, form.return_url, (url) => isTrustedRedirectUrl(url, trustPolicy(project)));
      if (returnUrl !== null) return { kind: 'redirect', status: 303, location: returnUrl };
      return page('Purchase complete', '<h1>Purchase complete</h1><p>You may close this page.</p>', null);
    } catch (error) {
      return failure(req, error);
    }
  });
}
