import type { BrokerApi } from '../../contract/api.js';
import { argumentRules, checkPlainData, parseArguments } from '../../contract/arguments.js';
import type { MethodName } from '../../contract/methods.js';

/**
 * The API a tab gets, in every host mode: each method first checks what it was sent (plain data,
 * then its own rules) and runs with the parsed copy. An object with no prototype and exactly the
 * contract's methods, so nothing inherited can be named.
 */
export function checkedApi(api: BrokerApi): BrokerApi {
  const checked = Object.create(null) as Record<string, (...args: unknown[]) => Promise<unknown>>;
  // Every method has argument rules (the compiler checks it), so their names are the methods: the
  // roles table in methods.ts stays out of the broker's bundle.
  for (const name of Object.keys(argumentRules) as MethodName[]) {
    const method = api[name] as (...args: unknown[]) => Promise<unknown>;
    // Not async: the method's own promise is the answer (one promise per call, not two).
    checked[name] = (...args: unknown[]) => {
      try {
        checkPlainData(name, args);
        return method(...(parseArguments(name, args) as unknown[]));
      } catch (error) {
        return Promise.reject(error);
      }
    };
  }
  return checked as unknown as BrokerApi;
}
