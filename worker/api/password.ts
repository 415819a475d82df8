import { requireNonEmptyString, requireString } from '../../protocol/args.js';
import * as endpoints from '../../protocol/endpoints/index.js';
import type { BrokerCore } from '../core.js';
import { requireInput } from './args.js';
import type { BrokerApi } from './types.js';

export function passwordMethods(core: BrokerCore): Pick<BrokerApi, 'sendPasswordResetEmail' | 'checkPasswordResetCode' | 'resetPassword' | 'updatePassword' | 'setPassword'> {
  const t = core.client;
  return {
    async sendPasswordResetEmail(input) {
      const i = requireInput(input, 'input', ['email', 'callbackUrl']);
      await endpoints.sendPasswordResetCode(t, { email: i.email as string, callback_url: i.callbackUrl as string });
    },
    async checkPasswordResetCode(code) {
      await endpoints.checkPasswordResetCode(t, requireNonEmptyString(code, 'code'));
    },
    async resetPassword(input) {
      const i = requireInput(input, 'input', ['code', 'password']);
      await endpoints.resetPassword(t, { code: requireNonEmptyString(i.code, 'code'), password: i.password as string });
    },
    async updatePassword(input) {
      const i = requireInput(input, 'input', ['oldPassword', 'newPassword']);
      await endpoints.updatePassword(t, { old_password: requireString(i.oldPassword, 'oldPassword'), new_password: i.newPassword as string });
      core.invalidate({ kind: 'sessions' });
    },
    async setPassword(input) {
      const i = requireInput(input, 'input', ['password']);
      await endpoints.setPassword(t, { password: i.password as string });
      core.invalidate({ kind: 'currentUser' });
    },
  };
}
