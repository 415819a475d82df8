import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * What the real backend asks of Stripe while a project's payments run in test mode, answered on the port where its
 * development setup expects `stripe-mock` (a container upstream: `localhost:<prefix>23`, 8223 for the lane's prefix
 * 82, with `STACK_STRIPE_SECRET_KEY=sk_test_mockstripekey`). A test-mode purchase moves no money: Stripe only keeps the
 * bookkeeping around the purchase URL (a connected account for the project, a customer per buyer), so this stand-in
 * keeps accounts and customers in memory and answers those calls with objects of Stripe's shape. Any other call is a
 * 404 in Stripe's error form, so that a backend path needing real Stripe fails loudly rather than quietly.
 */
export interface RunningStripeStandIn {
  url: string;
  /** The calls it answered, as `METHOD /path` (for tests that want to see what the backend asked). */
  calls(): readonly string[];
  stop(): Promise<void>;
}

type StripeObject = Record<string, unknown>;

const newId = (prefix: string) => `${prefix}_${randomBytes(12).toString('hex')}`;

/** Stripe's form encoding (`metadata[customerId]=…`) read into an object one level deep. */
function formFields(body: string): Record<string, string | Record<string, string>> {
  const fields: Record<string, string | Record<string, string>> = {};
  for (const [key, value] of new URLSearchParams(body)) {
    const nested = /^(\w+)\[(\w+)\]$/.exec(key);
    if (nested === null) {
      fields[key] = value;
      continue;
    }
    const [, outer, inner] = nested as unknown as [string, string, string];
    const existing = fields[outer];
    const object = typeof existing === 'object' ? existing : {};
    object[inner] = value;
    fields[outer] = object;
  }
  return fields;
}

function send(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

function notFound(res: ServerResponse, what: string): void {
  send(res, 404, {
    error: { type: 'invalid_request_error', message: `The lane's Stripe stand-in does not serve ${what}.` },
  });
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** The customers whose metadata matches a search query of the form the backend sends: `metadata['customerId']:'…'`. */
function searchCustomers(customers: StripeObject[], query: string): StripeObject[] {
  const match = /^metadata\['(\w+)'\]:'([^']*)'$/.exec(query.trim());
  if (match === null) return [];
  const [, key, value] = match as unknown as [string, string, string];
  return customers.filter((c) => (c.metadata as Record<string, string>)[key] === value);
}

const list = (data: StripeObject[], url: string, object = 'list') => ({ object, data, has_more: false, url });

export async function startStripeStandIn(
  options: { port?: number; host?: string } = {},
): Promise<RunningStripeStandIn> {
  const accounts = new Map<string, StripeObject>();
  const customers: StripeObject[] = [];
  const answered: string[] = [];

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://stripe.invalid');
    const fields = formFields(await readBody(req));
    const route = `${req.method} ${url.pathname}`;
    answered.push(route);
    const metadata = (typeof fields.metadata === 'object' ? fields.metadata : {}) as Record<string, string>;
    let match: RegExpExecArray | null;
    if (route === 'POST /v1/accounts') {
      const account = {
        id: newId('acct'),
        object: 'account',
        type: 'custom',
        country: 'US',
        charges_enabled: true,
        details_submitted: true,
        payouts_enabled: true,
        metadata,
      };
      accounts.set(account.id, account);
      return send(res, 200, account);
    }
    if ((match = /^GET \/v1\/accounts\/([\w]+)$/.exec(route)) !== null) {
      const account = accounts.get(match[1]!);
      return account === undefined ? notFound(res, `the account ${match[1]}`) : send(res, 200, account);
    }
    if (route === 'POST /v1/account_links')
      return send(res, 200, {
        object: 'account_link',
        created: Math.floor(Date.now() / 1000),
        expires_at: Math.floor(Date.now() / 1000) + 300,
        url: `http://stripe.invalid/setup/${String(fields.account)}`,
      });
    if (route === 'POST /v1/customers') {
      const customer = { id: newId('cus'), object: 'customer', metadata, invoice_settings: {} };
      customers.push(customer);
      return send(res, 200, customer);
    }
    if (route === 'GET /v1/customers/search')
      return send(
        res,
        200,
        list(searchCustomers(customers, url.searchParams.get('query') ?? ''), url.pathname, 'search_result'),
      );
    if (route === 'GET /v1/customers') return send(res, 200, list(customers, url.pathname));
    if ((match = /^GET \/v1\/customers\/([\w]+)\/payment_methods$/.exec(route)) !== null)
      return send(res, 200, list([], url.pathname));
    if ((match = /^GET \/v1\/customers\/([\w]+)$/.exec(route)) !== null) {
      const customer = customers.find((c) => c.id === match![1]);
      return customer === undefined ? notFound(res, `the customer ${match[1]}`) : send(res, 200, customer);
    }
    return notFound(res, route);
  };

  const server: Server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => send(res, 500, { error: { message: String(error) } }));
  });
  const host = options.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 8223, host, resolve);
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${host}:${port}`,
    calls: () => answered,
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
