/**
 * The broker's side of its service methods (worker/api/). They load on the first call of one, where
 * the host can import() (a module SharedWorker, the page): until then a broker holds a stub per
 * method, and a broker whose tabs only read never downloads them. Where they load from is the
 * host's (`BrokerHostOptions.services`, worker/lazy/parts.ts).
 */
import { argumentRules } from '../../contract/arguments.js';
import type { ApiContext, PlumbingMethod, ServiceMethods } from '../api/context.js';
import type { createServices, LoadServices } from '../api/methods.js';
import { loadOnDemand } from './loadOnDemand.js';

/** The plumbing tabApi.ts serves itself; the compiler checks it names exactly PlumbingMethod. */
const PLUMBING: Record<PlumbingMethod, true> = {
  status: true,
  subscribe: true,
  unsubscribe: true,
  read: true,
  refetch: true,
  reportBrowserState: true,
  goodbye: true,
  watchLifetime: true,
  getAccessToken: true,
  configProblems: true,
};
/** Every method has argument rules, so their names are the methods. */
const SERVICE_METHODS = Object.keys(argumentRules).filter((name) => !(name in PLUMBING)) as Array<keyof ServiceMethods>;

type Method = (...args: unknown[]) => Promise<unknown>;

/**
 * The service methods for a context, each loading them on its first call: `servicesFor(context)`.
 * A load that fails fails that call with BROKER_UNAVAILABLE saying why; the next call tries again.
 */
export function lazyServices(loadServices: LoadServices): (context: ApiContext) => ServiceMethods {
  let create: typeof createServices | null = null;
  const loaded = loadOnDemand(loadServices, 'service methods');
  const load = () => loaded().then((module) => (create = module.createServices));
  return (context) => {
    let methods: Record<string, Method> | null = null;
    const made = (creator: typeof createServices) =>
      (methods ??= creator(context) as unknown as Record<string, Method>);
    const stubs: Record<string, Method> = {};
    for (const name of SERVICE_METHODS)
      stubs[name] = (...args) =>
        create !== null ? made(create)[name]!(...args) : load().then((creator) => made(creator)[name]!(...args));
    return stubs as unknown as ServiceMethods;
  };
}
